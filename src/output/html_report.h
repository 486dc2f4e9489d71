#pragma once
// --report FILE.html: one self-contained page (inline SVG, CSS and script; no network, no
// external scripts or fonts) with, in this order,
//   - the pooled table: mean, harmonic mean, min, max and the percentiles of every metric;
//   - the worst frames of the primary metric as reference/distorted thumbnail pairs (PNG,
//     base64 data URLs) with their frame numbers and scores, also marked on that metric's plot;
//   - one per-frame plot of every metric (the primary one first), all on the same frame axis; a
//     series longer than `max_plot_buckets` points is drawn from its min/max buckets
//     (output/plot_downsample.h), and the pointer shows the frame and value (a bucket's range
//     where a point stands for several) in every panel at once.
// docs/report.md describes the page.
#include <ostream>
#include <string>
#include <vector>

#include "engine/result_table.h"
#include "output/number_format.h"
#include "output/worst_frames.h"

namespace vqx {

struct ReportContent {
  std::string version;               // e.g. "vqx-0.1.0"
  std::string reference, distorted;  // what was compared, as given on the command line
  std::string backend;               // e.g. "cpu (16 threads)"
  NumberFormat numbers;
  std::vector<double> percentiles;   // pooled table columns after the four of libvmaf
  std::string primary;               // the metric whose worst frames are shown
  std::vector<WorstFrame> worst;     // the worst first
  size_t max_plot_buckets = 1000;
};

void write_html_report(std::ostream& out, const ResultTable& table, const ReportContent& content);

// RFC 4648 base64 (with padding), as data URLs carry it.
std::string base64(const std::string& bytes);

}  // namespace vqx
