// libvmaf's `float_adm` on the CPU (docs/float_adm.md): ADM2, AIM and ADM3 over four wavelet
// scales of f32 luma with the offset -128.
#include "metrics/float_adm/float_adm.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "core/error.h"
#include "metrics/float_adm/adm_stages.h"
#include "metrics/float_common/luma_float.h"
#include "metrics/vmaf_common/feature_name.h"

namespace vqx {
namespace {

using float_adm::Bands;

constexpr int kScales = 4;

double option(const OptionValues& o, const std::string& name) {
  return vmaf_common::normalise_double_option(o.get_double(name));
}

struct AdmScores {
  float num[kScales], den[kScales];
  double adm2, aim;
};

class FloatAdmCpu final : public CpuMetric {
 public:
  explicit FloatAdmCpu(const OptionValues& o)
      : debug_(o.get_bool("debug")),
        skip_scale0_(o.get_bool("adm_skip_scale0")),
        apply_hm_(o.get_bool("adm_adm3_apply_hm")),
        bypass_cm_(o.get_int("adm_bypass_cm") != 0),
        skip_aim_scale_(int(o.get_int("adm_skip_aim_scale"))),
        gain_limit_(option(o, "adm_enhn_gain_limit")),
        noise_weight_(option(o, "adm_noise_weight")),
        p_norm_(option(o, "adm_p_norm")),
        dlm_weight_(option(o, "adm_dlm_weight")),
        min_val_(option(o, "adm_min_val")),
        suffix_(vmaf_common::name_suffix(float_adm_descriptor().options, o)) {
    float_adm::CsfOptions csf;
    csf.mode = int(o.get_int("adm_csf_mode"));
    csf.norm_view_dist = option(o, "adm_norm_view_dist");
    csf.ref_display_height = int(o.get_int("adm_ref_display_height"));
    csf.csf_scale = option(o, "adm_csf_scale");
    csf.csf_diag_scale = option(o, "adm_csf_diag_scale");
    for (int s = 0; s < kScales; ++s) {
      csf.f1[s] = option(o, "adm_f1s" + std::to_string(s));
      csf.f2[s] = option(o, "adm_f2s" + std::to_string(s));
    }
    for (int s = 0; s < kScales; ++s) factors_[s] = float_adm::csf_factors(csf, s);
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names = {"adm2", "aim", "adm3"};
    for (int s = 0; s < kScales; ++s) names.push_back("adm_scale" + std::to_string(s));
    if (debug_) {
      for (const char* n : {"adm", "adm_num", "adm_den"}) names.push_back(n);
      for (int s = 0; s < kScales; ++s) {
        names.push_back("adm_num_scale" + std::to_string(s));
        names.push_back("adm_den_scale" + std::to_string(s));
      }
    }
    names = vmaf_common::with_suffix(names, suffix_);
    // Upstream's extractor does not list "adm" among its named outputs, so that one keeps its
    // bare name whatever the options.
    if (debug_) names[7] = "adm";
    return names;
  }

  // Frame-sized buffers: the f32 luma and wavelet bands of both pictures (frame_memory_test
  // measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    // Every scale's wavelet and the last bands' 3x3 masking need two samples per axis (upstream
    // reads outside its buffers below): 17 samples halve to 9, 5, 3 and 2.
    for (uint32_t n : {context.format.width, context.format.height}) {
      for (int k = 0; k < kScales; ++k) n = (n + 1) / 2;
      if (n < 2)
        throw InputError(fmt::format("float_adm needs at least 17x17 pixels, got {}",
                                     context.format.describe()));
    }
    pool_ = context.pool;
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 32;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    const AdmScores s = compute(ref, dis);
    const double adm3 = apply_hm_ ? 2 * s.adm2 * s.aim / (s.adm2 + s.aim)
                                  : s.adm2 * dlm_weight_ + (1 - s.aim) * (1 - dlm_weight_);
    out.put(frame, 0, s.adm2);
    out.put(frame, 1, s.aim);
    out.put(frame, 2, adm3 > min_val_ ? adm3 : min_val_);
    for (int k = 0; k < kScales; ++k) out.put(frame, 3 + k, double(s.num[k]) / double(s.den[k]));
    if (!debug_) return;
    double num = 0, den = 0;
    for (int k = 0; k < kScales; ++k) {
      num += s.num[k];
      den += s.den[k];
    }
    out.put(frame, 7, s.adm2);
    out.put(frame, 8, limited(num, ref.format()));
    out.put(frame, 9, limited(den, ref.format()));
    for (int k = 0; k < kScales; ++k) {
      out.put(frame, 10 + 2 * k, s.num[k]);
      out.put(frame, 11 + 2 * k, s.den[k]);
    }
  }

 private:
  // Sums below 1e-10 per 1080p-picture's worth of pixels count as 0 (compute_adm's numden_limit).
  static double limited(double sum, const PictureFormat& f) {
    const double limit = 1e-10 * int(f.width * f.height) / (1920.0 * 1080.0);
    return sum < limit ? 0 : sum;
  }

  AdmScores compute(const Picture& ref_picture, const Picture& dis_picture) const {
    AdmScores s{};
    std::vector<float> ref = float_common::luma_to_float(ref_picture, -128.0f);
    std::vector<float> dis = float_common::luma_to_float(dis_picture, -128.0f);
    int w = int(ref_picture.format().width), h = int(ref_picture.format().height);
    Bands ref_dwt, dis_dwt, r, a, weighted, masker;
    double num = 0, den = 0, aim_num = 0, aim_den = 0;
    for (int k = 0; k < kScales; ++k) {
      const bool skipped = k == 0 && skip_scale0_;
      float_adm::dwt2(ref.data(), w, h, skipped, ref_dwt, pool_);
      float_adm::dwt2(dis.data(), w, h, skipped, dis_dwt, pool_);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      float num_scale = 0.0f, den_scale = 0.0f, aim_scale = 0.0f;
      if (skipped) {
        den_scale = float(1e-10);  // upstream's guard against a zero denominator
      } else {
        const float_adm::CsfFactors& f = factors_[k];
        float_adm::decouple(ref_dwt, dis_dwt, gain_limit_, r, a, pool_);
        den_scale = float_adm::den_scale(ref_dwt, f, p_norm_, noise_weight_);
        float_adm::csf(a, f, weighted, masker);
        num_scale = float_adm::masked_pool(r, weighted, masker, f, bypass_cm_, p_norm_,
                                           noise_weight_, pool_);
        float_adm::csf(r, f, weighted, masker);
        aim_scale = float_adm::masked_pool(a, weighted, masker, f, bypass_cm_, p_norm_, 0.0, pool_);
      }
      num += num_scale;
      den += den_scale;
      if (skip_aim_scale_ != k) {
        aim_den += den_scale;
        aim_num += aim_scale;
      }
      s.num[k] = num_scale;
      s.den[k] = den_scale;
      ref.swap(ref_dwt.a);
      dis.swap(dis_dwt.a);
    }
    num = limited(num, ref_picture.format());
    den = limited(den, ref_picture.format());
    if (den == 0.0) {
      // Upstream leaves AIM unset here (an uninitialised double); vqx reports no impairment.
      s.adm2 = 1.0;
      s.aim = 0.0;
    } else {
      const double aim = aim_num / aim_den;
      s.aim = aim < 1.0f ? aim : 1.0f;
      s.adm2 = num / den;
    }
    return s;
  }

  bool debug_, skip_scale0_, apply_hm_, bypass_cm_;
  int skip_aim_scale_;
  double gain_limit_, noise_weight_, p_norm_, dlm_weight_, min_val_;
  std::string suffix_;
  std::array<float_adm::CsfFactors, kScales> factors_{};
  ThreadPool* pool_ = nullptr;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_adm_descriptor() {
  static const MetricDescriptor descriptor{
      "float_adm",
      "Additive/detail-loss measure (ADM2, AIM, ADM3) over four scales in f32, libvmaf's float_adm",
      {
          OptionSpec::Bool("debug", false,
                           "also output adm, adm_num, adm_den and each scale's num and den"),
          OptionSpec::Double("adm_enhn_gain_limit", 100.0, 1.0, 100.0,
                             "enhancement gain cap in the decoupling, 1 disables it")
              .param("egl"),
          OptionSpec::Double("adm_norm_view_dist", 3.0, 0.75, 24.0,
                             "viewing distance in display heights")
              .param("nvd"),
          OptionSpec::Double("adm_noise_weight", 0.03125, 0.0, 1500.0, "noise floor weight")
              .param("nw"),
          OptionSpec::Double("adm_csf_scale", 1.0, 0.0, 50.0, "Barten CSF scale").param("scf"),
          OptionSpec::Double("adm_csf_diag_scale", 1.0, 0.0, 50.0, "Barten CSF diagonal scale")
              .param("scfd"),
          OptionSpec::Int("adm_ref_display_height", 1080, 1, 4320,
                          "reference display height in pixels")
              .param("rdf"),
          OptionSpec::Int("adm_csf_mode", 0, 0, 9,
                          "CSF: 0 Watson 97, 1 Barten, 2 ADM (others: Watson)")
              .param("csf"),
          OptionSpec::Int("adm_bypass_cm", 0, 0, 1, "1 bypasses the contrast masking").param("bcm"),
          OptionSpec::Bool("adm_adm3_apply_hm", false, "ADM3 as the harmonic mean of ADM2 and AIM")
              .param("aah"),
          OptionSpec::Double("adm_p_norm", 3.0, 1.0, 20.0, "pooling p-norm").param("apn"),
          OptionSpec::Double("adm_dlm_weight", 0.5, 0.0, 1.0,
                             "weight of ADM2 against 1 - AIM in ADM3")
              .param("dlmw"),
          OptionSpec::Double("adm_min_val", 0.0, 0.0, 1.0, "lower clip of ADM3").param("min"),
          OptionSpec::Double("adm_f1s0", -1.0, -1.0, 10.0, "scale 0 h/v CSF factor when >= 0")
              .param("f1s0"),
          OptionSpec::Double("adm_f1s1", -1.0, -1.0, 10.0, "scale 1 h/v CSF factor when >= 0")
              .param("f1s1"),
          OptionSpec::Double("adm_f1s2", -1.0, -1.0, 10.0, "scale 2 h/v CSF factor when >= 0")
              .param("f1s2"),
          OptionSpec::Double("adm_f1s3", -1.0, -1.0, 10.0, "scale 3 h/v CSF factor when >= 0")
              .param("f1s3"),
          OptionSpec::Double("adm_f2s0", -1.0, -1.0, 10.0, "scale 0 diagonal CSF factor when >= 0")
              .param("f2s0"),
          OptionSpec::Double("adm_f2s1", -1.0, -1.0, 10.0, "scale 1 diagonal CSF factor when >= 0")
              .param("f2s1"),
          OptionSpec::Double("adm_f2s2", -1.0, -1.0, 10.0, "scale 2 diagonal CSF factor when >= 0")
              .param("f2s2"),
          OptionSpec::Double("adm_f2s3", -1.0, -1.0, 10.0, "scale 3 diagonal CSF factor when >= 0")
              .param("f2s3"),
          OptionSpec::Int("adm_skip_aim_scale", -1, 0, 3, "scale left out of AIM").param("sasc"),
          OptionSpec::Bool("adm_skip_scale0", false, "scale 0 contributes nothing").param("ssz"),
      },
      [](const OptionValues& o) { return std::make_unique<FloatAdmCpu>(o); },
      nullptr,
      {
          {"VMAF_feature_adm2_score", "adm2"},
          {"VMAF_feature_aim_score", "aim"},
          {"VMAF_feature_adm3_score", "adm3"},
          {"VMAF_feature_adm_scale0_score", "adm_scale0"},
          {"VMAF_feature_adm_scale1_score", "adm_scale1"},
          {"VMAF_feature_adm_scale2_score", "adm_scale2"},
          {"VMAF_feature_adm_scale3_score", "adm_scale3"},
      },
  };
  return descriptor;
}

}  // namespace vqx
