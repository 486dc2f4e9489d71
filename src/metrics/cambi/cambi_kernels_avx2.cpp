// The AVX2 level of the CAMBI c-value kernels (cambi_kernels.h): 16 levels per compare or update,
// 8 pixels per c-value step (one gather of the reciprocal table). Same values as the plain twins
// (cambi_kernels.cpp); the tails call the plain entries.
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code.
#include <immintrin.h>

#include <algorithm>
#include <bit>

#include "core/cpu_features.h"
#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

VQX_BEGIN_TARGET_AVX2

namespace vqx::cambi {
namespace {

// Bit 2k of the mask stands for lane k (movemask gives two bits per 16-bit lane).
inline int lane_of(uint32_t byte_mask) { return std::countr_zero(byte_mask) >> 1; }

inline __m256i load16(const uint16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

int first_difference(const uint16_t* a, const uint16_t* b, int c, int end) {
  for (; c + 16 <= end; c += 16) {
    const uint32_t same = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi16(load16(a + c), load16(b + c))));
    if (same != 0xFFFFFFFFu) return c + lane_of(~same);
  }
  return plain::first_difference(a, b, c, end);
}

int first_agreement(const uint16_t* a, const uint16_t* b, int c, int end) {
  for (; c + 16 <= end; c += 16) {
    const uint32_t same = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi16(load16(a + c), load16(b + c))));
    if (same != 0) return c + lane_of(same);
  }
  return plain::first_agreement(a, b, c, end);
}

int run_end(const uint16_t* row, int c, int end) {
  const uint16_t v = row[c];
  const __m256i vv = _mm256_set1_epi16(short(v));
  for (++c; c + 16 <= end; c += 16) {
    const uint32_t same = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi16(load16(row + c), vv)));
    if (same != 0xFFFFFFFFu) return c + lane_of(~same);
  }
  while (c < end && row[c] == v) ++c;
  return c;
}

void add_linear(uint16_t* hist, int lo, int hi, int base, int slope) {
  int j = lo;
  if (hi - j >= 16) {
    // Lane k holds base + slope * (j + k), stepped by 16 * slope; 16-bit lanes wrap modulo 2^16
    // exactly as the plain twin's uint16 store does.
    const __m256i lanes = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m256i inc = _mm256_add_epi16(_mm256_set1_epi16(short(base + slope * j)),
                                   _mm256_mullo_epi16(lanes, _mm256_set1_epi16(short(slope))));
    const __m256i step = _mm256_set1_epi16(short(16 * slope));
    for (; j + 16 <= hi; j += 16) {
      __m256i* p = reinterpret_cast<__m256i*>(hist + j);
      _mm256_storeu_si256(p, _mm256_add_epi16(_mm256_loadu_si256(p), inc));
      inc = _mm256_add_epi16(inc, step);
    }
  }
  plain::add_linear(hist, j, hi, base, slope);
}

void evaluate_run(const uint16_t* p0s, const ContrastRows* rows, int count, const float* lut,
                  int a, int b, float* out) {
  int j = a;
  for (; j + 8 <= b; j += 8) {
    const __m256i p0 = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p0s + j)));
    __m256 c = _mm256_setzero_ps();
    for (int r = 0; r < count; ++r) {
      const __m128i up = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r].up + j));
      const __m128i down = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r].down + j));
      const __m256i pm = _mm256_cvtepu16_epi32(_mm_max_epu16(up, down));
      // weight * p0 * pm <= 9 * 4225^2 < 2^31: the int32 product is exact, as the plain one.
      const __m256i product =
          _mm256_mullo_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(rows[r].weight), p0), pm);
      const __m256 reciprocal = _mm256_i32gather_ps(lut, _mm256_add_epi32(p0, pm), 4);
      // Finite non-negative values, no -0: max_ps is std::max here.
      c = _mm256_max_ps(c, _mm256_mul_ps(_mm256_cvtepi32_ps(product), reciprocal));
    }
    _mm256_storeu_ps(out + j, c);
  }
  plain::evaluate_run(p0s, rows, count, lut, j, b, out);
}

bool count_and_sum(const float* values, size_t n, size_t* nonzero, uint64_t* sum) {
  // Per lane: zero -> nothing; else the mantissa with its hidden bit shifted by exponent - 126
  // into a 64-bit lane. A term has at most 38 bits and a lane sums n / 8 of them: exact for any
  // plane below 2^29 values (a 4K plane has 2^23).
  const __m256i zero = _mm256_setzero_si256(), fifteen = _mm256_set1_epi32(15);
  __m256i count = zero, bad = zero, sum_lo = zero, sum_hi = zero;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + i));
    const __m256i is_zero = _mm256_cmpeq_epi32(bits, zero);
    const __m256i shift = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126));
    // shift >= 15 unsigned (exponent outside [126, 140]) on a non-zero lane.
    bad = _mm256_or_si256(bad, _mm256_andnot_si256(
                                   is_zero, _mm256_cmpeq_epi32(_mm256_max_epu32(shift, fifteen), shift)));
    count = _mm256_sub_epi32(count, _mm256_andnot_si256(is_zero, _mm256_set1_epi32(-1)));
    const __m256i mantissa = _mm256_andnot_si256(
        is_zero, _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFF)),
                                 _mm256_set1_epi32(0x800000)));
    const __m256i s = _mm256_and_si256(shift, fifteen);
    sum_lo = _mm256_add_epi64(sum_lo, _mm256_sllv_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(mantissa)),
                                                        _mm256_cvtepu32_epi64(_mm256_castsi256_si128(s))));
    sum_hi = _mm256_add_epi64(sum_hi, _mm256_sllv_epi64(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(mantissa, 1)),
                                                        _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s, 1))));
  }
  alignas(32) uint64_t sums[8];
  alignas(32) uint32_t counts[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums), sum_lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums + 4), sum_hi);
  _mm256_store_si256(reinterpret_cast<__m256i*>(counts), count);
  uint64_t total = 0;
  size_t c = 0;
  for (int l = 0; l < 8; ++l) total += sums[l], c += counts[l];
  bool representable = _mm256_testz_si256(bad, bad);
  size_t tail_count = 0;
  uint64_t tail_sum = 0;
  representable &= plain::count_and_sum(values + i, n - i, &tail_count, &tail_sum);
  *nonzero = c + tail_count;
  *sum = total + tail_sum;
  return representable;
}

void counted_levels(const uint16_t* image, const uint8_t* mask, size_t n, int base, int band,
                    uint16_t* levels) {
  // l = code - base wraps below base, so l <= band - 1 (unsigned) is the band test.
  const __m256i vbase = _mm256_set1_epi16(short(base)), top = _mm256_set1_epi16(short(band - 1));
  const __m256i not_counted = _mm256_set1_epi16(short(kNotCounted));
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i l = _mm256_sub_epi16(load16(image + i), vbase);
    const __m256i in_band = _mm256_cmpeq_epi16(_mm256_min_epu16(l, top), l);
    const __m256i m = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(mask + i)));
    const __m256i masked_out = _mm256_cmpeq_epi16(m, _mm256_setzero_si256());
    const __m256i keep = _mm256_andnot_si256(masked_out, in_band);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(levels + i), _mm256_blendv_epi8(not_counted, l, keep));
  }
  plain::counted_levels(image + i, mask + i, n - i, base, band, levels + i);
}

void mode3(const uint16_t* a, const uint16_t* b, const uint16_t* c, size_t n, uint16_t* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i va = load16(a + i), vb = load16(b + i), vc = load16(c + i);
    const __m256i lo = _mm256_min_epu16(va, _mm256_min_epu16(vb, vc));
    const __m256i r = _mm256_blendv_epi8(lo, vb, _mm256_cmpeq_epi16(vb, vc));
    const __m256i a_wins = _mm256_or_si256(_mm256_cmpeq_epi16(va, vb), _mm256_cmpeq_epi16(va, vc));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_blendv_epi8(r, va, a_wins));
  }
  plain::mode3(a + i, b + i, c + i, n - i, out + i);
}

void flat_row(const uint16_t* row, const uint16_t* below, size_t n, uint8_t* flat) {
  size_t i = 0;
  const __m256i one = _mm256_set1_epi16(1);
  for (; i + 32 <= n; i += 32) {
    auto flat16 = [&](size_t at) {
      const __m256i v = load16(row + at);
      return _mm256_and_si256(one, _mm256_and_si256(_mm256_cmpeq_epi16(v, load16(row + at + 1)),
                                                    _mm256_cmpeq_epi16(v, load16(below + at))));
    };
    // packus interleaves the 128-bit halves; the permute puts the 32 bytes back in order.
    const __m256i packed = _mm256_packus_epi16(flat16(i), flat16(i + 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(flat + i), _mm256_permute4x64_epi64(packed, 0xD8));
  }
  plain::flat_row(row + i, below + i, n - i, flat + i);
}

void flat_count_row(const uint8_t* sums, size_t n, int threshold, uint8_t* mask) {
  size_t i = 0;
  // A count is at most 49, so byte lanes hold it and a signed compare orders it, for thresholds
  // a byte holds; other thresholds take the plain loop.
  if (threshold >= 0 && threshold < 127) {
    const __m256i limit = _mm256_set1_epi8(char(threshold)), one = _mm256_set1_epi8(1);
    for (; i + 32 <= n; i += 32) {
      __m256i count = _mm256_setzero_si256();
      for (int t = 0; t < 7; ++t)
        count = _mm256_add_epi8(count, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + i + size_t(t))));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(mask + i),
                          _mm256_and_si256(one, _mm256_cmpgt_epi8(count, limit)));
    }
  }
  plain::flat_count_row(sums + i, n - i, threshold, mask + i);
}

}  // namespace
}  // namespace vqx::cambi

VQX_END_TARGET

namespace vqx::cambi {

// Baseline code: filling the table must not itself need AVX2.
void install_avx2_kernels(CambiKernels& k) {
  k.first_difference = first_difference;
  k.first_agreement = first_agreement;
  k.run_end = run_end;
  k.add_linear = add_linear;
  k.evaluate_run = evaluate_run;
  k.count_and_sum = count_and_sum;
  k.counted_levels = counted_levels;
  k.mode3 = mode3;
  k.flat_row = flat_row;
  k.flat_count_row = flat_count_row;
}

}  // namespace vqx::cambi
