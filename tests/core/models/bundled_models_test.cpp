// The models trained by scripts/models/ and shipped in resources/models/: each opens, its
// logits equal the plain-PyTorch reference the training script saved from the F16 weights,
// the induction model holds a previous-token head in layer 1 and an induction head in
// layer 2 (Olsson et al. 2022, section 2), austen-gpt2 predicts held-out Austen far
// better than the held-out text's own unigram distribution, and tang-poems-gpt2 holds a head
// that looks from each character to the same position of the previous line of a held-out poem.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string_view>

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

INSTANTIATE_TEST_SUITE_P(Bundled, BundledModel,
                         ::testing::Values("induction-2l", "austen-gpt2", "tang-poems-gpt2"));

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

bool isTangPoemPunctuation(const std::string& token) {
  for (std::string_view p : {"，", "。", "？", "！", "；", "："})
    if (token == p) return true;
  return false;
}

/// L when every line of the encoded poem ([BOS], then lines of L characters each closed by one
/// punctuation mark) has L = 5 or 7 characters, else 0.
int tangRegularLineLength(const Encoding& e) {
  int length = 0, run = 0, lines = 0;
  for (size_t i = 1; i < e.tokens.size(); ++i) {
    if (!isTangPoemPunctuation(e.tokens[i])) {
      ++run;
      continue;
    }
    if (length == 0) length = run;
    if (run != length) return 0;
    run = 0;
    ++lines;
  }
  return run == 0 && lines >= 2 && (length == 5 || length == 7) ? length : 0;
}

/// Per head ([layer * heads + head]) on the held-out regular poems, over the queries i from the
/// second line on: the weight on key i-(L+1), the same position of the previous line, and the
/// total weight on punctuation marks; with what a head spreading its weight evenly would score.
struct TangHeadScores {
  std::vector<double> parallel, punct;
  double uniformParallel = 0, uniformPunct = 0;
  int heads = 0, poems = 0;
};

TangHeadScores measureTangHeads(const Model& model) {
  TangHeadScores s;
  std::ifstream f(std::string(ATTN_FIXTURE_DIR) + "/bundled/tang_heldout.txt");
  EXPECT_TRUE(f) << "tang_heldout.txt missing";
  const int maxLen = model.info().maxPositions;
  for (std::string line; std::getline(f, line);) {
    auto enc = model.encode(line, std::nullopt, "tang_heldout.txt");
    EXPECT_TRUE(enc.ok()) << enc.error().message;
    const int L = enc.ok() ? tangRegularLineLength(*enc) : 0;
    if (L == 0) continue;
    const int n = std::min(enc->size(), maxLen);
    std::vector<int> ids(enc->ids.begin(), enc->ids.begin() + n);
    RunOptions opt;
    opt.topK = 0;
    auto run = model.run(bundledEncoding(model, ids), opt);
    EXPECT_TRUE(run.ok()) << run.error().message;
    if (!run.ok()) return s;
    s.heads = static_cast<int>(run->layers[0].heads.size());
    const size_t all = run->layers.size() * static_cast<size_t>(s.heads);
    s.parallel.resize(all, 0.0);
    s.punct.resize(all, 0.0);
    const double queries = n - L - 2;
    for (size_t l = 0; l < run->layers.size(); ++l)
      for (int h = 0; h < s.heads; ++h) {
        const Mat& w = run->layers[l].heads[static_cast<size_t>(h)].weights;
        double par = 0, pun = 0;
        for (int i = L + 2; i < n; ++i) {
          par += w(i, i - L - 1);
          for (int k = 1; k <= i; ++k)
            if (isTangPoemPunctuation(enc->tokens[static_cast<size_t>(k)])) pun += w(i, k);
        }
        s.parallel[l * static_cast<size_t>(s.heads) + static_cast<size_t>(h)] += par / queries;
        s.punct[l * static_cast<size_t>(s.heads) + static_cast<size_t>(h)] += pun / queries;
      }
    double up = 0, uq = 0;
    int marks = 0;
    for (int i = 1; i < n; ++i) {
      if (isTangPoemPunctuation(enc->tokens[static_cast<size_t>(i)])) ++marks;
      if (i < L + 2) continue;
      up += 1.0 / (i + 1);
      uq += static_cast<double>(marks) / (i + 1);
    }
    s.uniformParallel += up / queries;
    s.uniformPunct += uq / queries;
    ++s.poems;
  }
  for (double& v : s.parallel) v /= std::max(s.poems, 1);
  for (double& v : s.punct) v /= std::max(s.poems, 1);
  s.uniformParallel /= std::max(s.poems, 1);
  s.uniformPunct /= std::max(s.poems, 1);
  return s;
}

TEST(BundledTangPoems, AHeadLooksAtTheLinesPunctuation) {
  // The held-out poems (never trained on) whose lines all have 5 or all 7 characters. A head
  // spreading its weight evenly puts about 1/(L+1) of it on punctuation marks; a head that
  // follows the line breaks (the model card's punct_mass; layer 3 head 2 measured 0.48) puts
  // nearly half of it there.
  auto model = openBundled("tang-poems-gpt2");
  ASSERT_TRUE(model);
  const TangHeadScores s = measureTangHeads(*model);
  ASSERT_GE(s.poems, 10);
  const auto best = std::max_element(s.punct.begin(), s.punct.end());
  const auto at = best - s.punct.begin();
  EXPECT_GE(*best, 3 * s.uniformPunct) << "best head: layer " << at / s.heads + 1 << " head "
                                       << at % s.heads + 1 << "; uniform " << s.uniformPunct;
  EXPECT_GE(*best, 0.4);
}

TEST(BundledTangPoems, AHeadLooksOneLineBack) {
  // The same poems: a head spreading its weight evenly puts 1/(i+1) on the key i-(L+1), the same
  // position of the previous line. The model's best such head (layer 3 head 3, 0.10 against a
  // uniform 0.044, peaking at distances 6 and 8) is weak but twice uniform; a longer run on more
  // verse is needed before a sharp couplet-aligning head forms.
  auto model = openBundled("tang-poems-gpt2");
  ASSERT_TRUE(model);
  const TangHeadScores s = measureTangHeads(*model);
  ASSERT_GE(s.poems, 10);
  const auto best = std::max_element(s.parallel.begin(), s.parallel.end());
  const auto at = best - s.parallel.begin();
  EXPECT_GE(*best, 2 * s.uniformParallel) << "best head: layer " << at / s.heads + 1 << " head "
                                          << at % s.heads + 1 << "; uniform " << s.uniformParallel;
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
