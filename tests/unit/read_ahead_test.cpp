// read_ahead: the same frames in the same order as the source, errors after the frames read
// before them, no frame read past what the caller asks for by more than the depth, and a reader
// given up early (an error on the other input) shuts down without a hang.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstring>

#include "core/error.h"
#include "io/read_ahead.h"
#include "io/readers.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

// Counts its reads and throws InputError at frame `fail_at` (never when 0).
class CountingSource final : public FrameSource {
 public:
  CountingSource(const PictureFormat& format, uint64_t frames, uint64_t fail_at = 0)
      : FrameSource("counting"), format_(format), frames_(frames), fail_at_(fail_at) {}
  const PictureFormat& format() const override { return format_; }
  bool read(Picture& picture) override {
    reads_++;
    if (fail_at_ && frames_read_ + 1 == fail_at_) throw InputError("counting: frame " + std::to_string(frames_read_) + " is damaged");
    if (frames_read_ == frames_) return false;
    std::memset(picture.bytes(), int(frames_read_ & 0xff), picture.size_bytes());
    ++frames_read_;
    return true;
  }
  std::atomic<uint64_t> reads_{0};

 private:
  PictureFormat format_;
  uint64_t frames_, fail_at_;
};

TEST(ReadAhead, SameFramesInOrder) {
  auto pictures = make_pictures(make_format(33, 17, ChromaSubsampling::k420, 10), {1, 2, 3, 4, 5, 6, 7});
  auto source = read_ahead(open_memory(pictures, "memory"), 3);
  EXPECT_EQ(source->name(), "memory");
  EXPECT_TRUE(source->format().same_layout(pictures[0].format()));
  Picture picture(source->format());
  for (const Picture& expected : pictures) {
    ASSERT_TRUE(source->read(picture));
    EXPECT_EQ(std::memcmp(picture.bytes(), expected.bytes(), expected.size_bytes()), 0);
  }
  EXPECT_FALSE(source->read(picture));
  EXPECT_FALSE(source->read(picture));
  EXPECT_EQ(source->frames_read(), pictures.size());
}

TEST(ReadAhead, AnErrorComesAfterTheFramesBeforeIt) {
  auto source = read_ahead(std::make_unique<CountingSource>(make_format(8, 8), 10, 4), 2);
  Picture picture(source->format());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(source->read(picture));
    EXPECT_EQ(picture.bytes()[0], i);
  }
  try {
    source->read(picture);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "counting: frame 3 is damaged");
  }
}

TEST(ReadAhead, ReadsAtMostTheDepthAheadAndStopsWhenDropped) {
  auto counting = std::make_unique<CountingSource>(make_format(8, 8), 1000);
  CountingSource* inner = counting.get();
  auto source = read_ahead(std::move(counting), 3);
  Picture picture(source->format());
  ASSERT_TRUE(source->read(picture));
  while (inner->reads_ < 4) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(inner->reads_, 4u);  // the frame handed out and three ahead
  source.reset();                 // joins its thread, waiting on a full ring
}

TEST(ReadAhead, SkipReadsThrough) {
  auto source = read_ahead(std::make_unique<CountingSource>(make_format(8, 8), 5), 2);
  EXPECT_EQ(source->skip(3), 3u);
  Picture picture(source->format());
  ASSERT_TRUE(source->read(picture));
  EXPECT_EQ(picture.bytes()[0], 3);
  EXPECT_EQ(source->skip(10), 1u);
}

}  // namespace
}  // namespace vqx::test
