// Model::open + encode + run against the reference written by
// tests/scripts/gen_model_fixtures.py: small random GPT-2, BERT (BertForMaskedLM
// form; legacy gamma/beta F16), Llama (BF16, GQA, untied lm_head), Llama 3
// (rope_scaling llama3, head_dim, tied) and Qwen2 (q/k/v biases, tied, sharded,
// padded vocab) folders, whose attentions, hidden states and logits come from a
// plain-PyTorch re-implementation of the Hugging Face modeling code checked
// against float64 numpy, and whose tokens come from Hugging Face tokenizers 0.23.2.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/io/npy_reader.h"
#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::modelDir;
using attn::test::maxAbsDiff;

struct Reference {
  nlohmann::json tokens;
  std::map<std::string, NpyArray> arrays;
};

Reference loadReference(const std::string& name) {
  Reference r;
  std::ifstream f(modelDir(name) + "/reference_tokens.json");
  std::stringstream ss;
  ss << f.rdbuf();
  r.tokens = nlohmann::json::parse(ss.str());
  auto npz = readNpzFile(modelDir(name) + "/reference.npz");
  EXPECT_TRUE(npz.ok()) << npz.error().message;
  if (npz)
    for (auto& a : *npz) r.arrays[a.name] = std::move(a);
  return r;
}

/// Largest |a - b| over an [..] block of `want` starting at flat `offset`.
double maxAbs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
  return m;
}

class ModelReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelReference, EveryLayerHeadHiddenStateAndLogitMatches) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  const Reference ref = loadReference(name);
  const auto& cases = ref.tokens["cases"];
  ASSERT_FALSE(cases.empty());
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(name + " case " + std::to_string(c));
    const auto& tc = cases[c];
    std::optional<std::string> pair;
    if (tc["pair"].is_string()) pair = tc["pair"].get<std::string>();
    auto enc = m.encode(tc["text"].get<std::string>(), pair, "text", tc["pad_to"].get<int>());
    ASSERT_TRUE(enc.ok()) << enc.error().message;
    EXPECT_EQ(enc->ids, tc["ids"].get<std::vector<int>>());
    EXPECT_EQ(enc->tokens, tc["tokens"].get<std::vector<std::string>>());
    EXPECT_EQ(enc->typeIds, tc["type_ids"].get<std::vector<int>>());
    if (!pair) {  // the library's character offsets (padding and special tokens [0, 0])
      std::vector<std::vector<int>> offsets;
      for (const auto& [b, e] : attn::models::toCodePointOffsets(tc["text"].get<std::string>(), enc->offsets))
        offsets.push_back({b, e});
      EXPECT_EQ(offsets, tc["offsets"].get<std::vector<std::vector<int>>>());
    }
    const auto mask = tc["attention_mask"].get<std::vector<int>>();
    std::vector<uint8_t> att(mask.begin(), mask.end());
    if (!enc->attention.empty()) {
      EXPECT_EQ(enc->attention, att);
    }
    // The forward runs on the reference ids, so a tokenizer difference cannot hide a model one.
    const auto& ids = ref.arrays.at(fmt::format("ids_{}", c)).values.data;
    Encoding in = *enc;
    in.ids.assign(ids.begin(), ids.end());
    in.attention = att;
    in.typeIds.clear();
    for (float t : ref.arrays.at(fmt::format("type_ids_{}", c)).values.data) in.typeIds.push_back(static_cast<int>(t));
    in.tokens.resize(in.ids.size());
    RunOptions opt;
    opt.keepHiddenStates = true;
    opt.keepFullLogits = true;
    auto run = m.run(in, opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const int n = in.size(), L = m.info().layers, H = m.info().heads, d = m.info().dModel;
    const auto& attn = ref.arrays.at(fmt::format("attn_{}", c));
    ASSERT_EQ(attn.shape, (std::vector<int64_t>{L, H, n, n}));
    ASSERT_EQ(static_cast<int>(run->layers.size()), L);
    for (int l = 0; l < L; ++l) {
      const AttentionResult& r = run->layers[static_cast<size_t>(l)];
      ASSERT_EQ(r.numHeads(), H);
      EXPECT_EQ(r.mask.hasCausal(), m.info().causal);
      for (int h = 0; h < H; ++h) {
        const Mat& w = r.heads[static_cast<size_t>(h)].weights;
        ASSERT_EQ(w.rows(), n);
        const size_t off = (static_cast<size_t>(l) * H + h) * n * n;
        EXPECT_LE(maxAbsDiff(w.data(), attn.values.data, off, static_cast<size_t>(n) * n), 1e-4)
            << "layer " << l << " head " << h;
        // Masked cells exactly 0 (causal: above the diagonal; padding: pad keys).
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            if ((m.info().causal && j > i) || !att[static_cast<size_t>(j)]) {
              ASSERT_EQ(w(i, j), 0.0f) << i << "," << j;
            }
      }
    }
    const auto& hid = ref.arrays.at(fmt::format("hidden_{}", c));
    ASSERT_EQ(hid.shape, (std::vector<int64_t>{L + 1, n, d}));
    ASSERT_EQ(static_cast<int>(run->hiddenStates.size()), L + 1);
    const double hidTol = 2e-5 * std::max(1.0, maxAbs(hid.values.data));
    for (int l = 0; l <= L; ++l)
      EXPECT_LE(maxAbsDiff(run->hiddenStates[static_cast<size_t>(l)].data(), hid.values.data,
                           static_cast<size_t>(l) * n * d, static_cast<size_t>(n) * d),
                hidTol)
          << "hidden state " << l;
    if (m.info().causal) {
      const auto& logits = ref.arrays.at(fmt::format("logits_{}", c));
      ASSERT_EQ(logits.shape, (std::vector<int64_t>{n, m.info().vocabSize}));
      ASSERT_EQ(run->logits.rows(), n);
      ASSERT_EQ(run->logits.cols(), m.info().vocabSize);
      EXPECT_LE(maxAbsDiff(run->logits.data(), logits.values.data, 0, logits.values.data.size()),
                2e-5 * std::max(1.0, maxAbs(logits.values.data)));
      // Top-5 next tokens: the reference's arg-max first, probabilities from its softmax.
      ASSERT_EQ(run->nextTokens.size(), static_cast<size_t>(n));
      const int V = m.info().vocabSize;
      for (int i = 0; i < n; ++i) {
        const float* row = &logits.values.data[static_cast<size_t>(i) * V];
        const int best = static_cast<int>(std::max_element(row, row + V) - row);
        double sum = 0;
        for (int j = 0; j < V; ++j) sum += std::exp(static_cast<double>(row[j]) - row[best]);
        const auto& top = run->nextTokens[static_cast<size_t>(i)];
        ASSERT_EQ(top.size(), 5u);
        EXPECT_EQ(top[0].id, best);
        EXPECT_NEAR(top[0].prob, 1.0 / sum, 1e-4);
        EXPECT_EQ(top[0].token, m.tokenizer().displayText(best));
        for (size_t r = 1; r < top.size(); ++r) EXPECT_LE(top[r].prob, top[r - 1].prob);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ModelReference,
                         ::testing::Values("gpt2", "bert", "bert_legacy", "llama", "llama3", "qwen2"));

TEST(ModelReferenceInfo, FamiliesShapesAndParameters) {
  auto gpt2 = Model::open(modelDir("gpt2"));
  ASSERT_TRUE(gpt2.ok()) << gpt2.error().message;
  const ModelInfo& g = (*gpt2)->info();
  EXPECT_EQ(g.family, Family::Gpt2);
  EXPECT_EQ(familyName(g.family), "GPT-2");
  EXPECT_EQ(g.name, "gpt2");
  EXPECT_TRUE(g.causal);
  EXPECT_EQ(g.dtype, "F32");
  EXPECT_EQ(g.tokenizerKind, "byte-level BPE");
  // wte + wpe + per layer (2 LN + c_attn + c_proj + c_fc + mlp.c_proj, with biases) + ln_f.
  const int64_t d = g.dModel, V = g.vocabSize, P = g.maxPositions, I = g.intermediate;
  const int64_t perLayer = 4 * d + (d * 3 * d + 3 * d) + (d * d + d) + (d * I + I) + (I * d + d);
  EXPECT_EQ(g.parameters, V * d + P * d + g.layers * perLayer + 2 * d);

  auto qwen = Model::open(modelDir("qwen2"));
  ASSERT_TRUE(qwen.ok()) << qwen.error().message;
  const ModelInfo& q = (*qwen)->info();
  EXPECT_EQ(q.family, Family::Llama);
  EXPECT_EQ(q.kvHeads, 1);
  EXPECT_GT(q.vocabSize, (*qwen)->tokenizer().idLimit());  // padded embedding loads

  auto llama = Model::open(modelDir("llama"));
  ASSERT_TRUE(llama.ok()) << llama.error().message;
  EXPECT_EQ((*llama)->info().dtype, "BF16");
  EXPECT_EQ((*llama)->info().tokenizerKind, "SentencePiece BPE");
  auto legacy = Model::open(modelDir("bert_legacy"));
  ASSERT_TRUE(legacy.ok()) << legacy.error().message;
  EXPECT_EQ((*legacy)->info().dtype, "F16");
  EXPECT_FALSE((*legacy)->info().causal);
}

TEST(ModelReferenceInfo, GqaQueryHeadsShareTheirKvHeadsKeysAndValues) {
  auto model = Model::open(modelDir("llama"));  // 4 query heads over 2 kv heads
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode("The animal was tired.", std::nullopt, "text");
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  auto run = (*model)->run(*enc);
  ASSERT_TRUE(run.ok()) << run.error().message;
  for (const auto& layer : run->layers) {
    ASSERT_EQ(layer.numHeads(), 4);
    EXPECT_EQ(layer.heads[0].k, layer.heads[1].k);
    EXPECT_EQ(layer.heads[2].v, layer.heads[3].v);
    EXPECT_NE(layer.heads[1].k, layer.heads[2].k);
    EXPECT_NE(layer.heads[0].q, layer.heads[1].q);
    EXPECT_EQ(layer.heads[0].q.cols(), 16);
  }
}

}  // namespace
}  // namespace attn::models

namespace attn::models {
namespace {

TEST(ModelRunOptions, OnlyLayerAndLogitsKeepWhatTheyAskFor) {
  auto model = Model::open(modelDir("gpt2"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode("Hello world, hello there.", std::nullopt, "text");
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  const int n = enc->size();
  auto all = (*model)->run(*enc);
  RunOptions opt;
  opt.onlyLayer = 1;
  opt.keepLogits = true;
  opt.keepQkv = false;
  opt.topK = 3;
  auto one = (*model)->run(*enc, opt);
  ASSERT_TRUE(all.ok() && one.ok());
  ASSERT_EQ(one->layers.size(), 1u);
  EXPECT_EQ(one->firstLayer, 1);
  const HeadResult& h = one->layers[0].heads[2];
  EXPECT_EQ(h.weights, all->layers[1].heads[2].weights);
  EXPECT_EQ(h.q.size(), 0);
  ASSERT_EQ(h.maskedLogits.rows(), n);
  // scaled = raw / sqrt(16); masked = scaled with -inf above the diagonal.
  EXPECT_FLOAT_EQ(h.scaledLogits(3, 1), h.rawLogits(3, 1) / 4.0f);
  EXPECT_EQ(h.maskedLogits(1, 3), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(h.maskedLogits(3, 1), h.scaledLogits(3, 1));
  EXPECT_EQ(one->nextTokens[0].size(), 3u);
  EXPECT_EQ(one->layers[0].queryTokens, enc->tokens);
  EXPECT_EQ(one->layers[0].output.cols(), (*model)->info().dModel);
  opt.onlyLayer = 2;
  auto bad = (*model)->run(*enc, opt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("layer 2 asked for, but the model has 2 layers"), std::string::npos);
}

}  // namespace
}  // namespace attn::models
