// FinalFrames: frames reach the listener once each, in order, only after `lag` later frames were
// handled, whatever order the workers finish in; the end of the run releases the rest.
#include "engine/final_frames.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "support/fixtures.h"

namespace vqx {
namespace {

TEST(FinalFrames, WaitsForLagFramesAndTheContiguousRun) {
  std::vector<uint64_t> heard;
  FinalFrames finals(1, [&](uint64_t f) { heard.push_back(f); });
  finals.handled(1);
  EXPECT_TRUE(heard.empty());  // frame 0 not handled yet
  finals.handled(0);
  EXPECT_EQ(heard, (std::vector<uint64_t>{0}));  // frame 1 waits for frame 2
  finals.handled(3);
  EXPECT_EQ(heard, (std::vector<uint64_t>{0}));
  finals.handled(2);
  EXPECT_EQ(heard, (std::vector<uint64_t>{0, 1, 2}));
  finals.finish(4);
  EXPECT_EQ(heard, (std::vector<uint64_t>{0, 1, 2, 3}));
}

TEST(FinalFrames, EveryFrameOnceInOrderFromManyThreads) {
  for (uint64_t lag : {0u, 1u, 2u, 7u}) {
    constexpr uint64_t kFrames = 500;
    std::vector<uint64_t> order(kFrames);
    for (uint64_t f = 0; f < kFrames; ++f) order[f] = f;
    std::shuffle(order.begin(), order.end(), std::mt19937(unsigned(lag)));
    std::vector<uint64_t> heard;
    FinalFrames finals(lag, [&](uint64_t f) {
      // Called under the tracker's lock: no other call runs now, and lag later frames are done.
      heard.push_back(f);
    });
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < 4; ++w)
      workers.emplace_back([&, w] {
        for (size_t i = w; i < order.size(); i += 4) finals.handled(order[i]);
      });
    for (auto& t : workers) t.join();
    EXPECT_EQ(heard.size(), kFrames > lag ? kFrames - lag : 0) << "lag " << lag;
    finals.finish(kFrames);
    ASSERT_EQ(heard.size(), kFrames);
    for (uint64_t f = 0; f < kFrames; ++f) ASSERT_EQ(heard[f], f) << "lag " << lag;
  }
}

// Through the engine: when a frame is announced, every value it ends up with is already there,
// motion2/motion3 included (a frame or two later than the SAD), and float_motion's, which it
// writes at flush (a temporal metric's default), for any thread count.
TEST(FinalFrames, EngineAnnouncesFramesWithAllTheirValues) {
  const PictureFormat f = test::make_format(64, 48);
  std::vector<Picture> ref, dis;
  for (uint32_t i = 0; i < 11; ++i) {
    ref.push_back(test::make_picture(f, 1 + 2 * i, 6));
    dis.push_back(test::make_picture(f, 2 + 2 * i, 6));
  }
  for (const char* motion : {"motion", "motion=motion_five_frame_window=true:motion_moving_average=true"})
    for (unsigned threads : {0u, 3u})
      for (uint64_t subsample : {1u, 3u}) {
        RunSettings s;
        s.threads = threads;
        s.subsample = subsample;
        std::vector<uint64_t> frames;
        std::vector<std::vector<std::optional<double>>> seen;
        s.frame_final = [&](uint64_t frame, const ResultTable& table) {
          frames.push_back(frame);
          std::vector<std::optional<double>> values;
          for (size_t c = 0; c < table.feature_names().size(); ++c) values.push_back(table.get(frame, c));
          seen.push_back(values);
        };
        auto report = test::run_on_pictures(ref, dis, {motion, "psnr", "float_motion"}, s);
        const ResultTable& table = report->table;
        ASSERT_EQ(frames.size(), ref.size());
        for (uint64_t frame = 0; frame < frames.size(); ++frame) {
          ASSERT_EQ(frames[frame], frame);
          for (size_t c = 0; c < table.feature_names().size(); ++c)
            EXPECT_EQ(seen[frame][c], table.get(frame, c))
                << motion << " threads " << threads << " frame " << frame << " " << table.feature_names()[c];
        }
      }
}

// Two sides (a CUDA run's device metrics and its CPU metrics): a frame counts once both handled it.
TEST(FinalFrames, TwoSidesAnnounceAFrameOnlyOnceBothHandledIt) {
  std::vector<uint64_t> announced;
  FinalFrames finals(1, [&](uint64_t f) { announced.push_back(f); }, 2);
  finals.handled(0);
  finals.handled(1);
  finals.handled(1);
  EXPECT_TRUE(announced.empty());  // frame 0 has one side only
  finals.handled(0);
  EXPECT_EQ(announced, (std::vector<uint64_t>{0}));  // lag 1: frame 1 waits for frame 2
  finals.handled(2);
  EXPECT_EQ(announced, (std::vector<uint64_t>{0}));
  finals.handled(2);
  EXPECT_EQ(announced, (std::vector<uint64_t>{0, 1}));
  finals.finish(3);
  EXPECT_EQ(announced, (std::vector<uint64_t>{0, 1, 2}));
}

}  // namespace
}  // namespace vqx
