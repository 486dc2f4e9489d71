// ssimulacra2 on the synthetic frames of shared/spec/ssimulacra2.md section 16, whose scores were
// computed with the fork's source: layouts, depths, yuv_matrix values, odd sizes and a clip that
// stops at four scales; plus identical inputs, tiny frames and thread-count invariance.
#include <bit>
#include <cstring>

#include "engine/thread_pool.h"
#include "metrics/ssimulacra2/ssimulacra2_pipeline.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct SyntheticPair {
  Picture ref, dis;
};

// Section 16's generator: fixed patterns for the reference, the same plus xorshift noise (and
// blocks with cleared low bits) for the distorted frame.
SyntheticPair make_pair(uint32_t w, uint32_t h, unsigned bpc, ChromaSubsampling layout) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = uint8_t(bpc);
  f.subsampling = layout;
  SyntheticPair pair{Picture(f), Picture(f)};
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

Picture copy_of(const Picture& p) {
  Picture c(p.format());
  std::memcpy(c.bytes(), p.bytes(), p.size_bytes());
  return c;
}

double score(const Picture& ref, const Picture& dis, const std::string& feature,
             unsigned threads = 0) {
  std::vector<Picture> r, d;
  r.push_back(copy_of(ref));
  d.push_back(copy_of(dis));
  RunSettings settings;
  settings.threads = threads;
  auto report = run_on_pictures(r, d, {feature}, settings);
  return column(*report, "ssimulacra2").at(0);
}

struct Vector {
  uint32_t w, h;
  unsigned bpc;
  ChromaSubsampling layout;
  int yuv_matrix;
  double expected;
};

class Ssimulacra2Vectors : public ::testing::TestWithParam<Vector> {};

// The spec's values come from the fork's scalar C path, whose edge map subtracts in f64.
TEST_P(Ssimulacra2Vectors, MatchesForkScalarPathBitExact) {
  const Vector& v = GetParam();
  SyntheticPair pair = make_pair(v.w, v.h, v.bpc, v.layout);
  const ssimulacra2::YuvMatrix matrix = ssimulacra2::make_yuv_matrix(v.yuv_matrix);
  ssimulacra2::Workspace workspace;
  const double got = ssimulacra2::score_pair(workspace, pair.ref, pair.dis, &matrix, nullptr,
                                             ssimulacra2::EdgeDifference::kDouble);
  EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(v.expected))
      << std::hexfloat << got << " vs " << v.expected << std::defaultfloat << " ("
      << got - v.expected << ")";
}

// The metric itself follows the fork's AVX2 path (the goldens); on these frames that moves the
// score by a little, never by more than the 1.3e-7 the fork's two paths differ by.
TEST_P(Ssimulacra2Vectors, MetricWithinForkPathSpread) {
  const Vector& v = GetParam();
  SyntheticPair pair = make_pair(v.w, v.h, v.bpc, v.layout);
  const double got =
      score(pair.ref, pair.dis, "ssimulacra2=yuv_matrix=" + std::to_string(v.yuv_matrix));
  EXPECT_NEAR(got, v.expected, 1.3e-7);
  EXPECT_NE(got, 100.0);
}

INSTANTIATE_TEST_SUITE_P(
    Spec16, Ssimulacra2Vectors,
    ::testing::Values(Vector{64, 48, 8, ChromaSubsampling::k420, 0, 82.805694376199568},
                      Vector{576, 324, 8, ChromaSubsampling::k420, 0, 66.169949761083188},
                      Vector{256, 256, 10, ChromaSubsampling::k444, 1, 73.776374750799079},
                      Vector{160, 90, 8, ChromaSubsampling::k420, 0, 78.895001255803578},
                      Vector{97, 61, 8, ChromaSubsampling::k422, 2, 82.119910909950903},
                      Vector{300, 250, 12, ChromaSubsampling::k420, 3, 67.398491710799021}));

}  // namespace
}  // namespace vqx::test
