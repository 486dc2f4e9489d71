// The CLI end to end on the fixtures: psnr at %.17g equals libvmaf's values on every frame, the
// default output is byte-identical to libvmaf's (but for version and fps), and every output
// format carries the same values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/cuda_backend.h"
#include "engine/engine.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string drop_lines(const std::string& text, int n) {
  size_t pos = 0;
  for (int i = 0; i < n; ++i) pos = text.find('\n', pos) + 1;
  return text.substr(pos);
}

class CliGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CliGolden, PsnrJsonAtFullPrecisionMatchesLibvmaf) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  std::string out = temp_path(GetParam() + "_psnr.json");
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --feature psnr --json --precision max -q -o {1}", dir, out));
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(slurp(out));
  Golden golden = load_golden(GetParam(), "netflix-p17", "psnr");
  for (const char* name : {"psnr_y", "psnr_cb", "psnr_cr"}) {
    std::vector<double> values;
    for (const auto& frame : j["frames"]) values.push_back(frame["metrics"][name].get<double>());
    expect_bit_exact(values, golden.frames.at(name), GetParam() + " " + name);
    for (const char* method : {"min", "max", "mean", "harmonic_mean"})
      EXPECT_EQ(j["pooled_metrics"][name][method].get<double>(), golden.pooled.at(name).at(method))
          << GetParam() << " " << name << " " << method;
  }
}

TEST_P(CliGolden, DefaultJsonIsByteIdenticalToLibvmaf) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  std::string out = temp_path(GetParam() + "_default.json");
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --feature psnr --json -n -q -o {1} --threads 2", dir, out));
  ASSERT_EQ(r.status, 0) << r.output;
  std::string golden = slurp(fmt::format("{}/golden/{}/netflix/psnr.json", shared_dir(), GetParam()));
  // Lines 2-3 hold the version string and the timing-dependent fps.
  EXPECT_EQ(drop_lines(slurp(out), 3), drop_lines(golden, 3));
}

TEST_P(CliGolden, EveryFormatCarriesTheSameValues) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  std::string base = fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --feature psnr -n -q --precision 17", dir);
  auto json_path = temp_path(GetParam() + ".json"), csv_path = temp_path(GetParam() + ".csv");
  auto xml_path = temp_path(GetParam() + ".xml"), sub_path = temp_path(GetParam() + ".sub");
  ASSERT_EQ(run_cli(base + " --json -o " + json_path).status, 0);
  ASSERT_EQ(run_cli(base + " --json --csv -o " + csv_path).status, 0);  // the last flag wins
  ASSERT_EQ(run_cli(base + " -o " + xml_path).status, 0);               // XML by default
  ASSERT_EQ(run_cli(base + " --sub -o " + sub_path).status, 0);
  auto j = nlohmann::json::parse(slurp(json_path));
  std::vector<std::string> expected;
  for (const auto& frame : j["frames"])
    for (const char* name : {"psnr_y", "psnr_cb", "psnr_cr"})
      expected.push_back(fmt::format("{:.17g}", frame["metrics"][name].get<double>()));

  std::vector<std::string> csv;
  std::istringstream lines(slurp(csv_path));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "Frame,psnr_y,psnr_cb,psnr_cr,");
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string field;
    std::getline(fields, field, ',');
    while (std::getline(fields, field, ',')) csv.push_back(field);
  }
  EXPECT_EQ(csv, expected);

  std::string xml = slurp(xml_path);
  std::vector<std::string> from_xml;
  for (size_t pos = xml.find("<frame "); pos != std::string::npos; pos = xml.find("<frame ", pos + 1))
    for (const char* name : {"psnr_y=\"", "psnr_cb=\"", "psnr_cr=\""}) {
      size_t at = xml.find(name, pos) + std::strlen(name);
      from_xml.push_back(xml.substr(at, xml.find('"', at) - at));
    }
  EXPECT_EQ(from_xml, expected);

  std::string sub = slurp(sub_path);
  std::vector<std::string> from_sub;
  std::istringstream sub_lines(sub);
  while (std::getline(sub_lines, line))
    for (const char* name : {"psnr_y: ", "psnr_cb: ", "psnr_cr: "}) {
      size_t at = line.find(name) + std::strlen(name);
      from_sub.push_back(line.substr(at, line.find('|', at) - at));
    }
  EXPECT_EQ(from_sub, expected);
}

INSTANTIATE_TEST_SUITE_P(AllPairs, CliGolden, ::testing::ValuesIn(kAllPairs));

// One line on stderr names the backend (the automatic choice by default), and -q silences it.
TEST(Cli, BackendLineOnStderrUnlessQuiet) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const std::string base = fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m -n --feature psnr --frame_cnt 2", dir);
  auto loud = run_cli(base + " --threads 1");
  ASSERT_EQ(loud.status, 0) << loud.output;
  const std::string expected =
      cuda_device_available(0)
          ? fmt::format("vqx: backend cuda ({}, device 0)\n", cuda_device_name(0))
          : "vqx: backend cpu (1 thread; ";
  EXPECT_EQ(loud.output.rfind(expected, 0), 0u) << loud.output;
  EXPECT_EQ(std::count(loud.output.begin(), loud.output.end(), '\n'), 1) << loud.output;
  auto cpu = run_cli(base + " --threads 1 --backend cpu");
  EXPECT_EQ(cpu.output, "vqx: backend cpu (1 thread)\n");
  EXPECT_EQ(run_cli(base + " -q").output, "");
}

// --threads above the CPUs this process may use runs one worker per CPU: more would only take
// turns on them.
TEST(Cli, ThreadsAboveTheUsableCpusRunOnePerCpu) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const std::string base =
      fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m -n --feature psnr --frame_cnt 2", dir);
  const unsigned cpus = usable_cpus();
  auto many = run_cli("--threads 4096 --backend cpu " + base);
  EXPECT_EQ(many.output,
            fmt::format("vqx: backend cpu ({} thread{})\n", cpus, cpus == 1 ? "" : "s"));
}

TEST(Cli, VersionGoesToStderr) {
  auto r = run_cli("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("vqx version"), std::string::npos);
}

TEST(Cli, ListFeaturesNamesPsnrAndItsOptions) {
  auto r = run_cli("--list-features");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("psnr"), std::string::npos);
  EXPECT_NE(r.output.find("enable_chroma (default true)"), std::string::npos);
}

TEST(Cli, RawYuvOddSize420Works) {
  PictureFormat f = make_format(33, 17, ChromaSubsampling::k420, 10);
  auto ref = make_pictures(f, {1, 2}), dis = make_pictures(f, {3, 4});
  std::string rp = temp_path("odd_ref.yuv"), dp = temp_path("odd_dis.yuv"), y4m_ref = temp_path("odd_ref.y4m"),
              y4m_dis = temp_path("odd_dis.y4m");
  write_raw(rp, ref);
  write_raw(dp, dis);
  write_y4m(y4m_ref, ref);
  write_y4m(y4m_dis, dis);
  auto raw = run_cli(fmt::format("-r {} -d {} -w 33 -h 17 -p 420 -b 10 --feature psnr -n -q --csv -o -", rp, dp));
  auto y4m = run_cli(fmt::format("-r {} -d {} --feature psnr -n -q --csv -o -", y4m_ref, y4m_dis));
  ASSERT_EQ(raw.status, 0) << raw.output;
  EXPECT_EQ(raw.output, y4m.output);
  EXPECT_NE(raw.output.find("\n1,"), std::string::npos);
}

}  // namespace
}  // namespace vqx::test
