#pragma once
// JSON files the CLI writes, read with their key order kept (libvmaf's layout is ordered).
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace vqx::test {

inline nlohmann::ordered_json read_ordered_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::ordered_json::parse(ss.str());
}

// An object's keys, sorted: for comparing the sets of two objects' keys.
inline std::vector<std::string> sorted_keys(const nlohmann::ordered_json& object) {
  std::vector<std::string> out;
  for (const auto& [key, value] : object.items()) out.push_back(key);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace vqx::test
