// `--model` parsing and model JSON loading (shared/spec/vmaf.md 5, 6.1, 6.8;
// cli-and-output.md 2.2). Numbers are parsed as libvmaf does: JSON numbers and libsvm text with
// strtod (correctly rounded), option values through the f32 round trip of vmaf.md 5.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "metrics/vmaf/builtin_models.h"
#include "metrics/vmaf/model.h"

namespace vqx::vmaf {
namespace {

// Objects keep their file order: a collection's models are read in it (vmaf.md 6.6).
using json = nlohmann::ordered_json;

bool parse_bool_flag(std::string_view key, std::string_view value, std::string_view spec) {
  if (value == "true") return true;
  if (value == "false") return false;
  throw UsageError(
      fmt::format("--model \"{}\": {} must be true or false, not \"{}\"", spec, key, value));
}

}  // namespace

ModelRequest parse_model_request(std::string_view text) {
  ModelRequest request;
  request.spec_text = std::string(text);
  if (text.empty()) throw UsageError("--model needs version=NAME or path=FILE");
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t next = std::min(text.find(':', pos), text.size());
    std::string_view pair = text.substr(pos, next - pos);
    pos = next + 1;
    size_t eq = pair.find('=');
    std::string_view key = pair.substr(0, eq);
    if (eq == std::string_view::npos) {
      if (key == "disable_clip") {
        request.disable_clip = true;
      } else if (key == "enable_transform") {
        request.enable_transform = true;
      } else {
        throw UsageError(fmt::format("Problem parsing model, bad option string \"{}\".", pair));
      }
      continue;
    }
    std::string_view value = pair.substr(eq + 1);
    if (key == "path") {
      request.path = std::string(value);
    } else if (key == "version") {
      request.version = std::string(value);
    } else if (key == "name") {
      if (value.empty()) throw UsageError(fmt::format("--model \"{}\": empty name", text));
      request.name = std::string(value);
    } else if (key == "disable_clip") {
      request.disable_clip = parse_bool_flag(key, value, text);
    } else if (key == "enable_transform") {
      request.enable_transform = parse_bool_flag(key, value, text);
    } else {
      size_t dot = key.find('.');
      if (dot == std::string_view::npos || dot == 0 || dot + 1 == key.size() ||
          key.find('.', dot + 1) != std::string_view::npos)
        throw UsageError(fmt::format(
            "--model \"{}\": unknown key \"{}\" (expected version, path, name, disable_clip, "
            "enable_transform or FEATURE.OPTION=VALUE)",
            text, key));
      request.overrides.push_back(
          {std::string(key.substr(0, dot)), std::string(key.substr(dot + 1)), std::string(value)});
    }
  }
  if (!request.version.empty() && !request.path.empty())
    throw UsageError(fmt::format("--model \"{}\": give either version= or path=, not both", text));
  if (request.version.empty() && request.path.empty())
    throw UsageError(fmt::format("--model \"{}\": needs version=NAME or path=FILE", text));
  return request;
}

std::vector<std::string> builtin_model_versions() {
  std::vector<std::string> names;
  for (const auto& f : builtin_model_files()) names.emplace_back(f.version);
  return names;
}

namespace {

class ModelParser {
 public:
  explicit ModelParser(std::string label) : label_(std::move(label)) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw InputError(fmt::format("model {}: {}", label_, what));
  }

  double number(const json& j, std::string_view what) const {
    if (!j.is_number()) fail(fmt::format("{} must be a number", what));
    return j.get<double>();
  }

  const json& member(const json& obj, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(fmt::format("model_dict has no \"{}\"", key));
    return *it;
  }

  std::vector<double> numbers(const json& j, std::string_view what) const {
    if (!j.is_array()) fail(fmt::format("{} must be an array of numbers", what));
    std::vector<double> v;
    for (const auto& e : j) v.push_back(number(e, what));
    return v;
  }

  const std::string& label() const { return label_; }

 private:
  std::string label_;
};

// Reads the settings of one entry of feature_opts_dicts, normalised and validated.
std::vector<OptionSetting> parse_opts_dict(const ModelParser& p, const json& dict,
                                           const ModelFeature& feature,
                                           const CatalogExtractor& extractor) {
  if (!dict.is_object()) p.fail("feature_opts_dicts entries must be objects");
  std::vector<OptionSetting> settings;
  for (const auto& [key, value] : dict.items()) {
    std::string text;
    if (value.is_boolean())
      text = value.get<bool>() ? "true" : "false";
    else if (value.is_number())
      text = normalize_json_number(value.get<double>());
    else if (value.is_string())
      text = value.get<std::string>();
    else
      p.fail(fmt::format("feature {} option \"{}\" must be a number, bool or string", feature.name,
                         key));
    const OptionSpec* option = find_option(extractor.options, key);
    if (!option)
      p.fail(fmt::format("feature {}: extractor '{}' has no option '{}'", feature.name,
                         extractor.name, key));
    try {
      parse_catalog_value(*option, text);
    } catch (const std::invalid_argument& e) {
      p.fail(fmt::format("feature {}: option {}={} is invalid: {}", feature.name, key, text,
                         e.what()));
    }
    settings.emplace_back(key, text);
  }
  return settings;
}

void set_option(std::vector<OptionSetting>& settings, const std::string& key,
                const std::string& value) {
  for (auto& s : settings)
    if (s.first == key) {
      s.second = value;
      return;
    }
  settings.emplace_back(key, value);
}

std::vector<SupportVector> parse_libsvm(const ModelParser& p, const std::string& text,
                                        size_t n_features, double& gamma, double& rho) {
  // libsvm's model format: "key value" header lines up to "SV", then one support vector per
  // line: "coef index:value ..." with ascending 1-based indices (vmaf.md 6.3).
  std::istringstream in(text);
  std::string line;
  std::map<std::string, std::string> header;
  bool saw_sv = false;
  while (std::getline(in, line)) {
    if (line == "SV") {
      saw_sv = true;
      break;
    }
    size_t space = line.find(' ');
    if (line.empty()) continue;
    header[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  if (!saw_sv) p.fail("libsvm model text has no \"SV\" line");
  auto need = [&](const char* key) -> const std::string& {
    auto it = header.find(key);
    if (it == header.end()) p.fail(fmt::format("libsvm model text has no \"{}\"", key));
    return it->second;
  };
  auto to_double = [&](const std::string& s, const char* what) {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
      p.fail(fmt::format("libsvm model: bad {} \"{}\"", what, s));
    return v;
  };
  const std::string& svm_type = need("svm_type");
  if (svm_type != "nu_svr" && svm_type != "epsilon_svr")
    p.fail(fmt::format("libsvm svm_type \"{}\" is not supported (expected nu_svr)", svm_type));
  const std::string& kernel = need("kernel_type");
  if (kernel != "rbf")
    p.fail(fmt::format("libsvm kernel_type \"{}\" is not supported (expected rbf)", kernel));
  if (header.count("nr_class") && header["nr_class"] != "2")
    p.fail(fmt::format("libsvm nr_class {} is not a regression model", header["nr_class"]));
  gamma = to_double(need("gamma"), "gamma");
  rho = to_double(need("rho"), "rho");
  char* end = nullptr;
  const std::string& total_text = need("total_sv");
  long total = std::strtol(total_text.c_str(), &end, 10);
  if (total <= 0 || *end != '\0')
    p.fail(fmt::format("libsvm total_sv \"{}\" is invalid", total_text));

  std::vector<SupportVector> svs;
  while (svs.size() < size_t(total) && std::getline(in, line)) {
    std::istringstream fields(line);
    std::string token;
    if (!(fields >> token)) continue;
    SupportVector sv;
    sv.coef = to_double(token, "support vector coefficient");
    sv.dense.assign(n_features, 0.0);
    long last = 0;
    while (fields >> token) {
      size_t colon = token.find(':');
      if (colon == std::string::npos)
        p.fail(fmt::format("libsvm support vector {}: bad entry \"{}\"", svs.size() + 1, token));
      long index = std::strtol(token.c_str(), &end, 10);
      if (end != token.c_str() + colon || index <= last)
        p.fail(fmt::format("libsvm support vector {}: indices must be ascending from 1 (\"{}\")",
                           svs.size() + 1, token));
      last = index;
      double value = to_double(token.substr(colon + 1), "support vector value");
      if (size_t(index) <= n_features)
        sv.dense[size_t(index) - 1] = value;
      else
        sv.beyond.push_back(value);
    }
    svs.push_back(std::move(sv));
  }
  if (svs.size() != size_t(total))
    p.fail(fmt::format("libsvm model has {} support vectors, total_sv says {}", svs.size(), total));
  return svs;
}

ScoreTransform parse_transform(const ModelParser& p, const json& t) {
  if (!t.is_object()) p.fail("score_transform must be an object");
  ScoreTransform st;
  st.present = true;
  auto poly = [&](const char* key, bool& has, double& value) {
    auto it = t.find(key);
    if (it == t.end() || it->is_null()) return;
    value = p.number(*it, fmt::format("score_transform.{}", key));
    has = true;
  };
  poly("p0", st.has_p0, st.p0);
  poly("p1", st.has_p1, st.p1);
  poly("p2", st.has_p2, st.p2);
  if (auto it = t.find("enabled"); it != t.end()) {
    if (!it->is_boolean()) p.fail("score_transform.enabled must be true or false");
    st.enabled = it->get<bool>();
  }
  if (auto it = t.find("knots"); it != t.end() && !it->is_null()) {
    if (!it->is_array() || it->size() > 10)
      p.fail("score_transform.knots must be a list of at most 10 [x, y] pairs");
    for (const auto& k : *it) {
      if (!k.is_array() || k.size() != 2) p.fail("score_transform.knots entries must be [x, y]");
      st.knots.emplace_back(p.number(k[0], "knot x"), p.number(k[1], "knot y"));
    }
    // libvmaf checks this per frame and, when it fails, silently returns a half-built value;
    // vqx refuses such a model up front.
    for (size_t i = 0; i + 1 < st.knots.size(); ++i)
      if (!(st.knots[i].first < st.knots[i + 1].first &&
            st.knots[i].second <= st.knots[i + 1].second))
        p.fail("score_transform.knots must have increasing x and non-decreasing y");
  }
  // libvmaf compares these with the *string* "true" (vmaf.md 6.1); a JSON bool is also taken.
  auto flag = [&](const char* key) {
    auto it = t.find(key);
    if (it == t.end() || it->is_null()) return false;
    if (it->is_boolean()) return it->get<bool>();
    if (!it->is_string())
      p.fail(fmt::format("score_transform.{} must be \"true\" or \"false\"", key));
    return it->get<std::string>() == "true";
  };
  st.out_lte_in = flag("out_lte_in");
  st.out_gte_in = flag("out_gte_in");
  return st;
}

std::string file_label(const ModelRequest& r) {
  return r.version.empty() ? fmt::format("path={}", r.path) : fmt::format("version={}", r.version);
}

}  // namespace

// Builds LoadedModel objects from parsed JSON (LoadedModel's friend).
struct ModelLoader {
  static LoadedModel single(const json& root, const ModelRequest& request, std::string label);
  static LoadedModel collection(const json& root, const ModelRequest& request,
                                const std::string& label);
};

LoadedModel ModelLoader::single(const json& root, const ModelRequest& request, std::string label) {
  ModelParser p(std::move(label));
  if (!root.is_object()) p.fail("not a JSON object");
  if (!root.contains("model_dict")) p.fail("no \"model_dict\" object");
  const json& m = root["model_dict"];
  if (!m.is_object()) p.fail("\"model_dict\" is not an object");

  LoadedModel model;
  model.name_ = request.name;
  model.label_ = p.label();

  const json& type = p.member(m, "model_type");
  if (!type.is_string()) p.fail("model_type must be a string");
  std::string type_name = type.get<std::string>();
  if (type_name != "LIBSVMNUSVR" && type_name != "BOOTSTRAP_LIBSVMNUSVR" &&
      type_name != "RESIDUEBOOTSTRAP_LIBSVMNUSVR")
    p.fail(fmt::format("model_type \"{}\" is not supported (expected LIBSVMNUSVR)", type_name));

  const json& norm = p.member(m, "norm_type");
  if (norm == "linear_rescale")
    model.norm_ = LoadedModel::Norm::kLinearRescale;
  else if (norm == "none")
    model.norm_ = LoadedModel::Norm::kNone;
  else
    p.fail(fmt::format("norm_type {} is not supported (expected linear_rescale or none)",
                       norm.dump()));

  const json& names = p.member(m, "feature_names");
  if (!names.is_array() || names.empty()) p.fail("feature_names must be a non-empty list");
  for (const auto& n : names) {
    if (!n.is_string()) p.fail("feature_names must be strings");
    ModelFeature f;
    f.name = n.get<std::string>();
    auto source = find_feature_source(f.name);
    if (!source)
      p.fail(fmt::format(
          "feature '{}' is not computed by vqx (models may use the integer and float vif, adm and "
          "motion features, cambi and speed_chroma)",
          f.name));
    f.extractor = source->extractor->name;
    f.column = source->printed;  // completed below, once the options are known
    model.features_.push_back(std::move(f));
  }
  const size_t n = model.features_.size();

  if (model.norm_ == LoadedModel::Norm::kLinearRescale) {
    auto slopes = p.numbers(p.member(m, "slopes"), "slopes");
    auto intercepts = p.numbers(p.member(m, "intercepts"), "intercepts");
    if (slopes.size() != n + 1 || intercepts.size() != n + 1)
      p.fail(
          fmt::format("slopes and intercepts need {} entries (output, then each feature)", n + 1));
    model.out_slope_ = slopes[0];
    model.out_intercept_ = intercepts[0];
    for (size_t i = 0; i < n; ++i) {
      model.features_[i].slope = slopes[i + 1];
      model.features_[i].intercept = intercepts[i + 1];
    }
  }

  if (auto it = m.find("feature_opts_dicts"); it != m.end() && !it->is_null()) {
    if (!it->is_array() || it->size() > n)
      p.fail("feature_opts_dicts must be a list with at most one object per feature");
    for (size_t i = 0; i < it->size(); ++i) {
      ModelFeature& f = model.features_[i];
      f.options = parse_opts_dict(p, (*it)[i], f, *find_extractor(f.extractor));
    }
  }

  // Overrides from the --model argument merge into every feature of that extractor.
  for (const auto& o : request.overrides) {
    const CatalogExtractor* extractor = find_extractor(o.extractor);
    std::string where =
        fmt::format("--model \"{}\": {}.{}", request.spec_text, o.extractor, o.option);
    if (!extractor)
      throw UsageError(fmt::format("{}: unknown feature extractor '{}'", where, o.extractor));
    bool used = std::any_of(model.features_.begin(), model.features_.end(),
                            [&](const ModelFeature& f) { return f.extractor == o.extractor; });
    if (!used)
      throw UsageError(
          fmt::format("{}: model {} does not use extractor '{}'", where, p.label(), o.extractor));
    const OptionSpec* option = find_option(extractor->options, o.option);
    if (!option) {
      std::vector<std::string> known;
      for (const auto& c : extractor->options) known.push_back(c.name);
      throw UsageError(fmt::format("{}: extractor '{}' has no option '{}' (options: {})", where,
                                   o.extractor, o.option, fmt::join(known, ", ")));
    }
    std::string value = normalize_option_text(o.value);
    try {
      parse_catalog_value(*option, value);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}={} is invalid: {}", where, o.value, e.what()));
    }
    for (auto& f : model.features_)
      if (f.extractor == o.extractor) set_option(f.options, o.option, value);
  }
  for (auto& f : model.features_) {
    std::sort(f.options.begin(), f.options.end());
    f.column = output_name(*find_extractor(f.extractor), f.column, f.options);
  }

  const json& svm_text = p.member(m, "model");
  if (!svm_text.is_string()) p.fail("\"model\" must be the libsvm model text");
  model.svs_ = parse_libsvm(p, svm_text.get<std::string>(), n, model.gamma_, model.rho_);

  if (auto it = m.find("score_transform"); it != m.end() && !it->is_null()) {
    model.transform_ = parse_transform(p, *it);
    // enable_transform turns on a transform the file has but does not enable (vmaf.md 6.1).
    if (request.enable_transform) model.transform_.enabled = true;
  }

  if (auto it = m.find("score_clip"); it != m.end() && !it->is_null()) {
    auto clip = p.numbers(*it, "score_clip");
    if (clip.size() != 2) p.fail("score_clip must be [min, max]");
    model.clip_ = !request.disable_clip;
    model.clip_min_ = clip[0];
    model.clip_max_ = clip[1];
  }

  if (auto it = m.find("chroma_correction_parameter"); it != m.end() && !it->is_null()) {
    model.chroma_parameter_ = p.number(*it, "chroma_correction_parameter");
    if (model.chroma_parameter_ == 0)
      p.fail("chroma_correction_parameter must not be 0 (libvmaf then writes no score)");
    model.chroma_correction_ = true;
    // vmaf.md 6.5: the guided feature's name contains "speed_chroma", the guiding one "adm3";
    // each must match exactly one feature.
    auto find_one = [&](std::string_view sub) {
      size_t found = n;
      for (size_t i = 0; i < n; ++i)
        if (model.features_[i].name.find(sub) != std::string::npos) {
          if (found != n) p.fail(fmt::format("more than one feature name contains \"{}\"", sub));
          found = i;
        }
      if (found == n)
        p.fail(fmt::format("chroma_correction_parameter needs a feature whose name contains \"{}\"",
                           sub));
      return found;
    };
    model.guided_ = find_one("speed_chroma");
    model.guiding_ = find_one("adm3");
  }
  return model;
}

LoadedModel ModelLoader::collection(const json& root, const ModelRequest& request,
                                    const std::string& label) {
  // libvmaf reads the keys in file order and takes the one equal to the next index ("0", "1",
  // ...), skipping any other; "0" is the model written as <name>, the others form the collection,
  // named <name>_0001 on (vmaf.md 6.6).
  std::optional<LoadedModel> head;
  std::vector<LoadedModel> members;
  std::string member_type;
  for (const auto& [key, value] : root.items()) {
    const size_t index = members.size() + (head ? 1 : 0);
    if (key != std::to_string(index)) continue;
    ModelRequest r = request;
    if (index > 0) r.name = fmt::format("{}_{:04d}", request.name, index);
    LoadedModel m = single(value, r, fmt::format("{} (collection model \"{}\")", label, key));
    if (index == 0) {
      head = std::move(m);
      continue;
    }
    // Every collection model has the collection's type: a bootstrap one.
    std::string type = value["model_dict"]["model_type"].get<std::string>();
    if (type != "BOOTSTRAP_LIBSVMNUSVR" && type != "RESIDUEBOOTSTRAP_LIBSVMNUSVR")
      throw InputError(fmt::format("model {}: collection model \"{}\" has model_type \"{}\"; a "
                                   "collection needs BOOTSTRAP_ or RESIDUEBOOTSTRAP_LIBSVMNUSVR",
                                   label, key, type));
    if (!member_type.empty() && type != member_type)
      throw InputError(fmt::format("model {}: collection models mix model types {} and {}", label,
                                   member_type, type));
    member_type = type;
    members.push_back(std::move(m));
  }
  if (!head || members.empty())
    throw InputError(fmt::format(
        "model {}: no \"model_dict\" object, nor a model collection (\"0\", \"1\", ...)", label));
  head->label_ = label;
  head->collection_ = std::move(members);
  return std::move(*head);
}

LoadedModel load_model_json(std::string_view text, const ModelRequest& request, std::string label) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("model {}: malformed JSON: {}", label, e.what()));
  } catch (const json::out_of_range& e) {  // a number beyond double's range, e.g. 1e400
    throw InputError(fmt::format("model {}: malformed JSON: {}", label, e.what()));
  }
  if (root.is_object() && !root.contains("model_dict") && root.contains("0"))
    return ModelLoader::collection(root, request, label);
  return ModelLoader::single(root, request, std::move(label));
}

LoadedModel load_model(const ModelRequest& request) {
  if (!request.version.empty()) {
    for (const auto& f : builtin_model_files())
      if (f.version == request.version) return load_model_json(f.json, request, file_label(request));
    throw InputError(fmt::format("unknown model version '{}' (built in: {})", request.version,
                                 fmt::join(builtin_model_versions(), ", ")));
  }
  std::ifstream in(request.path, std::ios::binary);
  if (!in) throw InputError(fmt::format("model {}: cannot open the file", file_label(request)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("model {}: read error", file_label(request)));
  return load_model_json(text.str(), request, file_label(request));
}

void check_unique_names(const std::vector<LoadedModel>& models) {
  for (size_t i = 0; i < models.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (models[i].name() == models[j].name())
        throw UsageError(
            fmt::format("models {} and {} are both named '{}'; each model should be uniquely named "
                        "(add :name=LABEL)",
                        models[j].label(), models[i].label(), models[i].name()));
}

std::vector<LoadedModel> load_models(const std::vector<std::string>& model_args) {
  std::vector<LoadedModel> models;
  for (const auto& arg : model_args) models.push_back(load_model(parse_model_request(arg)));
  check_unique_names(models);
  return models;
}

}  // namespace vqx::vmaf
