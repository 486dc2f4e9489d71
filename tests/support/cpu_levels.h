#pragma once
// The instruction-set levels of the kernel dispatch tables (core/cpu_features.h) that this host
// can run, for twin tests: each level adds one feature to the one before, in the order the
// tables apply them, up to the host's own features.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cpu_features.h"

namespace vqx::test {

struct CpuLevel {
  std::string name;
  CpuFeatures features;
};

// Every level above the plain one ({}) that the host has: avx2, avx2 fma, avx2 fma avx512,
// avx2 fma avx512 avx512vnni.
inline std::vector<CpuLevel> host_cpu_levels() {
  const CpuFeatures& host = host_cpu_features();
  std::vector<CpuLevel> levels;
  CpuFeatures f;
  if (!host.avx2) return levels;
  f.avx2 = true;
  levels.push_back({f.describe(), f});
  if (!host.fma) return levels;
  f.fma = true;
  levels.push_back({f.describe(), f});
  if (!host.avx512) return levels;
  f.avx512 = true;
  levels.push_back({f.describe(), f});
  if (!host.avx512_vnni) return levels;
  f.avx512_vnni = true;
  levels.push_back({f.describe(), f});
  return levels;
}

// Every level up to AVX-512, whatever the host has: the table an AVX-512 host without VNNI
// builds.
inline CpuFeatures avx512_features() {
  CpuFeatures f;
  f.avx2 = f.fma = f.avx512 = true;
  return f;
}
// The same with AVX-512 VNNI.
inline CpuFeatures avx512_vnni_features() {
  CpuFeatures f = avx512_features();
  f.avx512_vnni = true;
  return f;
}

}  // namespace vqx::test

#define VQX_REQUIRE_AVX512() \
  if (!::vqx::host_cpu_features().avx512) GTEST_SKIP() << "the CPU lacks AVX-512 F/BW/DQ/VL"
#define VQX_REQUIRE_AVX512_VNNI() \
  if (!::vqx::host_cpu_features().avx512_vnni) GTEST_SKIP() << "the CPU lacks AVX-512 VNNI"
