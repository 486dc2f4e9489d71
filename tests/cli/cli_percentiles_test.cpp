// --percentiles on a fixture equals numpy.percentile (its default, linear) of the JSON output's
// own per-frame values, to the last bit, in JSON and XML; the flag's errors are usage errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/fixtures.h"
#include "support/shell.h"

namespace vqx::test {
namespace {

TEST(CliPercentiles, EqualNumpyOnEveryFeature) {
  VQX_REQUIRE_FIXTURE("odd853", dir);
  // Debian's interpreter, which has python3-numpy (scripts/setup.sh installs it with
  // python3-skimage).
  const std::string python = "/usr/bin/python3";
  if (shell_output(python + " -c 'import numpy; print(1)' 2>/dev/null") != "1\n") {
    if (fixtures_required()) FAIL() << "python3-numpy is missing (scripts/setup.sh installs it)";
    GTEST_SKIP() << "numpy not installed";
  }
  const std::string json_path = temp_path("percentiles.json");
  const auto run = run_cli(fmt::format(
      "-r {0}/ref.y4m -d {0}/dis.y4m --feature psnr --precision max --json -o {1} -q "
      "--percentiles 0,1,5,12.5,50,95,99.9,100",
      dir, json_path));
  ASSERT_EQ(run.status, 0) << run.output;
  const auto results = nlohmann::json::parse(read_file(json_path));
  const std::string script = temp_path("percentiles.py");
  std::ofstream(script) << "import json, sys, numpy\n"
                           "r = json.load(open(sys.argv[1]))\n"
                           "for name in r['pooled_metrics']:\n"
                           "    v = [f['metrics'][name] for f in r['frames']]\n"
                           "    for p in (0, 1, 5, 12.5, 50, 95, 99.9, 100):\n"
                           "        print(name, 'p%g' % p, '%.17g' % numpy.percentile(v, p))\n";
  std::istringstream lines(shell_output(fmt::format("{} {} {}", python, script, json_path)));
  size_t checked = 0;
  for (std::string name, key, value; lines >> name >> key >> value; ++checked)
    EXPECT_EQ(fmt::format("{:.17g}", results["pooled_metrics"][name][key].get<double>()), value)
        << name << " " << key;
  EXPECT_EQ(checked, results["pooled_metrics"].size() * 8);
  EXPECT_GE(checked, 24u);
}

TEST(CliPercentiles, BadValuesAreUsageErrors) {
  for (const char* bad : {"101", "5,5", "x"}) {
    const auto r = run_cli(fmt::format("-r a.y4m -d b.y4m --percentiles {}", bad));
    EXPECT_EQ(r.status, 1) << bad;
    EXPECT_NE(r.output.find("vqx: error: --percentiles"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace vqx::test
