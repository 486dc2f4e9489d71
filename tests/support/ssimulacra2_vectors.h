#pragma once
// shared/spec/ssimulacra2.md section 16: the generator of its synthetic frame pairs and the six
// vectors whose scores the spec computed with the fork's source (its scalar path: f64 edges).
#include <cstdint>

#include "core/picture.h"

namespace vqx::test {

struct Ssimulacra2Pair {
  Picture ref, dis;
};

// Fixed patterns for the reference, the same plus xorshift noise (and blocks with cleared low
// bits) for the distorted frame.
inline Ssimulacra2Pair ssimulacra2_spec_pair(uint32_t w, uint32_t h, unsigned bpc,
                                             ChromaSubsampling layout) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = uint8_t(bpc);
  f.subsampling = layout;
  Ssimulacra2Pair pair{Picture(f), Picture(f)};
  uint32_t state = 2463534242u;
  auto rnd = [&state] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  const unsigned sh = bpc - 8;
  const int32_t max_value = int32_t((1u << bpc) - 1);
  for (unsigned p = 0; p < 3; ++p) {
    const uint32_t pw = f.plane_width(p), ph = f.plane_height(p);
    for (uint32_t y = 0; y < ph; ++y)
      for (uint32_t x = 0; x < pw; ++x) {
        int32_t v;
        if (p == 0) v = int32_t(((3 * x + 2 * y) + ((x ^ y) & 15)) % 200 + 24);
        else if (p == 1) v = int32_t(128 + ((x + 2 * y) % 48)) - 24;
        else v = int32_t(128 + ((3 * x - y + 1000) % 40)) - 20;
        const int32_t r = v << sh;
        const int32_t n = int32_t(rnd() % 9) - 4;
        int32_t d = r + n * (1 << sh);
        if (((x / 8) + (y / 8)) % 5 == 0) d = (d >> (sh + 3)) << (sh + 3);
        d = d < 0 ? 0 : (d > max_value ? max_value : d);
        const size_t i = size_t{y} * pw + x;
        if (bpc > 8) {
          pair.ref.plane<uint16_t>(p)[i] = uint16_t(r);
          pair.dis.plane<uint16_t>(p)[i] = uint16_t(d);
        } else {
          pair.ref.plane<uint8_t>(p)[i] = uint8_t(r);
          pair.dis.plane<uint8_t>(p)[i] = uint8_t(d);
        }
      }
  }
  return pair;
}

struct Ssimulacra2Vector {
  uint32_t w, h;
  unsigned bpc;
  ChromaSubsampling layout;
  int yuv_matrix;
  double score;
};

inline constexpr Ssimulacra2Vector kSsimulacra2SpecVectors[] = {
    {64, 48, 8, ChromaSubsampling::k420, 0, 82.805694376199568},
    {576, 324, 8, ChromaSubsampling::k420, 0, 66.169949761083188},
    {256, 256, 10, ChromaSubsampling::k444, 1, 73.776374750799079},
    {160, 90, 8, ChromaSubsampling::k420, 0, 78.895001255803578},
    {97, 61, 8, ChromaSubsampling::k422, 2, 82.119910909950903},
    {300, 250, 12, ChromaSubsampling::k420, 3, 67.398491710799021},
};

}  // namespace vqx::test
