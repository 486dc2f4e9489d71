// libvmaf's integer `adm` on the CPU (shared/spec/vmaf.md section 3).
#include "metrics/integer_adm/integer_adm.h"

#include <fmt/format.h>

#include <mutex>

#include "core/error.h"
#include "core/thread_pool.h"
#include "metrics/integer_adm/adm_kernels.h"
#include "metrics/integer_adm/adm_math.h"
#include "metrics/integer_adm/adm_outputs.h"
#include "metrics/vmaf_common/feature_name.h"
#include "metrics/vmaf_common/size_limits.h"
#include "metrics/vmaf_common/workspace_pool.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/integer_adm/cuda/adm_cuda.h"
#endif

namespace vqx {
namespace {

using namespace integer_adm;

constexpr size_t kRowGrain = 16;

SimdCompat parse_compat(const std::string& s) {
  if (s == "none") return SimdCompat::kNone;
  if (s == "avx512") return SimdCompat::kAvx512;
  return SimdCompat::kAvx2;
}

// Sums `body(begin, end)` (an array of exact integers) over [begin, end) split into chunks.
template <typename Array, typename Body>
Array parallel_sum(ThreadPool& pool, int begin, int end, const Body& body) {
  Array total{};
  if (end <= begin) return total;
  std::mutex mutex;
  pool.parallel_for(size_t(end - begin), kRowGrain, [&](size_t b, size_t e) {
    Array part = body(begin + int(b), begin + int(e));
    std::lock_guard lock(mutex);
    for (size_t k = 0; k < total.size(); ++k) total[k] += part[k];
  });
  return total;
}

// The frame-sized buffers of one extract() call, reused by later calls (WorkspacePool).
struct AdmWorkspace {
  AdmBands<int16_t> r0, d0;
  AdmBands<int32_t> r[2], d[2];
  std::array<AdmDetail<int16_t>, 4> detail0;  // restored, additive, c, m at scale 0
  std::array<AdmDetail<int32_t>, 4> detail;   // the same at scales 1-3
  template <typename Coef>
  std::array<AdmDetail<Coef>, 4>& details() {
    if constexpr (sizeof(Coef) == 2) return detail0;
    else return detail;
  }
};

class IntegerAdmCpu final : public CpuMetric {
 public:
  IntegerAdmCpu(const OptionValues& o, const AdmKernels& kernels)
      : kernels_(kernels),
        gain_limit_(vmaf_common::normalise_double_option(o.get_double("adm_enhn_gain_limit"))),
        noise_weight_(vmaf_common::normalise_double_option(o.get_double("adm_noise_weight"))),
        dlm_weight_(vmaf_common::normalise_double_option(o.get_double("adm_dlm_weight"))),
        min_val_(vmaf_common::normalise_double_option(o.get_double("adm_min_val"))),
        skip_scale0_(o.get_bool("adm_skip_scale0")),
        skip_aim_(o.get_bool("adm_skip_aim")),
        debug_(o.get_bool("debug")),
        compat_(parse_compat(o.get_string("adm_simd_compat"))),
        suffix_(vmaf_common::name_suffix(integer_adm_descriptor().options, o)) {
    const double nvd = vmaf_common::normalise_double_option(o.get_double("adm_norm_view_dist"));
    const int rdh = int(o.get_int("adm_ref_display_height"));
    // Upstream fails every extract() call in this case (3.1); vqx refuses it up front.
    if (nvd * rdh < 3.0 * 1080)
      throw UsageError(fmt::format(
          "adm: adm_norm_view_dist * adm_ref_display_height must be at least 3240 (3 picture "
          "heights at 1080 lines), got {} * {}",
          nvd, rdh));
    weights_ = adm_weights(int(o.get_int("adm_csf_mode")), nvd, rdh);
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names = {"integer_adm2", "integer_aim", "integer_adm3"};
    for (int s = 0; s < kScales; ++s) names.push_back("integer_adm_scale" + std::to_string(s));
    if (debug_) {
      for (const char* n : {"integer_adm", "integer_adm_num", "integer_adm_den"}) names.push_back(n);
      for (int s = 0; s < kScales; ++s) {
        names.push_back("integer_adm_num_scale" + std::to_string(s));
        names.push_back("integer_adm_den_scale" + std::to_string(s));
      }
    }
    return vmaf_common::with_suffix(names, suffix_);
  }

  void init(const MetricContext& context) override {
    vmaf_common::require_min_size(context.format, "adm");
    format_ = context.format;
    pool_ = context.pool;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame, FeatureWriter& out) override {
    std::array<AdmScaleValues, kScales> scales{};
    if (format_.bit_depth == 8)
      compute(ref.plane<uint8_t>(0), dis.plane<uint8_t>(0), scales);
    else
      compute(ref.plane<uint16_t>(0), dis.plane<uint16_t>(0), scales);
    AdmFrameScores f = adm_combine(scales, format_.width, format_.height, dlm_weight_, min_val_);
    write_adm_outputs(out, frame, scales, f, debug_);
  }

 private:
  // Every stage writes the extended rectangle before any stage reads it, and reads nothing
  // outside it, so the reused buffers need no clearing.
  template <typename Coef>
  AdmScaleValues process_scale(int s, const AdmBands<Coef>& ref, const AdmBands<Coef>& dis,
                               AdmWorkspace& ws) {
    const uint32_t w = ref.w, h = ref.h;
    const AdmRects rects = adm_rects(w, h);
    const AdmRect& ext = rects.extended;
    const AdmScaleKernels<Coef>& stages = kernels_.stages<Coef>();
    auto& [restored, additive, c, m] = ws.details<Coef>();
    for (auto* d : {&restored, &additive, &c, &m}) d->resize(w, h);
    ThreadPool& pool = *pool_;
    pool.parallel_for(size_t(ext.bottom - ext.top), kRowGrain, [&](size_t b, size_t e) {
      stages.decouple_rows(s, ref, dis, gain_limit_, ext, restored, additive, ext.top + int(b),
                           ext.top + int(e));
    });
    AdmScaleValues v;
    auto den = parallel_sum<std::array<uint64_t, 3>>(
        pool, rects.inner.top, rects.inner.bottom,
        [&](int b, int e) { return stages.den_rows(s, ref, rects, b, e); });
    v.den = adm_den_value(s, den, weights_[s], rects, noise_weight_);
    // DLM: the restored detail masked by the additive part (3.10).
    v.num = mask(s, restored, additive, c, m, rects, noise_weight_);
    // AIM: the reverse, without the noise floor.
    if (!skip_aim_) v.aim = mask(s, additive, restored, c, m, rects, 0.0);
    return v;
  }

  template <typename Coef>
  float mask(int s, const AdmDetail<Coef>& masked, const AdmDetail<Coef>& masker,
             AdmDetail<Coef>& c, AdmDetail<Coef>& m, const AdmRects& rects, double noise_weight) {
    const AdmRect& ext = rects.extended;
    const AdmScaleKernels<Coef>& stages = kernels_.stages<Coef>();
    pool_->parallel_for(size_t(ext.bottom - ext.top), kRowGrain, [&](size_t b, size_t e) {
      stages.csf_rows(s, masker, weights_[s], ext, c, m, ext.top + int(b), ext.top + int(e));
    });
    auto acc = parallel_sum<std::array<int64_t, 3>>(
        *pool_, rects.inner.top, rects.inner.bottom, [&](int b, int e) {
          return stages.cm_rows(s, masked, c, m, weights_[s], rects, compat_, b, e);
        });
    return adm_num_value(s, acc, masked.w, masked.h, rects.count, noise_weight);
  }

  template <typename Sample>
  void compute(const Sample* ref, const Sample* dis, std::array<AdmScaleValues, kScales>& scales) {
    const uint32_t W = format_.width, H = format_.height;
    auto lease = workspaces_.acquire();
    AdmWorkspace& ws = *lease;
    AdmBands<int16_t>& r0 = ws.r0;
    AdmBands<int16_t>& d0 = ws.d0;
    r0.resize((W + 1) / 2, (H + 1) / 2, !skip_scale0_);
    d0.resize((W + 1) / 2, (H + 1) / 2, !skip_scale0_);
    AdmDwt0Rows<Sample>* dwt0 = kernels_.dwt0<Sample>();
    pool_->parallel_for(r0.h, kRowGrain, [&](size_t b, size_t e) {
      dwt0(ref, W, H, format_.bit_depth, skip_scale0_, r0, uint32_t(b), uint32_t(e));
      dwt0(dis, W, H, format_.bit_depth, skip_scale0_, d0, uint32_t(b), uint32_t(e));
    });
    if (skip_scale0_)
      scales[0] = {0.0f, 1e-10f, 0.0f};  // 3.12
    else
      scales[0] = process_scale(0, r0, d0, ws);
    AdmBands<int32_t>* r = ws.r;
    AdmBands<int32_t>* d = ws.d;
    for (int s = 1; s < kScales; ++s) {
      AdmBands<int32_t>& rs = r[s & 1];
      AdmBands<int32_t>& ds = d[s & 1];
      const uint32_t in_w = s == 1 ? r0.w : r[(s - 1) & 1].w;
      const uint32_t in_h = s == 1 ? r0.h : r[(s - 1) & 1].h;
      rs.resize((in_w + 1) / 2, (in_h + 1) / 2);
      ds.resize((in_w + 1) / 2, (in_h + 1) / 2);
      pool_->parallel_for(rs.h, kRowGrain, [&](size_t b, size_t e) {
        if (s == 1) {
          kernels_.dwt_rows_from_scale0(s, r0.a.data(), in_w, in_h, rs, uint32_t(b),
                                        uint32_t(e));
          kernels_.dwt_rows_from_scale0(s, d0.a.data(), in_w, in_h, ds, uint32_t(b),
                                        uint32_t(e));
        } else {
          kernels_.dwt_rows(s, r[(s - 1) & 1].a.data(), in_w, in_h, rs, uint32_t(b), uint32_t(e));
          kernels_.dwt_rows(s, d[(s - 1) & 1].a.data(), in_w, in_h, ds, uint32_t(b), uint32_t(e));
        }
      });
      scales[s] = process_scale(s, rs, ds, ws);
    }
  }

  const AdmKernels& kernels_;
  double gain_limit_, noise_weight_, dlm_weight_, min_val_;
  bool skip_scale0_, skip_aim_, debug_;
  SimdCompat compat_;
  std::string suffix_;
  AdmWeights weights_{};
  vmaf_common::WorkspacePool<AdmWorkspace> workspaces_;
  PictureFormat format_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

std::unique_ptr<CpuMetric> make_integer_adm_cpu(const OptionValues& options,
                                                const integer_adm::AdmKernels& kernels) {
  return std::make_unique<IntegerAdmCpu>(options, kernels);
}

const MetricDescriptor& integer_adm_descriptor() {
  static const MetricDescriptor descriptor{
      "adm",
      "libvmaf's integer ADM (integer_adm2, integer_aim, integer_adm3, per-scale), bit-exact",
      {
          OptionSpec::Double("adm_enhn_gain_limit", 100.0, 1.0, 100.0,
                             "enhancement gain cap in the decoupling")
              .param("egl"),
          OptionSpec::Double("adm_norm_view_dist", 3.0, 0.75, 24.0,
                             "viewing distance in picture heights")
              .param("nvd"),
          OptionSpec::Int("adm_ref_display_height", 1080, 1, 4320, "display height in pixels")
              .param("rdh"),
          OptionSpec::Int("adm_csf_mode", 0, 0, 3,
                          "0 Watson97, 2 Barten-Watson blend table, 3 blend table MAE; 1 (Barten) "
                          "is refused")
              .param("csf"),
          OptionSpec::Double("adm_csf_scale", 1.0, 0.0, 50.0, "CSF mode 1 only").param("scf"),
          OptionSpec::Double("adm_csf_diag_scale", 1.0, 0.0, 50.0, "CSF mode 1 only").param("scfd"),
          OptionSpec::Double("adm_noise_weight", 0.03125, 0.0, 1500.0, "additive noise floor term")
              .param("nw"),
          OptionSpec::Double("adm_dlm_weight", 0.5, 0.0, 1.0,
                             "weight of ADM2 against 1-AIM in ADM3")
              .param("dlmw"),
          OptionSpec::Double("adm_min_val", 0.0, 0.0, 1.0, "lower clip of ADM3").param("min"),
          OptionSpec::Bool("adm_skip_scale0", false, "scale 0 contributes nothing").param("ssz"),
          OptionSpec::Bool("adm_skip_aim", false, "skip the AIM passes: integer_aim = 0"),
          OptionSpec::Bool("debug", false, "also output integer_adm, its num/den and per scale"),
          OptionSpec::String("adm_simd_compat", "avx2", {"avx2", "avx512", "none"},
                             "vqx: reproduce the scale-0 masking rule of libvmaf's AVX2 (default, "
                             "as x86 libvmaf), AVX-512 or portable build (vmaf.md 9, D1)"),
      },
      [](const OptionValues& o) { return make_integer_adm_cpu(o, adm_kernels()); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_integer_adm_cuda(o); },
#else
      nullptr,
#endif
      {
          {"VMAF_integer_feature_adm2_score", "integer_adm2"},
          {"VMAF_integer_feature_aim_score", "integer_aim"},
          {"VMAF_integer_feature_adm3_score", "integer_adm3"},
          {"integer_adm_scale0", "integer_adm_scale0"},
          {"integer_adm_scale1", "integer_adm_scale1"},
          {"integer_adm_scale2", "integer_adm_scale2"},
          {"integer_adm_scale3", "integer_adm_scale3"},
      },
  };
  return descriptor;
}

}  // namespace vqx

namespace vqx::integer_adm {

void write_adm_outputs(FeatureWriter& out, uint64_t frame,
                       const std::array<AdmScaleValues, kScales>& scales, const AdmFrameScores& f,
                       bool debug) {
  out.put(frame, 0, f.adm2);
  out.put(frame, 1, f.aim);
  out.put(frame, 2, f.adm3);
  for (int s = 0; s < kScales; ++s) out.put(frame, 3 + s, f.scale[s]);
  if (!debug) return;
  out.put(frame, 7, f.adm2);
  out.put(frame, 8, f.num);
  out.put(frame, 9, f.den);
  for (int s = 0; s < kScales; ++s) {
    out.put(frame, 10 + 2 * s, double(scales[s].num));
    out.put(frame, 11 + 2 * s, double(scales[s].den));
  }
}

}  // namespace vqx::integer_adm
