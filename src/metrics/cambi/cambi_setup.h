#pragma once
// CAMBI options, output names and init-time setup (shared/spec/cambi.md sections 2-3), shared by
// the CPU metric (cambi.cpp) and its CUDA twin (cuda/), so that both name their outputs alike and
// accept and reject exactly the same configurations with the same messages.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/options.h"
#include "core/picture.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx::cambi {

std::vector<OptionSpec> option_specs();
// "cambi" plus _<alias>_<value> for each non-default feature param (spec 2.2), then with
// full_ref "cambi_source" and "cambi_full_reference" (never renamed).
std::vector<std::string> feature_names(const OptionValues& o);

struct Options {
  double max_val, topk, tvi_threshold, vis_lum_threshold;
  int enc_width, enc_height, enc_bitdepth, src_width, src_height, window_size;
  int max_log_contrast, high_res_speedup;
  std::string heatmaps_path;
  bool full_ref;
  Eotf eotf;
  explicit Options(const OptionValues& o);
};


// How one picture (distorted at the encode size, or the source at the source size) is scored.
struct PictureSetup {
  unsigned width = 0, height = 0;  // processing size
  unsigned window = 0;             // adjusted window
  ResizeMap map;
};

// Everything init decides (spec 3); throws InputError for configurations upstream rejects.
struct Setup {
  int bpc = 8;
  bool speedup = false;
  bool anti_dither = true;
  LevelParams params;
  PictureSetup dis, src;  // src only with full_ref
};
Setup make_setup(const Options& options, const PictureFormat& format);

// The per-frame error of spec 4.1 (a luma sample above 2^bpc - 1).
std::string invalid_input_message(uint64_t frame, int bpc);

}  // namespace vqx::cambi
