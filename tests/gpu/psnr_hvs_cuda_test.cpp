// The CUDA twin of psnr_hvs (src/metrics/psnr_hvs/cuda) against the CPU path, stage by stage and
// bit for bit: block_terms on seeded random, correlated and extreme pictures of every chroma
// layout, 8-12 bits and edge sizes (8x8 planes, widths 7k+1 and 7k+7, odd); nonzero and
// plane_sums on term arrays of one to many staged chunks, with exact zeros and a wide range of
// magnitudes; and the metric end to end against the CPU on synthetic pictures. Fixture parity:
// cuda_parity_test.
#include <fmt/format.h>

#include <cstring>
#include <random>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "gpu/gpu_support.h"
#include "metrics/psnr_hvs/cuda/psnr_hvs_kernels.h"
#include "metrics/psnr_hvs/psnr_hvs_math.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

namespace hvs = psnr_hvs;
using cuda::check;

struct Device {
  cuda::DeviceContext context{0};
  cuda::Stream stream;
  template <typename T>
  cuda::DeviceBuffer upload(const T* host, size_t count) {
    cuda::DeviceBuffer b(context, count * sizeof(T), "test");
    check(cudaMemcpy(b.get(), host, count * sizeof(T), cudaMemcpyHostToDevice), "upload");
    settle();
    return b;
  }
  cuda::DeviceBuffer garbage(size_t bytes) {  // NaN bytes: every value must be written
    cuda::DeviceBuffer b(context, bytes, "test");
    check(cudaMemset(b.get(), 0xff, bytes), "fill");
    settle();
    return b;
  }
  // The legacy-stream copy or fill is done before the test's non-blocking stream reads the buffer:
  // cudaMemset may return before it has run, and the two streams do not order each other.
  static void settle() { check(cudaDeviceSynchronize(), "settle"); }
  template <typename T>
  std::vector<T> download(const cuda::DeviceBuffer& b, size_t count) {
    check(cudaStreamSynchronize(stream.get()), "sync");
    std::vector<T> host(count);
    check(cudaMemcpy(host.data(), b.get(), count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }
};

bool same_floats(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * 4) == 0; }

enum class Content { kRandom, kCorrelated, kExtreme };

std::pair<Picture, Picture> make_pair(const PictureFormat& f, Content content, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t max = (1u << f.bit_depth) - 1;
  Picture ref(f), dis(f);
  for (unsigned p = 0; p < 3; ++p) {
    const size_t n = size_t(f.plane_width(p)) * f.plane_height(p);
    for (size_t i = 0; i < n; ++i) {
      uint32_t a = rng() % (max + 1), b = rng() % (max + 1);
      if (content == Content::kCorrelated) b = std::min<uint32_t>(max, a + rng() % (max / 16 + 1));
      if (content == Content::kExtreme) {
        a = (rng() & 1) ? max : 0;
        b = (rng() % 4 == 0) ? a : max - a;
      }
      if (f.bytes_per_sample() == 1) {
        ref.plane<uint8_t>(p)[i] = uint8_t(a);
        dis.plane<uint8_t>(p)[i] = uint8_t(b);
      } else {
        ref.plane<uint16_t>(p)[i] = uint16_t(a);
        dis.plane<uint16_t>(p)[i] = uint16_t(b);
      }
    }
  }
  return {std::move(ref), std::move(dis)};
}

void check_block_terms(Device& dev, const PictureFormat& f, Content content) {
  const std::string what = fmt::format("{} content {}", f.describe(), int(content));
  const auto [ref, dis] = make_pair(f, content, f.width * 131u + f.height * 7u + f.bit_depth);
  const hvs::cuda::FrameBlocks layout = hvs::cuda::make_frame_blocks(f);
  cuda::DeviceBuffer r = dev.upload(ref.bytes(), ref.size_bytes());
  cuda::DeviceBuffer d = dev.upload(dis.bytes(), dis.size_bytes());
  cuda::DeviceBuffer terms = dev.garbage(layout.total_blocks() * 64 * 4);
  hvs::cuda::launch_block_terms(layout, r.get<uint8_t>(), d.get<uint8_t>(), terms.get<float>(),
                                dev.stream.get());
  const std::vector<float> got = dev.download<float>(terms, layout.total_blocks() * 64);
  for (unsigned p = 0; p < 3; ++p) {
    const std::vector<float> want = hvs::plane_terms(ref, dis, p, nullptr);
    ASSERT_EQ(want.size(), layout.plane[p].blocks * 64) << what;
    const float* mine = got.data() + layout.plane[p].first_block * 64;
    for (size_t b = 0; b < layout.plane[p].blocks; ++b)
      for (size_t k = 0; k < 64; ++k)
        ASSERT_TRUE(same_floats(mine + b * 64 + k, want.data() + b * 64 + k, 1))
            << what << " plane " << p << " block " << b << " term " << k << ": cuda "
            << fmt::format("{:a}", mine[b * 64 + k]) << " cpu "
            << fmt::format("{:a}", want[b * 64 + k]);
  }
}

TEST(PsnrHvsCuda, BlockTermsMatchTheCpu) {
  VQX_REQUIRE_CUDA();
  Device dev;
  const std::pair<uint32_t, uint32_t> sizes[] = {{16, 16}, {17, 23}, {29, 16}, {22, 36},
                                                 {64, 64}, {71, 19}, {128, 72}};
  for (auto [w, h] : sizes)
    for (auto s : {ChromaSubsampling::k420, ChromaSubsampling::k422, ChromaSubsampling::k444})
      for (uint8_t bits : {8, 10, 12})
        for (Content c : {Content::kRandom, Content::kCorrelated, Content::kExtreme})
          check_block_terms(dev, make_format(w, h, s, bits), c);
}

// Terms with exact zeros (masked coefficients), tiny and large values, over one partial chunk up
// to many chunks of the staging loop: the nonzero stage keeps exactly the CPU's nonzero terms in
// order, and the plane sums equal the CPU's sums over all terms.
TEST(PsnrHvsCuda, NonzeroTermsAndPlaneSumsMatchTheCpu) {
  VQX_REQUIRE_CUDA();
  Device dev;
  std::mt19937 rng(11);
  for (uint32_t w : {8u, 15u, 120u, 701u, 1920u}) {
    const PictureFormat f = make_format(w, 64, ChromaSubsampling::k444, 10);
    const hvs::cuda::FrameBlocks layout = hvs::cuda::make_frame_blocks(f);
    std::vector<float> terms(layout.total_blocks() * 64);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    for (float& t : terms) {
      const uint32_t kind = rng() % 8;
      t = kind < 5 ? 0.0f : std::ldexp(mantissa(rng), int(rng() % 40) - 20);
    }
    cuda::DeviceBuffer d_terms = dev.upload(terms.data(), terms.size());
    cuda::DeviceBuffer kept = dev.garbage(terms.size() * 4), counts = dev.garbage(3 * 8);
    const size_t temp_bytes = hvs::cuda::nonzero_temp_bytes(layout);
    cuda::DeviceBuffer temp = dev.garbage(temp_bytes);
    const hvs::cuda::NonzeroScratch scratch{kept.get<float>(), counts.get<long long>(), temp.get(),
                                            temp_bytes};
    cuda::DeviceBuffer scores = dev.garbage(3 * 4);
    hvs::cuda::launch_nonzero(layout, d_terms.get<float>(), scratch, dev.stream.get());
    hvs::cuda::launch_plane_sums(layout, scratch, scores.get<float>(), dev.stream.get());
    const std::vector<float> got = dev.download<float>(scores, 3);
    const std::vector<long long> got_counts = dev.download<long long>(counts, 3);
    const std::vector<float> got_kept = dev.download<float>(kept, terms.size());
    for (unsigned p = 0; p < 3; ++p) {
      const float* plane_terms = terms.data() + layout.plane[p].first_block * 64;
      std::vector<float> want_kept;
      for (size_t k = 0; k < layout.plane[p].blocks * 64; ++k)
        if (plane_terms[k] != 0.0f) want_kept.push_back(plane_terms[k]);
      ASSERT_EQ(got_counts[p], (long long)want_kept.size()) << "width " << w << " plane " << p;
      EXPECT_TRUE(same_floats(got_kept.data() + layout.plane[p].first_block * 64, want_kept.data(),
                              want_kept.size()))
          << "width " << w << " plane " << p;
      const float want = float(hvs::plane_score(plane_terms, layout.plane[p].blocks, f.bit_depth));
      EXPECT_TRUE(same_floats(&got[p], &want, 1))
          << "width " << w << " plane " << p << ": " << got[p] << " vs " << want;
    }
  }
}

TEST(PsnrHvsCuda, MetricMatchesTheCpu) {
  VQX_REQUIRE_CUDA();
  for (auto s : {ChromaSubsampling::k420, ChromaSubsampling::k422, ChromaSubsampling::k444})
    for (uint8_t bits : {8, 12}) {
      const PictureFormat f = make_format(97, 61, s, bits);
      std::vector<Picture> ref, dis;
      for (uint32_t k = 0; k < 3; ++k) {
        auto [a, b] = make_pair(f, Content::kCorrelated, 100 + k);
        ref.push_back(std::move(a));
        dis.push_back(std::move(b));
      }
      auto cpu = run_on_pictures(ref, dis, {"psnr_hvs"}, cpu_settings());
      auto gpu = run_on_pictures(ref, dis, {"psnr_hvs"}, cuda_settings());
      for (const auto& name : hvs::kFeatureNames) {
        const auto a = column(*cpu, name), b = column(*gpu, name);
        for (size_t i = 0; i < a.size(); ++i)
          EXPECT_TRUE(same_bits(a[i], b[i]))
              << f.describe() << " " << name << " frame " << i << ": " << a[i] << " vs " << b[i];
      }
    }
}

}  // namespace
}  // namespace vqx::test
