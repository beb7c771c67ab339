// The models trained by scripts/models/ and shipped in resources/models/: each opens, its
// logits equal the plain-PyTorch reference the training script saved from the F16 weights,
// the induction model holds a previous-token head in layer 1 and an induction head in
// layer 2 (Olsson et al. 2022, section 2), and austen-gpt2 predicts held-out Austen far
// better than the held-out text's own unigram distribution.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "attn/io/npy_reader.h"
#include "attn/models/model.h"

namespace attn::models {
namespace {

std::string bundledModelDir(const std::string& name) {
  return std::string(ATTN_SOURCE_DIR) + "/resources/models/" + name;
}

std::shared_ptr<const Model> openBundled(const std::string& name) {
  auto m = Model::open(bundledModelDir(name));
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? *m : nullptr;
}

Encoding bundledEncoding(const Model& m, const std::vector<int>& ids) {
  Encoding e;
  e.ids = ids;
  for (int id : ids) e.tokens.push_back(m.tokenizer().idToToken(id));
  e.typeIds.assign(ids.size(), 0);
  e.special.assign(ids.size(), 0);
  return e;
}

class BundledModel : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledModel, LogitsEqualTheTrainingScriptsReference) {
  const std::string name = GetParam();
  auto model = openBundled(name);
  ASSERT_TRUE(model);
  auto npz = readNpzFile(std::string(ATTN_FIXTURE_DIR) + "/bundled/" + name + ".npz");
  ASSERT_TRUE(npz.ok()) << npz.error().message;
  std::map<std::string, NpyArray> ref;
  for (auto& a : *npz) ref[a.name] = std::move(a);
  ASSERT_EQ(ref.count("ids"), 1u);
  ASSERT_EQ(ref.count("logits"), 1u);
  std::vector<int> ids;
  for (float v : ref["ids"].values.data) ids.push_back(static_cast<int>(v));
  RunOptions opt;
  opt.keepFullLogits = true;
  opt.keepAttention = false;
  auto run = model->run(bundledEncoding(*model, ids), opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const NpyArray& want = ref["logits"];
  ASSERT_EQ(want.shape.size(), 2u);
  ASSERT_EQ(run->logits.rows(), want.shape[0]);
  ASSERT_EQ(run->logits.cols(), want.shape[1]);
  double worst = 0;
  for (int64_t i = 0; i < want.shape[0]; ++i)
    for (int64_t j = 0; j < want.shape[1]; ++j)
      worst = std::max(worst, std::abs(static_cast<double>(run->logits(i, j)) -
                                       want.values.data[static_cast<size_t>(i * want.shape[1] + j)]));
  EXPECT_LT(worst, 1e-3) << name;
}

TEST_P(BundledModel, TokenizerGivesTheIdsOfHuggingFacesLibrary) {
  // tokens.json: written by tests/scripts/hf_tokenizers/encode_bundled_models.js with npm tokenizers.
  const std::string name = GetParam();
  auto model = openBundled(name);
  ASSERT_TRUE(model);
  std::ifstream f(std::string(ATTN_FIXTURE_DIR) + "/bundled/tokens.json");
  ASSERT_TRUE(f) << "tokens.json missing";
  const auto all = nlohmann::json::parse(f);
  ASSERT_TRUE(all["models"].contains(name)) << name;
  for (const auto& c : all["models"][name]) {
    const std::string text = c["text"].get<std::string>();
    auto enc = model->tokenizer().encode(text, std::nullopt, true, "tokens.json");
    ASSERT_TRUE(enc.ok()) << enc.error().message;
    EXPECT_EQ(enc->ids, c["ids"].get<std::vector<int>>()) << name << ": " << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Bundled, BundledModel, ::testing::Values("induction-2l", "austen-gpt2"));

/// Per head of `layer`, the mean over `runs` of `score(weights)`.
template <typename Score>
std::vector<double> meanHeadScores(const std::vector<ModelRun>& runs, int layer, Score score) {
  std::vector<double> s(runs[0].layers[static_cast<size_t>(layer)].heads.size(), 0.0);
  for (const ModelRun& r : runs)
    for (size_t h = 0; h < s.size(); ++h)
      s[h] += score(r.layers[static_cast<size_t>(layer)].heads[h].weights);
  for (double& v : s) v /= static_cast<double>(runs.size());
  return s;
}

TEST(BundledInduction, LayerOneHasAPreviousTokenHeadAndLayerTwoAnInductionHead) {
  auto model = openBundled("induction-2l");
  ASSERT_TRUE(model);
  const int vocab = model->info().vocabSize;
  const int half = 12;  // 24 tokens: within the model's 32 positions
  std::mt19937 rng(20260312);
  std::uniform_int_distribution<int> word(3, vocab - 1);  // ids 0-2 are [UNK] and punctuation
  std::vector<ModelRun> runs;
  for (int s = 0; s < 24; ++s) {
    std::vector<int> ids(2 * half);
    for (int i = 0; i < half; ++i)
      ids[static_cast<size_t>(i)] = ids[static_cast<size_t>(i + half)] = word(rng);
    RunOptions opt;
    opt.topK = 0;
    auto run = model->run(bundledEncoding(*model, ids), opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_EQ(run->layers.size(), 2u);
    runs.push_back(std::move(*run));
  }
  // Previous-token score: mean weight from i to i-1; induction score: mean weight from i in the
  // copy to i-half+1, the token that followed i's earlier occurrence.
  const auto prev = meanHeadScores(runs, 0, [](const Mat& w) {
    double t = 0;
    for (int i = 1; i < w.rows(); ++i) t += w(i, i - 1);
    return t / static_cast<double>(w.rows() - 1);
  });
  const auto induction = meanHeadScores(runs, 1, [half](const Mat& w) {
    double t = 0;
    for (int i = half; i < 2 * half; ++i) t += w(i, i - half + 1);
    return t / half;
  });
  EXPECT_GE(*std::max_element(prev.begin(), prev.end()), 0.7);
  EXPECT_GE(*std::max_element(induction.begin(), induction.end()), 0.7);
}

TEST(BundledAusten, HeldOutLossIsANatBelowTheUnigramEntropy) {
  auto model = openBundled("austen-gpt2");
  ASSERT_TRUE(model);
  std::ifstream f(std::string(ATTN_FIXTURE_DIR) + "/bundled/austen_heldout.txt");
  ASSERT_TRUE(f) << "austen_heldout.txt missing";
  std::stringstream ss;
  ss << f.rdbuf();
  auto enc = model->encode(ss.str(), std::nullopt, "austen_heldout.txt");
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  ASSERT_GT(enc->size(), 2000);
  std::map<int, int> counts;
  for (int id : enc->ids) ++counts[id];
  double entropy = 0;
  for (const auto& [id, c] : counts) {
    const double p = static_cast<double>(c) / enc->size();
    entropy -= p * std::log(p);
  }
  const int ctx = static_cast<int>(model->info().maxPositions);
  double total = 0;
  int predicted = 0;
  for (int s = 0; s + 1 < enc->size(); s += ctx) {
    const int n = std::min(ctx, enc->size() - s);
    if (n < 2) break;
    std::vector<int> ids(enc->ids.begin() + s, enc->ids.begin() + s + n);
    RunOptions opt;
    opt.topK = 0;
    opt.keepAttention = false;
    opt.nextTokenLoss = true;
    auto run = model->run(bundledEncoding(*model, ids), opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_TRUE(run->nextTokenLoss.has_value());
    total += *run->nextTokenLoss * (n - 1);
    predicted += n - 1;
  }
  const double loss = total / predicted;
  EXPECT_LT(loss, entropy - 1.0) << "held-out loss " << loss << " unigram entropy " << entropy;
}

}  // namespace
}  // namespace attn::models
