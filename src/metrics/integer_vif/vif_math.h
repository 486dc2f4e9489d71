#pragma once
// libvmaf's integer VIF, stage by stage (shared/spec/vmaf.md section 2). Every stage is plain
// integer arithmetic on tight row-major planes, callable on its own so that a device twin can be
// compared with it bit for bit:
//   vif_statistic_rows  2.5 steps 1-3 for a band of output rows -> integer accumulators
//   vif_scale_result    2.5 step 4: accumulators -> f32 num, den
//   vif_downsample_rows 2.7: scale s -> scale s+1 (Q8 samples), a band of output rows
#include <cstdint>
#include <vector>

namespace vqx::integer_vif {

inline constexpr int kScales = 4;

// Q16 filters of 2.2 (each sums to 65536); scale s uses kFilter[s], radius kFilterRadius[s].
inline constexpr int kFilterTaps[kScales] = {17, 9, 5, 3};
inline constexpr int kFilterRadius[kScales] = {8, 4, 2, 1};
extern const uint16_t kFilter[kScales][17];

// 2.4: L[i] for 32767 <= i <= 65535 (index the returned pointer with i directly).
const uint16_t* log2_table();
int32_t log2_q11_32(uint32_t x);  // lg32
int32_t log2_q11_64(uint64_t x);  // lg64

// The four per-scale integer sums of 2.5 step 3. Sums of integers: any split of the rows gives
// the same totals.
struct VifAccumulators {
  int64_t num_log = 0;   // NL
  int64_t den_log = 0;   // DL
  int64_t num_flat = 0;  // NN
  int64_t den_flat = 0;  // DN
  void add(const VifAccumulators& o) {
    num_log += o.num_log;
    den_log += o.den_log;
    num_flat += o.num_flat;
    den_flat += o.den_flat;
  }
};

struct VifScaleResult {
  float num = 0, den = 0;
};

// Scale `scale` statistic over output rows [row_begin, row_end) of a w x h image pair. At scale 0
// the samples are the raw luma (uint8_t for 8-bit, uint16_t above) of depth `bpc`; at scales >= 1
// they are the Q8 uint16_t samples of vif_downsample_rows. `gain_limit` is vif_enhn_gain_limit.
template <typename Sample>
VifAccumulators vif_statistic_rows(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h,
                                   int scale, unsigned bpc, double gain_limit, uint32_t row_begin,
                                   uint32_t row_end);

// 2.5 step 4.
VifScaleResult vif_scale_result(const VifAccumulators& acc);

// 2.7: filters scale `from_scale` (w x h) with the next scale's filter and writes output rows
// [row_begin, row_end) of the floor(w/2) x floor(h/2) result to `out` (tight rows).
template <typename Sample>
void vif_downsample_rows(const Sample* in, uint32_t w, uint32_t h, int from_scale, unsigned bpc,
                         uint16_t* out, uint32_t row_begin, uint32_t row_end);

}  // namespace vqx::integer_vif
