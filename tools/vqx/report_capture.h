#pragma once
// --report: the thumbnails of the primary metric's worst frames, taken from the frames as they
// are scored (RunSettings::frame_read). Each selected frame's pair is averaged down to a
// thumbnail when it is read and held until its primary score is in the table (VMAF: every
// feature of the model; otherwise the metric's own value), then offered to WorstFrames, which
// keeps only the current worst candidates. Memory stays bounded: the frames waiting for their
// score are those in flight, and never more than kMaxWaiting of them.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/result_table.h"
#include "metrics/vmaf/model.h"
#include "output/thumbnail.h"
#include "output/worst_frames.h"

namespace vqx::cli {

class ReportCapture {
 public:
  // Frames waiting for their score at most; an older one is dropped, with one warning.
  static constexpr size_t kMaxWaiting = 512;
  static constexpr uint32_t kMaxThumbnailWidth = 256, kMaxThumbnailHeight = 144;

  // The primary metric is the first model's score when `models` has one, else the table's first
  // column (the first requested feature's first output).
  ReportCapture(size_t worst_count, const std::vector<vmaf::LoadedModel>& models,
                std::function<void(const std::string&)> warn);

  // RunSettings::frame_read.
  void frame_read(uint64_t frame, const Picture& ref, const Picture& dis, const ResultTable& table);
  // After the run (model scores applied): offers the frames still waiting, and returns the worst
  // frames with their scores as the table holds them.
  std::vector<WorstFrame> finish(const ResultTable& table);

  // Empty before the first frame.
  const std::string& primary() const { return primary_; }

 private:
  void choose_primary(const ResultTable& table);
  std::optional<double> score(uint64_t frame, const ResultTable& table, bool final);
  void offer_scored(const ResultTable& table, bool final);

  const std::vector<vmaf::LoadedModel>& models_;
  std::function<void(const std::string&)> warn_;
  std::string primary_;
  std::optional<size_t> primary_column_;     // when the primary metric is a table column
  std::vector<size_t> model_columns_;        // the first model's feature columns
  std::optional<WorstFrames> worst_;
  size_t worst_count_;
  std::map<uint64_t, ThumbnailPair> waiting_;  // by frame
  bool warned_ = false;
  std::vector<double> values_;
};

}  // namespace vqx::cli
