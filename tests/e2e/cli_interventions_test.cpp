// End-to-end: attnscope-cli importance and --intervene on the small model fixtures
// (tests/scripts/gen_model_fixtures.py; the ablated forward in reference_ablate.npz
// is Hugging Face's head_mask zeroing one head).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

namespace fs = std::filesystem;

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
  EXPECT_EQ(k.rfind("fraction_removed,heads_removed,loss\n", 0), 0u);
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

// --method gradient: Michel et al.'s gate gradients from one backward pass (their values are
// checked against autograd in model_gradients_test), the pruning curve by the same ablations;
// an encoder is refused in one line, an unknown method by the parser.
TEST(CliImportance, GateGradientMethod) {
  const auto dir = scratchDir("importance_gradient");
  const auto csv = dir / "imp.csv";
  const auto r = runCli({"importance", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0), "--json",
                         "--method", "gradient", "--steps", "4", "--csv", csv.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["method"], "gradient");
  EXPECT_NE(doc["measure"].get<std::string>().find("Michel"), std::string::npos);
  EXPECT_EQ(doc["forward_passes"], 1 + 4);  // the base run and the curve; no ablation per head
  ASSERT_EQ(doc["importance"].size(), 2u);
  double sum = 0;
  for (const auto& row : doc["importance"])
    for (const auto& v : row) {
      EXPECT_GE(v.get<double>(), 0.0);
      sum += v.get<double>();
    }
  EXPECT_GT(sum, 1e-3);
  ASSERT_EQ(doc["curve"].size(), 5u);
  const std::string written = slurp(csv);
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 9);
  const auto table = runCli({"importance", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0),
                             "--method", "gradient", "--steps", "0"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("method: gate gradients (Michel et al. 2019"), std::string::npos) << table.out;
  const auto bert = runCli(
      {"importance", "--model", modelDir("bert"), "--text", caseText("bert", 0), "--method", "gradient"});
  EXPECT_NE(bert.status, 0);
  EXPECT_NE(bert.err.find("bidirectional"), std::string::npos) << bert.err;
  EXPECT_EQ(std::count(bert.err.begin(), bert.err.end(), '\n'), 1) << bert.err;
  const auto unknown =
      runCli({"importance", "--model", modelDir("gpt2"), "--text", "x", "--method", "shapley"});
  EXPECT_NE(unknown.status, 0);
}

// --- masked-LM predictions (tests/scripts/gen_model_fixtures.py --step mlm) ---

struct MlmReference {
  nlohmann::json cases;
  std::vector<NpyArray> arrays;
  std::vector<std::string> vocab;  // vocab.txt: line i is token i
};

MlmReference mlmReference() {
  MlmReference r;
  std::ifstream f(modelDir("bert") + "/reference_mlm.json");
  r.cases = nlohmann::json::parse(f)["cases"];
  auto z = readNpzFile(modelDir("bert") + "/reference_mlm.npz");
  EXPECT_TRUE(z.ok());
  if (z) r.arrays = std::move(z).value();
  std::ifstream v(modelDir("bert") + "/vocab.txt");
  for (std::string line; std::getline(v, line);) r.vocab.push_back(line);
  return r;
}

/// The reference's top-5 tokens (as vocab.txt spells them) of case c, mask k (suffix "" or "_ablate").
std::vector<std::string> referenceTop(const MlmReference& r, int c, size_t k, const std::string& suffix) {
  const auto* ids = member(r.arrays, "top5_ids" + suffix + "_" + std::to_string(c));
  std::vector<std::string> out;
  for (size_t j = 0; j < 5; ++j) out.push_back(r.vocab.at(static_cast<size_t>(ids->values.data[k * 5 + j])));
  return out;
}

TEST(CliMaskedLm, RunAndMetricsGiveTheTopFiveAtEachMask) {
  const MlmReference ref = mlmReference();
  const auto& tc = ref.cases[1];  // two [MASK]s, one in each segment
  const auto out = (scratchDir("mlm_run") / "m.npz").string();
  const auto r = runCli({"run", "--model", modelDir("bert"), "--text", tc["text"].get<std::string>(), "--key-text",
                         tc["pair"].get<std::string>(), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[MASK] at position 3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[MASK] at position 13:"), std::string::npos) << r.out;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  const auto* tokens = member(*z, "mask_tokens");
  const auto* probs = member(*z, "mask_probs");
  const auto* positions = member(*z, "mask_positions");
  ASSERT_TRUE(tokens && probs && positions);
  EXPECT_EQ(tokens->shape, (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(probs->shape, (std::vector<int64_t>{2, 5}));
  const auto* wantProbs = member(ref.arrays, "top5_probs_1");
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(static_cast<int>(positions->values.data[k]), tc["mask_positions"][k].get<int>());
    const auto want = referenceTop(ref, 1, k, "");
    for (size_t j = 0; j < 5; ++j) {
      EXPECT_EQ(tokens->strings[k * 5 + j], want[j]) << k << "," << j;
      EXPECT_NEAR(probs->values.data[k * 5 + j], wantProbs->values.data[k * 5 + j], 1e-4);
    }
  }
  // metrics --json carries the same predictions; a causal model's run writes none.
  const auto m = runCli({"metrics", "--model", modelDir("bert"), "--text", ref.cases[0]["text"].get<std::string>(),
                         "--json"});
  ASSERT_EQ(m.status, 0) << m.err;
  const auto doc = nlohmann::json::parse(m.out);
  ASSERT_EQ(doc["masked_predictions"].size(), 1u);
  EXPECT_EQ(doc["masked_predictions"][0]["position"], 6);
  const auto want0 = referenceTop(ref, 0, 0, "");
  for (size_t j = 0; j < 5; ++j) EXPECT_EQ(doc["masked_predictions"][0]["top5"][j]["token"], want0[j]);
  const auto text = runCli({"metrics", "--model", modelDir("bert"), "--text", ref.cases[0]["text"].get<std::string>()});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("[MASK] at position 7:"), std::string::npos) << text.out;
  const auto g = (scratchDir("mlm_gpt2") / "g.npz").string();
  ASSERT_EQ(runCli({"run", "--model", modelDir("gpt2"), "--text", "The cat", "--out", g}).status, 0);
  auto gz = readNpzFile(g);
  ASSERT_TRUE(gz.ok());
  EXPECT_EQ(member(*gz, "mask_tokens"), nullptr);
}

TEST(CliMaskedLm, InterveneReportsTheMaskedPredictionBeforeAndAfter) {
  const MlmReference ref = mlmReference();
  const auto* which = member(ref.arrays, "ablation");
  ASSERT_NE(which, nullptr);
  const std::string spec = fmt::format("ablate:{}.{}", static_cast<int>(which->values.data[0]) + 1,
                                       static_cast<int>(which->values.data[1]) + 1);
  const std::string text = ref.cases[0]["text"].get<std::string>();
  const auto out = (scratchDir("mlm_intervene") / "i.npz").string();
  const auto r = runCli({"run", "--model", modelDir("bert"), "--text", text, "--intervene", spec, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("masked token at position 7: KL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[CLS] representation"), std::string::npos) << r.out;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  const float wantKl = member(ref.arrays, "kl_ablate_0")->values.data[0];
  ASSERT_NE(member(*z, "mask_kl"), nullptr);
  EXPECT_NEAR(member(*z, "mask_kl")->values.data[0], wantKl, 1e-4 * std::max(1.0f, wantKl));
  const auto before = referenceTop(ref, 0, 0, ""), after = referenceTop(ref, 0, 0, "_ablate");
  const auto* tb = member(*z, "mask_tokens_before");
  const auto* ta = member(*z, "mask_tokens_after");
  ASSERT_TRUE(tb && ta && member(*z, "mask_probs_before") && member(*z, "mask_probs_after"));
  for (size_t j = 0; j < 5; ++j) {
    EXPECT_EQ(tb->strings[j], before[j]);
    EXPECT_EQ(ta->strings[j], after[j]);
  }
  // The intervened run's own predictions are the "after" ones.
  EXPECT_EQ(member(*z, "mask_tokens")->strings, ta->strings);
  const auto m = runCli({"metrics", "--model", modelDir("bert"), "--text", text, "--intervene", spec, "--json"});
  ASSERT_EQ(m.status, 0) << m.err;
  const auto doc = nlohmann::json::parse(m.out);
  const auto& iv = doc["intervention"];
  EXPECT_EQ(iv["interventions"][0], spec);
  ASSERT_EQ(iv["masked"].size(), 1u);
  EXPECT_NEAR(iv["masked"][0]["kl"].get<double>(), wantKl, 1e-4 * std::max(1.0f, wantKl));
  EXPECT_EQ(iv["masked"][0]["top5_after"][0]["token"], after[0]);
  EXPECT_GT(iv["cls_change"].get<double>(), 0.0);
}

TEST(CliImportance, MethodAndCurveCsv) {
  const auto dir = scratchDir("importance_curve");
  const auto gcurve = dir / "gpt2_curve.csv", bcurve = dir / "bert_curve.csv";
  const auto g = runCli({"importance", "--model", modelDir("gpt2"), "--text", caseText("gpt2", 0), "--json",
                         "--curve-csv", gcurve.string(), "--steps", "2"});
  ASSERT_EQ(g.status, 0) << g.err;
  const auto doc = nlohmann::json::parse(g.out);
  EXPECT_EQ(doc["method"], "ablation");
  // Rows: fraction removed, heads removed, the loss of the model with those heads zeroed.
  const std::string k = slurp(gcurve);
  std::istringstream lines(k);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "fraction_removed,heads_removed,loss");
  std::vector<std::vector<double>> rows;
  while (std::getline(lines, line)) {
    std::vector<double> row;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  ASSERT_EQ(rows.size(), 3u);
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 3u);
    EXPECT_NEAR(rows[i][0], doc["curve"][i]["fraction_removed"].get<double>(), 1e-6);
    EXPECT_EQ(rows[i][1], doc["curve"][i]["heads_removed"].get<double>());
    EXPECT_NEAR(rows[i][2], doc["curve"][i]["value"].get<double>(), 1e-6 * std::abs(rows[i][2]));
  }
  EXPECT_EQ(rows[0][0], 0.0);
  EXPECT_EQ(rows[2][0], 1.0);
  EXPECT_NEAR(rows[0][2], doc["baseline"].get<double>(), 1e-6 * rows[0][2]);
  // An encoder's curve is the representation change; the table names the method.
  const auto b = runCli({"importance", "--model", modelDir("bert"), "--text", caseText("bert", 0), "--curve-csv",
                         bcurve.string(), "--steps", "2"});
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_NE(b.out.find("method: ablation"), std::string::npos) << b.out;
  EXPECT_EQ(slurp(bcurve).rfind("fraction_removed,heads_removed,representation_change\n", 0), 0u);
}

// Over a file of prompts each head's importance is the mean of its importance on each prompt
// alone (Michel et al. 2019 average over a data set), with the spread; blank lines are skipped
// and a prompt past the model's context is refused naming its line.
TEST(CliImportance, PromptsFileAveragesThePerPromptImportance) {
  const auto dir = scratchDir("importance_prompts");
  const std::string a = caseText("gpt2", 0), b = caseText("gpt2", 1);
  const auto prompts = dir / "prompts.txt";
  { std::ofstream(prompts) << a << "\n\n  \n" << b << "\r\n"; }
  std::vector<nlohmann::json> single;
  for (const auto& text : {a, b}) {
    const auto r =
        runCli({"importance", "--model", modelDir("gpt2"), "--text", text, "--json", "--steps", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    single.push_back(nlohmann::json::parse(r.out));
  }
  const auto r = runCli({"importance", "--model", modelDir("gpt2"), "--prompts", prompts.string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["prompts"], 2);
  ASSERT_EQ(doc["importance"].size(), 2u);
  for (size_t l = 0; l < 2; ++l)
    for (size_t h = 0; h < 4; ++h) {
      const double x = single[0]["importance"][l][h].get<double>(),
                   y = single[1]["importance"][l][h].get<double>();
      EXPECT_NEAR(doc["importance"][l][h].get<double>(), (x + y) / 2, 1e-5 + 1e-5 * std::abs(x + y));
      EXPECT_NEAR(doc["importance_std"][l][h].get<double>(), std::abs(x - y) / 2,
                  1e-4 + 1e-4 * std::abs(x - y));
    }
  std::string longLine;
  for (int i = 0; i < 80; ++i) longLine += "cat ";
  const auto tooLong = dir / "long.txt";
  { std::ofstream(tooLong) << a << "\n" << longLine << "\n"; }
  const auto bad = runCli({"importance", "--model", modelDir("gpt2"), "--prompts", tooLong.string()});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("long.txt:2: the input has"), std::string::npos) << bad.err;
  const auto cut = runCli({"importance", "--model", modelDir("gpt2"), "--prompts", tooLong.string(),
                           "--max-tokens", "32", "--json"});
  ASSERT_EQ(cut.status, 0) << cut.err;
  EXPECT_EQ(nlohmann::json::parse(cut.out)["prompts"], 2);
}

}  // namespace
}  // namespace attn::test
