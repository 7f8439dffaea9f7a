// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_verbose.cpp — verbose mode (posenc_verbose_set / POSENC_VERBOSE) and the call
// record: one parsed line per call of EVERY function declared in posenc.h (the list is read from
// the header, so a new function without a case here fails), path names from the documented set
// (read from docs/PROFILING.md), nothing at level 0, errors only at level 1.
#include "tests/test_common.hpp"

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using posenc_test::IsaTest;

const int32_t kInitialLevel = posenc_verbose_get();  // before any test changes it

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Every function posenc.h declares (include/posenc/*.h): name -> true if it returns posenc_status.
std::map<std::string, bool> header_functions() {
  const std::string h = posenc_test::c_header_text(std::string(POSENC_SOURCE_DIR) + "/include/posenc");
  std::map<std::string, bool> out;
  const std::regex decl(R"(POSENC_API\s+([A-Za-z_][A-Za-z_0-9 \*]*?)\s*\b(posenc_[a-z_0-9]+)\s*\()");
  for (auto it = std::sregex_iterator(h.begin(), h.end(), decl); it != std::sregex_iterator(); ++it)
    out[(*it)[2].str()] = (*it)[1].str() == "posenc_status";
  return out;
}

/// docs/PROFILING.md's path table: function -> the path names it may print.
std::map<std::string, std::set<std::string>> documented_paths() {
  std::istringstream doc(read_text(std::string(POSENC_SOURCE_DIR) + "/docs/PROFILING.md"));
  std::map<std::string, std::set<std::string>> out;
  const std::regex row(R"(^\|\s*(`(posenc_[a-z_0-9]+)`)?\s*\|\s*`([a-z_0-9.]+)`\s*\|)");
  std::string line, fn;
  std::smatch m;
  while (std::getline(doc, line)) {
    if (!std::regex_search(line, m, row)) {
      if (line.rfind('|', 0) != 0) fn.clear();  // a table ends
      continue;
    }
    if (m[2].matched) fn = m[2].str();
    if (!fn.empty()) out[fn].insert(m[3].str());
  }
  return out;
}

/// Functions that do not return a status are queries and are never logged; neither is
/// posenc_last_call_info (it reads the record of the previous call).
const std::set<std::string> kNotLogged = {
    "posenc_status_string", "posenc_last_error_message", "posenc_version",  "posenc_version_string",
    "posenc_isa_available", "posenc_isa_active",         "posenc_isa_name", "posenc_threads_get",
    "posenc_verbose_get",   "posenc_last_call_info", "posenc_rope_plan_destroy"};

/// Collects verbose lines through the callback for the lifetime of the object.
struct Capture;
Capture* g_capture = nullptr;  // the live Capture (the callback_set case re-installs it)

struct Capture {
  std::mutex mu;
  std::vector<std::string> lines;
  static void cb(const char* line, void* user) {
    auto* c = static_cast<Capture*>(user);
    std::lock_guard<std::mutex> lock(c->mu);
    c->lines.emplace_back(line);
  }
  explicit Capture(int32_t level) {
    g_capture = this;
    EXPECT_EQ(posenc_verbose_callback_set(&Capture::cb, this), POSENC_OK);
    EXPECT_EQ(posenc_verbose_set(level), POSENC_OK);
    clear();
  }
  ~Capture() {
    posenc_verbose_set(0);
    posenc_verbose_callback_set(nullptr, nullptr);
    g_capture = nullptr;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu);
    lines.clear();
  }
  std::vector<std::string> kind(const std::string& k) {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::string> out;
    for (const auto& l : lines)
      if (l.rfind("posenc_verbose," + k + ",", 0) == 0) out.push_back(l);
    return out;
  }
};

std::vector<std::string> split(const std::string& s, char sep, size_t max_fields = 0) {
  std::vector<std::string> out;
  size_t a = 0;
  while (true) {
    const size_t b = s.find(sep, a);
    if (b == std::string::npos || (max_fields && out.size() + 1 == max_fields)) {
      out.push_back(s.substr(a));
      return out;
    }
    out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
}

/// One successful call of a function with small valid arguments (and what undoes it, if needed).
struct Case {
  std::function<posenc_status()> call;
  std::function<void()> undo;
};

// Small inputs shared by the cases.
struct Inputs {
  posenc_rope_params p{};
  std::vector<int64_t> pos{0, 1, 2, 3};
  std::vector<float> f32 = std::vector<float>(4096, 0.25f), f32b = std::vector<float>(4096, 0.5f),
                     f32c = std::vector<float>(4096, 0.0f);
  std::vector<double> f64 = std::vector<double>(4096, 0.5), f64b = std::vector<double>(4096, 0.0);
  std::vector<uint16_t> bf = std::vector<uint16_t>(256, 0x3f80);
  std::vector<double> xyz{1, 0, 0, 0, 1, 0, 0, 0, 1, 0.6, 0, 0.8}, xyz_f64_out = std::vector<double>(4096);
  std::vector<float> xyzf{1, 0, 0, 0, 1, 0, 0, 0, 1, 0.6f, 0, 0.8f};
  std::vector<double> rot{1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::vector<int64_t> src{0, 1, 2, 3}, dst{1, 2, 3, 4};
  std::vector<int64_t> node_ptr{0, 5}, edge_ptr{0, 4}, pairs = std::vector<int64_t>(64);
  std::vector<int32_t> i32 = std::vector<int32_t>(64);
  int64_t num_pairs = 0;
  posenc_laplacian_pe_info info{};
  posenc_rwse_info rinfo{};
  posenc_call_info ci{};
  posenc_roofline rl{};
  std::string trace_path;
  posenc_rope_plan* plan = nullptr;      // made from p by the constructor
  posenc_rope_plan* made = nullptr;      // what the plan_create case makes (its undo destroys it)
  posenc_rope_operand qop{}, kop{};      // [1, 4, 2, 8] and [1, 4, 1, 8] float32 operands
  posenc_rope_operand qout{}, kout{};    // outputs of the same shapes (posenc_rope_plan_apply_out)
  Inputs() {
    posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 8, 1e4);
    posenc_rope_plan_create(&p, &plan);
    qop = {f32c.data(), 2, 0, 0, 0};
    kop = {f32c.data() + 256, 1, 0, 0, 0};
    qout = {f32c.data() + 512, 2, 0, 0, 0};
    kout = {f32c.data() + 768, 1, 0, 0, 0};
    posenc_laplacian_pe_info_init(&info);
    posenc_rwse_info_init(&rinfo);
    posenc_call_info_init(&ci);
    posenc_roofline_init(&rl);
    trace_path = ::testing::TempDir() + "posenc_verbose_case_trace.json";
  }
  ~Inputs() { posenc_rope_plan_destroy(plan); }
  Inputs(const Inputs&) = delete;
  Inputs& operator=(const Inputs&) = delete;
};

std::map<std::string, Case> make_cases(Inputs& in, posenc_isa isa) {
  Inputs* I = &in;
  float* a = in.f32.data();
  float* b = in.f32b.data();
  float* o = in.f32c.data();
  double* d = in.f64.data();
  double* od = in.f64b.data();
  const int64_t* pos = in.pos.data();
  const posenc_rope_params* p = &in.p;
  std::map<std::string, Case> c;
  // runtime and profiling
  c["posenc_isa_set"] = {[=] { return posenc_isa_set(isa); }, {}};
  c["posenc_threads_set"] = {[] { return posenc_threads_set(posenc_threads_get()); }, {}};
  c["posenc_verbose_set"] = {[] { return posenc_verbose_set(2); }, {}};
  c["posenc_verbose_callback_set"] = {[] { return posenc_verbose_callback_set(&Capture::cb, g_capture); }, {}};
  c["posenc_call_info_init"] = {[=] { return posenc_call_info_init(&I->ci); }, {}};
  c["posenc_roofline_init"] = {[=] { return posenc_roofline_init(&I->rl); }, {}};
  c["posenc_roofline_measure"] = {[=] { return posenc_roofline_measure(POSENC_ISA_AUTO, 1, &I->rl); }, {}};
  c["posenc_trace_start"] = {[=] { return posenc_trace_start(I->trace_path.c_str()); }, [] { posenc_trace_stop(); }};
  c["posenc_trace_stop"] = {[] { return posenc_trace_stop(); }, {}};
  // rope
  c["posenc_sinusoidal_f32"] = {[=] { return posenc_sinusoidal_f32(nullptr, 4, 8, 1e4, POSENC_SINUSOIDAL_INTERLEAVED, o); }, {}};
  c["posenc_rope_params_init"] = {[=] { return posenc_rope_params_init(&I->p, POSENC_ROPE_DEFAULT, 8, 1e4); }, {}};
  c["posenc_rope_inv_freq"] = {[=] { return posenc_rope_inv_freq(p, od, nullptr); }, {}};
  c["posenc_rope_cos_sin_f32"] = {[=] { return posenc_rope_cos_sin_f32(p, nullptr, 4, o, o + 64); }, {}};
  c["posenc_rope_apply_f32"] = {[=] { return posenc_rope_apply_f32(p, POSENC_ROPE_NEOX, pos, 4, 8, o, 2, 0, o + 256, 1, 0, 0); }, {}};
  c["posenc_rope_apply_cached_f32"] = {[=] {
    return posenc_rope_apply_cached_f32(a, b, 4, 8, POSENC_ROPE_INTERLEAVED, pos, 4, 8, o, 2, 0, nullptr, 0, 0, 0);
  }, {}};
  c["posenc_rope_apply_bf16"] = {[=] {
    return posenc_rope_apply_bf16(p, POSENC_ROPE_NEOX, pos, 4, 8, I->bf.data(), 2, 0, I->bf.data() + 64, 1, 0, 0);
  }, {}};
  c["posenc_rope_apply_f16"] = {[=] {
    return posenc_rope_apply_f16(p, POSENC_ROPE_NEOX, pos, 4, 8, I->bf.data(), 2, 0, I->bf.data() + 64, 1, 0, 0);
  }, {}};
  c["posenc_rope_apply_strided"] = {[=] {
    return posenc_rope_apply_strided(p, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos, 1, 1, 4, 8, &I->qop, &I->kop, 0);
  }, {}};
  c["posenc_rope_plan_create"] = {[=] { return posenc_rope_plan_create(p, &I->made); },
                                  [=] { posenc_rope_plan_destroy(I->made); I->made = nullptr; }};
  c["posenc_rope_plan_inv_freq"] = {[=] { return posenc_rope_plan_inv_freq(I->plan, od, nullptr); }, {}};
  c["posenc_rope_plan_apply"] = {[=] {
    return posenc_rope_plan_apply(I->plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos, 1, 1, 4, 8, &I->qop, &I->kop, 0);
  }, {}};
  c["posenc_rope_plan_apply_out"] = {[=] {
    return posenc_rope_plan_apply_out(I->plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos, 1, 1, 4, 8, &I->qop, &I->kop,
                                      &I->qout, &I->kout, 0);
  }, {}};
  c["posenc_rope_plan_rerotate"] = {[=] {
    return posenc_rope_plan_rerotate(I->plan, I->plan, POSENC_ROPE_F32, POSENC_ROPE_NEOX, pos, 1, 1, 4, 8, &I->qop,
                                     &I->kop);
  }, {}};
  c["posenc_rope_decay_f64"] = {[=] { return posenc_rope_decay_f64(d, 4, 0, 1, 8, od, nullptr); }, {}};
  // sphere
  c["posenc_legendre_f64"] = {[=] { return posenc_legendre_f64(POSENC_LEGENDRE_SPHARM, 3, 1, d, 4, od); }, {}};
  c["posenc_legendre_f32"] = {[=] { return posenc_legendre_f32(POSENC_LEGENDRE_SPHARM, 3, 1, a, 4, o); }, {}};
  c["posenc_legendre_poly_f64"] = {[=] { return posenc_legendre_poly_f64(3, d, 4, od); }, {}};
  c["posenc_sph_kernel_f64"] = {[=] { return posenc_sph_kernel_f64(3, d, d, 4, od); }, {}};
  c["posenc_sph_harm_real_f64"] = {[=] { return posenc_sph_harm_real_f64(3, I->xyz.data(), 4, od); }, {}};
  c["posenc_sph_harm_real_f32"] = {[=] { return posenc_sph_harm_real_f32(3, I->xyzf.data(), 4, o); }, {}};
  c["posenc_sph_harm_real_ex_f64"] = {[=] { return posenc_sph_harm_real_ex_f64(3, I->xyz.data(), 4, POSENC_SPH_SOLID, od); }, {}};
  c["posenc_sph_harm_real_ex_f32"] = {[=] { return posenc_sph_harm_real_ex_f32(3, I->xyzf.data(), 4, POSENC_SPH_SOLID, o); }, {}};
  c["posenc_sph_harm_real_grad_f64"] = {[=] { return posenc_sph_harm_real_grad_f64(3, I->xyz.data(), 4, 0u, od, od + 64, od + 256); }, {}};
  c["posenc_sph_harm_real_grad_f32"] = {[=] { return posenc_sph_harm_real_grad_f32(3, I->xyzf.data(), 4, 0u, nullptr, o, nullptr); }, {}};
  c["posenc_sph_harm_real_lonlat_f64"] = {[=] { return posenc_sph_harm_real_lonlat_f64(3, d, 4, od); }, {}};
  c["posenc_sph_harm_complex_f64"] = {[=] { return posenc_sph_harm_complex_f64(3, d, d, 4, od); }, {}};
  c["posenc_wigner_d_real_f64"] = {[=] { return posenc_wigner_d_real_f64(2, I->rot.data(), od); }, {}};
  c["posenc_sph_rotate_real_f64"] = {[=] { return posenc_sph_rotate_real_f64(2, I->rot.data(), d, 4, od); }, {}};
  // features
  c["posenc_rf_sample_f32"] = {[=] { return posenc_rf_sample_f32(POSENC_RF_IID, 4, 8, 1.0, 1, o); }, {}};
  c["posenc_rf_features_f32"] = {[=] { return posenc_rf_features_f32(POSENC_RF_TRIG, POSENC_RF_SHIFT_OVERFLOW, a, 8, 4, nullptr, b, 4, o); }, {}};
  c["posenc_linear_attention_f32"] = {[=] { return posenc_linear_attention_f32(a, b, a, 4, 8, 4, 0, 1e-6f, o); }, {}};
  c["posenc_rf_features_backward_f32"] = {[=] { return posenc_rf_features_backward_f32(POSENC_RF_TRIG, POSENC_RF_SHIFT_OVERFLOW, a, 8, 4, nullptr, b, 4, a, o, nullptr, nullptr); }, {}};
  c["posenc_linear_attention_backward_f32"] = {[=] { return posenc_linear_attention_backward_f32(a, b, a, 4, 8, 4, 0, 1e-6f, a, o, o + 32, o + 64); }, {}};
  c["posenc_softmax_attention_backward_f32"] = {[=] { return posenc_softmax_attention_backward_f32(a, b, a, 4, 4, 4, 0, 0.5f, a, o, o + 16, o + 32); }, {}};
  c["posenc_linear_attention_step_f32"] = {[=] { return posenc_linear_attention_step_f32(a, b, a, 8, 4, 1e-6f, o, o + 32, o + 40); }, {}};
  c["posenc_softmax_attention_f32"] = {[=] { return posenc_softmax_attention_f32(a, b, a, 4, 4, 4, 0, 0.5f, o); }, {}};
  c["posenc_rf_features_bf16"] = {[=] { return posenc_rf_features_bf16(POSENC_RF_TRIG, POSENC_RF_SHIFT_OVERFLOW, a, 8, 4, nullptr, reinterpret_cast<const uint16_t*>(b), 4, reinterpret_cast<uint16_t*>(o)); }, {}};
  c["posenc_linear_attention_bf16"] = {[=] { return posenc_linear_attention_bf16(reinterpret_cast<const uint16_t*>(a), reinterpret_cast<const uint16_t*>(b), reinterpret_cast<const uint16_t*>(a), 4, 8, 4, 0, 1e-6f, reinterpret_cast<uint16_t*>(o)); }, {}};
  // two heads of 2 rows, F = 8, dv = 4, contiguous
  c["posenc_linear_attention_mh_f32"] = {[=] { return posenc_linear_attention_mh_f32(1, 2, 2, 8, 4, a, nullptr, b, nullptr, a, nullptr, 0, 1e-6f, o, nullptr); }, {}};
  c["posenc_linear_attention_backward_mh_f32"] = {[=] { return posenc_linear_attention_backward_mh_f32(1, 2, 2, 8, 4, a, nullptr, b, nullptr, a, nullptr, 0, 1e-6f, a, nullptr, o, nullptr, o + 32, nullptr, o + 64, nullptr); }, {}};
  // graph (a path of 5 nodes)
  c["posenc_laplacian_pe_info_init"] = {[=] { return posenc_laplacian_pe_info_init(&I->info); }, {}};
  c["posenc_laplacian_pe_f64"] = {[=] {
    return posenc_laplacian_pe_f64(5, I->src.data(), I->dst.data(), nullptr, 4, POSENC_LAPLACIAN_SYM, 2, od, od + 8);
  }, {}};
  c["posenc_laplacian_pe_ex_f64"] = {[=] {
    return posenc_laplacian_pe_ex_f64(5, I->src.data(), I->dst.data(), nullptr, 4, POSENC_LAPLACIAN_SYM, 2, od, od + 8,
                                      &I->info);
  }, {}};
  c["posenc_rwse_f64"] = {[=] { return posenc_rwse_f64(5, I->src.data(), I->dst.data(), nullptr, 4, 3, od); }, {}};
  c["posenc_rwse_ex_f64"] = {[=] {
    return posenc_rwse_ex_f64(5, I->src.data(), I->dst.data(), nullptr, 4, 3, POSENC_GRAPH_KEEP_SELF_LOOPS, od);
  }, {}};
  c["posenc_rwse_info_init"] = {[=] { return posenc_rwse_info_init(&I->rinfo); }, {}};
  c["posenc_rwse_auto_f64"] = {[=] {
    I->rinfo.method = POSENC_RWSE_MONTE_CARLO;
    I->rinfo.walks = 8;
    return posenc_rwse_auto_f64(5, I->src.data(), I->dst.data(), nullptr, 4, 3, od, &I->rinfo);
  }, {}};
  c["posenc_maglap_pe_f64"] = {[=] {
    return posenc_maglap_pe_f64(5, I->src.data(), I->dst.data(), nullptr, 4, POSENC_LAPLACIAN_SYM, 0.25, 2, od, od + 8,
                                od + 24);
  }, {}};
  c["posenc_heat_kernel_apply_f64"] = {[=] {
    return posenc_heat_kernel_apply_f64(5, I->src.data(), I->dst.data(), nullptr, 4, POSENC_LAPLACIAN_SYM, 0.5, d, 2, od,
                                        nullptr);
  }, {}};
  c["posenc_graph_batch_pe_f64"] = {[=] {
    return posenc_graph_batch_pe_f64(1, I->node_ptr.data(), I->edge_ptr.data(), I->src.data(), I->dst.data(), nullptr,
                                     POSENC_LAPLACIAN_SYM, 2, 3, od, od + 8, od + 32, I->i32.data());
  }, {}};
  c["posenc_graph_batch_pe_ex_f64"] = {[=] {
    return posenc_graph_batch_pe_ex_f64(1, I->node_ptr.data(), I->edge_ptr.data(), I->src.data(), I->dst.data(),
                                        nullptr, POSENC_LAPLACIAN_SYM, 2, 3,
                                        POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_LAPPE_DROP_TRIVIAL, od, od + 8, od + 32,
                                        I->i32.data());
  }, {}};
  c["posenc_graph_batch_pe_auto_f64"] = {[=] {
    I->rinfo.method = POSENC_RWSE_MONTE_CARLO;
    I->rinfo.walks = 8;
    return posenc_graph_batch_pe_auto_f64(1, I->node_ptr.data(), I->edge_ptr.data(), I->src.data(), I->dst.data(),
                                          nullptr, POSENC_LAPLACIAN_SYM, 2, 3, 0u, &I->rinfo, od, od + 8, od + 32,
                                          I->i32.data(), nullptr);
  }, {}};
  c["posenc_rrwp_f64"] = {[=] {
    return posenc_rrwp_f64(5, I->src.data(), I->dst.data(), nullptr, 4, 3, 32, &I->num_pairs, I->pairs.data(), od);
  }, {}};
  c["posenc_shortest_path_i32"] = {[=] {
    return posenc_shortest_path_i32(5, I->src.data(), I->dst.data(), 4, 2, 32, &I->num_pairs, I->pairs.data(),
                                    I->i32.data());
  }, {}};
  c["posenc_heat_kernel_diag_f64"] = {[=] {
    return posenc_heat_kernel_diag_f64(5, I->src.data(), I->dst.data(), nullptr, 4, POSENC_LAPLACIAN_SYM, d, 2, od,
                                       nullptr);
  }, {}};
  c["posenc_heat_kernel_rows_f64"] = {[=] {
    return posenc_heat_kernel_rows_f64(5, I->src.data(), I->dst.data(), nullptr, 4, POSENC_LAPLACIAN_SYM, 0.5,
                                       I->src.data(), 2, od, nullptr);
  }, {}};
  c["posenc_diffusion_distance_f64"] = {[=] {
    return posenc_diffusion_distance_f64(5, I->src.data(), I->dst.data(), nullptr, 4, POSENC_LAPLACIAN_SYM, 0.5,
                                         I->src.data(), 2, od, nullptr);
  }, {}};
  c["posenc_diffusion_distance_eig_f64"] = {[=] {
    return posenc_diffusion_distance_eig_f64(5, 2, d, d, 0.5, I->src.data(), 2, od, nullptr);
  }, {}};
  // learned
  c["posenc_learned_add_f32"] = {[=] { return posenc_learned_add_f32(a, 4, 8, pos, 4, o); }, {}};
  c["posenc_learned_grad_f32"] = {[=] { return posenc_learned_grad_f32(a, pos, 4, 8, o, 4); }, {}};
  c["posenc_learned_spectrum_f32"] = {[=] { return posenc_learned_spectrum_f32(a, 4, 8, od, od + 8); }, {}};
  c["posenc_learned_lowrank_f32"] = {[=] { return posenc_learned_lowrank_f32(b, 4, 8, 2, o, o + 64); }, {}};
  c["posenc_learned_resample_f32"] = {[=] {
    return posenc_learned_resample_f32(a, 1, 2, 2, 8, 3, 3, POSENC_RESAMPLE_BICUBIC_AA, o);
  }, {}};
  c["posenc_learned_resample_backward_f32"] = {[=] {
    return posenc_learned_resample_backward_f32(a, 1, 2, 2, 8, 3, 3, POSENC_RESAMPLE_BICUBIC_AA, o);
  }, {}};
  return c;
}

class Verbose : public IsaTest {};

TEST(VerboseOff, ByDefaultWhenTheEnvironmentDoesNotSetIt) {
  if (std::getenv("POSENC_VERBOSE") == nullptr) {
    EXPECT_EQ(kInitialLevel, 0);
  }
  EXPECT_EQ(posenc_verbose_get(), 0);
}

TEST(VerboseCoverage, EveryHeaderFunctionHasACaseAndDocumentedPaths) {
  const auto fns = header_functions();
  ASSERT_GT(fns.size(), 40u) << "posenc.h was not parsed";
  Inputs in;
  const auto cases = make_cases(in, POSENC_ISA_SCALAR);
  const auto docs = documented_paths();
  for (const auto& [name, returns_status] : fns) {
    if (kNotLogged.count(name)) continue;
    EXPECT_TRUE(returns_status) << name << " does not return posenc_status: add it to kNotLogged if it is a query";
    EXPECT_TRUE(cases.count(name)) << "no case for " << name << " in tests/test_verbose.cpp (make_cases)";
    EXPECT_TRUE(docs.count(name)) << name << " has no row in docs/PROFILING.md's path table";
  }
  for (const auto& kv : cases) EXPECT_TRUE(fns.count(kv.first)) << kv.first << " is not declared in posenc.h";
  for (const auto& kv : docs) EXPECT_TRUE(fns.count(kv.first)) << "docs/PROFILING.md lists unknown " << kv.first;
}

TEST_P(Verbose, OneParsedLinePerCallOfEveryFunction) {
  const auto docs = documented_paths();
  Inputs in;
  auto cases = make_cases(in, GetParam());
  const std::regex rate(R"(^(-|[0-9.]+(e[-+]?[0-9]+)?(GB/s|GFLOP/s))$)"), roof(R"(^(-|[0-9.]+%)$)");
  const std::regex shape(R"(^(-|[A-Za-z_0-9]+=[^ ,]+( [A-Za-z_0-9]+=[^ ,]+)*)$)");
  for (auto& [name, c] : cases) {
    SCOPED_TRACE(name);
    Capture cap(2);
    const posenc_status st = c.call();
    ASSERT_EQ(st, POSENC_OK) << posenc_last_error_message();
    const auto lines = cap.kind("exec");
    if (c.undo) c.undo();
    ASSERT_EQ(lines.size(), 1u) << (lines.empty() ? "no line" : lines[0]);
    const auto f = split(lines[0], ',');
    ASSERT_EQ(f.size(), 10u) << lines[0];
    EXPECT_EQ(f[2], name);
    EXPECT_EQ(f[3], posenc_isa_name(GetParam()));
    ASSERT_TRUE(docs.count(name)) << name << " has no row in docs/PROFILING.md";
    EXPECT_TRUE(docs.at(name).count(f[4])) << "path '" << f[4] << "' of " << name << " is not documented";
    EXPECT_EQ(f[5], "threads=" + std::to_string(posenc_threads_get()));
    EXPECT_TRUE(std::regex_match(f[6], shape)) << f[6];
    EXPECT_GT(std::stod(f[7]), 0.0) << lines[0];
    EXPECT_TRUE(std::regex_match(f[8], rate)) << f[8];
    EXPECT_TRUE(std::regex_match(f[9], roof)) << f[9];
    EXPECT_EQ(f[8] == "-", f[9] == "-") << lines[0];
  }
}

TEST_P(Verbose, CallRecordMatchesTheLine) {
  Capture cap(2);
  std::vector<double> out(64 * 16);
  std::vector<double> xyz(64 * 3, 0.5);
  ASSERT_EQ(posenc_sph_harm_real_f64(3, xyz.data(), 64, out.data()), POSENC_OK);
  posenc_call_info info;
  info.struct_size = sizeof info;  // posenc_call_info_init would be the last call
  ASSERT_EQ(posenc_last_call_info(&info), POSENC_OK) << posenc_last_error_message();
  const auto lines = cap.kind("exec");
  ASSERT_EQ(lines.size(), 1u);
  const auto f = split(lines[0], ',');
  ASSERT_EQ(f.size(), 10u);
  EXPECT_STREQ(info.function, "posenc_sph_harm_real_f64");
  EXPECT_EQ(f[4], info.path);
  EXPECT_EQ(f[6], info.shape);
  EXPECT_EQ(info.status, POSENC_OK);
  EXPECT_EQ(info.isa, GetParam());
  EXPECT_EQ(info.threads, posenc_threads_get());
  EXPECT_GT(info.seconds, 0.0);
  EXPECT_DOUBLE_EQ(info.bytes, 8.0 * 64 * (3 + 16));  // xyz read + output written
  EXPECT_NEAR(std::stod(f[7]) * 1e-3, info.seconds, 1e-6 * info.seconds + 1e-12);
  // The last call info is itself not recorded: a second read gives the same record.
  posenc_call_info again;
  again.struct_size = sizeof again;
  ASSERT_EQ(posenc_last_call_info(&again), POSENC_OK);
  EXPECT_EQ(again.seconds, info.seconds);
}

POSENC_INSTANTIATE_ISA(Verbose);

TEST(VerboseLevels, LevelZeroWritesNothing) {
  Inputs in;
  auto cases = make_cases(in, posenc_isa_active());
  Capture cap(0);
  testing::internal::CaptureStderr();
  for (auto& [name, c] : cases) {
    if (name == "posenc_verbose_set" || name == "posenc_verbose_callback_set") continue;  // would change the level / sink
    EXPECT_EQ(c.call(), POSENC_OK) << name;
    if (c.undo) c.undo();
  }
  float out[8];
  EXPECT_NE(posenc_sinusoidal_f32(nullptr, 1, 7, 1e4, POSENC_SINUSOIDAL_HALVES, out), POSENC_OK);  // an error too
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(cap.lines.empty()) << cap.lines.size() << " lines, first: " << cap.lines[0];
  EXPECT_EQ(err, "");
}

TEST(VerboseLevels, LevelOneWritesErrorsOnly) {
  Capture cap(1);
  float out[16];
  ASSERT_EQ(posenc_sinusoidal_f32(nullptr, 2, 8, 1e4, POSENC_SINUSOIDAL_HALVES, out), POSENC_OK);
  EXPECT_TRUE(cap.lines.empty());
  ASSERT_EQ(posenc_sinusoidal_f32(nullptr, 1, 7, 1e4, POSENC_SINUSOIDAL_HALVES, out), POSENC_ERR_INVALID_ARGUMENT);
  const std::string msg = posenc_last_error_message();
  const auto errs = cap.kind("error");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(cap.lines.size(), 1u);
  const auto f = split(errs[0], ',', 6);
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[2], "posenc_sinusoidal_f32");
  EXPECT_EQ(f[3], posenc_isa_name(posenc_isa_active()));
  EXPECT_EQ(f[4], "POSENC_ERR_INVALID_ARGUMENT");
  EXPECT_EQ(f[5], msg);  // the whole message, commas included
  // The error record is kept for posenc_last_call_info as well.
  posenc_call_info info;
  info.struct_size = sizeof info;
  ASSERT_EQ(posenc_last_call_info(&info), POSENC_OK);
  EXPECT_EQ(info.status, POSENC_ERR_INVALID_ARGUMENT);
}

TEST(VerboseLevels, LevelTwoStartsWithInfoAndWritesToStderrByDefault) {
  ASSERT_EQ(posenc_verbose_callback_set(nullptr, nullptr), POSENC_OK);
  testing::internal::CaptureStderr();
  ASSERT_EQ(posenc_verbose_set(2), POSENC_OK);
  float out[16];
  ASSERT_EQ(posenc_sinusoidal_f32(nullptr, 2, 8, 1e4, POSENC_SINUSOIDAL_HALVES, out), POSENC_OK);
  ASSERT_EQ(posenc_verbose_set(0), POSENC_OK);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("posenc_verbose,info,version=", 0), 0u) << err;
  EXPECT_NE(err.find("posenc_verbose,info,columns,exec,function,isa,path,threads,shape,ms,rate,roofline\n"),
            std::string::npos);
  // The first exec line is the sinusoidal call: the call that turned level 2 on was not logged
  // (it began at level 0); the one that turns it off is (it began at level 2).
  const size_t first = err.find("\nposenc_verbose,exec,");
  EXPECT_EQ(err.find("\nposenc_verbose,exec,posenc_sinusoidal_f32,"), first) << err;
  EXPECT_NE(err.find("\nposenc_verbose,exec,posenc_verbose_set,"), std::string::npos) << err;
}

TEST(VerboseLevels, BadLevelAndBadStructs) {
  EXPECT_POSENC_ERROR(posenc_verbose_set(3), POSENC_ERR_INVALID_ARGUMENT, "level");
  EXPECT_POSENC_ERROR(posenc_verbose_set(-1), POSENC_ERR_INVALID_ARGUMENT, "level");
  EXPECT_EQ(posenc_verbose_get(), 0);
  EXPECT_POSENC_ERROR(posenc_last_call_info(nullptr), POSENC_ERR_NULL_POINTER, "info");
  posenc_call_info info{};
  EXPECT_POSENC_ERROR(posenc_last_call_info(&info), POSENC_ERR_INVALID_ARGUMENT, "struct_size");
  posenc_roofline r{};
  EXPECT_POSENC_ERROR(posenc_roofline_measure(POSENC_ISA_AUTO, 1, &r), POSENC_ERR_INVALID_ARGUMENT, "struct_size");
  posenc_roofline_init(&r);
  EXPECT_POSENC_ERROR(posenc_roofline_measure(POSENC_ISA_AUTO, -1, &r), POSENC_ERR_INVALID_ARGUMENT, "threads");
  EXPECT_POSENC_ERROR(posenc_roofline_measure(static_cast<posenc_isa>(3), 1, &r), POSENC_ERR_INVALID_ARGUMENT, "isa");
  const posenc_isa foreign = (posenc_isa_available() & POSENC_ISA_NEON) ? POSENC_ISA_AVX2 : POSENC_ISA_NEON;
  EXPECT_POSENC_ERROR(posenc_roofline_measure(foreign, 1, &r), POSENC_ERR_UNSUPPORTED, "not available");
  EXPECT_EQ(r.memcpy_bytes_per_s, 0.0);  // nothing written on error
}

TEST(VerboseLevels, NoRecordOnAFreshThread) {
  std::thread([] {
    posenc_call_info info;
    info.struct_size = sizeof info;
    EXPECT_POSENC_ERROR(posenc_last_call_info(&info), POSENC_ERR_UNSUPPORTED, "no call");
  }).join();
}

}  // namespace
