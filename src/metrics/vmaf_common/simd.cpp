#include "metrics/vmaf_common/simd.h"

#include <atomic>

namespace vqx::vmaf_common {
namespace {
std::atomic<bool> g_allowed{true};
std::atomic<bool> g_plain{false};

bool cpu_has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
#else
  return false;
#endif
}
}  // namespace

KernelPath kernel_path() {
  if (g_plain.load(std::memory_order_relaxed)) return KernelPath::kPlain;
  if (g_allowed.load(std::memory_order_relaxed) && cpu_has_avx2()) return KernelPath::kAvx2;
  return KernelPath::kBaseline;
}
bool use_avx2() { return kernel_path() == KernelPath::kAvx2; }
void set_avx2_allowed(bool allowed) { g_allowed.store(allowed, std::memory_order_relaxed); }
void set_plain_only(bool plain) { g_plain.store(plain, std::memory_order_relaxed); }

}  // namespace vqx::vmaf_common
