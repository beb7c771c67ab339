// End-to-end: attnscope-cli routes --model ... on the causal fixtures: the .npz's arrays
// with their shapes and dtypes, equal to Model::flowRoutes in this process and to the
// plain-PyTorch reference (tests/scripts/gen_flow_routes_fixtures.py), the JSON and the
// table, and the one-line errors (threshold, position, a BERT or encoder-decoder folder).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/io/npy_reader.h"
#include "attn/models/attribution/flow_routes.h"
#include "attn/models/model.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

std::string routesCaseText(const std::string& model, int c) {
  std::ifstream f(modelDir(model) + "/reference_tokens.json");
  return nlohmann::json::parse(f)["cases"][static_cast<size_t>(c)]["text"].get<std::string>();
}

class CliRoutes : public ::testing::TestWithParam<std::string> {};

TEST_P(CliRoutes, FileMatchesInProcessRoutesAndReference) {
  const std::string name = GetParam();
  const std::string text = routesCaseText(name, 0);
  const auto out = (scratchDir("routes_" + name) / "routes.npz").string();
  const auto r = runCli({"routes", "--model", modelDir(name), "--text", text, "--out", out, "--force"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("route of"), std::string::npos) << r.out;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  auto model = models::Model::open(modelDir(name));
  ASSERT_TRUE(model.ok());
  auto enc = (*model)->encode(text, std::nullopt, "t");
  ASSERT_TRUE(enc.ok());
  auto in = (*model)->flowRoutes(*enc, {});
  ASSERT_TRUE(in.ok()) << in.error().message;
  const int L = (*model)->info().layers, H = (*model)->info().heads, n = enc->size();
  const auto* attn = member(*z, "attn_importance");
  ASSERT_TRUE(attn);
  ASSERT_EQ(attn->shape, (std::vector<int64_t>{L, H, n, n}));
  const auto ref = loadNpz(modelDir(name) + "/reference_routes.npz");
  EXPECT_LE(
      maxAbsDiff(attn->values.data.data(), ref.at("flow_attn_0").values.data, 0, attn->values.data.size()),
      1e-4);
  for (auto [key, refKey, m] :
       {std::tuple{"attn_residual_importance", "flow_attn_residual_0", &in->attnResidualImportance},
        std::tuple{"mlp_importance", "flow_mlp_0", &in->mlpImportance},
        std::tuple{"mlp_residual_importance", "flow_mlp_residual_0", &in->mlpResidualImportance}}) {
    const auto* a = member(*z, key);
    ASSERT_TRUE(a) << key;
    ASSERT_EQ(a->shape, (std::vector<int64_t>{L, n})) << key;
    EXPECT_LE(maxAbsDiff(m->data(), a->values.data, 0, a->values.data.size()), 0.0) << key;
    EXPECT_LE(maxAbsDiff(a->values.data.data(), ref.at(refKey).values.data, 0, a->values.data.size()), 1e-4)
        << key;
  }
  const auto *layer = member(*z, "edge_layer"), *kind = member(*z, "edge_kind"),
             *head = member(*z, "edge_head"), *from = member(*z, "edge_from"), *to = member(*z, "edge_to"),
             *imp = member(*z, "edge_importance"), *kindName = member(*z, "edge_kind_name"),
             *tokens = member(*z, "tokens");
  ASSERT_TRUE(layer && kind && head && from && to && imp && kindName && tokens);
  EXPECT_EQ(layer->descr, "<i4");
  EXPECT_EQ(tokens->strings, enc->tokens);
  const auto& route = ref.at("route_0");
  ASSERT_EQ(layer->values.data.size(), in->edges.size());
  ASSERT_EQ(static_cast<int64_t>(in->edges.size()), route.shape[0]);
  for (size_t k = 0; k < in->edges.size(); ++k) {
    const float* w = route.values.data.data() + k * 6;
    EXPECT_EQ(layer->values.data[k], w[0]);
    EXPECT_EQ(kind->values.data[k], w[1]);
    EXPECT_EQ(head->values.data[k], w[2]);
    EXPECT_EQ(from->values.data[k], w[3]);
    EXPECT_EQ(to->values.data[k], w[4]);
    EXPECT_NEAR(imp->values.data[k], w[5], 1e-4);
    EXPECT_EQ(kindName->strings[k], models::routeEdgeKindName(in->edges[k].kind));
  }
}

INSTANTIATE_TEST_SUITE_P(CausalFamilies, CliRoutes, ::testing::Values("gpt2", "llama", "qwen2"));

TEST(CliRoutesJson, RouteOfAPositionAtAThreshold) {
  const auto r = runCli({"routes", "--model", modelDir("gpt2"), "--text", routesCaseText("gpt2", 0),
                         "--position", "3", "--threshold", "0.2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["position"], 3);
  ASSERT_FALSE(doc["edges"].empty());
  for (const auto& e : doc["edges"]) {
    EXPECT_GE(e["importance"].get<double>(), 0.2);
    EXPECT_LE(e["to"].get<int>(), 3);
    EXPECT_LE(e["from"].get<int>(), e["to"].get<int>()) << "a causal model reads no later token";
  }
  EXPECT_EQ(doc["edges"][0]["layer"], 1) << "the route starts at the top layer";
}

TEST(CliRoutesErrors, OneClearLineAndNoFile) {
  const auto dir = scratchDir("routes_errors");
  const auto out = (dir / "r.npz").string();
  std::filesystem::remove(out);
  auto with = [&](const std::string& model, std::vector<std::string> extra) {
    std::vector<std::string> a{"routes", "--model", modelDir(model), "--text", "the cat sat", "--out", out};
    a.insert(a.end(), extra.begin(), extra.end());
    return runCli(a);
  };
  for (const char* bad : {"0", "1.5", "-0.1", "nan"}) {
    const auto r = with("gpt2", {"--threshold", bad});
    EXPECT_EQ(r.status, 1) << bad;
    EXPECT_NE(r.err.find("--threshold must be in (0, 1]"), std::string::npos) << r.err;
  }
  const auto far = with("gpt2", {"--position", "99"});
  EXPECT_EQ(far.status, 1);
  EXPECT_NE(far.err.find("--position: 99 is out of range"), std::string::npos) << far.err;
  const auto bert = with("bert", {});
  EXPECT_EQ(bert.status, 1);
  EXPECT_NE(bert.err.find("causal language models (GPT-2, Llama, Mistral, Qwen2)"), std::string::npos)
      << bert.err;
  EXPECT_EQ(std::count(bert.err.begin(), bert.err.end(), '\n'), 1) << bert.err;
  const auto t5 = with("t5", {});
  EXPECT_EQ(t5.status, 1);
  EXPECT_NE(t5.err.find("encoder-decoder"), std::string::npos) << t5.err;
  EXPECT_EQ(std::count(t5.err.begin(), t5.err.end(), '\n'), 1) << t5.err;
  const auto badOut =
      runCli({"routes", "--model", modelDir("gpt2"), "--text", "the cat", "--out", (dir / "r.txt").string()});
  EXPECT_EQ(badOut.status, 1);
  EXPECT_NE(badOut.err.find("must end in .npz"), std::string::npos) << badOut.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace attn::test
