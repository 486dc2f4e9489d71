#include "output/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "output/percentiles.h"
#include "output/plot_downsample.h"
#include "output/png_encoder.h"
#include "output/report_page_assets.h"

namespace vqx {
namespace {

// The plot's coordinate system (SVG viewBox units): the frame axis spans [kLeft, kLeft + kWidth].
constexpr double kViewWidth = 1100, kViewHeight = 150;
constexpr double kLeft = 64, kRight = 12, kTop = 8, kBottom = 22;
constexpr double kWidth = kViewWidth - kLeft - kRight, kHeight = kViewHeight - kTop - kBottom;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A JSON string (names are ASCII feature names; control characters are escaped all the same).
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20 || c == '<') out += fmt::format("\\u{:04x}", c);  // '<' keeps </script> out
    else out += char(c);
  }
  return out + "\"";
}

struct Series {
  std::string name;
  size_t column;
  std::vector<PlotBucket> buckets;
  double low = 0, high = 1;  // the value axis
};

Series make_series(const ResultTable& table, size_t column, size_t max_buckets) {
  std::vector<PlotPoint> points;
  for (uint64_t f = 0; f < table.frame_count(); ++f) {
    if (!table.frame_selected(f)) continue;
    if (auto v = table.get(f, column); v && std::isfinite(*v)) points.push_back({f, *v});
  }
  Series s{table.feature_names()[column], column, downsample_min_max(points, max_buckets)};
  if (!s.buckets.empty()) {
    s.low = s.buckets[0].min, s.high = s.buckets[0].max;
    for (const PlotBucket& b : s.buckets) s.low = std::min(s.low, b.min), s.high = std::max(s.high, b.max);
    if (s.high == s.low) s.low -= 0.5, s.high += 0.5;
  }
  return s;
}

double x_of(uint64_t frame, uint64_t frames) {
  return kLeft + (frames > 1 ? double(frame) / double(frames - 1) : 0.0) * kWidth;
}
double y_of(double value, const Series& s) { return kTop + (s.high - value) / (s.high - s.low) * kHeight; }

void write_panel(std::ostream& out, const Series& s, uint64_t frames, const std::vector<WorstFrame>& marks,
                 const NumberFormat& numbers) {
  out << "<div class=\"panel\" data-metric=\"" << escape(s.name) << "\"><h3>" << escape(s.name)
      << "<span class=\"readout\"></span></h3>\n";
  out << fmt::format("<svg class=\"plot\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\">", kViewWidth,
                     kViewHeight, kViewWidth, kViewHeight);
  const double bottom = kTop + kHeight;
  for (int k = 0; k <= 4; ++k) {
    const double y = kTop + kHeight * k / 4.0;
    out << fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\"/>", kLeft, y,
                       kLeft + kWidth, y);
    if (k % 2 == 0 && !s.buckets.empty())
      out << fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 6, y + 4,
                         fmt::format("{:.6g}", s.high - (s.high - s.low) * k / 4.0));
  }
  out << fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", kLeft, kTop, bottom);
  out << fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", kLeft, bottom,
                     kLeft + kWidth);
  const uint64_t last = frames > 0 ? frames - 1 : 0;
  for (int k = 0; k <= 4; ++k) {
    const uint64_t f = uint64_t(std::llround(double(last) * k / 4.0));
    out << fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>", x_of(f, frames),
                       kViewHeight - 6, f);
  }
  if (s.buckets.empty()) {
    out << fmt::format("<text x=\"{}\" y=\"{}\">no per-frame values</text>", kLeft + 8, kTop + 16);
  } else {
    // Each bucket adds its extremes in frame order, so the line reaches every dip and spike.
    out << "<polyline class=\"line\" points=\"";
    for (const PlotBucket& b : s.buckets) {
      const bool min_first = b.min_frame <= b.max_frame;
      const uint64_t f1 = min_first ? b.min_frame : b.max_frame, f2 = min_first ? b.max_frame : b.min_frame;
      const double v1 = min_first ? b.min : b.max, v2 = min_first ? b.max : b.min;
      out << fmt::format("{:.1f},{:.1f} ", x_of(f1, frames), y_of(v1, s));
      if (f2 != f1 || v2 != v1) out << fmt::format("{:.1f},{:.1f} ", x_of(f2, frames), y_of(v2, s));
    }
    out << "\"/>";
  }
  for (const WorstFrame& w : marks)
    if (std::isfinite(w.score) && !s.buckets.empty())
      out << fmt::format("<circle class=\"worst-mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>frame {}: {}"
                         "</title></circle>",
                         x_of(w.frame, frames), y_of(w.score, s), w.frame, numbers.format(w.score));
  out << fmt::format("<line class=\"cursor\" x1=\"0\" y1=\"{}\" x2=\"0\" y2=\"{}\"/>", kTop, bottom);
  out << "</svg></div>\n";
}

void write_plot_data(std::ostream& out, const std::vector<Series>& series, uint64_t frames,
                     const NumberFormat& numbers) {
  out << "<script type=\"application/json\" id=\"vqx-plot-data\">";
  out << fmt::format("{{\"frames\": {}, \"left\": {}, \"width\": {}, \"viewWidth\": {}, \"panels\": [", frames,
                     kLeft, kWidth, kViewWidth);
  for (size_t i = 0; i < series.size(); ++i) {
    out << (i ? ",\n" : "\n") << "{\"name\": " << json_string(series[i].name) << ", \"buckets\": [";
    for (size_t k = 0; k < series[i].buckets.size(); ++k) {
      const PlotBucket& b = series[i].buckets[k];
      out << (k ? "," : "") << '[' << b.first_frame << ',' << b.last_frame << ',' << numbers.format(b.min) << ','
          << numbers.format(b.max) << ']';
    }
    out << "]}";
  }
  out << "]}</script>\n";
}

void write_pooled_table(std::ostream& out, const ResultTable& table, const ReportContent& content) {
  out << "<table class=\"pooled\"><thead><tr><th>metric</th><th>mean</th><th>harmonic mean</th><th>min</th>"
         "<th>max</th>";
  for (double p : content.percentiles) out << "<th>" << percentile_key(p) << "</th>";
  out << "</tr></thead><tbody>\n";
  const NumberFormat& nf = content.numbers;
  const auto cell = [&](double v) { return "<td>" + (std::isfinite(v) ? nf.format(v) : std::string("–")) + "</td>"; };
  for (size_t column : table.output_order()) {
    const std::string& name = table.feature_names()[column];
    out << "<tr" << (name == content.primary ? " class=\"primary\"" : "") << "><td>" << escape(name) << "</td>";
    auto values = table.selected_values(column);
    if (!values || values->empty()) {
      out << "<td colspan=\"" << 4 + content.percentiles.size() << "\">no value for every frame</td></tr>\n";
      continue;
    }
    const PooledValues p = pool(*values);
    out << cell(p.mean) << cell(p.harmonic_mean) << cell(p.min) << cell(p.max);
    if (!content.percentiles.empty())
      for (double v : percentiles_of(*values, content.percentiles)) out << cell(v);
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void write_worst_frames(std::ostream& out, const ReportContent& content) {
  out << "<h2>The " << content.worst.size() << " worst frames by " << escape(content.primary)
      << " (reference left, distorted right)</h2>\n";
  if (content.worst.empty()) {
    out << "<p class=\"empty\">no frame has a " << escape(content.primary) << " score</p>\n";
    return;
  }
  out << "<div class=\"worst\">\n";
  for (const WorstFrame& w : content.worst) {
    out << "<figure class=\"worst\" data-frame=\"" << w.frame << "\"><div class=\"pair\">";
    const Thumbnail* pictures[2] = {&w.thumbnails.reference, &w.thumbnails.distorted};
    const char* kinds[2] = {"reference", "distorted"};
    for (int k = 0; k < 2; ++k)
      out << "<img class=\"thumb " << kinds[k] << "\" width=\"" << pictures[k]->width << "\" height=\""
          << pictures[k]->height << "\" alt=\"" << kinds[k] << " frame " << w.frame
          << "\" src=\"data:image/png;base64," << base64(encode_png(*pictures[k])) << "\">";
    out << "</div><figcaption>frame " << w.frame << " · " << escape(content.primary) << " "
        << (std::isfinite(w.score) ? content.numbers.format(w.score) : std::string("–")) << "</figcaption></figure>\n";
  }
  out << "</div>\n";
}

}  // namespace

std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (n > 1) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (n > 2) v |= uint8_t(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += n > 1 ? kAlphabet[(v >> 6) & 63] : '=';
    out += n > 2 ? kAlphabet[v & 63] : '=';
  }
  return out;
}

void write_html_report(std::ostream& out, const ResultTable& table, const ReportContent& content) {
  const uint64_t frames = table.frame_count();
  std::vector<Series> series;
  // The primary metric's panel first, then the others in output order.
  for (size_t column : table.output_order()) series.push_back(make_series(table, column, content.max_plot_buckets));
  std::stable_partition(series.begin(), series.end(), [&](const Series& s) { return s.name == content.primary; });

  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>vqx report: "
      << escape(content.distorted) << "</title>\n<style>" << report_assets::kStyle << "</style></head>\n<body>\n";
  out << "<h1>vqx report</h1>\n<p class=\"run\">reference <b>" << escape(content.reference)
      << "</b>, distorted <b>" << escape(content.distorted) << "</b>: " << frames << " frame"
      << (frames == 1 ? "" : "s") << ", " << escape(content.backend) << ", " << escape(content.version) << "</p>\n";
  out << "<h2>Pooled over the frames</h2>\n";
  write_pooled_table(out, table, content);
  write_worst_frames(out, content);
  out << "<h2>Per frame</h2>\n<div class=\"plots\">\n";
  static const std::vector<WorstFrame> kNoMarks;
  for (const Series& s : series)
    write_panel(out, s, frames, s.name == content.primary ? content.worst : kNoMarks, content.numbers);
  out << "</div>\n";
  write_plot_data(out, series, frames, content.numbers);
  out << "<script>" << report_assets::kScript << "</script>\n</body></html>\n";
}

}  // namespace vqx
