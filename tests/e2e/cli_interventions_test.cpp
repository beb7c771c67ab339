// End-to-end: attnscope-cli importance and --intervene on the small model fixtures
// (tests/scripts/gen_model_fixtures.py; the ablated forward in reference_ablate.npz
// is Hugging Face's head_mask zeroing one head).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"

namespace attn::test {
namespace {

namespace fs = std::filesystem;

std::string modelDir(const std::string& name) { return std::string(ATTN_FIXTURE_DIR) + "/models/" + name; }

const NpyArray* member(const std::vector<NpyArray>& z, const std::string& name) {
  for (const auto& a : z)
    if (a.name == name) return &a;
  return nullptr;
}

std::string caseText(const std::string& model, int c) {
  std::ifstream f(modelDir(model) + "/reference_tokens.json");
  return nlohmann::json::parse(f)["cases"][static_cast<size_t>(c)]["text"].get<std::string>();
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(CliIntervene, RunWritesTheAblatedWeightsAndWhatChanged) {
  const auto out = (scratchDir("intervene_gpt2") / "r.npz").string();
  // reference_ablate.npz ablation 0 is layer 1 head 2 (0-based 0, 1).
  const auto r = runCli({"run", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0), "--intervene",
                         "ablate:1.2", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("interventions: ablate:1.2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mean next-token loss:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("KL"), std::string::npos) << r.out;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  auto ref = readNpzFile(modelDir("gpt2") + "/reference_ablate.npz");
  auto base = readNpzFile(modelDir("gpt2") + "/reference.npz");
  ASSERT_TRUE(ref.ok() && base.ok());
  const auto* w = member(*z, "weights");
  const auto* want = member(*ref, "attn_0_0");
  const auto* before = member(*z, "weights_before");
  const auto* delta = member(*z, "delta_weights");
  const auto* wantBefore = member(*base, "attn_0");
  ASSERT_TRUE(w && want && before && delta && wantBefore);
  ASSERT_EQ(w->shape, want->shape);
  ASSERT_EQ(before->shape, want->shape);
  float worst = 0, worstBefore = 0, worstDelta = 0;
  for (size_t i = 0; i < want->values.data.size(); ++i) {
    worst = std::max(worst, std::abs(w->values.data[i] - want->values.data[i]));
    worstBefore = std::max(worstBefore, std::abs(before->values.data[i] - wantBefore->values.data[i]));
    worstDelta = std::max(worstDelta, std::abs(delta->values.data[i] - (w->values.data[i] - before->values.data[i])));
  }
  EXPECT_LE(worst, 1e-4f);
  EXPECT_LE(worstBefore, 1e-4f);
  EXPECT_EQ(worstDelta, 0.0f);
  for (const char* name : {"kl", "loss_before", "loss_after", "hidden_change", "top5_probs_before", "top5_after"})
    EXPECT_NE(member(*z, name), nullptr) << name;
  EXPECT_GT(member(*z, "kl")->values.data[0], 0.0f);
  EXPECT_NE(member(*z, "loss_before")->values.data[0], member(*z, "loss_after")->values.data[0]);
}

TEST(CliIntervene, NoInterventionKeepsTheOutputAsBefore) {
  const auto out = (scratchDir("intervene_none") / "r.npz").string();
  const auto r = runCli({"run", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(member(*z, "delta_weights"), nullptr);
  EXPECT_EQ(r.out.find("interventions"), std::string::npos);
}

TEST(CliIntervene, BertMaskAndMetricsExport) {
  const auto dir = scratchDir("intervene_bert");
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--model", modelDir("bert"), "--text", caseText("bert", 0), "--intervene",
                         "mask:2.1=causal", "--intervene", "temperature:1.3=0.5", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[CLS] representation"), std::string::npos) << r.out;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok());
  const auto* w = member(*z, "weights");
  ASSERT_NE(w, nullptr);
  const int64_t n = w->shape[2];
  const size_t off = (1 * w->shape[1] + 0) * n * n;  // layer 2 head 1
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) EXPECT_EQ(w->values.data[off + static_cast<size_t>(i * n + j)], 0.0f);
  EXPECT_NE(member(*z, "cls_change"), nullptr);
  // metrics and export take --intervene too (the intervened model's maps).
  const auto m = runCli({"metrics", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0), "--intervene",
                         "uniform:2.1", "--json"});
  ASSERT_EQ(m.status, 0) << m.err;
  const auto e = runCli({"export", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0), "--intervene",
                         "ablate:2.1", "--out", (dir / "f.png").string()});
  if (e.err.find("no figure renderer") == std::string::npos) {  // a build without the GUI cannot draw
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_TRUE(fs::exists(dir / "f.png"));
  }
}

TEST(CliIntervene, BadSpecsAreOneLineErrors) {
  struct Bad {
    std::string spec, says;
  };
  for (const Bad& b : {Bad{"ablate:3.1", "layer 3 does not exist (the model has layers 1 to 2)"},
                       Bad{"ablate:1.9", "head 9 does not exist (the model has heads 1 to 4)"},
                       Bad{"mask:1.1=windw:2", "mask 'windw:2'"}, Bad{"temperature:1.1=0", "not a positive number"},
                       Bad{"flip:1.1", "unknown kind 'flip'"}}) {
    const auto out = (scratchDir("intervene_bad") / "r.npz").string();
    const auto r =
        runCli({"run", "--model", modelDir("gpt2"), "--text", "hello", "--intervene", b.spec, "--out", out});
    EXPECT_NE(r.status, 0) << b.spec;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  const auto noModel = runCli({"run", "--text", "a b", "--intervene", "ablate:1.1", "--out", "/tmp/x.npz"});
  EXPECT_NE(noModel.status, 0);
}

TEST(CliImportance, TableJsonCsvAndCurve) {
  const auto dir = scratchDir("importance_gpt2");
  const auto csv = dir / "imp.csv", curve = dir / "curve.csv";
  const auto r = runCli({"importance", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0), "--json", "--csv",
                         csv.string(), "--curve", curve.string(), "--steps", "4"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["estimate"], "ablation");
  ASSERT_EQ(doc["importance"].size(), 2u);
  ASSERT_EQ(doc["importance"][0].size(), 4u);
  EXPECT_EQ(doc["ranking"].size(), 8u);
  EXPECT_EQ(doc["forward_passes"], 1 + 8 + 4);
  ASSERT_EQ(doc["curve"].size(), 5u);
  EXPECT_EQ(doc["curve"][4]["heads_removed"], 8);
  EXPECT_DOUBLE_EQ(doc["curve"][0]["value"].get<double>(), doc["baseline"].get<double>());
  // The ranking is sorted and its first entry is the matrix's maximum.
  double best = -1e30;
  for (const auto& row : doc["importance"])
    for (const auto& v : row) best = std::max(best, v.get<double>());
  EXPECT_DOUBLE_EQ(doc["ranking"][0]["importance"].get<double>(), best);
  const std::string c = slurp(csv);
  EXPECT_EQ(c.rfind("layer,head,importance\n", 0), 0u);
  EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 9);
  const std::string k = slurp(curve);
  EXPECT_EQ(k.rfind("fraction_removed,heads_removed,value\n", 0), 0u);
  EXPECT_EQ(std::count(k.begin(), k.end(), '\n'), 6);
  // The table form; existing files are not replaced without --force.
  const auto t = runCli({"importance", "--model", modelDir("bert"), "--text", caseText("bert", 0), "--csv",
                         csv.string()});
  EXPECT_NE(t.status, 0);
  EXPECT_NE(t.err.find("file exists"), std::string::npos) << t.err;
  const auto t2 = runCli({"importance", "--model", modelDir("bert"), "--text", caseText("bert", 0)});
  ASSERT_EQ(t2.status, 0) << t2.err;
  EXPECT_NE(t2.out.find("ablation estimate"), std::string::npos) << t2.out;
  EXPECT_NE(t2.out.find("most important (layer.head):"), std::string::npos) << t2.out;
  const auto bad = runCli({"importance", "--model", (dir / "nope").string(), "--text", "x"});
  EXPECT_NE(bad.status, 0);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

}  // namespace
}  // namespace attn::test
