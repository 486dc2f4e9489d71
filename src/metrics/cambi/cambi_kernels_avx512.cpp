// The AVX-512 level of the CAMBI c-value kernels (cambi_kernels.h): 32 levels per compare or
// update and 16 pixels per c-value step, the tails under a lane mask instead of a scalar loop.
// Same values as the plain twins (cambi_kernels.cpp).
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code.
#include <algorithm>
#include <bit>

#include "core/avx512_intrinsics.h"
#include "core/cpu_features.h"
#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

VQX_BEGIN_TARGET_AVX512

namespace vqx::cambi {
namespace {

// Lanes [0, n) of a 32-lane (16-bit) or 16-lane (32-bit) vector, n <= the lane count.
inline __mmask32 first_lanes32(int n) { return n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1; }
inline __mmask16 first_lanes16(int n) { return __mmask16(n >= 16 ? 0xFFFFu : (1u << n) - 1); }

inline __m512i load32(const uint16_t* p, int n) { return _mm512_maskz_loadu_epi16(first_lanes32(n), p); }

// Level l's counts += Sign * |[a, b] n [t - pad, t + pad]| for the strip columns t (a, b in strip
// coordinates), over the aligned vectors that cover the trapezoid. The clamp at zero leaves the
// lanes outside it unchanged; the ones past the strip's end are the row's scratch padding.
template <int Sign>
inline void add_trapezoid(const StripHistogram& h, uint16_t l, int a, int b) {
  const int lo = std::max(a - h.pad, 0), hi = std::min(b + h.pad + 1, h.x1 - h.x0);
  if (lo >= hi) return;
  uint16_t* row = h.cells + size_t(l) * size_t(h.stride);
  const __m512i lanes = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                                         16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  int t = lo & ~31;
  // Lane k: the window of column t + k ends at t + k + pad (kept + 1) and starts at t + k - pad.
  __m512i window_end = _mm512_add_epi16(lanes, _mm512_set1_epi16(short(t + h.pad + 1)));
  __m512i window_start = _mm512_add_epi16(lanes, _mm512_set1_epi16(short(t - h.pad)));
  const __m512i run_end = _mm512_set1_epi16(short(b + 1)), run_start = _mm512_set1_epi16(short(a));
  const __m512i step = _mm512_set1_epi16(32);
  for (; t < hi; t += 32) {
    const __m512i overlap =
        _mm512_max_epi16(_mm512_sub_epi16(_mm512_min_epi16(run_end, window_end),
                                          _mm512_max_epi16(run_start, window_start)),
                         _mm512_setzero_si512());
    __m512i* p = reinterpret_cast<__m512i*>(row + t);
    const __m512i counts = _mm512_load_si512(p);
    _mm512_store_si512(
        p, Sign > 0 ? _mm512_add_epi16(counts, overlap) : _mm512_sub_epi16(counts, overlap));
    window_end = _mm512_add_epi16(window_end, step);
    window_start = _mm512_add_epi16(window_start, step);
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

void replace_row(const StripHistogram& h, const uint16_t* out, const uint16_t* in, int s0, int s1) {
  // The key of a column is its level where out and in differ and kNotCounted where they agree
  // (x | all-ones of the compare); runs of equal keys are the runs removed and added.
  auto key = [](uint16_t x, uint16_t y) { return x == y ? kNotCounted : x; };
  OpenRun gone{s0, key(out[s0], in[s0])}, come{s0, key(in[s0], out[s0])};
  for (int c = s0 + 1; c < s1; c += 32) {
    const int n = std::min(32, s1 - c);
    const __m512i o = load32(out + c, n), i = load32(in + c, n);
    const __m512i o1 = load32(out + c - 1, n), i1 = load32(in + c - 1, n);
    const __m512i same = _mm512_movm_epi16(_mm512_cmpeq_epi16_mask(o, i));
    const __m512i same1 = _mm512_movm_epi16(_mm512_cmpeq_epi16_mask(o1, i1));
    const __mmask32 lanes = first_lanes32(n);
    uint32_t gone_starts =
        _mm512_cmpneq_epi16_mask(_mm512_or_si512(o, same), _mm512_or_si512(o1, same1)) & lanes;
    uint32_t come_starts =
        _mm512_cmpneq_epi16_mask(_mm512_or_si512(i, same), _mm512_or_si512(i1, same1)) & lanes;
    for (; gone_starts; gone_starts &= gone_starts - 1) {
      const int at = c + std::countr_zero(gone_starts);
      next_run<-1>(h, gone, at, key(out[at], in[at]));
    }
    for (; come_starts; come_starts &= come_starts - 1) {
      const int at = c + std::countr_zero(come_starts);
      next_run<+1>(h, come, at, key(in[at], out[at]));
    }
  }
  next_run<-1>(h, gone, s1, kNotCounted);
  next_run<+1>(h, come, s1, kNotCounted);
}

// ValueSums::add of 16 values at a time: the units of lane k go to 64-bit lane k mod 8 (a term has
// at most 38 bits, a lane sums a row's worth of them).
// Lanes 8..15 (a shuffle: GCC 12's extracti64x4, also inside reduce_add, warns of its own
// placeholder, bug 105593).
inline __m256i upper_half(__m512i v) {
  return _mm512_castsi512_si256(_mm512_shuffle_i64x2(v, v, 0xEE));
}

struct LaneSums {
  // A written constructor (not member initialisers) gets the unit's target attributes.
  LaneSums() : units(_mm512_setzero_si512()) {}
  __m512i units;
  uint64_t nonzero = 0;
  uint32_t bad = 0;
  void add(__m512 values, __mmask16 lanes) {
    const __m512i bits = _mm512_castps_si512(values);
    const __mmask16 nonzero_lanes = _mm512_test_epi32_mask(bits, bits) & lanes;
    nonzero += uint64_t(std::popcount(uint32_t(nonzero_lanes)));
    // exponent - 126 outside [0, 14] (unsigned) on a non-zero lane
    const __m512i shift = _mm512_sub_epi32(_mm512_srli_epi32(bits, 23), _mm512_set1_epi32(126));
    bad |= nonzero_lanes & _mm512_cmpgt_epu32_mask(shift, _mm512_set1_epi32(14));
    const __m512i mantissa =
        _mm512_maskz_or_epi32(nonzero_lanes, _mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFF)),
                              _mm512_set1_epi32(0x800000));
    const __m512i s = _mm512_and_si512(shift, _mm512_set1_epi32(15));
    units = _mm512_add_epi64(
        units, _mm512_sllv_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(mantissa)),
                                 _mm512_cvtepu32_epi64(_mm512_castsi512_si256(s))));
    units = _mm512_add_epi64(units, _mm512_sllv_epi64(_mm512_cvtepu32_epi64(upper_half(mantissa)),
                                                      _mm512_cvtepu32_epi64(upper_half(s))));
  }
  void finish(ValueSums* sums) const {
    alignas(64) uint64_t lanes[8];
    _mm512_store_si512(lanes, units);
    for (uint64_t lane : lanes) sums->units += lane;
    sums->nonzero += nonzero;
    sums->representable &= bad == 0;
  }
};

// c-values of the pixels [a, b) (strip coordinates) of level l, 16 at a time.
inline void evaluate_run(const StripHistogram& h, int l, const LevelTable& t, int a, int b,
                         float* out, LaneSums& sums) {
  uint32_t diffs = t.contrasts[l];
  if (!diffs) {
    for (int j = a; j < b; j += 16)
      _mm512_mask_storeu_ps(out + j, first_lanes16(b - j), _mm512_setzero_ps());
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
  for (int j = a; j < b; j += 16) {
    const __mmask16 m = first_lanes16(b - j);
    const __m512i p0 = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p0s + j));
    __m512 c = _mm512_setzero_ps();
    for (int r = 0; r < count; ++r) {
      const __m256i up = _mm256_maskz_loadu_epi16(m, ups[r] + j);
      const __m256i down = _mm256_maskz_loadu_epi16(m, downs[r] + j);
      const __m512i pm = _mm512_cvtepu16_epi32(_mm256_max_epu16(up, down));
      // weight * p0 * pm <= 9 * 4225^2 < 2^31: the int32 product is exact, as the plain one.
      const __m512i product =
          _mm512_mullo_epi32(_mm512_mullo_epi32(_mm512_set1_epi32(weights[r]), p0), pm);
      // Lanes outside the run read lut[0], a valid entry, and are never stored.
      const __m512 reciprocal = _mm512_i32gather_ps(_mm512_add_epi32(p0, pm), t.lut, 4);
      // Finite non-negative values, no -0: max_ps is std::max here.
      c = _mm512_max_ps(c, _mm512_mul_ps(_mm512_cvtepi32_ps(product), reciprocal));
    }
    _mm512_mask_storeu_ps(out + j, m, c);
    sums.add(c, m);
  }
}

void evaluate_row(const StripHistogram& h, const uint16_t* levels, const LevelTable& t, float* out,
                  ValueSums* value_sums) {
  LaneSums sums;
  const uint16_t* row = levels + h.x0;
  float* strip_out = out + h.x0;
  const int n_all = h.x1 - h.x0;
  auto finish = [&](int a, int b) {
    if (row[a] == kNotCounted) {
      for (int j = a; j < b; j += 16)
        _mm512_mask_storeu_ps(strip_out + j, first_lanes16(b - j), _mm512_setzero_ps());
    } else {
      evaluate_run(h, row[a], t, a, b, strip_out, sums);
    }
  };
  int start = 0;
  for (int c = 1; c < n_all; c += 32) {
    const int n = std::min(32, n_all - c);
    uint32_t starts =
        _mm512_cmpneq_epi16_mask(load32(row + c, n), load32(row + c - 1, n)) & first_lanes32(n);
    for (; starts; starts &= starts - 1) {
      const int at = c + std::countr_zero(starts);
      finish(start, at);
      start = at;
    }
  }
  finish(start, n_all);
  sums.finish(value_sums);
}

}  // namespace
}  // namespace vqx::cambi

VQX_END_TARGET

namespace vqx::cambi {

// Baseline code: filling the table must not itself need AVX-512.
void install_avx512_kernels(CambiKernels& k) {
  k.replace_row = replace_row;
  k.evaluate_row = evaluate_row;
}

}  // namespace vqx::cambi
