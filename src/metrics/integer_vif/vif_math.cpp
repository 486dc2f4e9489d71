// Integer VIF constants and the final step of a scale (shared/spec/vmaf.md 2.2, 2.4, 2.5).
#include "metrics/integer_vif/vif_math.h"

#include <array>
#include <cmath>

namespace vqx::integer_vif {

const uint16_t kFilter[kScales][17] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935,
     489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};

namespace {

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

}  // namespace

const uint16_t* log2_table() {
  static const std::array<uint16_t, 65536> table = make_log2_table();
  return table.data();
}

VifScaleResult vif_scale_result(const VifAccumulators& acc) {
  // 2.5 step 4: f64 arithmetic in this order, then f32.
  double num = (double(acc.num_log) / 2048.0) +
               (double(acc.den_flat) - ((double(acc.num_flat) / 16384.0) / 65025.0));
  double den = (double(acc.den_log) / 2048.0) + double(acc.den_flat);
  return {float(num), float(den)};
}

}  // namespace vqx::integer_vif
