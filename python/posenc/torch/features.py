# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch.features — random-feature maps, linear / causal / softmax attention as torch ops
with autograd (backward from posenc_rf_features_backward_f32, posenc_linear_attention_backward_f32,
posenc_softmax_attention_backward_f32), and `FastAttention` (Performer's FAVOR+ module)."""
from __future__ import annotations

import math

import torch
from torch.autograd.function import once_differentiable

from .._lib import ArgumentError
from ..features import RfKind, RfSampling, RfShift
from ._common import cfn, check, contiguous_c, huge_page_hint, tensor

_F32 = (torch.float32,)
_WHAT = "the features family of the posenc C ABI is float32 (cast with .float())"
_KINDS = {"trig": RfKind.TRIG, "positive": RfKind.POSITIVE, "hyperbolic": RfKind.HYPERBOLIC,
          "gaussian_positive": RfKind.GAUSSIAN_POSITIVE, "elu_plus_one": RfKind.ELU_PLUS_ONE, "relu": RfKind.RELU}
_SHIFTS = {"overflow": RfShift.OVERFLOW, "row_max": RfShift.ROW_MAX, "shared_max": RfShift.SHARED_MAX}
_SAMPLINGS = {"iid": RfSampling.IID, "orthogonal": RfSampling.ORTHOGONAL, "qmc": RfSampling.QMC,
              "pff": RfSampling.PFF}


def _enum(v, table, enum_t, name):
    if isinstance(v, str):
        e = table.get(v)
        if e is None:
            raise ArgumentError(f"{name} must be one of {', '.join(table)} or a posenc.{enum_t.__name__} (got {v!r})")
        return e
    try:
        return enum_t(int(v))
    except ValueError:
        raise ArgumentError(f"{name} must be one of {', '.join(table)} or a posenc.{enum_t.__name__} (got {v!r})") from None


def _ptr(t):
    return None if t is None else t.data_ptr()


def rf_sample(d, m, sampling="orthogonal", sigma=1.0, seed=0):
    """posenc_rf_sample_f32 -> omega float32 [m, d] (a plain tensor: pass it to rf_features, or
    make it an nn.Parameter to learn it). sampling: 'iid', 'orthogonal' (Performer's
    gaussian_orthogonal_random_matrix with scaling=0), 'qmc', 'pff' or a posenc.RfSampling;
    deterministic in (sampling, d, m, sigma, seed)."""
    s = _enum(sampling, _SAMPLINGS, RfSampling, "sampling")
    out = torch.empty((max(int(m), 0), max(int(d), 0)), dtype=torch.float32)
    check(cfn("posenc_rf_sample_f32")(int(s), int(d), int(m), float(sigma), int(seed) & (2**64 - 1), out.data_ptr()))
    return out


def _nfeat(kind, m):
    return 2 * m if kind in (RfKind.TRIG, RfKind.HYPERBOLIC) else m


def _groups(x2, shift, group_rows):
    """Row ranges of the C calls: one call over all rows, or one per group of `group_rows` rows
    (SHARED_MAX shares its constant within a group)."""
    n = x2.shape[0]
    if shift != RfShift.SHARED_MAX or group_rows >= n or group_rows <= 0:
        return [(0, n)]
    return [(s, s + group_rows) for s in range(0, n, group_rows)]


def _features_fwd(x2, omega, weights, kind, shift, group_rows):
    m, d = omega.shape
    out = huge_page_hint(torch.empty((x2.shape[0], _nfeat(kind, m)), dtype=torch.float32))
    f = cfn("posenc_rf_features_f32")
    groups = _groups(x2, shift, group_rows)
    if len(groups) == 1:  # one call over all rows: no slicing views
        st = f(int(kind), int(shift), omega.data_ptr(), m, d, _ptr(weights), x2.data_ptr(), x2.shape[0], out.data_ptr())
        if st:
            check(st)
        return out
    for a, b in groups:
        check(f(int(kind), int(shift), omega.data_ptr(), m, d, _ptr(weights), x2[a:b].data_ptr(), b - a,
                out[a:b].data_ptr()))
    return out


class _RfFeatures(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x2, omega, weights, kind, shift, group_rows):
        ctx.save_for_backward(x2, omega, weights)
        ctx.args = (kind, shift, group_rows)
        return _features_fwd(x2, omega, weights, kind, shift, group_rows)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x2, omega, weights = ctx.saved_tensors
        kind, shift, group_rows = ctx.args
        need_x, need_o, need_w = ctx.needs_input_grad[:3]
        m, d = omega.shape
        g = contiguous_c(grad_out)
        gx = huge_page_hint(torch.empty_like(x2)) if need_x else None
        groups = _groups(x2, shift, group_rows)
        f = cfn("posenc_rf_features_backward_f32")
        if len(groups) == 1:  # one call over all rows (it writes grad_weights / grad_omega): no views
            gw = torch.empty(m, dtype=torch.float32) if need_w else None
            go = torch.empty((m, d), dtype=torch.float32) if need_o else None
            check(f(int(kind), int(shift), omega.data_ptr(), m, d, _ptr(weights), x2.data_ptr(), x2.shape[0],
                    g.data_ptr(), _ptr(gx), _ptr(gw), _ptr(go)))
            return gx, go, gw, None, None, None
        gw = torch.zeros(m, dtype=torch.float32) if need_w else None
        go = torch.zeros(m, d, dtype=torch.float32) if need_o else None
        # per-group partial sums of grad_weights / grad_omega, added in group order (deterministic)
        pw = torch.empty(m, dtype=torch.float32) if need_w and len(groups) > 1 else gw
        po = torch.empty(m, d, dtype=torch.float32) if need_o and len(groups) > 1 else go
        for a, b in groups:
            check(f(int(kind), int(shift), omega.data_ptr(), m, d, _ptr(weights), x2[a:b].data_ptr(), b - a,
                    g[a:b].data_ptr(), gx[a:b].data_ptr() if need_x else None, _ptr(pw), _ptr(po)))
            if len(groups) > 1:
                if need_w:
                    gw += pw
                if need_o:
                    go += po
        return gx, go, gw, None, None, None


def rf_features(x, omega, weights=None, kind="positive", shift="overflow"):
    """Random-feature map phi(x) (posenc_rf_features_f32): x float32 [..., d], omega float32 [m, d]
    -> float32 [..., F], F = m (positive, gaussian_positive, elu_plus_one, relu) or 2m (trig,
    hyperbolic); formulas in posenc.h (posenc_rf_kind). weights: None or float32 [m] >= 0, WPFF's per-feature diagonal.
    shift: 'overflow' (the exact map, guarded against overflow), 'row_max' (Performer's query
    stabilization), 'shared_max' (Performer's key stabilization: one constant per sequence —
    shared over the rows of x[..., :, :] for each leading index, i.e. per (batch, head) as
    performer-pytorch's amax over (-1, -2); over all rows for a 2-D x).

    Autograd w.r.t. x, omega and weights (whichever require grad) by
    posenc_rf_features_backward_f32; the shift is a constant (as Performer's detached max).
    Not twice differentiable. float32 only (no float64 features in the C ABI): the tests compare
    with torch autograd of the float64 formula."""
    k = _enum(kind, _KINDS, RfKind, "kind")
    s = _enum(shift, _SHIFTS, RfShift, "shift")
    tensor(x, "x", _F32, _WHAT)
    tensor(omega, "omega", _F32, _WHAT)
    if omega.dim() != 2:
        raise ArgumentError(f"omega must have shape (m, d) (got {tuple(omega.shape)})")
    m, d = omega.shape
    if x.dim() < 1 or x.shape[-1] != d:
        raise ArgumentError(f"x must have shape (..., d) with d = omega.shape[1] = {d} (got {tuple(x.shape)})")
    if weights is not None:
        tensor(weights, "weights", _F32, _WHAT)
        if tuple(weights.shape) != (m,):
            raise ArgumentError(f"weights must have shape (m,) = ({m},) (got {tuple(weights.shape)})")
        weights = contiguous_c(weights)
    flat = x.dim() == 2  # [n, d]: no reshape (view) on either side
    group_rows = x.shape[-2] if not flat and x.dim() >= 3 else 0
    x2 = contiguous_c(x)
    if not flat:
        x2 = x2.reshape(-1, d)
    omega = contiguous_c(omega)
    if torch.is_grad_enabled() and (x.requires_grad or omega.requires_grad or
                                    (weights is not None and weights.requires_grad)):
        out = _RfFeatures.apply(x2, omega, weights, k, s, group_rows)
    else:
        out = _features_fwd(x2, omega, weights, k, s, group_rows)
    return out if flat else out.reshape(tuple(x.shape[:-1]) + (_nfeat(k, m),))


def _attn_shapes(a, b, v, names, same_last):
    for t, nm in zip((a, b, v), names):
        tensor(t, nm, _F32, _WHAT)
    if a.dim() < 2 or a.shape != b.shape or v.dim() != a.dim() or v.shape[:-1] != a.shape[:-1]:
        raise ArgumentError(f"{names[0]}, {names[1]} must have the same shape (..., n, {same_last}) and {names[2]} "
                            f"(..., n, dv) with the same leading dims (got {tuple(a.shape)}, {tuple(b.shape)}, "
                            f"{tuple(v.shape)})")


def _nheads(t):
    """The number of independent problems of a [..., n, c] tensor (the product of its leading dims)."""
    h = 1
    for x in t.shape[:-2]:
        h *= x
    return h


def _attn_fwd(name, a, b, v, causal, param):
    """One C call per head of C-contiguous [..., n, F] a, b and [..., n, dv] v (the leading dims
    flattened into heads): head h of each at data_ptr() + h * (its head's bytes), no reshapes or
    per-head views; the output [..., n, dv] is allocated in its final shape."""
    n, F = a.shape[-2], a.shape[-1]
    dv = v.shape[-1]
    out = huge_page_hint(torch.empty(v.shape, dtype=torch.float32))
    f = cfn(name)
    pa, pb, pv, po = a.data_ptr(), b.data_ptr(), v.data_ptr(), out.data_ptr()
    sa, sv = 4 * n * F, 4 * n * dv
    for h in range(_nheads(a)):
        st = f(pa + h * sa, pb + h * sa, pv + h * sv, n, F, dv, causal, param, po + h * sv)
        if st:
            check(st)
    return out


def _attn_bwd(name, a, b, v, causal, param, grad_out):
    g = contiguous_c(grad_out)
    ga, gb, gv = (huge_page_hint(torch.empty_like(t)) for t in (a, b, v))
    n, F = a.shape[-2], a.shape[-1]
    dv = v.shape[-1]
    f = cfn(name)
    pa, pb, pv, pg = a.data_ptr(), b.data_ptr(), v.data_ptr(), g.data_ptr()
    qa, qb, qv = ga.data_ptr(), gb.data_ptr(), gv.data_ptr()
    sa, sv = 4 * n * F, 4 * n * dv
    for h in range(_nheads(a)):
        st = f(pa + h * sa, pb + h * sa, pv + h * sv, n, F, dv, causal, param, pg + h * sv, qa + h * sa, qb + h * sa,
               qv + h * sv)
        if st:
            check(st)
    return ga, gb, gv


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, v, names, causal, param):
        ctx.save_for_backward(a, b, v)
        ctx.args = (names[1], causal, param)
        return _attn_fwd(names[0], a, b, v, causal, param)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        a, b, v = ctx.saved_tensors
        name, causal, param = ctx.args
        ga, gb, gv = _attn_bwd(name, a, b, v, causal, param, grad_out)
        return ga, gb, gv, None, None, None


_LIN = ("posenc_linear_attention_f32", "posenc_linear_attention_backward_f32")
_SMX = ("posenc_softmax_attention_f32", "posenc_softmax_attention_backward_f32")


def _attention(names, a, b, v, causal, param):
    A, B, V = contiguous_c(a), contiguous_c(b), contiguous_c(v)
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad or v.requires_grad):
        return _Attention.apply(A, B, V, names, int(bool(causal)), param)
    return _attn_fwd(names[0], A, B, V, int(bool(causal)), param)


def linear_attention(phi_q, phi_k, v, causal=False, eps=1e-6):
    """Kernelized linear attention (posenc_linear_attention_f32): phi_q, phi_k float32 [..., n, F],
    v float32 [..., n, dv] -> [..., n, dv], out_i = phi_q_i^T S / (phi_q_i . z + eps) with
    S = sum_j phi_k_j v_j^T, z = sum_j phi_k_j over all j (causal=False) or j <= i (causal=True).
    Leading dims (batch, heads) are independent problems (one C call each). eps: 1e-6
    (fast-transformers); pass 0 for FAVOR+ features from rf_features(shift='row_max' /
    'shared_max'). Autograd: posenc_linear_attention_backward_f32 for all three inputs."""
    _attn_shapes(phi_q, phi_k, v, ("phi_q", "phi_k", "v"), "F")
    eps = float(eps)
    if not (eps >= 0 and math.isfinite(eps)):
        raise ArgumentError(f"eps must be finite and >= 0 (got {eps})")
    return _attention(_LIN, phi_q, phi_k, v, causal, eps)


def softmax_attention(q, k, v, causal=False, scale=None):
    """Exact softmax attention softmax(scale q k^T) v (posenc_softmax_attention_f32, streaming,
    O(n) memory): q, k float32 [..., n, d], v [..., n, dv] -> [..., n, dv]; scale defaults to
    1/sqrt(d); causal masks j > i. Autograd: posenc_softmax_attention_backward_f32 (FlashAttention-2
    recomputation) for q, k and v."""
    _attn_shapes(q, k, v, ("q", "k", "v"), "d")
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    if not math.isfinite(s):
        raise ArgumentError(f"scale must be finite (got {s})")
    return _attention(_SMX, q, k, v, causal, s)


def _is_relu(fn):
    return fn is None or (isinstance(fn, str) and fn == "relu") or type(fn) is torch.nn.ReLU or fn is torch.relu \
        or fn is torch.nn.functional.relu


class FastAttention(torch.nn.Module):
    """Performer's FAVOR+ attention (performer-pytorch's ``FastAttention``) on posenc's kernels:
    forward(q, k, v) with q, k [batch, heads, n, dim_heads], v [batch, heads, n, dv] float32 ->
    [batch, heads, n, dv]. With c = d^-1/4 (performer's data_normalizer) and omega =
    projection_matrix:

    - softmax kernel (the default):

        phi_q = rf_features(q * c, omega, kind, shift='row_max')
        phi_k = rf_features(k * c, omega, kind, shift='shared_max')   # per (batch, head)

      which is performer-pytorch's softmax_kernel with its eps set to 0, on the same omega: the
      query and key shifts differ from Performer's by factors that cancel exactly between
      numerator and denominator (posenc.h, posenc_rf_shift);
    - ``generalized_attention=True`` (performer-pytorch's generalized_kernel):
      phi = kernel_fn((x * c) omega^T) + kernel_epsilon for x = q and k. kernel_fn ReLU (the
      default, ``torch.nn.ReLU()``, ``torch.relu`` or 'relu') is posenc's RELU feature map
      (rf_features kind 'relu', backward in the C ABI); any other callable is applied by torch
      to the torch product (x * c) @ omega.T. kernel_epsilon (default 0.001, Performer's) is added
      by torch;
    - ``no_projection=True`` (takes precedence, as in performer-pytorch): phi_q = softmax of q over
      its feature (last) dim, phi_k = softmax of k over the sequence (causal: exp(k)), both torch
      ops (posenc has no softmax feature map); omega is unused;

    then ``out = linear_attention(phi_q, phi_k, v, causal, eps=0)`` (posenc's, forward and
    backward): performer-pytorch's linear_attention / causal_linear_attention_noncuda, the latter
    with its denominator eps (1e-6, added to the key cumsum) set to 0.

    dim_heads: d; nb_features: m (default int(d ln d), Performer's); kind (softmax kernel only):
    'positive' (FAVOR+, Performer's softmax kernel), 'hyperbolic' (FAVOR+ with exp(+-w.x), 2m
    features) or 'gaussian_positive' (DiJiang PFF's Gaussian kernel); sampling: 'orthogonal'
    (Performer's gaussian_orthogonal_random_matrix, scaling 0), 'iid', 'qmc' or 'pff'; seed: of
    the first draw (None: drawn from torch's generator, so torch.manual_seed fixes it).
    ``projection_matrix`` (float32 [m, d] buffer) holds omega; ``redraw_projection_matrix()``
    draws a new one (next seed), and with ``redraw_interval=N`` every N-th forward call in
    training mode redraws first (performer-pytorch's feature_redraw_interval). Gradients flow to
    q, k and v (posenc's backward functions, and torch autograd through the torch ops named
    above)."""

    def __init__(self, dim_heads, nb_features=None, causal=False, kind="positive", sampling="orthogonal", seed=None,
                 redraw_interval=None, sigma=1.0, generalized_attention=False, kernel_fn=None, kernel_epsilon=0.001,
                 no_projection=False):
        super().__init__()
        self.dim_heads = int(dim_heads)
        self.nb_features = int(nb_features) if nb_features is not None else int(self.dim_heads * math.log(self.dim_heads))
        self.causal = bool(causal)
        self.kind = _enum(kind, _KINDS, RfKind, "kind")
        if self.kind in (RfKind.TRIG, RfKind.ELU_PLUS_ONE, RfKind.RELU):
            raise ArgumentError(f"kind {self.kind.name.lower()!r} is not a softmax-kernel feature map (trig has signed "
                                f"features whose denominators can vanish); FastAttention takes 'positive', "
                                f"'hyperbolic' or 'gaussian_positive' (for ReLU features: generalized_attention=True)")
        self.sampling = _enum(sampling, _SAMPLINGS, RfSampling, "sampling")
        self.sigma = float(sigma)
        self.generalized_attention = bool(generalized_attention)
        self.no_projection = bool(no_projection)
        if kernel_fn is not None and not callable(kernel_fn) and kernel_fn != "relu":
            raise ArgumentError(f"kernel_fn must be a callable (e.g. torch.nn.ReLU()) or 'relu' (got {kernel_fn!r})")
        self.kernel_fn = torch.nn.ReLU() if kernel_fn is None or kernel_fn == "relu" else kernel_fn
        self.kernel_epsilon = float(kernel_epsilon)
        if not math.isfinite(self.kernel_epsilon):
            raise ArgumentError(f"kernel_epsilon must be finite (got {kernel_epsilon})")
        self.seed = int(torch.randint(0, 2**62, ()).item()) if seed is None else int(seed)
        self.redraw_interval = redraw_interval
        self.calls_since_redraw = 0
        self.register_buffer("projection_matrix", rf_sample(self.dim_heads, self.nb_features, self.sampling,
                                                            self.sigma, self.seed))

    @torch.no_grad()
    def redraw_projection_matrix(self):
        """A new omega (seed + 1), written into projection_matrix in place."""
        self.seed += 1
        self.projection_matrix.copy_(rf_sample(self.dim_heads, self.nb_features, self.sampling, self.sigma,
                                               self.seed))
        self.calls_since_redraw = 0

    def _generalized(self, x, c, om):
        if _is_relu(self.kernel_fn):
            phi = rf_features(x * c, om, kind=RfKind.RELU)
        else:
            phi = self.kernel_fn((x * c) @ om.t())
        return phi + self.kernel_epsilon if self.kernel_epsilon != 0 else phi

    def forward(self, q, k, v):
        if self.training and self.redraw_interval:
            if self.calls_since_redraw >= int(self.redraw_interval):
                self.redraw_projection_matrix()
            self.calls_since_redraw += 1
        if q.dim() < 2 or q.shape[-1] != self.dim_heads:
            raise ArgumentError(f"q must have shape (..., n, dim_heads = {self.dim_heads}) (got {tuple(q.shape)})")
        if self.no_projection:
            phi_q = q.softmax(dim=-1)
            phi_k = torch.exp(k) if self.causal else k.softmax(dim=-2)
        else:
            c = self.dim_heads ** -0.25
            om = self.projection_matrix
            if self.generalized_attention:
                phi_q, phi_k = self._generalized(q, c, om), self._generalized(k, c, om)
            else:
                phi_q = rf_features(q * c, om, kind=self.kind, shift=RfShift.ROW_MAX)
                phi_k = rf_features(k * c, om, kind=self.kind, shift=RfShift.SHARED_MAX)
        return linear_attention(phi_q, phi_k, v, causal=self.causal, eps=0.0)

    def extra_repr(self):
        if self.no_projection:
            feat = "no_projection=True"
        elif self.generalized_attention:
            feat = f"generalized_attention=True, kernel_fn={self.kernel_fn}, kernel_epsilon={self.kernel_epsilon}"
        else:
            feat = f"kind={self.kind.name.lower()}"
        return (f"dim_heads={self.dim_heads}, nb_features={self.nb_features}, causal={self.causal}, {feat}, "
                f"sampling={self.sampling.name.lower()}")


__all__ = ["rf_sample", "rf_features", "linear_attention", "softmax_attention", "FastAttention"]
