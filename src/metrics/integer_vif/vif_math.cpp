// Integer VIF stages (shared/spec/vmaf.md section 2). The fast row kernels live in
// vif_kernels.inc, built here twice (baseline x86-64 and AVX2) and chosen at run time
// (vmaf_common/simd.h); vif_plain.inc is their plain twin, built once, for the tests.
#include "metrics/integer_vif/vif_math.h"

#include <immintrin.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "metrics/vmaf_common/simd.h"

namespace vqx::integer_vif {

const uint16_t kFilter[kScales][17] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935,
     489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};

namespace {

// Row buffers of one thread; b11/b22/b12 hold uint32 or uint64 lanes (see vertical_pass).
struct VifRowScratch {
  uint32_t *a1, *a2;
  uint64_t *b11, *b22, *b12;
  uint32_t *m1, *m2, *q11, *q22, *q12;  // padded by the filter radius on both sides
  uint32_t *mu1, *mu2;
  uint64_t *x11, *x22, *x12;
  int32_t *s1, *s2, *s12;
  // Fast kernels: the vertical outputs as int16 offset by -32768 (m1, m2, and the 16-bit halves
  // of q11, q22, q12), padded by the filter radius on both sides and 32 spare values.
  int16_t *o_m1, *o_m2, *o_q11h, *o_q11l, *o_q22h, *o_q22l, *o_q12h, *o_q12l;
};

// Owns the buffers behind a VifRowScratch for rows of up to `w` samples.
class ScratchStorage {
 public:
  VifRowScratch& get(uint32_t w) {
    if (w > width_) {
      width_ = w;
      const size_t n = w + 2 * 8;
      u32_.assign(10 * n, 0);
      u64_.assign(6 * n, 0);
      i32_.assign(3 * n, 0);
      uint32_t* p = u32_.data();
      for (uint32_t** d : {&view_.a1, &view_.a2, &view_.m1, &view_.m2, &view_.q11, &view_.q22,
                           &view_.q12, &view_.mu1, &view_.mu2}) {
        *d = p;
        p += n;
      }
      uint64_t* q = u64_.data();
      for (uint64_t** d : {&view_.b11, &view_.b22, &view_.b12, &view_.x11, &view_.x22, &view_.x12}) {
        *d = q;
        q += n;
      }
      view_.s1 = i32_.data(), view_.s2 = i32_.data() + n, view_.s12 = i32_.data() + 2 * n;
      const size_t n16 = n + 32;
      i16_.assign(8 * n16, 0);
      int16_t* o = i16_.data();
      for (int16_t** d : {&view_.o_m1, &view_.o_m2, &view_.o_q11h, &view_.o_q11l, &view_.o_q22h,
                          &view_.o_q22l, &view_.o_q12h, &view_.o_q12l}) {
        *d = o;
        o += n16;
      }
    }
    return view_;
  }

 private:
  uint32_t width_ = 0;
  std::vector<uint32_t> u32_;
  std::vector<uint64_t> u64_;
  std::vector<int32_t> i32_;
  std::vector<int16_t> i16_;
  VifRowScratch view_{};
};

VifRowScratch& thread_scratch(uint32_t w) {
  thread_local ScratchStorage storage;
  return storage.get(w);
}

// 2.4: round_half_away(2048 * RN32(log2(i))); the spec checked this equals glibc's log2f table,
// including the 80 exact ties (which is why this is not rint()).
std::array<uint16_t, 65536> make_log2_table() {
  std::array<uint16_t, 65536> t{};
  for (uint32_t i = 32767; i <= 65535; ++i) {
    double v = double(float(std::log2(double(i)))) * 2048.0;  // exact product
    t[i] = uint16_t(std::floor(v + 0.5));                     // v > 0: half away from zero
  }
  return t;
}

namespace plain {
#include "metrics/integer_vif/vif_plain.inc"
}  // namespace plain

// VQX_VIF_AVX2 selects the intrinsics of the AVX2 build (GCC does not define __AVX2__ under
// #pragma GCC target).
#define VQX_VIF_AVX2 0
namespace base {
#include "metrics/integer_vif/vif_kernels.inc"
}  // namespace base
#undef VQX_VIF_AVX2

#pragma GCC push_options
#pragma GCC target("avx2")
#define VQX_VIF_AVX2 1
namespace avx2 {
#include "metrics/integer_vif/vif_kernels.inc"
}  // namespace avx2
#undef VQX_VIF_AVX2
#pragma GCC pop_options

}  // namespace

const uint16_t* log2_table() {
  static const std::array<uint16_t, 65536> table = make_log2_table();
  return table.data();
}

int32_t log2_q11_32(uint32_t x) { return plain::lg32(log2_table(), x); }
int32_t log2_q11_64(uint64_t x) { return plain::lg64(log2_table(), x); }

template <typename Sample>
VifAccumulators vif_statistic_rows(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h,
                                   int scale, unsigned bpc, double gain_limit, uint32_t row_begin,
                                   uint32_t row_end) {
  VifRowScratch& s = thread_scratch(w);
  switch (vmaf_common::kernel_path()) {
    case vmaf_common::KernelPath::kAvx2:
      return avx2::statistic_rows(log2_table(), ref, dis, w, h, scale, bpc,
                                  gain_limit, row_begin, row_end, s);
    case vmaf_common::KernelPath::kBaseline:
      return base::statistic_rows(log2_table(), ref, dis, w, h, scale, bpc,
                                  gain_limit, row_begin, row_end, s);
    case vmaf_common::KernelPath::kPlain:
      break;
  }
  return plain::statistic_rows(log2_table(), ref, dis, w, h, scale, bpc, gain_limit, row_begin,
                               row_end, s);
}

VifScaleResult vif_scale_result(const VifAccumulators& acc) {
  // 2.5 step 4: f64 arithmetic in this order, then f32.
  double num = (double(acc.num_log) / 2048.0) +
               (double(acc.den_flat) - ((double(acc.num_flat) / 16384.0) / 65025.0));
  double den = (double(acc.den_log) / 2048.0) + double(acc.den_flat);
  return {float(num), float(den)};
}

template <typename Sample>
void vif_downsample_rows(const Sample* in, uint32_t w, uint32_t h, int from_scale, unsigned bpc,
                         uint16_t* out, uint32_t row_begin, uint32_t row_end) {
  VifRowScratch& s = thread_scratch(w);
  switch (vmaf_common::kernel_path()) {
    case vmaf_common::KernelPath::kAvx2:
      return avx2::downsample_rows(in, w, h, from_scale, bpc, out, row_begin, row_end, s);
    case vmaf_common::KernelPath::kBaseline:
      return base::downsample_rows(in, w, h, from_scale, bpc, out, row_begin, row_end, s);
    case vmaf_common::KernelPath::kPlain:
      break;
  }
  plain::downsample_rows(in, w, h, from_scale, bpc, out, row_begin, row_end, s);
}

template VifAccumulators vif_statistic_rows<uint8_t>(const uint8_t*, const uint8_t*, uint32_t,
                                                     uint32_t, int, unsigned, double, uint32_t,
                                                     uint32_t);
template VifAccumulators vif_statistic_rows<uint16_t>(const uint16_t*, const uint16_t*, uint32_t,
                                                      uint32_t, int, unsigned, double, uint32_t,
                                                      uint32_t);
template void vif_downsample_rows<uint8_t>(const uint8_t*, uint32_t, uint32_t, int, unsigned,
                                           uint16_t*, uint32_t, uint32_t);
template void vif_downsample_rows<uint16_t>(const uint16_t*, uint32_t, uint32_t, int, unsigned,
                                            uint16_t*, uint32_t, uint32_t);

}  // namespace vqx::integer_vif
