#pragma once
// Helpers for tests that need a CUDA device: they skip cleanly where there is none (CI).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "engine/cuda_backend.h"
#include "core/picture.h"

#define VQX_REQUIRE_CUDA()                                                             \
  if (!::vqx::cuda_device_available(0)) GTEST_SKIP() << "no CUDA device on this machine"

namespace vqx::test {

inline RunSettings cuda_settings() {
  RunSettings s;
  s.backend = Backend::kCuda;
  return s;
}

inline RunSettings cpu_settings() {
  RunSettings s;
  s.backend = Backend::kCpu;
  s.threads = 2;
  return s;
}

// Seeded uniform samples over the format's full range.
inline std::vector<Picture> random_pictures(const PictureFormat& format, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  uint32_t max_value = (1u << format.bit_depth) - 1;
  std::vector<Picture> out;
  for (size_t i = 0; i < count; ++i) {
    Picture p(format);
    for (unsigned plane = 0; plane < format.plane_count(); ++plane) {
      size_t n = size_t{format.plane_width(plane)} * format.plane_height(plane);
      for (size_t k = 0; k < n; ++k) {
        uint32_t v = rng() % (max_value + 1);
        if (format.bytes_per_sample() == 1) p.plane<uint8_t>(plane)[k] = uint8_t(v);
        else p.plane<uint16_t>(plane)[k] = uint16_t(v);
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace vqx::test
