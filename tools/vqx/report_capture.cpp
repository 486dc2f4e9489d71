#include "report_capture.h"

#include <fmt/format.h>

namespace vqx::cli {

ReportCapture::ReportCapture(size_t worst_count, const std::vector<vmaf::LoadedModel>& models,
                             std::function<void(const std::string&)> warn)
    : models_(models), warn_(std::move(warn)), worst_count_(worst_count) {}

void ReportCapture::choose_primary(const ResultTable& table) {
  if (!models_.empty()) {
    primary_ = models_.front().name();
    for (const auto& feature : models_.front().features())
      if (auto column = table.find_feature(feature.column)) model_columns_.push_back(*column);
  } else if (!table.feature_names().empty()) {
    primary_ = table.feature_names().front();
    primary_column_ = 0;
  }
  worst_.emplace(worst_count_, higher_is_worse(primary_));
}

// During the run a model's score is predicted from its features, as vmaf::apply_models does
// after it; `final`: the model's column is in the table.
std::optional<double> ReportCapture::score(uint64_t frame, const ResultTable& table, bool final) {
  if (primary_column_) return table.get(frame, *primary_column_);
  if (models_.empty()) return std::nullopt;
  if (final)
    if (auto column = table.find_feature(primary_)) return table.get(frame, *column);
  values_.clear();
  for (size_t column : model_columns_)
    if (auto v = table.get(frame, column)) values_.push_back(*v);
  if (values_.size() != models_.front().features().size()) return std::nullopt;
  return models_.front().predict(values_);
}

void ReportCapture::offer_scored(const ResultTable& table, bool final) {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const std::optional<double> s = score(it->first, table, final);
    if (!s && !final) {
      ++it;
      continue;
    }
    if (s) worst_->offer(it->first, *s, std::move(it->second));
    it = waiting_.erase(it);
  }
}

void ReportCapture::frame_read(uint64_t frame, const Picture& ref, const Picture& dis, const ResultTable& table) {
  if (!worst_) choose_primary(table);
  if (worst_count_ == 0) return;
  offer_scored(table, false);
  if (!table.frame_selected(frame)) return;
  const ThumbnailSize size = thumbnail_size(ref.format(), kMaxThumbnailWidth, kMaxThumbnailHeight);
  waiting_.emplace(frame, ThumbnailPair{make_thumbnail(ref, size), make_thumbnail(dis, size)});
  if (waiting_.size() > kMaxWaiting) {
    if (!warned_ && warn_)
      warn_(fmt::format("--report: {} scores reach the table more than {} frames late; the worst frames are "
                        "chosen among those scored sooner",
                        primary_, kMaxWaiting));
    warned_ = true;
    waiting_.erase(waiting_.begin());
  }
}

std::vector<WorstFrame> ReportCapture::finish(const ResultTable& table) {
  if (!worst_) return {};
  offer_scored(table, true);
  std::vector<WorstFrame> worst = worst_->worst_first();
  for (WorstFrame& w : worst)
    if (auto s = score(w.frame, table, true)) w.score = *s;
  return worst;
}

}  // namespace vqx::cli
