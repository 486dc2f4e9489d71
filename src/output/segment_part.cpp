#include "output/segment_part.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace vqx {
namespace {

constexpr const char* kFormatKey = "vqx_features_part";
constexpr int kFormatVersion = 1;

std::string hex_float(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", v);
  return buffer;
}

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// Whether nlohmann's conversion of `v` to T is defined: its number-to-integer conversion is a
// plain cast, undefined for a float (1e82) or a negative value read as an unsigned type.
template <typename T>
bool converts_exactly(const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean();
  } else if constexpr (std::is_integral_v<T>) {
    if (v.is_number_unsigned()) return v.get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max());
    if (!v.is_number_integer()) return false;
    const int64_t x = v.get<int64_t>();
    return std::is_signed_v<T> && x >= int64_t(std::numeric_limits<T>::min()) &&
           x <= int64_t(std::numeric_limits<T>::max());
  } else if constexpr (IsVector<T>::value) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) {
             return converts_exactly<typename T::value_type>(e);
           });
  } else {
    return true;  // strings, doubles and JSON values: nlohmann throws on a wrong type
  }
}

// Reads one JSON line; InputError names the file and line.
class PartReader {
 public:
  PartReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}
  bool next(nlohmann::json& value) {
    std::string line;
    if (!std::getline(in_, line)) return false;
    ++line_;
    try {
      value = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      fail("not a JSON object (a truncated or foreign file?)");
    }
    if (!value.is_object()) fail("not a JSON object");
    return true;
  }
  template <typename T>
  static const char* type_name() {
    if constexpr (std::is_same_v<T, bool>) return "boolean";
    else if constexpr (std::is_integral_v<T>) return "whole number in range";
    else return "list of whole numbers in range";
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}: line {}: {}", name_, line_, what));
  }
  template <typename T>
  T get(const nlohmann::json& object, const char* key) const {
    try {
      const nlohmann::json& value = object.at(key);
      if (!converts_exactly<T>(value)) fail(fmt::format("'{}' is not a {}", key, type_name<T>()));
      return value.get<T>();
    } catch (const nlohmann::json::exception&) {
      fail(fmt::format("'{}' is missing or of the wrong type", key));
    }
  }

 private:
  std::istream& in_;
  std::string name_;
  uint64_t line_ = 0;
};

double parse_hex_float(const PartReader& reader, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    reader.fail(fmt::format("'{}' is not a number", text));
  return v;
}

std::string range_text(uint64_t begin, uint64_t end) {
  return end == begin + 1 ? fmt::format("frame {}", begin)
                          : fmt::format("frames {}..{}", begin, end - 1);
}

}  // namespace

void write_segment_part(std::ostream& out, const SegmentPart& part) {
  const SegmentResult& s = part.segment;
  nlohmann::ordered_json header;
  header[kFormatKey] = kFormatVersion;
  header["version"] = part.version;
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  for (const auto& [key, value] : part.settings) settings[key] = value;
  header["settings"] = settings;
  header["start"] = s.start;
  header["count"] = s.count;
  header["clip_end"] = s.clip_end;
  header["width"] = s.format.width;
  header["height"] = s.format.height;
  header["columns"] = s.columns;
  header["output_order"] = s.output_order;
  header["backend"] = s.backend;
  header["wall_seconds"] = s.wall_seconds;
  out << header.dump() << "\n";
  for (uint64_t k = 0; k < s.values.size(); ++k) {
    nlohmann::ordered_json row;
    row["frame"] = s.start + k;
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const auto& v : s.values[k]) {
      if (v) values.push_back(hex_float(*v));
      else values.push_back(nullptr);
    }
    row["values"] = values;
    out << row.dump() << "\n";
  }
  nlohmann::ordered_json end;
  end["end"] = true;
  end["frames"] = s.values.size();
  out << end.dump() << "\n";
}

SegmentPart read_segment_part(std::istream& in, const std::string& name) {
  PartReader reader(in, name);
  nlohmann::json header;
  if (!reader.next(header)) throw InputError(fmt::format("{}: empty file, not a vqx features part", name));
  if (!header.contains(kFormatKey)) reader.fail("not a vqx features part (written by vqx --features_out)");
  if (reader.get<int>(header, kFormatKey) != kFormatVersion)
    reader.fail(fmt::format("features part format {} is not this vqx's {}",
                            header[kFormatKey].dump(), kFormatVersion));
  SegmentPart part;
  part.version = reader.get<std::string>(header, "version");
  const auto settings = reader.get<nlohmann::json>(header, "settings");
  if (!settings.is_object()) reader.fail("'settings' is not an object");
  for (const auto& [key, value] : settings.items()) {
    if (!value.is_string()) reader.fail(fmt::format("setting '{}' is not a string", key));
    part.settings.emplace_back(key, value.get<std::string>());
  }
  std::sort(part.settings.begin(), part.settings.end());
  SegmentResult& s = part.segment;
  s.start = reader.get<uint64_t>(header, "start");
  s.count = reader.get<uint64_t>(header, "count");
  s.clip_end = reader.get<bool>(header, "clip_end");
  s.format.width = reader.get<uint32_t>(header, "width");
  s.format.height = reader.get<uint32_t>(header, "height");
  s.columns = reader.get<std::vector<std::string>>(header, "columns");
  s.output_order = reader.get<std::vector<size_t>>(header, "output_order");
  s.backend = reader.get<std::string>(header, "backend");
  s.wall_seconds = reader.get<double>(header, "wall_seconds");
  std::vector<size_t> sorted = s.output_order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != i || sorted.size() != s.columns.size())
      reader.fail("'output_order' is not an order of the columns");
  nlohmann::json line;
  for (;;) {
    if (!reader.next(line))
      throw InputError(fmt::format("{}: ends after {} of its {} frames, with no end line (truncated)", name,
                                   s.values.size(), s.count));
    if (line.contains("end")) break;
    const uint64_t frame = reader.get<uint64_t>(line, "frame");
    if (frame != s.start + s.values.size())
      reader.fail(fmt::format("frame {} where frame {} was due", frame, s.start + s.values.size()));
    const auto values = reader.get<std::vector<nlohmann::json>>(line, "values");
    if (values.size() != s.columns.size())
      reader.fail(fmt::format("{} values for {} columns", values.size(), s.columns.size()));
    std::vector<std::optional<double>> row;
    for (const auto& v : values) {
      if (v.is_null()) row.emplace_back();
      else if (v.is_string()) row.emplace_back(parse_hex_float(reader, v.get<std::string>()));
      else reader.fail("a value is neither a hex float string nor null");
    }
    s.values.push_back(std::move(row));
  }
  if (reader.get<uint64_t>(line, "frames") != s.values.size() || s.values.size() != s.count)
    reader.fail(fmt::format("the part holds {} frames, its header says {}", s.values.size(), s.count));
  nlohmann::json extra;
  if (reader.next(extra)) reader.fail("text after the end line");
  return part;
}

std::unique_ptr<MergedParts> merge_segment_parts(std::vector<SegmentPart> parts,
                                                 const std::vector<std::string>& names) {
  if (parts.empty()) throw UsageError("merge: no part files given");
  std::vector<size_t> order(parts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return parts[a].segment.start < parts[b].segment.start; });
  const SegmentPart& first = parts[order.front()];
  const std::string& first_name = names[order.front()];
  for (size_t i : order) {
    const SegmentPart& p = parts[i];
    if (p.version != first.version)
      throw InputError(fmt::format("merge: {} was written by vqx {}, {} by vqx {}", first_name,
                                   first.version, names[i], p.version));
    for (size_t k = 0; k < std::max(p.settings.size(), first.settings.size()); ++k) {
      const auto* a = k < first.settings.size() ? &first.settings[k] : nullptr;
      const auto* b = k < p.settings.size() ? &p.settings[k] : nullptr;
      if (a && b && *a == *b) continue;
      const std::string key = a && (!b || a->first <= b->first) ? a->first : b->first;
      auto value = [&](const SegmentPart& q) -> std::string {
        for (const auto& [k2, v] : q.settings)
          if (k2 == key) return "'" + v + "'";
        return "none";
      };
      throw InputError(fmt::format("merge: the parts were run with different settings: {} has {} {}, {} has {}",
                                   first_name, key, value(first), names[i], value(p)));
    }
    if (p.segment.columns != first.segment.columns ||
        p.segment.format.width != first.segment.format.width ||
        p.segment.format.height != first.segment.format.height)
      throw InputError(fmt::format("merge: {} and {} hold different columns or frame sizes", first_name, names[i]));
  }
  uint64_t next = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const SegmentResult& s = parts[order[k]].segment;
    const std::string& name = names[order[k]];
    if (s.start > next)
      throw InputError(fmt::format("merge: {} {} in no part (a gap before {})", range_text(next, s.start),
                                   s.start == next + 1 ? "is" : "are", name));
    if (s.start < next)
      throw InputError(fmt::format("merge: {} {} in both {} and {} (overlapping parts)",
                                   range_text(s.start, std::min(next, s.start + s.count)),
                                   s.start + 1 == std::min(next, s.start + s.count) ? "is" : "are",
                                   names[order[k - 1]], name));
    next = s.start + s.count;
    if (s.clip_end && k + 1 < order.size())
      throw InputError(fmt::format("merge: {} ends the clip at frame {}, yet {} starts at frame {}", name,
                                   next - 1, names[order[k + 1]], parts[order[k + 1]].segment.start));
    if (!s.clip_end && k + 1 == order.size())
      throw InputError(fmt::format("merge: the clip goes on after frame {}, the last frame of {}; the part "
                                   "from frame {} on is missing",
                                   next - 1, name, next));
  }

  auto merged = std::make_unique<MergedParts>();
  merged->settings = first.settings;
  merged->width = first.segment.format.width;
  merged->height = first.segment.format.height;
  ResultTable& table = merged->table;
  for (const auto& column : first.segment.columns) table.add_feature(column);
  // The first part's output order is the whole run's (a run from frame 0 is its prefix): each
  // column is given its rank there as the call that wrote it, which output_order() sorts by.
  std::vector<uint64_t> rank(first.segment.columns.size());
  for (size_t k = 0; k < first.segment.output_order.size(); ++k) rank[first.segment.output_order[k]] = k;
  for (size_t i : order) {
    const SegmentResult& s = parts[i].segment;
    merged->wall_seconds += s.wall_seconds;
    for (uint64_t f = 0; f < s.values.size(); ++f)
      for (size_t c = 0; c < s.values[f].size(); ++c)
        if (s.values[f][c]) table.put(s.start + f, c, *s.values[f][c], rank[c]);
  }
  table.set_frame_count(next);
  return merged;
}

}  // namespace vqx
