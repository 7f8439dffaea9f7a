# SPDX-License-Identifier: Apache-2.0 OR MIT
"""performer-pytorch's FAVOR+ formulas (performer_pytorch/performer_pytorch.py 1.1.x, MIT license),
ported to plain torch for the tests and benchmarks: performer-pytorch is not installable here (no
Debian package). softmax_kernel, linear_attention and causal_linear_attention_noncuda keep
Performer's expressions; eps is a parameter (Performer: 1e-4 in the kernel, 1e-6 in the causal
denominator) so that eps = 0 can be compared with posenc."""
import torch


def softmax_kernel(data, projection_matrix, is_query, normalize_data=True, eps=1e-4):
    data_normalizer = (data.shape[-1] ** -0.25) if normalize_data else 1.
    ratio = (projection_matrix.shape[0] ** -0.5)
    projection = projection_matrix.type_as(data)
    data_dash = torch.einsum('...id,jd->...ij', (data_normalizer * data), projection)
    diag_data = data ** 2
    diag_data = torch.sum(diag_data, dim=-1)
    diag_data = (diag_data / 2.0) * (data_normalizer ** 2)
    diag_data = diag_data.unsqueeze(dim=-1)
    if is_query:
        data_dash = ratio * (torch.exp(data_dash - diag_data - torch.amax(data_dash, dim=-1, keepdim=True).detach()) + eps)
    else:
        data_dash = ratio * (torch.exp(data_dash - diag_data - torch.amax(data_dash, dim=(-1, -2), keepdim=True).detach())
                             + eps)
    return data_dash.type_as(data)


def linear_attention(q, k, v):
    k_cumsum = k.sum(dim=-2)
    D_inv = 1. / torch.einsum('...nd,...d->...n', q, k_cumsum.type_as(q))
    context = torch.einsum('...nd,...ne->...de', k, v)
    out = torch.einsum('...de,...nd,...n->...ne', context, q, D_inv)
    return out


def causal_linear_attention_noncuda(q, k, v, chunk_size=128, eps=1e-6):
    last_k_cumsum = 0
    last_context_cumsum = 0
    outs = []
    for q, k, v in zip(*map(lambda t: t.chunk(chunk_size, dim=-2), (q, k, v))):
        k_cumsum = last_k_cumsum + k.cumsum(dim=-2)
        D_inv = 1. / torch.einsum('...nd,...nd->...n', q, k_cumsum.type_as(q) + eps)
        context = torch.einsum('...nd,...ne->...nde', k, v)
        context_cumsum = last_context_cumsum + context.cumsum(dim=-3)
        out = torch.einsum('...nde,...nd,...n->...ne', context_cumsum, q, D_inv)
        last_k_cumsum = k_cumsum[:, :, -1:]
        last_context_cumsum = context_cumsum[:, :, -1:]
        outs.append(out)
    return torch.cat(outs, dim=-2)


def fast_attention(q, k, v, projection_matrix, causal=False, eps=0.0):
    """FastAttention.forward (softmax kernel, no generalized attention) with both eps = `eps`."""
    q = softmax_kernel(q, projection_matrix, is_query=True, eps=eps)
    k = softmax_kernel(k, projection_matrix, is_query=False, eps=eps)
    if causal:
        return causal_linear_attention_noncuda(q, k, v, eps=eps)
    return linear_attention(q, k, v)


def generalized_kernel(data, projection_matrix, kernel_fn=torch.relu, kernel_epsilon=0.001, normalize_data=True):
    """performer_pytorch.py, generalized_kernel (FastAttention(generalized_attention=True))."""
    data_normalizer = (data.shape[-1] ** -0.25) if normalize_data else 1.
    if projection_matrix is None:
        return kernel_fn(data_normalizer * data) + kernel_epsilon
    projection = projection_matrix.type_as(data)
    data_dash = torch.einsum('...id,jd->...ij', (data_normalizer * data), projection)
    data_prime = kernel_fn(data_dash) + kernel_epsilon
    return data_prime.type_as(data)


def fast_attention_options(q, k, v, projection_matrix, causal=False, generalized_attention=False,
                           kernel_fn=torch.relu, no_projection=False, eps=0.0):
    """FastAttention.forward of performer_pytorch.py with its no_projection / generalized_attention
    branches (no_projection first, as there); the causal denominator eps is a parameter."""
    if no_projection:
        q = q.softmax(dim=-1)
        k = torch.exp(k) if causal else k.softmax(dim=-2)
    elif generalized_attention:
        q, k = (generalized_kernel(t, projection_matrix, kernel_fn=kernel_fn) for t in (q, k))
    else:
        q = softmax_kernel(q, projection_matrix, is_query=True, eps=eps)
        k = softmax_kernel(k, projection_matrix, is_query=False, eps=eps)
    if causal:
        return causal_linear_attention_noncuda(q, k, v, eps=eps)
    return linear_attention(q, k, v)
