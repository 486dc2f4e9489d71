// Feeds arbitrary command lines to the CLI's parser: the input, split at NUL bytes, is argv[1..].
// parse_command_line must return options or throw UsageError, never crash; a raw YUV geometry it
// accepts (-w/-h/-p/-b) must then be one the raw reader validates or refuses with InputError.
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vqx;
  std::vector<std::string> args{"vqx"};
  std::string current;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(char(data[i]));
    }
  }
  if (!current.empty()) args.push_back(current);
  // --help and --list-features print pages; they are tested elsewhere and only slow fuzzing here.
  for (const auto& a : args)
    if (a.rfind("--h", 0) == 0 || a.rfind("--l", 0) == 0) return 0;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  try {
    auto options = cli::parse_command_line(int(args.size()), argv.data());
    if (options && options->raw) {
      PictureFormat format;
      format.width = options->raw->width;
      format.height = options->raw->height;
      format.subsampling = options->raw->subsampling;
      format.bit_depth = options->raw->bit_depth;
      validate_format(format, "fuzz");
    }
  } catch (const UsageError&) {
  } catch (const InputError&) {
  }
  return 0;
}
