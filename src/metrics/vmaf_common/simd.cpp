#include "metrics/vmaf_common/simd.h"

#include <atomic>

namespace vqx::vmaf_common {
namespace {
std::atomic<bool> g_allowed{true};

bool cpu_has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
#else
  return false;
#endif
}
}  // namespace

bool use_avx2() { return g_allowed.load(std::memory_order_relaxed) && cpu_has_avx2(); }
void set_avx2_allowed(bool allowed) { g_allowed.store(allowed, std::memory_order_relaxed); }

}  // namespace vqx::vmaf_common
