// libvmaf's integer `adm` on the CPU (shared/spec/vmaf.md section 3).
#include "metrics/integer_adm/integer_adm.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <utility>

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
// Band rows per strip of process_scale: a strip's bands at scale 0 of a 4K picture (1,920 int16
// coefficients a row, 20 bands) stay within a core's L2 cache.
constexpr int kStripRows = 16;

SimdCompat parse_compat(const std::string& s) {
  if (s == "none") return SimdCompat::kNone;
  if (s == "avx512") return SimdCompat::kAvx512;
  return SimdCompat::kAvx2;
}

// The frame-sized buffers of one extract() call, reused by later calls (WorkspacePool).
// Every scale has its own buffers, so none changes size (and is filled anew) between frames.
struct AdmWorkspace {
  AdmBands<int16_t> r0, d0;
  AdmBands<int32_t> r[kScales], d[kScales];  // scales 1-3
  // Per scale: the restored and additive detail, then CSF bands and masking contributions (c, m)
  // of the DLM pass and of the AIM pass.
  std::array<AdmDetail<int16_t>, 6> detail0;
  std::array<AdmDetail<int32_t>, 6> detail[kScales];
  template <typename Coef>
  std::array<AdmDetail<Coef>, 6>& details(int s) {
    if constexpr (sizeof(Coef) == 2) return detail0;
    else return detail[s];
  }
};

// The sums of one scale that the strips add up (exact integers, so in any order).
struct AdmScaleSums {
  std::array<uint64_t, 3> den{};
  std::array<int64_t, 3> dlm{}, aim{};
  void add(const AdmScaleSums& o) {
    for (int b = 0; b < 3; ++b) den[b] += o.den[b], dlm[b] += o.dlm[b], aim[b] += o.aim[b];
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

  // Frame-sized buffers: the per-scale DWT bands, decoupled bands and CSF/masking planes of
  // AdmWorkspace (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    vmaf_common::require_min_size(context.format, "adm");
    format_ = context.format;
    pool_ = context.pool;
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 22;
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
  // One scale strip by strip: a task runs every stage of 3.3-3.9 over its rows, from the DWT
  // (`transform(b, e)` writes rows [b, e) of ref and dis) to the masking, so each stage finds its
  // input still in the core's cache, where a pass of one stage over the whole band would read it
  // back from memory. Masking a row needs the masking contributions of the rows on either side:
  // a task masks the rows whose neighbours are its own, and the first and last row of every
  // strip are masked once all strips are done. Every stage writes the extended rectangle before
  // any reads it and reads nothing outside it, so the reused buffers need no clearing.
  template <typename Coef, typename Transform>
  AdmScaleValues process_scale(int s, const AdmBands<Coef>& ref, const AdmBands<Coef>& dis,
                               AdmWorkspace& ws, const Transform& transform) {
    const int h = int(ref.h);
    const AdmRects rects = adm_rects(ref.w, ref.h);
    const AdmRect& ext = rects.extended;
    const AdmRect& in = rects.inner;
    const AdmScaleKernels<Coef>& stages = kernels_.stages<Coef>();
    auto& [restored, additive, c_dlm, m_dlm, c_aim, m_aim] = ws.details<Coef>(s);
    for (auto* d : {&restored, &additive, &c_dlm, &m_dlm}) d->resize(ref.w, ref.h);
    if (!skip_aim_)
      for (auto* d : {&c_aim, &m_aim}) d->resize(ref.w, ref.h);
    auto mask_rows = [&](int b, int e, AdmScaleSums& sums) {
      b = std::max(b, in.top), e = std::min(e, in.bottom);
      if (e <= b) return;
      add_to(sums.dlm, stages.cm_rows(s, restored, c_dlm, m_dlm, weights_[s], rects, compat_, b,
                                      e));
      if (!skip_aim_)
        add_to(sums.aim, stages.cm_rows(s, additive, c_aim, m_aim, weights_[s], rects, compat_,
                                        b, e));
    };
    const size_t strips = size_t((h + kStripRows - 1) / kStripRows);
    auto strip_rows = [h](size_t k) {
      return std::pair{int(k) * kStripRows, std::min(int(k + 1) * kStripRows, h)};
    };
    AdmScaleSums total;
    std::mutex mutex;
    pool_->parallel_for(strips, 1, [&](size_t kb, size_t ke) {
      AdmScaleSums sums;
      for (size_t k = kb; k < ke; ++k) {
        const auto [b, e] = strip_rows(k);
        transform(b, e);
        const int eb = std::max(b, ext.top), ee = std::min(e, ext.bottom);
        if (eb < ee) {
          stages.decouple_rows(s, ref, dis, gain_limit_, ext, restored, additive, eb, ee);
          // DLM: the restored detail masked by the additive part (3.10); AIM: the reverse,
          // without the noise floor.
          stages.csf_rows(s, additive, weights_[s], ext, c_dlm, m_dlm, eb, ee);
          if (!skip_aim_) stages.csf_rows(s, restored, weights_[s], ext, c_aim, m_aim, eb, ee);
        }
        const int ib = std::max(b, in.top), ie = std::min(e, in.bottom);
        if (ib < ie) add_to(sums.den, stages.den_rows(s, ref, rects, ib, ie));
        mask_rows(b + 1, e - 1, sums);
      }
      std::lock_guard lock(mutex);
      total.add(sums);
    });
    pool_->parallel_for(strips, kRowGrain, [&](size_t kb, size_t ke) {
      AdmScaleSums sums;
      for (size_t k = kb; k < ke; ++k) {
        const auto [b, e] = strip_rows(k);
        mask_rows(b, b + 1, sums);
        if (e - 1 > b) mask_rows(e - 1, e, sums);
      }
      std::lock_guard lock(mutex);
      total.add(sums);
    });
    AdmScaleValues v;
    v.den = adm_den_value(s, total.den, weights_[s], rects, noise_weight_);
    v.num = adm_num_value(s, total.dlm, ref.w, ref.h, rects.count, noise_weight_);
    if (!skip_aim_) v.aim = adm_num_value(s, total.aim, ref.w, ref.h, rects.count, 0.0);
    return v;
  }

  template <typename Sum, typename Part>
  static void add_to(Sum& sum, const Part& part) {
    for (size_t b = 0; b < sum.size(); ++b) sum[b] += part[b];
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
    auto scale0_rows = [&](size_t b, size_t e) {
      dwt0(ref, W, H, format_.bit_depth, skip_scale0_, r0, uint32_t(b), uint32_t(e));
      dwt0(dis, W, H, format_.bit_depth, skip_scale0_, d0, uint32_t(b), uint32_t(e));
    };
    if (skip_scale0_) {
      pool_->parallel_for(r0.h, kRowGrain, scale0_rows);
      scales[0] = {0.0f, 1e-10f, 0.0f};  // 3.12
    } else {
      scales[0] = process_scale(0, r0, d0, ws, scale0_rows);
    }
    AdmBands<int32_t>* r = ws.r;
    AdmBands<int32_t>* d = ws.d;
    for (int s = 1; s < kScales; ++s) {
      AdmBands<int32_t>& rs = r[s];
      AdmBands<int32_t>& ds = d[s];
      const AdmBands<int32_t>& rp = r[s - 1];
      const AdmBands<int32_t>& dp = d[s - 1];
      const uint32_t in_w = s == 1 ? r0.w : rp.w;
      const uint32_t in_h = s == 1 ? r0.h : rp.h;
      rs.resize((in_w + 1) / 2, (in_h + 1) / 2);
      ds.resize((in_w + 1) / 2, (in_h + 1) / 2);
      scales[s] = process_scale(s, rs, ds, ws, [&](int b, int e) {
        if (s == 1) {
          kernels_.dwt_rows_from_scale0(s, r0.a.data(), in_w, in_h, rs, b, e);
          kernels_.dwt_rows_from_scale0(s, d0.a.data(), in_w, in_h, ds, b, e);
        } else {
          kernels_.dwt_rows(s, rp.a.data(), in_w, in_h, rs, b, e);
          kernels_.dwt_rows(s, dp.a.data(), in_w, in_h, ds, b, e);
        }
      });
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
  size_t frame_memory_ = 0;
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
