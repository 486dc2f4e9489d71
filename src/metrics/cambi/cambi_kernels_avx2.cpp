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

inline __m256i load16(const uint16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Level l's counts += Sign * |[a, b] n [t - pad, t + pad]| for the strip columns t (a, b in strip
// coordinates), over the aligned vectors that cover the trapezoid. The clamp at zero leaves the
// lanes outside it unchanged; the ones past the strip's end are the row's scratch padding.
template <int Sign>
inline void add_trapezoid(const StripHistogram& h, uint16_t l, int a, int b) {
  const int lo = std::max(a - h.pad, 0), hi = std::min(b + h.pad + 1, h.x1 - h.x0);
  if (lo >= hi) return;
  uint16_t* row = h.cells + size_t(l) * size_t(h.stride);
  const __m256i lanes = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int t = lo & ~15;
  // Lane k: the window of column t + k ends at t + k + pad (kept + 1) and starts at t + k - pad.
  __m256i window_end = _mm256_add_epi16(lanes, _mm256_set1_epi16(short(t + h.pad + 1)));
  __m256i window_start = _mm256_add_epi16(lanes, _mm256_set1_epi16(short(t - h.pad)));
  const __m256i run_end = _mm256_set1_epi16(short(b + 1)), run_start = _mm256_set1_epi16(short(a));
  const __m256i step = _mm256_set1_epi16(16);
  for (; t < hi; t += 16) {
    const __m256i overlap =
        _mm256_max_epi16(_mm256_sub_epi16(_mm256_min_epi16(run_end, window_end),
                                          _mm256_max_epi16(run_start, window_start)),
                         _mm256_setzero_si256());
    __m256i* p = reinterpret_cast<__m256i*>(row + t);
    const __m256i counts = _mm256_load_si256(p);
    _mm256_store_si256(
        p, Sign > 0 ? _mm256_add_epi16(counts, overlap) : _mm256_sub_epi16(counts, overlap));
    window_end = _mm256_add_epi16(window_end, step);
    window_start = _mm256_add_epi16(window_start, step);
  }
}

// A run of equal keys being scanned: its first column and key (kNotCounted: nothing to add).
struct OpenRun {
  int start;
  uint16_t key;
};

// Closes `run` before column c (adding or removing it) and opens the one of `key` there.
template <int Sign>
inline void next_run(const StripHistogram& h, OpenRun& run, int c, uint16_t key) {
  if (run.key != kNotCounted) add_trapezoid<Sign>(h, run.key, run.start - h.x0, c - 1 - h.x0);
  run = {c, key};
}

// Bit k set for each 16-bit lane k where a and b differ (the compare packed to one byte a lane).
inline uint32_t differing_lanes(__m256i a, __m256i b) {
  const __m256i same = _mm256_cmpeq_epi16(a, b);
  const __m128i bytes =
      _mm_packs_epi16(_mm256_castsi256_si128(same), _mm256_extracti128_si256(same, 1));
  return ~uint32_t(_mm_movemask_epi8(bytes)) & 0xFFFFu;
}

void replace_row(const StripHistogram& h, const uint16_t* out, const uint16_t* in, int s0, int s1) {
  // The key of a column is its level where out and in differ and kNotCounted where they agree
  // (x | all-ones of the compare); runs of equal keys are the runs removed and added.
  auto key = [](uint16_t x, uint16_t y) { return x == y ? kNotCounted : x; };
  OpenRun gone{s0, key(out[s0], in[s0])}, come{s0, key(in[s0], out[s0])};
  auto starts_at = [&](int at) {
    if (key(out[at], in[at]) != key(out[at - 1], in[at - 1]))
      next_run<-1>(h, gone, at, key(out[at], in[at]));
    if (key(in[at], out[at]) != key(in[at - 1], out[at - 1]))
      next_run<+1>(h, come, at, key(in[at], out[at]));
  };
  int c = s0 + 1;
  for (; c + 16 <= s1; c += 16) {
    const __m256i o = load16(out + c), i = load16(in + c);
    const __m256i o1 = load16(out + c - 1), i1 = load16(in + c - 1);
    const __m256i same = _mm256_cmpeq_epi16(o, i), same1 = _mm256_cmpeq_epi16(o1, i1);
    uint32_t gone_starts = differing_lanes(_mm256_or_si256(o, same), _mm256_or_si256(o1, same1));
    uint32_t come_starts = differing_lanes(_mm256_or_si256(i, same), _mm256_or_si256(i1, same1));
    for (; gone_starts; gone_starts &= gone_starts - 1) {
      const int at = c + std::countr_zero(gone_starts);
      next_run<-1>(h, gone, at, key(out[at], in[at]));
    }
    for (; come_starts; come_starts &= come_starts - 1) {
      const int at = c + std::countr_zero(come_starts);
      next_run<+1>(h, come, at, key(in[at], out[at]));
    }
  }
  for (; c < s1; ++c) starts_at(c);
  next_run<-1>(h, gone, s1, kNotCounted);
  next_run<+1>(h, come, s1, kNotCounted);
}

// ValueSums::add of 8 values at a time: the units of lane k go to 64-bit lane k mod 4 (a term has
// at most 38 bits, a lane sums a row's worth of them).
struct LaneSums {
  // A written constructor (not member initialisers) gets the unit's target attributes.
  LaneSums() : units(_mm256_setzero_si256()), bad(_mm256_setzero_si256()) {}
  __m256i units, bad;
  uint64_t nonzero = 0;
  void add(__m256 values) {
    const __m256i bits = _mm256_castps_si256(values);
    const __m256i is_zero = _mm256_cmpeq_epi32(bits, _mm256_setzero_si256());
    nonzero +=
        8 - uint64_t(std::popcount(uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(is_zero)))));
    const __m256i shift = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126));
    const __m256i fifteen = _mm256_set1_epi32(15);
    // shift >= 15 unsigned (exponent outside [126, 140]) on a non-zero lane
    bad = _mm256_or_si256(
        bad,
        _mm256_andnot_si256(is_zero, _mm256_cmpeq_epi32(_mm256_max_epu32(shift, fifteen), shift)));
    const __m256i mantissa = _mm256_andnot_si256(
        is_zero, _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFF)),
                                 _mm256_set1_epi32(0x800000)));
    const __m256i s = _mm256_and_si256(shift, fifteen);
    units = _mm256_add_epi64(
        units, _mm256_sllv_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(mantissa)),
                                 _mm256_cvtepu32_epi64(_mm256_castsi256_si128(s))));
    units = _mm256_add_epi64(
        units, _mm256_sllv_epi64(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(mantissa, 1)),
                                 _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s, 1))));
  }
  void finish(ValueSums* sums) const {
    alignas(32) uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), units);
    sums->units += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    sums->nonzero += nonzero;
    sums->representable &= bool(_mm256_testz_si256(bad, bad));
  }
};

// c-values of the pixels [a, b) (strip coordinates) of level l, 8 at a time, the tail plain.
inline void evaluate_run(const StripHistogram& h, int l, const LevelTable& t, int a, int b,
                         float* out, LaneSums& sums, ValueSums* tail_sums) {
  uint32_t diffs = l == kNotCounted ? 0 : t.contrasts[l];
  if (!diffs) {
    std::fill(out + a, out + b, 0.0f);
    return;
  }
  auto level = [&](int x) {
    return h.cells + size_t(x >= 0 && x < h.band ? x : h.band) * size_t(h.stride);
  };
  const uint16_t* ups[kMaxNumDiffs];
  const uint16_t* downs[kMaxNumDiffs];
  int weights[kMaxNumDiffs];
  int count = 0;
  for (; diffs; diffs &= diffs - 1, ++count) {
    const int d = std::countr_zero(diffs);
    ups[count] = level(l + d + 1);
    downs[count] = level(l - d - 1);
    weights[count] = t.weights[d];
  }
  const uint16_t* p0s = level(l);
  int j = a;
  for (; j + 8 <= b; j += 8) {
    const __m256i p0 = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p0s + j)));
    __m256 c = _mm256_setzero_ps();
    for (int r = 0; r < count; ++r) {
      const __m128i up = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ups[r] + j));
      const __m128i down = _mm_loadu_si128(reinterpret_cast<const __m128i*>(downs[r] + j));
      const __m256i pm = _mm256_cvtepu16_epi32(_mm_max_epu16(up, down));
      // weight * p0 * pm <= 9 * 4225^2 < 2^31: the int32 product is exact, as the plain one.
      const __m256i product =
          _mm256_mullo_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(weights[r]), p0), pm);
      const __m256 reciprocal = _mm256_i32gather_ps(t.lut, _mm256_add_epi32(p0, pm), 4);
      // Finite non-negative values, no -0: max_ps is std::max here.
      c = _mm256_max_ps(c, _mm256_mul_ps(_mm256_cvtepi32_ps(product), reciprocal));
    }
    _mm256_storeu_ps(out + j, c);
    sums.add(c);
  }
  for (; j < b; ++j) {
    const int p0 = p0s[j];
    float c = 0.0f;
    for (int r = 0; r < count; ++r) {
      const int pm = std::max(ups[r][j], downs[r][j]);
      c = std::max(c, float(weights[r] * p0 * pm) * t.lut[p0 + pm]);
    }
    out[j] = c;
    tail_sums->add(c);
  }
}

void evaluate_row(const StripHistogram& h, const uint16_t* levels, const LevelTable& t, float* out,
                  ValueSums* value_sums) {
  LaneSums sums;
  const uint16_t* row = levels + h.x0;
  float* strip_out = out + h.x0;
  const int n = h.x1 - h.x0;
  int start = 0, c = 1;
  for (; c + 16 <= n; c += 16)
    for (uint32_t starts = differing_lanes(load16(row + c), load16(row + c - 1)); starts;
         starts &= starts - 1) {
      const int at = c + std::countr_zero(starts);
      evaluate_run(h, row[start], t, start, at, strip_out, sums, value_sums);
      start = at;
    }
  for (; c < n; ++c)
    if (row[c] != row[c - 1]) {
      evaluate_run(h, row[start], t, start, c, strip_out, sums, value_sums);
      start = c;
    }
  evaluate_run(h, row[start], t, start, n, strip_out, sums, value_sums);
  sums.finish(value_sums);
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
  k.replace_row = replace_row;
  k.evaluate_row = evaluate_row;
  k.count_and_sum = count_and_sum;
  k.counted_levels = counted_levels;
  k.mode3 = mode3;
  k.flat_row = flat_row;
  k.flat_count_row = flat_count_row;
}

}  // namespace vqx::cambi
