#pragma once
// The row kernels of integer ADM (shared/spec/vmaf.md 3.3-3.9) as a dispatch table
// (core/cpu_features.h). Each entry works on tight row-major bands over a range of rows:
//   dwt0_rows / dwt_rows  3.3 / 3.4: Daubechies-2 analysis, scale 0 / scales 1-3
//   decouple_rows         3.5: restored (r) and additive (a) detail, over the extended rectangle
//   csf_rows              3.7: CSF-weighted bands c and masking contributions m
//   cm_rows               3.8: contrast masking -> per-orientation sums of row-rounded values
//   den_rows              3.9: denominator sums from the reference bands
// Scale 0 keeps libvmaf's int16 intermediates (Coef = int16_t); scales 1-3 use int32_t. Every
// level computes the same integers as the plain twins, bit for bit (integer_adm_kernels_test).
#include <array>
#include <cstdint>

#include "core/cpu_features.h"
#include "metrics/integer_adm/adm_math.h"

namespace vqx::integer_adm {

// 3.3: scale 0 from the luma plane (samples of depth bpc), W x H, output rows
// [row_begin, row_end) of bands ceil(W/2) x ceil(H/2). `lowpass_only` computes only the a band.
template <typename Sample>
using AdmDwt0Rows = void(const Sample* luma, uint32_t width, uint32_t height, unsigned bpc,
                         bool lowpass_only, AdmBands<int16_t>& out, uint32_t row_begin,
                         uint32_t row_end);

// 3.4: scale `scale` (1..3) from the previous a band (int16_t at scale 1, else int32_t).
template <typename In>
using AdmDwtRows = void(int scale, const In* in, uint32_t in_w, uint32_t in_h,
                        AdmBands<int32_t>& out, uint32_t row_begin, uint32_t row_end);

// The stages after the DWT for one coefficient type.
template <typename Coef>
struct AdmScaleKernels {
  // 3.5 over the extended rectangle, rows [row_begin, row_end) of it.
  void (*decouple_rows)(int scale, const AdmBands<Coef>& ref, const AdmBands<Coef>& dis,
                        double gain_limit, const AdmRect& extended, AdmDetail<Coef>& restored,
                        AdmDetail<Coef>& additive, int row_begin, int row_end) = nullptr;
  // 3.7 over the extended rectangle: c and m of the band set `in`.
  void (*csf_rows)(int scale, const AdmDetail<Coef>& in, const AdmScaleWeights& weights,
                   const AdmRect& extended, AdmDetail<Coef>& c, AdmDetail<Coef>& m,
                   int row_begin, int row_end) = nullptr;
  // 3.8 over the inner rectangle: masks `x` with the threshold from (c, m); returns per
  // orientation the sum over rows [row_begin, row_end) of the row-rounded values.
  std::array<int64_t, 3> (*cm_rows)(int scale, const AdmDetail<Coef>& x,
                                    const AdmDetail<Coef>& c, const AdmDetail<Coef>& m,
                                    const AdmScaleWeights& weights, const AdmRects& rects,
                                    SimdCompat compat, int row_begin, int row_end) = nullptr;
  // 3.9: per orientation, the sum over rows [row_begin, row_end) of the inner rectangle.
  std::array<uint64_t, 3> (*den_rows)(int scale, const AdmBands<Coef>& ref,
                                      const AdmRects& rects, int row_begin,
                                      int row_end) = nullptr;
};

struct AdmKernels {
  AdmDwt0Rows<uint8_t>* dwt0_rows_8 = nullptr;
  AdmDwt0Rows<uint16_t>* dwt0_rows_16 = nullptr;
  AdmDwtRows<int16_t>* dwt_rows_from_scale0 = nullptr;  // scale 1
  AdmDwtRows<int32_t>* dwt_rows = nullptr;              // scales 2 and 3
  AdmScaleKernels<int16_t> scale0;
  AdmScaleKernels<int32_t> scales123;

  template <typename Sample>
  AdmDwt0Rows<Sample>* dwt0() const {
    if constexpr (sizeof(Sample) == 1) return dwt0_rows_8;
    else return dwt0_rows_16;
  }
  template <typename Coef>
  const AdmScaleKernels<Coef>& stages() const {
    if constexpr (sizeof(Coef) == 2) return scale0;
    else return scales123;
  }
};

// The plain twins, then the entries of every level `cpu` has.
AdmKernels make_adm_kernels(const CpuFeatures& cpu);
// This host's table, built once.
const AdmKernels& adm_kernels();

// The levels make_adm_kernels combines, each in its own translation unit: the plain twins
// (adm_kernels.cpp), then the AVX2 entries (adm_kernels_avx2.cpp) and the AVX-512 ones
// (adm_kernels_avx512.cpp), each overriding those before.
// install_avx512_kernels takes the DWT of scales 1-3 from its own unit (adm_dwt_avx512.cpp).
AdmKernels plain_adm_kernels();
void install_avx2_kernels(AdmKernels& kernels);
void install_avx512_kernels(AdmKernels& kernels);
void install_avx512_dwt_kernels(AdmKernels& kernels);

}  // namespace vqx::integer_adm
