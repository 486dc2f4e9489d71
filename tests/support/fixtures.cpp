#include "support/fixtures.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/readers.h"

namespace vqx::test {

std::string shared_dir() {
  if (const char* env = std::getenv("VQX_SHARED_DIR")) return env;
  return VQX_SHARED_DIR;
}

bool fixtures_required() {
  const char* env = std::getenv("VQX_REQUIRE_FIXTURES");
  return env && std::string(env) == "1";
}

std::optional<std::string> fixture_dir(const std::string& pair) {
  const char* env = std::getenv("VQX_FIXTURES");
  if (!env) return std::nullopt;
  std::string dir = std::string(env) + "/" + pair;
  if (!std::filesystem::exists(dir + "/ref.y4m") || !std::filesystem::exists(dir + "/dis.y4m"))
    return std::nullopt;
  return dir;
}

Golden load_golden(const std::string& pair, const std::string& tool, const std::string& config) {
  std::string path = fmt::format("{}/golden/{}/{}/{}.json", shared_dir(), pair, tool, config);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden " + path);
  nlohmann::json j = nlohmann::json::parse(in);
  Golden g;
  for (const auto& frame : j.at("frames")) {
    size_t index = frame.at("frameNum").get<size_t>();
    for (const auto& [name, value] : frame.at("metrics").items()) {
      auto& col = g.frames[name];
      if (col.size() <= index) col.resize(index + 1, std::nan(""));
      col[index] = value.is_null() ? std::nan("") : value.get<double>();
    }
  }
  if (j.contains("pooled_metrics"))
    for (const auto& [name, methods] : j.at("pooled_metrics").items())
      for (const auto& [method, value] : methods.items())
        if (value.is_number()) g.pooled[name][method] = value.get<double>();
  return g;
}

std::unique_ptr<RunReport> run_on_pair(const std::string& pair, const std::vector<std::string>& features,
                                       RunSettings settings) {
  auto dir = fixture_dir(pair);
  if (!dir) throw std::runtime_error("fixture " + pair + " missing");
  auto ref = open_y4m(*dir + "/ref.y4m", "reference");
  auto dis = open_y4m(*dir + "/dis.y4m", "distorted");
  std::vector<MetricRequest> requests;
  for (const auto& f : features) requests.push_back(parse_metric_request(f));
  return run_metrics(*ref, *dis, requests, settings);
}


std::unique_ptr<RunReport> run_on_pictures(const std::vector<Picture>& ref, const std::vector<Picture>& dis,
                                           const std::vector<std::string>& features,
                                           RunSettings settings) {
  auto r = open_memory(ref, "reference");
  auto d = open_memory(dis, "distorted");
  std::vector<MetricRequest> requests;
  for (const auto& f : features) requests.push_back(parse_metric_request(f));
  return run_metrics(*r, *d, requests, settings);
}

std::vector<double> column(const RunReport& report, const std::string& feature) {
  auto index = report.table.find_feature(feature);
  if (!index) throw std::runtime_error("no output column " + feature);
  std::vector<double> values;
  for (uint64_t f = 0; f < report.table.frame_count(); ++f) {
    auto v = report.table.get(f, *index);
    values.push_back(v ? *v : std::nan(""));
  }
  return values;
}

void expect_bit_exact(const std::vector<double>& actual, const std::vector<double>& golden,
                      const std::string& what) {
  ASSERT_EQ(actual.size(), golden.size()) << what << ": frame count";
  int reported = 0;
  size_t mismatches = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    bool same = std::memcmp(&actual[i], &golden[i], sizeof(double)) == 0 ||
                (std::isnan(actual[i]) && std::isnan(golden[i]));
    if (!same) {
      ++mismatches;
      if (reported++ < 5)
        ADD_FAILURE() << fmt::format("{} frame {}: got {:.17g}, golden {:.17g} (diff {:.3g})", what, i,
                                     actual[i], golden[i], actual[i] - golden[i]);
    }
  }
  EXPECT_EQ(mismatches, 0u) << what << ": frames differing from the golden";
}

CliResult run_cli(const std::string& args) {
  return run_command(fmt::format("{} {} 2>&1", VQX_CLI_PATH, args));
}

CliResult run_command(const std::string& command) {
  CliResult result{-1, {}};
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / fmt::format("vqx-test-{}", ::getpid());
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace vqx::test

#include <random>

namespace vqx::test {

PictureFormat make_format(uint32_t w, uint32_t h, ChromaSubsampling s, uint8_t bit_depth) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.subsampling = s;
  f.bit_depth = bit_depth;
  return f;
}

Picture make_picture(const PictureFormat& format, uint32_t seed, int noise) {
  Picture p(format);
  std::mt19937 rng(seed);
  int64_t max_value = (int64_t{1} << format.bit_depth) - 1;
  for (unsigned plane = 0; plane < format.plane_count(); ++plane) {
    uint32_t w = format.plane_width(plane), h = format.plane_height(plane);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        int64_t v = max_value * (x + 2 * y + plane * 7) / (w + 2 * h + 14) +
                    int64_t(rng() % uint32_t(2 * noise + 1)) - noise;
        v = std::clamp<int64_t>(v, 0, max_value);
        size_t i = size_t{y} * w + x;
        if (format.bytes_per_sample() == 1) p.plane<uint8_t>(plane)[i] = uint8_t(v);
        else p.plane<uint16_t>(plane)[i] = uint16_t(v);
      }
  }
  return p;
}

std::vector<Picture> make_pictures(const PictureFormat& format, std::initializer_list<uint32_t> seeds) {
  std::vector<Picture> out;
  for (uint32_t s : seeds) out.push_back(make_picture(format, s));
  return out;
}

namespace {

std::string default_color_tag(const PictureFormat& f) {
  std::string base = f.subsampling == ChromaSubsampling::k420   ? "420"
                     : f.subsampling == ChromaSubsampling::k422 ? "422"
                     : f.subsampling == ChromaSubsampling::k444 ? "444"
                                                                : "mono";
  if (f.bit_depth == 8) return base == "420" ? "420jpeg" : base;
  return base + (base == "mono" ? "" : "p") + std::to_string(f.bit_depth);
}

}  // namespace

void write_y4m(const std::string& path, const std::vector<Picture>& frames, const std::string& color_tag,
               const std::string& extra_tags) {
  const PictureFormat& f = frames.at(0).format();
  std::ofstream out(path, std::ios::binary);
  out << "YUV4MPEG2 W" << f.width << " H" << f.height << " F25:1 Ip A1:1 C"
      << (color_tag.empty() ? default_color_tag(f) : color_tag) << extra_tags << "\n";
  for (const auto& p : frames) {
    out << "FRAME\n";
    out.write(reinterpret_cast<const char*>(p.bytes()), std::streamsize(p.size_bytes()));
  }
}

void write_raw(const std::string& path, const std::vector<Picture>& frames) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& p : frames) out.write(reinterpret_cast<const char*>(p.bytes()), std::streamsize(p.size_bytes()));
}

}  // namespace vqx::test
