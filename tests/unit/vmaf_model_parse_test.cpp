// `--model` parsing and model-file errors: each bad input gives a one-line message naming the
// problem (cli-and-output.md 2.2, vmaf.md 6.1).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "metrics/vmaf/builtin_models.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::vmaf {
namespace {

using nlohmann::json;

// Expects `fn` to throw `E` with a message containing `needle`.
template <typename E, typename F>
void expect_error(F fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << needle << "\"";
  } catch (const E& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "message is not one line: " << what;
  }
}

TEST(VmafModelRequest, ParsesEveryKey) {
  ModelRequest r = parse_model_request(
      "version=vmaf_v0.6.1:name=mine:disable_clip:enable_transform=true:adm.adm_enhn_gain_limit=1.5"
      ":vif.vif_skip_scale0=true");
  EXPECT_EQ(r.version, "vmaf_v0.6.1");
  EXPECT_EQ(r.path, "");
  EXPECT_EQ(r.name, "mine");
  EXPECT_TRUE(r.disable_clip);
  EXPECT_TRUE(r.enable_transform);
  ASSERT_EQ(r.overrides.size(), 2u);
  EXPECT_EQ(r.overrides[0].extractor, "adm");
  EXPECT_EQ(r.overrides[0].option, "adm_enhn_gain_limit");
  EXPECT_EQ(r.overrides[0].value, "1.5");
  EXPECT_EQ(r.overrides[1].extractor, "vif");
  EXPECT_EQ(r.overrides[1].value, "true");

  ModelRequest p = parse_model_request("path=/tmp/m.json:disable_clip=false");
  EXPECT_EQ(p.path, "/tmp/m.json");
  EXPECT_EQ(p.name, "vmaf");
  EXPECT_FALSE(p.disable_clip);
  EXPECT_FALSE(p.enable_transform);
}

TEST(VmafModelRequest, RejectsMalformedArguments) {
  auto parse = [](const char* s) { return [s] { parse_model_request(s); }; };
  expect_error<UsageError>(parse(""), "version=NAME or path=FILE");
  expect_error<UsageError>(parse("name=x"), "needs version=NAME or path=FILE");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:path=a.json"), "not both");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:clip"),
                           "Problem parsing model, bad option string \"clip\"");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:disable_clip=yes"), "true or false");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:name="), "empty name");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:egl=1"), "unknown key \"egl\"");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:.egl=1"), "unknown key");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:adm.=1"), "unknown key");
  expect_error<UsageError>(parse("version=vmaf_v0.6.1:adm.a.b=1"), "unknown key");
}

TEST(VmafModelLoad, UnknownVersionListsTheBuiltIns) {
  expect_error<InputError>([] { load_model(parse_model_request("version=vmaf_v9")); },
                           "unknown model version 'vmaf_v9' (built in: vmaf_v0.6.1, ");
  auto versions = builtin_model_versions();
  EXPECT_EQ(versions.size(), 17u);  // every model libvmaf builds in
  for (const auto& v : versions) EXPECT_NO_THROW(load_model(parse_model_request("version=" + v)));
}

TEST(VmafModelLoad, UnreadableFile) {
  expect_error<InputError>([] { load_model(parse_model_request("path=/nonexistent/model.json")); },
                           "model path=/nonexistent/model.json: cannot open the file");
}

TEST(VmafModelLoad, LoadsAFileLikeTheBuiltIn) {
  std::string path = test::temp_path("vmaf_model_parse_test_v061.json");
  {
    std::ofstream out(path, std::ios::binary);
    out << builtin_model_files().at(0).json;
  }
  auto from_file = load_model(parse_model_request("path=" + path));
  auto built_in = load_model(parse_model_request("version=vmaf_v0.6.1"));
  EXPECT_EQ(from_file.feature_columns(), built_in.feature_columns());
  std::vector<double> x = {0.95, 3.5, 0.4, 0.7, 0.8, 0.85};
  EXPECT_EQ(from_file.predict(x), built_in.predict(x));
  EXPECT_EQ(from_file.label(), "path=" + path);
}

// The v0.6.1 model as JSON, for editing into broken variants.
json base_model() { return json::parse(builtin_model_files().at(0).json); }

void expect_model_error(const json& model, const std::string& needle) {
  expect_error<InputError>([&] { load_model_json(model.dump(), ModelRequest{}, "test"); }, needle);
  expect_error<InputError>([&] { load_model_json(model.dump(), ModelRequest{}, "test"); },
                           "model test: ");
}

TEST(VmafModelLoad, MalformedJson) {
  expect_error<InputError>([] { load_model_json("{\"model_dict\": ", ModelRequest{}, "bad"); },
                           "model bad: malformed JSON");
  expect_error<InputError>([] { load_model_json("[1, 2]", ModelRequest{}, "bad"); },
                           "not a JSON object");
  // A number beyond a double's range is a parse failure of the file, not a crash (found by
  // model_json_fuzz).
  expect_error<InputError>(
      [] { load_model_json("{\"model_dict\": {\"score_clip\": [1e4995501058]}}", ModelRequest{}, "big"); },
      "model big: malformed JSON");
  expect_model_error(json{{"param_dict", json::object()}}, "no \"model_dict\" object");
}

// A collection (vmaf.md 6.6) is keys "0", "1", ... in file order; "0" is the scored model and
// the others, of a bootstrap model_type, form the collection.
TEST(VmafModelLoad, Collections) {
  json member = base_model();
  member["model_dict"]["model_type"] = "BOOTSTRAP_LIBSVMNUSVR";
  ModelRequest request;
  request.name = "b";
  LoadedModel m = load_model_json(json{{"0", base_model()}, {"1", member}, {"2", member}}.dump(),
                                  request, "test");
  ASSERT_EQ(m.collection().size(), 2u);
  EXPECT_EQ(m.name(), "b");
  EXPECT_EQ(m.label(), "test");
  EXPECT_EQ(m.collection()[0].name(), "b_0001");
  EXPECT_EQ(m.collection()[1].name(), "b_0002");
  // A key out of sequence is skipped, as libvmaf does: "3" ends the collection at "1".
  m = load_model_json(json{{"0", base_model()}, {"1", member}, {"3", member}}.dump(), request,
                      "test");
  EXPECT_EQ(m.collection().size(), 1u);

  expect_model_error(json{{"0", base_model()}}, "nor a model collection");
  // "1" before "0" in the file: "1" is skipped, so "0" stands alone.
  const std::string out_of_order =
      fmt::format(R"({{"1": {}, "0": {}}})", member.dump(), base_model().dump());
  expect_error<InputError>([&] { load_model_json(out_of_order, ModelRequest{}, "test"); },
                           "nor a model collection");
  expect_model_error(json{{"0", base_model()}, {"1", base_model()}},
                     "collection model \"1\" has model_type \"LIBSVMNUSVR\"");
  json residue = member;
  residue["model_dict"]["model_type"] = "RESIDUEBOOTSTRAP_LIBSVMNUSVR";
  expect_model_error(json{{"0", base_model()}, {"1", member}, {"2", residue}},
                     "collection models mix model types");
}

TEST(VmafModelLoad, BadModelDictKeys) {
  json m = base_model();
  m["model_dict"].erase("model_type");
  expect_model_error(m, "model_dict has no \"model_type\"");

  m = base_model();
  m["model_dict"]["model_type"] = "RANDOMFOREST";
  expect_model_error(m, "model_type \"RANDOMFOREST\" is not supported");

  m = base_model();
  m["model_dict"]["norm_type"] = "clip_0to1";
  expect_model_error(m, "norm_type \"clip_0to1\" is not supported");

  m = base_model();
  m["model_dict"]["feature_names"][0] = "VMAF_feature_nope_score";
  expect_model_error(m, "feature 'VMAF_feature_nope_score' is not computed by vqx");
  m["model_dict"]["feature_names"][0] = "VMAF_feature_adm2_score";  // the float ADM
  EXPECT_EQ(load_model_json(m.dump(), ModelRequest{}, "test").features()[0].extractor,
            "float_adm");

  m = base_model();
  m["model_dict"]["feature_names"] = json::array();
  expect_model_error(m, "feature_names must be a non-empty list");

  m = base_model();
  m["model_dict"]["slopes"].erase(6);
  expect_model_error(m, "slopes and intercepts need 7 entries");

  m = base_model();
  m["model_dict"]["intercepts"][2] = "x";
  expect_model_error(m, "intercepts must be a number");

  m = base_model();
  m["model_dict"]["score_clip"] = {0};
  expect_model_error(m, "score_clip must be [min, max]");

  m = base_model();
  m["model_dict"]["score_transform"]["enabled"] = "yes";
  expect_model_error(m, "score_transform.enabled must be true or false");

  m = base_model();
  m["model_dict"]["score_transform"]["knots"] = {{0, 0}, {50, 60}, {40, 100}};
  expect_model_error(m, "knots must have increasing x");
}

TEST(VmafModelLoad, BadFeatureOptions) {
  json m = base_model();
  m["model_dict"]["feature_opts_dicts"] = {{{"adm_enhn_gain_limt", 1.0}}};
  expect_model_error(m,
                     "feature VMAF_integer_feature_adm2_score: extractor 'adm' has no option "
                     "'adm_enhn_gain_limt'");

  m = base_model();
  m["model_dict"]["feature_opts_dicts"] = {{{"adm_csf_mode", 7}}};
  expect_model_error(m, "option adm_csf_mode=7 is invalid: must be an integer in [0, 3]");

  m = base_model();
  m["model_dict"]["feature_opts_dicts"] = {{{"adm_enhn_gain_limit", json::array()}}};
  expect_model_error(m, "must be a number, bool or string");

  m = base_model();
  m["model_dict"]["feature_opts_dicts"] = json::array();
  for (int i = 0; i < 7; ++i) m["model_dict"]["feature_opts_dicts"].push_back(json::object());
  expect_model_error(m, "feature_opts_dicts must be a list with at most one object per feature");
}

TEST(VmafModelLoad, BadLibsvmText) {
  auto with_svm = [](const std::string& from, const std::string& to) {
    json m = base_model();
    std::string text = m["model_dict"]["model"];
    text.replace(text.find(from), from.size(), to);
    m["model_dict"]["model"] = text;
    return m;
  };
  expect_model_error(with_svm("kernel_type rbf", "kernel_type linear"),
                     "libsvm kernel_type \"linear\" is not supported");
  expect_model_error(with_svm("svm_type nu_svr", "svm_type c_svc"),
                     "libsvm svm_type \"c_svc\" is not supported");
  expect_model_error(with_svm("total_sv 211", "total_sv 212"),
                     "libsvm model has 211 support vectors, total_sv says 212");
  expect_model_error(with_svm("gamma 0.04\n", ""), "libsvm model text has no \"gamma\"");
  expect_model_error(with_svm("\nSV\n", "\n"), "no \"SV\" line");
  expect_model_error(with_svm("1:0.65734273 2:0.34681232", "2:0.34681232 1:0.65734273"),
                     "support vector 1: indices must be ascending from 1");
  expect_model_error(with_svm("rho -1.33133", "rho -1.3x"), "libsvm model: bad rho \"-1.3x\"");
}

TEST(VmafModelLoad, ChromaCorrectionNeedsBothFeatures) {
  json m = json::parse(builtin_model_files().at(2).json);  // vmaf_v1.0.16_3d0h
  ASSERT_EQ(m["model_dict"]["feature_names"][2], "VMAF_integer_feature_adm3_score");
  m["model_dict"]["feature_names"][2] = "VMAF_integer_feature_adm2_score";
  expect_model_error(m, "chroma_correction_parameter needs a feature whose name contains \"adm3\"");

  m = json::parse(builtin_model_files().at(2).json);
  m["model_dict"]["chroma_correction_parameter"] = 0;
  expect_model_error(m, "chroma_correction_parameter must not be 0");
}

TEST(VmafModelLoad, UniqueNames) {
  expect_error<UsageError>(
      [] {
        load_models({"version=vmaf_v0.6.1", "version=vmaf_4k_v0.6.1"});
      },
      "models version=vmaf_v0.6.1 and version=vmaf_4k_v0.6.1 are both named 'vmaf'");
  auto models = load_models({"version=vmaf_v0.6.1", "version=vmaf_4k_v0.6.1:name=vmaf_4k"});
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[1].name(), "vmaf_4k");
}

}  // namespace
}  // namespace vqx::vmaf
