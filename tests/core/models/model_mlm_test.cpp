// The masked-LM head of BERT-style checkpoints (core/attn/models/mlm_head.h) and the
// fused next-token loss (next_token_loss.h) against references:
//  - reference.npz's mlm_logits_c (BertForMaskedLM at every position) and
//    reference_mlm.{json,npz} (tests/scripts/gen_model_fixtures.py --step mlm: texts with
//    [MASK], the head's logits and top 5 at each [MASK], with and without a head zeroed as
//    Hugging Face's head_mask does, and the KL between the two), from the plain-PyTorch port
//    checked against float64 numpy;
//  - the fused loss against the loss from the full logits (the reference-checked lm_head);
//  - head importance run side by side equal to one pass at a time.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/io/npy_reader.h"
#include "attn/models/experiments/head_experiments.h"
#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::modelDir;
using attn::test::loadNpz;

namespace fs = std::filesystem;

nlohmann::json loadJson(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return nlohmann::json::parse(ss.str());
}

std::vector<int> ints(const NpyArray& a) {
  std::vector<int> v;
  for (float x : a.values.data) v.push_back(static_cast<int>(x));
  return v;
}

double maxAbsRowDiff(const Mat& got, Eigen::Index row, const std::vector<float>& want, size_t offset) {
  double m = 0;
  for (Eigen::Index j = 0; j < got.cols(); ++j)
    m = std::max(m, std::abs(static_cast<double>(got(row, j)) - want[offset + static_cast<size_t>(j)]));
  return m;
}

std::shared_ptr<const Model> open(const std::string& name) {
  auto model = Model::open(modelDir(name));
  EXPECT_TRUE(model.ok()) << (model ? "" : model.error().message);
  return model ? *model : nullptr;
}

TEST(ModelMaskedLm, HeadLoadsWithTheTokenizersMaskToken) {
  auto bert = open("bert");
  ASSERT_TRUE(bert);
  EXPECT_TRUE(bert->info().maskedLm);
  EXPECT_EQ(bert->info().maskToken, "[MASK]");
  EXPECT_EQ(bert->tokenizer().maskTokenId(), 5);  // vocab.txt line 6
  auto legacy = open("bert_legacy");  // a BertModel checkpoint: no cls.* head
  ASSERT_TRUE(legacy);
  EXPECT_FALSE(legacy->info().maskedLm);
  auto enc = legacy->encode("The cat sat on the [MASK].", std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  auto run = legacy->run(*enc);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->maskPredictions.empty());
  EXPECT_EQ(run->maskLogits.size(), 0);
  auto gpt2 = open("gpt2");
  ASSERT_TRUE(gpt2);
  EXPECT_FALSE(gpt2->info().maskedLm);
}

TEST(ModelMaskedLm, LogitsAtEveryPositionMatchBertForMaskedLm) {
  auto m = open("bert");
  ASSERT_TRUE(m);
  const auto ref = loadNpz(modelDir("bert") + "/reference.npz");
  for (int c = 0; ref.count(fmt::format("ids_{}", c)); ++c) {
    SCOPED_TRACE(fmt::format("case {}", c));
    Encoding e;
    e.ids = ints(ref.at(fmt::format("ids_{}", c)));
    e.typeIds = ints(ref.at(fmt::format("type_ids_{}", c)));
    for (int a : ints(ref.at(fmt::format("mask_{}", c)))) e.attention.push_back(static_cast<uint8_t>(a));
    e.tokens.resize(e.ids.size());
    RunOptions opt;
    opt.keepFullLogits = true;
    auto run = m->run(e, opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const auto& want = ref.at(fmt::format("mlm_logits_{}", c));
    ASSERT_EQ(want.shape, (std::vector<int64_t>{e.size(), m->info().vocabSize}));
    ASSERT_EQ(run->logits.rows(), e.size());
    for (int i = 0; i < e.size(); ++i)
      EXPECT_LE(maxAbsRowDiff(run->logits, i, want.values.data, static_cast<size_t>(i) * run->logits.cols()), 1e-4)
          << "position " << i;
    EXPECT_TRUE(run->maskPositions.empty());  // no [MASK] in these texts
  }
}

TEST(ModelMaskedLm, TopFiveAtEachMaskMatchTheReference) {
  auto m = open("bert");
  ASSERT_TRUE(m);
  const auto cases = loadJson(modelDir("bert") + "/reference_mlm.json")["cases"];
  const auto ref = loadNpz(modelDir("bert") + "/reference_mlm.npz");
  ASSERT_EQ(cases.size(), 2u);
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(fmt::format("mlm case {}", c));
    const auto& tc = cases[c];
    std::optional<std::string> pair;
    if (tc["pair"].is_string()) pair = tc["pair"].get<std::string>();
    auto enc = m->encode(tc["text"].get<std::string>(), pair, "text");
    ASSERT_TRUE(enc.ok()) << enc.error().message;
    EXPECT_EQ(enc->ids, tc["ids"].get<std::vector<int>>());
    EXPECT_EQ(enc->typeIds, tc["type_ids"].get<std::vector<int>>());
    auto run = m->run(*enc);  // defaults: maskTopK 5
    ASSERT_TRUE(run.ok()) << run.error().message;
    const auto positions = ints(ref.at(fmt::format("mask_positions_{}", c)));
    ASSERT_EQ(run->maskPositions, positions);
    ASSERT_EQ(run->maskPredictions.size(), positions.size());
    const auto& logits = ref.at(fmt::format("mlm_logits_{}", c));
    const auto& ids = ref.at(fmt::format("top5_ids_{}", c));
    const auto& probs = ref.at(fmt::format("top5_probs_{}", c));
    const size_t V = static_cast<size_t>(m->info().vocabSize);
    for (size_t k = 0; k < positions.size(); ++k) {
      EXPECT_LE(maxAbsRowDiff(run->maskLogits, static_cast<Eigen::Index>(k), logits.values.data,
                              static_cast<size_t>(positions[k]) * V),
                1e-4);
      const auto& top = run->maskPredictions[k];
      ASSERT_EQ(top.size(), 5u);
      for (size_t r = 0; r < 5; ++r) {
        EXPECT_EQ(top[r].id, static_cast<int>(ids.values.data[k * 5 + r])) << "rank " << r;
        EXPECT_NEAR(top[r].prob, probs.values.data[k * 5 + r], 1e-4) << "rank " << r;
        EXPECT_EQ(top[r].token, m->tokenizer().displayText(top[r].id));
      }
    }
  }
}

TEST(ModelMaskedLm, AblationChangesTheMaskedPredictionAsTheReference) {
  auto m = open("bert");
  ASSERT_TRUE(m);
  const auto cases = loadJson(modelDir("bert") + "/reference_mlm.json")["cases"];
  const auto ref = loadNpz(modelDir("bert") + "/reference_mlm.npz");
  const auto which = ints(ref.at("ablation"));
  ASSERT_EQ(which.size(), 2u);
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(fmt::format("mlm case {}", c));
    Encoding e;
    e.ids = cases[c]["ids"].get<std::vector<int>>();
    e.typeIds = cases[c]["type_ids"].get<std::vector<int>>();
    e.tokens = cases[c]["tokens"].get<std::vector<std::string>>();
    RunOptions opt;
    auto before = m->run(e, opt);
    opt.interventions = {HeadIntervention{InterventionKind::Ablate, which[0], which[1], 1.0f, {}}};
    auto after = m->run(e, opt);
    ASSERT_TRUE(before.ok() && after.ok());
    auto cmp = compareRuns(*m, *before, *after);
    ASSERT_TRUE(cmp.ok()) << cmp.error().message;
    const auto positions = ints(ref.at(fmt::format("mask_positions_{}", c)));
    ASSERT_EQ(cmp->masked.size(), positions.size());
    const auto& kl = ref.at(fmt::format("kl_ablate_{}", c));
    const auto& idsBefore = ref.at(fmt::format("top5_ids_{}", c));
    const auto& idsAfter = ref.at(fmt::format("top5_ids_ablate_{}", c));
    const auto& probsAfter = ref.at(fmt::format("top5_probs_ablate_{}", c));
    for (size_t k = 0; k < positions.size(); ++k) {
      const MaskChange& mc = cmp->masked[k];
      EXPECT_EQ(mc.position, positions[k]);
      EXPECT_GT(mc.kl, 0.0);
      EXPECT_NEAR(mc.kl, kl.values.data[k], 1e-4 * std::max(1.0, static_cast<double>(kl.values.data[k])));
      ASSERT_EQ(mc.topBefore.size(), 5u);
      ASSERT_EQ(mc.topAfter.size(), 5u);
      for (size_t r = 0; r < 5; ++r) {
        EXPECT_EQ(mc.topBefore[r].id, static_cast<int>(idsBefore.values.data[k * 5 + r]));
        EXPECT_EQ(mc.topAfter[r].id, static_cast<int>(idsAfter.values.data[k * 5 + r]));
        EXPECT_NEAR(mc.topAfter[r].prob, probsAfter.values.data[k * 5 + r], 1e-4);
      }
    }
    // The [CLS] change is still reported beside it.
    EXPECT_GT(cmp->clsChange, 0.0);
  }
}

TEST(ModelMaskedLm, UntiedDecoderIsTheStoredWeight) {
  // tie_word_embeddings false: the decoder is cls.predictions.decoder.weight (equal to the word
  // embedding in this checkpoint, as transformers saves a tied model), so the logits agree.
  const fs::path dir = fs::temp_directory_path() / fmt::format("attn_mlm_untied_{}", ::getpid());
  fs::remove_all(dir);
  fs::copy(modelDir("bert"), dir, fs::copy_options::recursive);
  auto cfg = loadJson((dir / "config.json").string());
  cfg["tie_word_embeddings"] = false;
  std::ofstream(dir / "config.json") << cfg.dump(2);
  auto untied = Model::open(dir.string());
  ASSERT_TRUE(untied.ok()) << untied.error().message;
  auto tied = open("bert");
  auto enc = tied->encode("The cat sat on the [MASK].", std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  auto a = tied->run(*enc), b = (*untied)->run(*enc);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->maskLogits.rows(), 1);
  EXPECT_EQ(a->maskLogits, b->maskLogits);
  fs::remove_all(dir);
}

TEST(ModelNextTokenLoss, FusedLossEqualsTheLossFromFullLogits) {
  for (const char* name : {"gpt2", "llama", "qwen2"}) {  // f32 tied, BF16 untied, BF16 tied padded vocab
    SCOPED_TRACE(name);
    auto m = open(name);
    ASSERT_TRUE(m);
    const auto ref = loadNpz(modelDir(name) + "/reference.npz");
    Encoding e;
    e.ids = ints(ref.at("ids_0"));
    e.tokens.resize(e.ids.size());
    RunOptions full;
    full.keepFullLogits = true;
    RunOptions fused;
    fused.nextTokenLoss = true;
    fused.topK = 0;
    auto a = m->run(e, full), b = m->run(e, fused);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(b->logits.size(), 0);
    ASSERT_TRUE(b->nextTokenLoss.has_value());
    const double want = *meanNextTokenLoss(*a);
    EXPECT_NEAR(*b->nextTokenLoss, want, 1e-6 * std::abs(want));
    EXPECT_NEAR(*meanNextTokenLoss(*b), want, 1e-6 * std::abs(want));
    // Independently, from the reference logits: -log softmax(logits_i)[id_{i+1}], in double.
    const auto& logits = ref.at("logits_0");
    const size_t V = static_cast<size_t>(logits.shape[1]);
    double total = 0;
    for (size_t i = 0; i + 1 < e.ids.size(); ++i) {
      const float* row = &logits.values.data[i * V];
      double mx = row[0], sum = 0;
      for (size_t j = 0; j < V; ++j) mx = std::max(mx, static_cast<double>(row[j]));
      for (size_t j = 0; j < V; ++j) sum += std::exp(row[j] - mx);
      total += mx + std::log(sum) - row[e.ids[i + 1]];
    }
    EXPECT_NEAR(*b->nextTokenLoss, total / static_cast<double>(e.ids.size() - 1), 1e-4);
  }
  // Padding rows are left out (BERT has no loss; a padded GPT-2 text: only real pairs count).
  auto g = open("gpt2");
  Encoding e;
  e.ids = {5, 17, 30, 2};
  e.attention = {1, 1, 1, 0};
  e.tokens.resize(4);
  RunOptions fused;
  fused.nextTokenLoss = true;
  auto p = g->run(e, fused);
  e.ids.pop_back();
  e.attention.clear();
  e.tokens.pop_back();
  auto q = g->run(e, fused);
  ASSERT_TRUE(p.ok() && q.ok());
  EXPECT_NEAR(*p->nextTokenLoss, *q->nextTokenLoss, 1e-5);
  e.ids = {5};
  e.tokens = {""};
  auto one = g->run(e, fused);
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(one->nextTokenLoss.has_value());
}

TEST(ModelImportanceParallel, SideBySideEqualsOneAtATime) {
  for (const char* name : {"gpt2", "bert"}) {
    SCOPED_TRACE(name);
    auto m = open(name);
    ASSERT_TRUE(m);
    const auto ref = loadNpz(modelDir(name) + "/reference.npz");
    Encoding e;
    e.ids = ints(ref.at("ids_0"));
    e.typeIds = ints(ref.at("type_ids_0"));
    e.tokens.resize(e.ids.size());
    ImportanceOptions serial{3, true, false}, parallel{3, true, true};
    auto a = headImportance(*m, e, serial), b = headImportance(*m, e, parallel);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->forwardPasses, b->forwardPasses);
    EXPECT_EQ(a->reusedLayers, b->reusedLayers);
    EXPECT_NEAR(a->baseline, b->baseline, 1e-12);
    const double scale = std::max(1.0, static_cast<double>(a->importance.cwiseAbs().maxCoeff()));
    EXPECT_LE((a->importance - b->importance).cwiseAbs().maxCoeff(), 1e-5 * scale);
    ASSERT_EQ(a->curve.size(), b->curve.size());
    for (size_t k = 0; k < a->curve.size(); ++k) {
      EXPECT_EQ(a->curve[k].removed, b->curve[k].removed);
      EXPECT_NEAR(a->curve[k].value, b->curve[k].value, 1e-5 * std::max(1.0, std::abs(a->curve[k].value)));
    }
  }
}

}  // namespace
}  // namespace attn::models
