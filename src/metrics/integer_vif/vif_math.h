#pragma once
// libvmaf's integer VIF (shared/spec/vmaf.md section 2): the filters, the log2 table, the
// per-scale integer sums and their final f32 step, shared by the CPU row kernels
// (vif_kernels.h) and the CUDA twin.
#include <cstdint>

namespace vqx::integer_vif {

inline constexpr int kScales = 4;

// Q16 filters of 2.2 (each sums to 65536); scale s uses kFilter[s], radius kFilterRadius[s].
inline constexpr int kFilterTaps[kScales] = {17, 9, 5, 3};
inline constexpr int kFilterRadius[kScales] = {8, 4, 2, 1};
extern const uint16_t kFilter[kScales][17];

// 2.4: L[i] for 32767 <= i <= 65535 (index the returned pointer with i directly).
const uint16_t* log2_table();

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

// 2.5 step 4.
VifScaleResult vif_scale_result(const VifAccumulators& acc);

}  // namespace vqx::integer_vif
