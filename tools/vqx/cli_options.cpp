#include "cli_options.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstring>
#include <limits>
#include <iostream>
#include <map>
#include <thread>

#include "core/error.h"
#include "ctc_presets.h"
#include "engine/cuda_backend.h"
#include "output/percentiles.h"

namespace vqx::cli {
namespace {

// Flags of the lusoris fork that vqx deliberately does not implement.
constexpr const char* kUnsupportedFlags[] = {"--tiny-model", "--dnn-ep", "--no-reference",
                                             "--tiny-device", "--tiny-threads", "--tiny-fp16"};

ChromaSubsampling parse_pixel_format(const std::string& p) {
  if (p == "420") return ChromaSubsampling::k420;
  if (p == "422") return ChromaSubsampling::k422;
  if (p == "444") return ChromaSubsampling::k444;
  throw UsageError(fmt::format("--pixel_format {}: expected 420, 422 or 444", p));
}

Backend parse_backend(const std::string& b) {
  if (b == "cpu") return Backend::kCpu;
  if (b == "cuda") return Backend::kCuda;
  if (b == "auto") return Backend::kAuto;
  if (b == "sycl" || b == "vulkan" || b == "hip" || b == "metal")
    throw UsageError(fmt::format("--backend {}: not supported by vqx (use cpu, cuda or auto)", b));
  throw UsageError(fmt::format("--backend {}: expected cpu, cuda or auto", b));
}

// Where several output-format flags are given, the last one wins (as in libvmaf).
OutputFormat last_format_flag(int argc, char** argv) {
  OutputFormat format = OutputFormat::kXml;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--xml") format = OutputFormat::kXml;
    else if (a == "--json") format = OutputFormat::kJson;
    else if (a == "--csv") format = OutputFormat::kCsv;
    else if (a == "--sub") format = OutputFormat::kSub;
  }
  return format;
}

SegmentRange parse_segment(const std::string& text) {
  const size_t colon = text.find(':');
  auto number = [&](const std::string& part, uint64_t& value) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 18) return false;
    value = std::stoull(part);
    return true;
  };
  SegmentRange range;
  if (colon == std::string::npos || !number(text.substr(0, colon), range.start) ||
      !number(text.substr(colon + 1), range.count) || range.count == 0)
    throw UsageError(fmt::format("--segment {}: expected START:COUNT (frame numbers, COUNT at least 1)", text));
  return range;
}

}  // namespace

std::vector<int> parse_gpu_list(const std::string& text) {
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < 64 && cuda_device_available(d); ++d) devices.push_back(d);
    if (devices.empty()) throw UsageError("--gpu all: no usable CUDA device");
    return devices;
  }
  size_t begin = 0;
  for (;;) {
    const size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError(fmt::format("--gpu {}: expected a device index, a list A,B,... or all", text));
    devices.push_back(std::stoi(item));
    if (end == text.size()) break;
    begin = end + 1;
  }
  return devices;
}

std::optional<CliOptions> parse_command_line(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const char* flag : kUnsupportedFlags)
      if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0)
        throw UsageError(fmt::format("{} is a lusoris-fork option for ONNX models, which vqx does not support", flag));
  }

  CliOptions o;
  CLI::App app{"vqx: perceptual video quality (PSNR, SSIMULACRA2, MS-SSIM, CAMBI, VMAF), libvmaf-compatible", "vqx"};
  app.set_help_flag("--help", "Print this help and exit");
  app.get_formatter()->column_width(34);

  unsigned width = 0, height = 0, bitdepth = 0;
  std::string pixel_format, backend = "auto", precision, ref_stream, dis_stream, decoder = "auto", scale;
  unsigned threads = usable_cpus();
  uint64_t subsample = 1, frame_cnt = 0, skip_ref = 0, skip_dist = 0;
  unsigned cpumask = 0, gpumask = 0;
  std::string gpu = "0";
  unsigned gpu_frames = 0;
  bool xml = false, json = false, csv = false, sub = false, profile = false, no_cuda = false;

  app.add_option("-r,--reference", o.reference,
                 "Reference video: Y4M, PNG, any container or stream FFmpeg reads (mp4, mkv, webm, ivf, ts, "
                 "h264/hevc/obu), or raw YUV with -w/-h/-p/-b; '-' for standard input");
  app.add_option("-d,--distorted", o.distorted, "Distorted video, as the reference");
  app.add_option("--ref_stream", ref_stream, "Reference stream: N (container index) or v:N (N-th video stream); default: the first video stream");
  app.add_option("--dis_stream", dis_stream, "Distorted stream, as --ref_stream");
  app.add_option("--decoder", decoder, "Compressed input: auto (default), cpu (libavcodec) or nvdec");
  app.add_option("--scale", scale,
                 "Scale distorted frames of another size to the reference's: bicubic, bilinear, lanczos, spline or "
                 "neighbor, as ffmpeg -vf scale=W:H:flags=MODE+accurate_rnd+bitexact");
  auto* w = app.add_option("-w,--width", width, "Raw YUV width");
  auto* h = app.add_option("-h,--height", height, "Raw YUV height");
  auto* p = app.add_option("-p,--pixel_format", pixel_format, "Raw YUV layout: 420, 422 or 444");
  auto* b = app.add_option("-b,--bitdepth", bitdepth, "Raw YUV bit depth: 8, 10, 12 or 16");
  std::vector<std::string> models, features, aom_ctc, nflx_ctc;
  auto* model_option =
      app.add_option("-m,--model", models, "VMAF model: version=NAME|path=FILE[:name=LABEL:...] (repeatable)");
  auto* feature_option = app.add_option("--feature", features, "Feature to compute: NAME[=key=val:key=val] (repeatable)");
  auto* aom_option = app.add_option("--aom_ctc", aom_ctc,
                                    "AOM common test conditions v1.0 .. v7.0: libvmaf's models and features for them");
  auto* nflx_option =
      app.add_option("--nflx_ctc", nflx_ctc, "Netflix common test conditions v1.0: libvmaf's models and features");
  app.add_option("-o,--output", o.output, "Output file ('-' for stdout); without it no file is written");
  std::string segment;
  app.add_option("--segment", segment,
                 "Score frames START..START+COUNT-1 only and write their raw values with --features_out, "
                 "for 'vqx merge' (START:COUNT)");
  app.add_option("--features_out", o.features_out, "The part file of --segment (JSON Lines)");
  std::string percentiles;
  auto* percentiles_flag =
      app.add_option("--percentiles", percentiles,
                     "Add pN entries to pooled_metrics (JSON, XML): P,P,... in 0-100 (numpy's linear "
                     "percentile); without values 1,5,50,95,99")
          ->expected(0, 1);
  app.add_option("--ndjson", o.ndjson, "Also write each frame's values as one JSON line as soon as they are final "
                                       "(FILE, or '-' for stdout)");
  app.add_option("--report", o.report,
                 "Also write an HTML report: per-frame plots, the pooled table and the worst frames' thumbnails "
                 "(one self-contained file)");
  app.add_option("--report_worst", o.report_worst, "Worst frames the report shows (default 6)")
      ->check(CLI::Range(0u, 64u));
  app.add_flag("--xml", xml, "XML output (default)");
  app.add_flag("--json", json, "JSON output");
  app.add_flag("--csv", csv, "CSV output");
  app.add_flag("--sub", sub, "MicroDVD subtitle output");
  app.add_option("--threads", threads,
                 "CPU worker threads, at most one per CPU this process may use (default: one per "
                 "CPU; 0 = the "
                 "calling thread)")
      ->check(CLI::Range(0u, 4096u));
  app.add_option(
         "--memory_limit", o.run.memory_limit,
         "CPU: memory the frames in flight may take, pictures and workspaces together (e.g. 4G, 512M; "
         "default: half of the machine's or the control group's memory)")
      ->transform(CLI::AsSizeValue(false))
      // Added after, so run before (CLI11 puts transforms first): a number must lead, which
      // AsSizeValue alone does not ask ("G" would read as 1 GiB).
      ->transform(CLI::Validator(
          [](std::string& text) -> std::string {
            if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) return "";
            return "expected a size such as 4G, 512M or 1073741824";
          },
          "SIZE"))
      ->check(CLI::Range(uint64_t{1}, std::numeric_limits<uint64_t>::max()));
  app.add_option("--subsample", subsample, "Report only frames whose index is a multiple of N");
  app.add_option("--frame_cnt", frame_cnt, "Score at most N frames (0 = all)");
  app.add_option("--frame_skip_ref", skip_ref, "Skip the first N reference frames");
  app.add_option("--frame_skip_dist", skip_dist, "Skip the first N distorted frames");
  app.add_option("--cpumask", cpumask, "Accepted for libvmaf compatibility; vqx's SIMD paths are bit-identical to its scalar ones");
  app.add_option("--gpumask", gpumask, "Non-zero disables the GPU (libvmaf compatibility)");
  app.add_flag("-n,--no_prediction", o.no_prediction, "Compute features only, no VMAF model");
  app.add_flag("-q,--quiet", o.quiet, "No progress line and no backend line");
  app.add_flag("-v,--version", o.show_version, "Print the version and exit");
  app.add_option("--precision", precision, "Number format: N (%.Ng, 1-17), max/full (%.17g) or legacy (%.6f); default as libvmaf");
  app.add_option("--backend", backend,
                 "auto (default: cuda when a device is present; features without a CUDA twin run on the CPU beside it), cpu or cuda");
  app.add_option("--gpu", gpu,
                 "CUDA device index, or several (A,B,... or all): the clip is split between them, scores unchanged");
  app.add_option("--gpu_frames", gpu_frames,
                 "CUDA: frames per metric on the device at once (default 0 = as many as fit 1 GiB, at most 4)")
      ->check(CLI::Range(0u, 16u));
  app.add_flag("--no_cuda", no_cuda, "Never use CUDA (same as --backend cpu)");
  app.add_flag("--profile", profile, "Print per-stage device timings and memory (CUDA backend)");
  app.add_flag("--list-features", o.list_features, "List the available features and their options");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  if (o.show_version || o.list_features) return o;

  // Models and features in argument order, each preset expanded where it stands (as libvmaf).
  ModelsAndFeatures run;
  std::map<const CLI::Option*, size_t> used;
  for (const CLI::Option* option : app.parse_order()) {
    if (option != model_option && option != feature_option && option != aom_option && option != nflx_option)
      continue;
    const std::string& value = option->results().at(used[option]++);
    if (option == model_option) run.models.push_back(value);
    else if (option == feature_option) run.features.push_back(value);
    else if (option == aom_option) apply_aom_ctc(value, run);
    else apply_nflx_ctc(value, run);
  }
  o.models = std::move(run.models);
  o.features = std::move(run.features);
  o.explicit_models = !models.empty();

  if (o.reference.empty() || o.distorted.empty())
    throw UsageError("both -r/--reference and -d/--distorted are required");
  bool any_raw = w->count() || h->count() || p->count() || b->count();
  if (any_raw) {
    if (!(w->count() && h->count() && p->count() && b->count()))
      throw UsageError("raw YUV input needs all of -w, -h, -p and -b");
    if (bitdepth != 8 && bitdepth != 10 && bitdepth != 12 && bitdepth != 16)
      throw UsageError(fmt::format("--bitdepth {}: expected 8, 10, 12 or 16", bitdepth));
    if (width == 0 || height == 0)
      throw UsageError(fmt::format("raw YUV size {}x{} is empty", width, height));
    o.raw = RawYuvLayout{width, height, parse_pixel_format(pixel_format), uint8_t(bitdepth)};
  }
  if (!ref_stream.empty()) o.ref_stream = parse_stream_selector(ref_stream, "--ref_stream");
  if (!dis_stream.empty()) o.dis_stream = parse_stream_selector(dis_stream, "--dis_stream");
  o.decoder = parse_decoder_choice(decoder);
  if (!scale.empty()) {
    o.scale = parse_scale_mode(scale);
    if (!o.scale)
      throw UsageError(fmt::format("--scale {}: expected bicubic, bilinear, lanczos, spline or neighbor", scale));
  }
  if (o.reference == "-" && o.distorted == "-")
    throw UsageError("-r and -d cannot both read standard input; give one a FIFO or a file");
  if (xml || json || csv || sub) o.format = last_format_flag(argc, argv);
  if (!precision.empty()) o.numbers = parse_precision(precision);
  if (percentiles_flag->count())
    o.percentiles = percentiles.empty() ? kDefaultPercentiles : parse_percentiles(percentiles);
  if (o.ndjson == "-" && o.output == "-")
    throw UsageError("--ndjson - and -o - would both write to standard output; give one a file");
  if (!o.report.empty() && (o.report == "-" || o.report == o.output || o.report == o.ndjson))
    throw UsageError(fmt::format("--report {}: give the report a file of its own", o.report));
  if (!o.report.empty() && o.decoder == DecoderChoice::kNvdec)
    throw UsageError("--report takes its thumbnails from frames on the host, and --decoder nvdec keeps them in "
                     "device memory; use --decoder cpu (or auto)");
  if (!segment.empty()) {
    o.segment = parse_segment(segment);
    if (o.features_out.empty()) throw UsageError("--segment needs --features_out FILE");
    if (!o.output.empty() || !o.ndjson.empty() || !o.report.empty())
      throw UsageError("--segment writes only --features_out; 'vqx merge' writes -o, and --ndjson and --report "
                       "need the whole clip");
  } else if (!o.features_out.empty()) {
    throw UsageError("--features_out needs --segment START:COUNT");
  }
  // Workers beyond the CPUs (affinity mask, cgroup quota) would only take turns on them, each
  // with a frame of its own in flight, which costs cache and memory and gains nothing.
  o.run.threads = std::min(threads, usable_cpus());
  o.run.subsample = subsample;
  o.run.frame_cnt = frame_cnt;
  o.run.skip_ref = skip_ref;
  o.run.skip_dist = skip_dist;
  o.run.backend = parse_backend(backend);
  if (no_cuda || gpumask != 0) {
    if (o.run.backend == Backend::kCuda)
      throw UsageError("--backend cuda contradicts --no_cuda/--gpumask");
    o.run.backend = Backend::kCpu;
  }
  o.gpus = parse_gpu_list(gpu);
  o.run.gpu = o.gpus.front();
  if (o.gpus.size() > 1 && (o.segment || !o.ndjson.empty() || !o.report.empty() || subsample > 1))
    throw UsageError("--gpu with several devices splits the clip, which --segment, --ndjson, --report and "
                     "--subsample do not combine with");
  o.run.profile = profile;
  o.run.gpu_frames = gpu_frames;
  return o;
}

}  // namespace vqx::cli
