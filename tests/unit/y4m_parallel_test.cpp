// The parallel pread Y4M reader returns the same bytes as the stream reader, and fails alike.
#include <cstring>
#include <fstream>
#include <random>

#include "core/error.h"
#include "io/readers.h"
#include "io/y4m_parallel.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

void expect_same_frames(const std::string& path, unsigned threads) {
  auto a = open_y4m(path, "reference");
  auto b = open_y4m_parallel(path, "reference", threads);
  ASSERT_TRUE(a->format().same_layout(b->format()));
  Picture pa(a->format()), pb(b->format());
  size_t frames = 0;
  for (;;) {
    bool ha = a->read(pa), hb = b->read(pb);
    ASSERT_EQ(ha, hb) << path << " frame " << frames;
    if (!ha) break;
    ASSERT_EQ(std::memcmp(pa.bytes(), pb.bytes(), pa.size_bytes()), 0) << path << " frame " << frames;
    ++frames;
  }
  EXPECT_GT(frames, 0u);
}

// 1024x1024 4:4:4 (3 MiB frames, so several chunks), frame headers with parameters.
std::string write_synthetic(const std::string& name, size_t frames, size_t truncate_last_by) {
  std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary);
  out << "YUV4MPEG2 W1024 H1024 F25:1 Ip C444\n";
  std::mt19937 rng(11);
  std::vector<char> data(size_t{3} << 20);
  for (size_t f = 0; f < frames; ++f) {
    out << (f % 2 ? "FRAME Ixyz\n" : "FRAME\n");
    for (char& c : data) c = char(rng());
    out.write(data.data(), std::streamsize(data.size() - (f + 1 == frames ? truncate_last_by : 0)));
  }
  return path;
}

TEST(Y4mParallel, SameBytesAsTheStreamReader) {
  std::string path = write_synthetic("parallel.y4m", 4, 0);
  for (unsigned threads : {1u, 2u, 3u, 8u}) expect_same_frames(path, threads);
}

TEST(Y4mParallel, TruncatedFrameIsAnInputError) {
  std::string path = write_synthetic("truncated.y4m", 2, 1000);
  auto r = open_y4m_parallel(path, "distorted", 4);
  Picture p(r->format());
  EXPECT_TRUE(r->read(p));
  try {
    r->read(p);
    FAIL() << "truncated frame accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("frame 1 is truncated"), std::string::npos) << e.what();
  }
}

TEST(Y4mParallel, MissingFrameMarkerIsAnInputError) {
  std::string path = temp_path("nomarker.y4m");
  std::ofstream(path, std::ios::binary) << "YUV4MPEG2 W2 H2 F25:1 C444\nFRAMX\n123456789012";
  auto r = open_y4m_parallel(path, "reference", 2);
  Picture p(r->format());
  EXPECT_THROW(r->read(p), InputError);
}

TEST(Y4mParallel, Fixtures) {
  for (const auto& pair : kAllPairs) {
    auto dir = fixture_dir(pair);
    if (!dir) GTEST_SKIP() << "fixtures not available (set VQX_FIXTURES)";
    expect_same_frames(*dir + "/dis.y4m", 4);
  }
}

}  // namespace
}  // namespace vqx::test
