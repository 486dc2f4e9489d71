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
// Band rows per strip of process_scale. A strip also transforms the rows on either side of it
// that its masking reads (3.8's 3x3 window), so larger strips repeat less; 32 rows still give the
// scale 0 of a 4K picture 34 strips to share out.
constexpr int kStripRows = 32;
// A strip streams through its rows kBatchRows at a time and keeps the last kRingRows of every
// band: masking row i reads rows i - 1 .. i + 1 and runs once row i + 1 is done, so a batch's
// masking reaches back two rows before it.
constexpr int kBatchRows = 4;
constexpr uint32_t kRingRows = kBatchRows + 4;

SimdCompat parse_compat(const std::string& s) {
  if (s == "none") return SimdCompat::kNone;
  if (s == "avx512") return SimdCompat::kAvx512;
  return SimdCompat::kAvx2;
}

// The a bands of one extract() call that the next scale reads (scales 0-2; frame-sized, with no
// detail bands), reused by later calls (WorkspacePool).
struct AdmWorkspace {
  AdmBands<int16_t> r0, d0;
  AdmBands<int32_t> r[kScales - 1], d[kScales - 1];  // [1], [2]
};

// One strip's rows of every band of a scale as rings (AdmBands::rows = kRingRows): the DWT
// output of both pictures, then the restored and additive detail, then c and m of the DLM pass
// and of the AIM pass. A worker's strips reuse its rings, which stay in its cache.
template <typename Coef>
struct AdmStripRings {
  AdmBands<Coef> ref, dis;
  std::array<AdmDetail<Coef>, 6> detail;
  void resize(uint32_t w, uint32_t h) {
    ref.resize(w, h, true, kRingRows);
    dis.resize(w, h, true, kRingRows);
    for (AdmDetail<Coef>& d : detail) d.resize(w, h, kRingRows);
  }
  // Four bands of each picture, then three for each of the six details.
  static size_t bytes(uint32_t w) { return size_t(w) * kRingRows * (2 * 4 + 6 * 3) * sizeof(Coef); }
};

template <typename Coef>
AdmStripRings<Coef>& strip_rings() {
  thread_local AdmStripRings<Coef> rings;
  return rings;
}

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

  // Frame-sized buffers: the a bands of scales 0-2 (AdmWorkspace). Each worker also keeps the
  // rings of its strips (AdmStripRings), counted here too (frame_memory_test measures both).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    vmaf_common::require_min_size(context.format, "adm");
    format_ = context.format;
    pool_ = context.pool;
    uint32_t w = (format_.width + 1) / 2, h = (format_.height + 1) / 2;
    frame_memory_ = 2 * size_t(w) * h * sizeof(int16_t) + AdmStripRings<int16_t>::bytes(w);
    for (int s = 1; s < kScales; ++s) {
      w = (w + 1) / 2, h = (h + 1) / 2;
      if (s < kScales - 1) frame_memory_ += 2 * size_t(w) * h * sizeof(int32_t);
      if (s == 1) frame_memory_ += AdmStripRings<int32_t>::bytes(w);
    }
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
  // One scale of w x h bands strip by strip: a task streams through its strip's rows, running
  // every stage of 3.3-3.9 on a few rows at a time in the rings of AdmStripRings, so each stage
  // finds its input in the core's cache and no band of the scale but its a band (`a_ref`,
  // `a_dis`, the input of the next scale, null at the last) is ever stored whole.
  // `transform(ref, dis, b, e)` writes rows [b, e) of the scale's four bands into the rings.
  // Masking a row reads the masking contributions of the rows on either side: a strip also
  // transforms, decouples and weights the row beyond each of its ends, so it masks all its rows
  // itself. Every stage writes a row before any reads it and reads nothing outside the extended
  // rectangle (3.2), so the reused rings need no clearing.
  template <typename Coef, typename Transform>
  AdmScaleValues process_scale(int s, uint32_t w, uint32_t h, AdmBands<Coef>* a_ref,
                               AdmBands<Coef>* a_dis, const Transform& transform) {
    const AdmRects rects = adm_rects(w, h);
    const AdmRect& ext = rects.extended;
    const AdmRect& in = rects.inner;
    const AdmScaleKernels<Coef>& stages = kernels_.stages<Coef>();
    const int rows = int(h);
    // The rows masking row r reads: r - 1 and r + 1 with the border rule (-1 -> 1, h -> h - 1).
    auto last_read = [rows](int r) { return r + 1 == rows ? rows - 1 : r + 1; };
    const size_t strips = size_t((rows + kStripRows - 1) / kStripRows);
    AdmScaleSums total;
    std::mutex mutex;
    pool_->parallel_for(strips, 1, [&](size_t kb, size_t ke) {
      AdmStripRings<Coef>& rings = strip_rings<Coef>();
      rings.resize(w, h);
      auto& [restored, additive, c_dlm, m_dlm, c_aim, m_aim] = rings.detail;
      const int b = int(kb) * kStripRows, e = std::min(int(ke) * kStripRows, rows);
      const int mask_begin = std::max(b, in.top), mask_end = std::min(e, in.bottom);
      // Rows whose detail the masking of [mask_begin, mask_end) reads (all within ext).
      int need_begin = b, need_end = b;
      if (mask_begin < mask_end) {
        need_begin = std::max(mask_begin - 1, 0);
        need_end = std::min(mask_end + 1, rows);
      }
      const int first = std::min(b, need_begin), last = std::max(e, need_end);
      AdmScaleSums sums;
      int next_mask = mask_begin;
      for (int i0 = first; i0 < last; i0 += kBatchRows) {
        const int i1 = std::min(i0 + kBatchRows, last);
        transform(rings.ref, rings.dis, i0, i1);
        for (int i = std::max(i0, b); i < std::min(i1, e); ++i) {
          if (a_ref) {
            std::copy_n(rings.ref.a_row(i), w, a_ref->a_row(i));
            std::copy_n(rings.dis.a_row(i), w, a_dis->a_row(i));
          }
          if (i >= in.top && i < in.bottom)
            add_to(sums.den, stages.den_rows(s, rings.ref, rects, i, i + 1));
        }
        const int nb = std::max(i0, need_begin), ne = std::min(i1, need_end);
        if (nb < ne) {
          stages.decouple_rows(s, rings.ref, rings.dis, gain_limit_, ext, restored, additive, nb,
                               ne);
          // DLM: the restored detail masked by the additive part (3.10); AIM: the reverse,
          // without the noise floor.
          stages.csf_rows(s, additive, weights_[s], ext, c_dlm, m_dlm, nb, ne);
          if (!skip_aim_) stages.csf_rows(s, restored, weights_[s], ext, c_aim, m_aim, nb, ne);
        }
        int mask_stop = next_mask;
        while (mask_stop < mask_end && last_read(mask_stop) < i1) ++mask_stop;
        if (mask_stop > next_mask) {
          add_to(sums.dlm, stages.cm_rows(s, restored, c_dlm, m_dlm, weights_[s], rects, compat_,
                                          next_mask, mask_stop));
          if (!skip_aim_)
            add_to(sums.aim, stages.cm_rows(s, additive, c_aim, m_aim, weights_[s], rects, compat_,
                                            next_mask, mask_stop));
          next_mask = mask_stop;
        }
      }
      std::lock_guard lock(mutex);
      total.add(sums);
    });
    AdmScaleValues v;
    v.den = adm_den_value(s, total.den, weights_[s], rects, noise_weight_);
    v.num = adm_num_value(s, total.dlm, w, h, rects.count, noise_weight_);
    if (!skip_aim_) v.aim = adm_num_value(s, total.aim, w, h, rects.count, 0.0);
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
    uint32_t w = (W + 1) / 2, h = (H + 1) / 2;
    ws.r0.resize(w, h, false);
    ws.d0.resize(w, h, false);
    AdmDwt0Rows<Sample>* dwt0 = kernels_.dwt0<Sample>();
    if (skip_scale0_) {
      pool_->parallel_for(h, kRowGrain, [&](size_t b, size_t e) {
        dwt0(ref, W, H, format_.bit_depth, true, ws.r0, uint32_t(b), uint32_t(e));
        dwt0(dis, W, H, format_.bit_depth, true, ws.d0, uint32_t(b), uint32_t(e));
      });
      scales[0] = {0.0f, 1e-10f, 0.0f};  // 3.12
    } else {
      scales[0] = process_scale<int16_t>(
          0, w, h, &ws.r0, &ws.d0, [&](AdmBands<int16_t>& r, AdmBands<int16_t>& d, int b, int e) {
            dwt0(ref, W, H, format_.bit_depth, false, r, uint32_t(b), uint32_t(e));
            dwt0(dis, W, H, format_.bit_depth, false, d, uint32_t(b), uint32_t(e));
          });
    }
    for (int s = 1; s < kScales; ++s) {
      const uint32_t in_w = w, in_h = h;
      w = (w + 1) / 2, h = (h + 1) / 2;
      const bool keep_a = s < kScales - 1;
      if (keep_a) {
        ws.r[s].resize(w, h, false);
        ws.d[s].resize(w, h, false);
      }
      scales[s] = process_scale<int32_t>(
          s, w, h, keep_a ? &ws.r[s] : nullptr, keep_a ? &ws.d[s] : nullptr,
          [&](AdmBands<int32_t>& r, AdmBands<int32_t>& d, int b, int e) {
            if (s == 1) {
              kernels_.dwt_rows_from_scale0(s, ws.r0.a.data(), in_w, in_h, r, b, e);
              kernels_.dwt_rows_from_scale0(s, ws.d0.a.data(), in_w, in_h, d, b, e);
            } else {
              kernels_.dwt_rows(s, ws.r[s - 1].a.data(), in_w, in_h, r, b, e);
              kernels_.dwt_rows(s, ws.d[s - 1].a.data(), in_w, in_h, d, b, e);
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
