// Model::generate on the small random GPT-2, Llama 2 and Qwen2 folders against
// tests/scripts/gen_generate_fixtures.py (greedy and beam search as transformers' generate,
// each step a full re-run of the plain-PyTorch ports, no KV cache): ids identical, the
// attention of the final sequence within 1e-4. Sampling cannot match torch's generator, so its
// properties are checked: the same seed gives the same ids, top-k 1 is greedy, every sampled
// token lies in the top-k set / the nucleus computed here from the model's logits, and the
// sampler's frequencies on a fixed distribution pass a chi-square test.
#include "attn/models/generation/causal_generation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>

#include "attn/models/generation/token_sampler.h"
#include "attn/models/model.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;
using attn::test::loadNpz;
using attn::test::maxAbsDiff;
using attn::test::modelDir;

/// A copy of fixture `name` whose generation_config.json sets eos_token_id (transformers reads
/// it over config.json's) and the `extra` fields (", \"key\": value ..."), opened; one per
/// (name, eos, extra) for the suite.
std::shared_ptr<const Model> generationFolder(const std::string& name, int eos,
                                              const std::string& extra = "") {
  static std::map<std::string, std::shared_ptr<const Model>> opened;
  auto& m = opened[name + "/" + std::to_string(eos) + extra];
  if (m) return m;
  const fs::path dir =
      fs::temp_directory_path() / ("attn_generate_" + name + "_" + std::to_string(eos) + "_" +
                                   std::to_string(extra.size()) + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(modelDir(name)))
    if (e.path().extension() != ".npz") fs::copy_file(e.path(), dir / e.path().filename());
  std::ofstream(dir / "generation_config.json", std::ios::trunc)
      << "{\"eos_token_id\": " << eos << extra << "}\n";
  auto opened1 = Model::open(dir.string());
  EXPECT_TRUE(opened1.ok()) << (opened1 ? "" : opened1.error().message);
  if (opened1) m = *opened1;
  return m;
}

std::vector<int> intsOf(const NpyArray& a) {
  std::vector<int> out;
  for (float v : a.values.data) out.push_back(static_cast<int>(v));
  return out;
}

Encoding idsEncoding(const Model& m, const std::vector<int>& ids) {
  Encoding e;
  e.ids = ids;
  for (int id : ids) e.tokens.push_back(m.tokenizer().idToToken(id));
  e.typeIds.assign(ids.size(), 0);
  e.special.assign(ids.size(), 0);
  return e;
}

class GenerationReference : public ::testing::TestWithParam<std::string> {};

TEST_P(GenerationReference, IdsAndFinalAttentionMatchTheReference) {
  const std::string name = GetParam();
  auto ref = loadNpz(modelDir(name) + "/reference_generate.npz");
  ASSERT_FALSE(ref.empty());
  int cases = 0;
  for (int c = 0; ref.count("ids_" + std::to_string(c)); ++c, ++cases) {
    const std::string k = std::to_string(c);
    const std::vector<float>& s = ref["settings_" + k].values.data;
    auto model = generationFolder(name, static_cast<int>(s[5]));
    ASSERT_TRUE(model);
    CausalGenerateOptions o;
    o.maxNewTokens = static_cast<int>(s[0]);
    o.beams = static_cast<int>(s[1]);
    o.lengthPenalty = s[2];
    o.earlyStopping = s[3] != 0;
    o.noRepeatNgramSize = static_cast<int>(s[4]);
    auto run = model->generate(idsEncoding(*model, intsOf(ref["prompt_" + k])), o);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const std::vector<int> want = intsOf(ref["ids_" + k]);
    EXPECT_EQ(run->ids, want) << name << " case " << c << ": " << run->settings;
    ASSERT_EQ(run->ids.size(), want.size());
    EXPECT_EQ(run->tokens.size(), want.size());
    const NpyArray& attn = ref["attn_" + k];
    const size_t N = want.size(), cells = N * N;
    ASSERT_EQ(attn.values.shape[0], static_cast<int64_t>(run->maps.size()));
    double worst = 0;
    for (size_t l = 0; l < run->maps.size(); ++l)
      for (size_t h = 0; h < run->maps[l].size(); ++h) {
        const Mat& m = run->maps[l][h];
        ASSERT_EQ(static_cast<size_t>(m.rows()), N);
        worst =
            std::max(worst, maxAbsDiff(m.data(), attn.values.data,
                                       (l * static_cast<size_t>(attn.values.shape[1]) + h) * cells, cells));
      }
    EXPECT_LT(worst, 1e-4) << name << " case " << c;
  }
  EXPECT_GE(cases, 2);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GenerationReference, ::testing::Values("gpt2", "llama", "qwen2"));

/// The model's own logits after ids[0..n) (a full forward, not the generation's cache).
std::vector<float> logitsAfter(const Model& m, const std::vector<int>& ids, size_t n) {
  RunOptions ro;
  ro.keepFullLogits = true;
  ro.keepAttention = false;
  ro.topK = 0;
  auto run =
      m.run(idsEncoding(m, std::vector<int>(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n))), ro);
  EXPECT_TRUE(run.ok());
  if (!run) return {};
  const Mat& L = run->logits;
  return std::vector<float>(L.row(L.rows() - 1).data(), L.row(L.rows() - 1).data() + L.cols());
}

Result<CausalGeneration> sampledRun(const Model& m, const std::vector<int>& prompt, int topK, double topP,
                                    double temperature, uint64_t seed, int maxNew = 10) {
  CausalGenerateOptions o;
  o.maxNewTokens = maxNew;
  o.beams = 1;
  o.doSample = true;
  o.topK = topK, o.topP = topP, o.temperature = temperature;
  o.seed = seed;
  return m.generate(idsEncoding(m, prompt), o);
}

class GenerationSampling : public ::testing::TestWithParam<std::string> {};

TEST_P(GenerationSampling, SeedsTopKAndNucleusHold) {
  const std::string name = GetParam();
  auto ref = loadNpz(modelDir(name) + "/reference_generate.npz");
  const std::vector<int> prompt = intsOf(ref["prompt_0"]);
  auto model = generationFolder(name, -1);  // no EOS: every run writes the whole budget
  ASSERT_TRUE(model);
  auto a = sampledRun(*model, prompt, 50, 1.0, 1.0, 7), b = sampledRun(*model, prompt, 50, 1.0, 1.0, 7),
       other = sampledRun(*model, prompt, 50, 1.0, 1.0, 8);
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  EXPECT_EQ(a->ids, b->ids);
  EXPECT_NE(a->ids, other->ids);
  EXPECT_EQ(a->ids.size(), prompt.size() + 10);

  CausalGenerateOptions greedyOptions;
  greedyOptions.maxNewTokens = 10;
  greedyOptions.beams = 1;
  auto greedy = model->generate(idsEncoding(*model, prompt), greedyOptions);
  auto top1 = sampledRun(*model, prompt, 1, 1.0, 0.7, 3);
  ASSERT_TRUE(greedy.ok() && top1.ok());
  EXPECT_EQ(top1->ids, greedy->ids);

  // Every token of a top-k run among the k best logits; of a top-p run in the nucleus: the
  // tokens more probable than it (softmax of logits / T, here in double) hold less than p.
  const int k = 5;
  const double p = 0.6, T = 1.5;
  auto topk = sampledRun(*model, prompt, k, 1.0, 1.0, 11), nucleus = sampledRun(*model, prompt, 0, p, T, 12);
  ASSERT_TRUE(topk.ok() && nucleus.ok());
  int outsideTop = 0, outsideNucleus = 0, smallNuclei = 0;
  for (size_t i = prompt.size(); i < topk->ids.size(); ++i) {
    std::vector<float> l = logitsAfter(*model, topk->ids, i);
    std::vector<float> sorted = l;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    outsideTop += l[static_cast<size_t>(topk->ids[i])] < sorted[k - 1] - 1e-5f;
  }
  for (size_t i = prompt.size(); i < nucleus->ids.size(); ++i) {
    std::vector<float> l = logitsAfter(*model, nucleus->ids, i);
    const double mx = *std::max_element(l.begin(), l.end());
    std::vector<double> q(l.size());
    double sum = 0;
    for (size_t t = 0; t < l.size(); ++t) sum += q[t] = std::exp((l[t] - mx) / T);
    const double mine = q[static_cast<size_t>(nucleus->ids[i])] / sum;
    double above = 0;
    int inNucleus = 0;
    for (double v : q) {
      above += v / sum > mine ? v / sum : 0.0;
      inNucleus += v / sum >= mine;
    }
    outsideNucleus += above >= p + 1e-6;
    smallNuclei += inNucleus < static_cast<int>(l.size()) / 2;
  }
  EXPECT_EQ(outsideTop, 0);
  EXPECT_EQ(outsideNucleus, 0);
  EXPECT_GT(smallNuclei, 0);  // the nucleus did cut the vocabulary
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GenerationSampling, ::testing::Values("gpt2", "llama"));

/// Beam sampling against tests/scripts/gen_beam_sample_fixtures.py: transformers' beam search
/// with do_sample, each step a full re-run of the PyTorch ports, drawing with the documented
/// generator (which the script writes from the C++ standard's definition): ids identical.
class BeamSamplingReference : public ::testing::TestWithParam<std::string> {};

TEST_P(BeamSamplingReference, IdsMatchTheReference) {
  const std::string name = GetParam();
  auto ref = loadNpz(modelDir(name) + "/reference_beam_sample.npz");
  ASSERT_FALSE(ref.empty());
  int cases = 0;
  for (int c = 0; ref.count("ids_" + std::to_string(c)); ++c, ++cases) {
    const std::string k = std::to_string(c);
    const std::vector<float>& s = ref["settings_" + k].values.data;
    auto model = generationFolder(name, static_cast<int>(s[4]));
    ASSERT_TRUE(model);
    CausalGenerateOptions o;
    o.maxNewTokens = static_cast<int>(s[0]);
    o.beams = static_cast<int>(s[1]);
    o.lengthPenalty = s[2];
    o.earlyStopping = s[3] != 0;
    o.doSample = true;
    o.topK = static_cast<int>(s[5]);
    o.topP = static_cast<double>(s[6]);
    o.temperature = static_cast<double>(s[7]);
    o.seed = static_cast<uint64_t>(s[8]);
    const Encoding prompt = idsEncoding(*model, intsOf(ref["prompt_" + k]));
    auto run = model->generate(prompt, o);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->ids, intsOf(ref["ids_" + k])) << name << " case " << c << ": " << run->settings;
    EXPECT_NE(run->settings.find("beam sampling ("), std::string::npos) << run->settings;
    // Another seed draws other candidates (the reference cases are chosen so that it matters).
    o.seed += 1;
    auto other = model->generate(prompt, o);
    ASSERT_TRUE(other.ok());
    EXPECT_NE(other->ids, run->ids) << name << " case " << c;
  }
  EXPECT_GE(cases, 1);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BeamSamplingReference, ::testing::Values("gpt2", "llama", "qwen2"));

TEST(TokenSampler, WarpersKeepAtLeastMinKeep) {
  // Beam sampling keeps 1 + the EOS ids in every row, whatever top-k and top-p say.
  const std::vector<float> logits{std::log(0.5f), std::log(0.25f), std::log(0.125f), std::log(0.125f)};
  SamplingSettings s;
  s.topK = 1;
  std::vector<float> x = logits;
  warpScores(x.data(), 4, s, 2);
  EXPECT_EQ(x[0], logits[0]);
  EXPECT_EQ(x[1], logits[1]);
  EXPECT_TRUE(std::isinf(x[2]) && std::isinf(x[3]));
  s.topK = 0, s.topP = 0.1;  // the nucleus alone would keep token 0
  x = logits;
  warpScores(x.data(), 4, s, 2);
  EXPECT_TRUE(std::isfinite(x[1]));
  EXPECT_TRUE(std::isinf(x[2]));
  s.topP = 0.8, s.temperature = 2.0;  // on scores / 2: probabilities ~ sqrt(p): .37 .26 .18 .18
  x = logits;
  warpScores(x.data(), 4, s, 1);
  EXPECT_FLOAT_EQ(x[0], logits[0] / 2.0f);
  EXPECT_TRUE(std::isfinite(x[2]));  // .37 + .26 = .63 < .8: token 2 stays
  EXPECT_TRUE(std::isinf(x[3]));     // .82 >= .8 (token 3 ties token 2: the later id goes)
}

TEST(TokenSampler, GeneratorIsTheStandardMt19937_64) {
  // [rand.predef]: the 10000th value of a default-constructed mt19937_64 (seed 5489).
  SamplingRng rng(5489);
  for (int i = 0; i < 9999; ++i) rng.uniform();
  EXPECT_EQ(rng.uniform(), static_cast<double>(9981545732273789042ull >> 11) * 0x1.0p-53);
}

TEST(TokenSampler, WarpersByHand) {
  const std::vector<float> logits{std::log(0.5f), std::log(0.25f), std::log(0.125f), std::log(0.0625f),
                                  std::log(0.0625f)};
  SamplingSettings s;
  s.topK = 0;
  std::vector<double> p = samplingDistribution(logits.data(), 5, s);
  const std::vector<double> plain{0.5, 0.25, 0.125, 0.0625, 0.0625};
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(p[i], plain[i], 1e-6);
  s.topK = 2;  // the two best, renormalized
  p = samplingDistribution(logits.data(), 5, s);
  EXPECT_NEAR(p[0], 2.0 / 3, 1e-6);
  EXPECT_NEAR(p[1], 1.0 / 3, 1e-6);
  EXPECT_EQ(p[2] + p[3] + p[4], 0.0);
  s.topK = 4;  // ties with the 4th best are kept
  p = samplingDistribution(logits.data(), 5, s);
  EXPECT_NEAR(p[4], 0.0625, 1e-6);
  s.topK = 0, s.topP = 0.7;  // 0.5 < 0.7 keeps token 1; 0.75 >= 0.7 drops token 2
  p = samplingDistribution(logits.data(), 5, s);
  EXPECT_NEAR(p[0], 2.0 / 3, 1e-6);
  EXPECT_EQ(p[2], 0.0);
  s.topP = 0.1;  // the most probable one always stays
  p = samplingDistribution(logits.data(), 5, s);
  EXPECT_NEAR(p[0], 1.0, 1e-12);
  s.topP = 1.0, s.temperature = 2.0;  // softmax(log p / 2) = sqrt(p) / sum sqrt(p)
  p = samplingDistribution(logits.data(), 5, s);
  double z = 0;
  for (double v : plain) z += std::sqrt(v);
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(p[i], std::sqrt(plain[i]) / z, 1e-6);
  EXPECT_EQ(drawToken({0.0, 0.5, 0.0, 0.5}, 0.0), 1);
  EXPECT_EQ(drawToken({0.0, 0.5, 0.0, 0.5}, 0.5), 3);
  EXPECT_EQ(drawToken({0.0, 0.5, 0.0, 0.5}, 0.999999), 3);
}

TEST(TokenSampler, FrequenciesPassChiSquare) {
  const std::vector<double> want{0.5, 0.25, 0.125, 0.0625, 0.0625};
  std::vector<float> logits;
  for (double v : want) logits.push_back(static_cast<float>(std::log(v)));
  SamplingSettings s;
  s.topK = 0;
  SamplingRng rng(2024);
  const int n = 20000;
  std::vector<int> seen(5, 0);
  for (int i = 0; i < n; ++i) ++seen[static_cast<size_t>(sampleNextToken(logits.data(), 5, s, rng))];
  double chi2 = 0;
  for (size_t t = 0; t < 5; ++t) chi2 += std::pow(seen[t] - n * want[t], 2) / (n * want[t]);
  EXPECT_LT(chi2, 18.47);  // 4 degrees of freedom, p = 0.001
  EXPECT_GT(chi2, 0.0);
}

TEST(TokenSampler, BadSettingsAreRefused) {
  SamplingSettings s;
  EXPECT_TRUE(checkSamplingSettings(s).ok());
  s.topP = 0;
  EXPECT_NE(checkSamplingSettings(s).error().message.find("--top-p"), std::string::npos);
  s.topP = 1.5;
  EXPECT_FALSE(checkSamplingSettings(s).ok());
  s.topP = 1, s.temperature = 0;
  EXPECT_NE(checkSamplingSettings(s).error().message.find("--temperature"), std::string::npos);
  s.temperature = 1, s.topK = -1;
  EXPECT_NE(checkSamplingSettings(s).error().message.find("--top-k"), std::string::npos);
}

TEST(CausalGeneration, BertAndBadOptionsAreRefusedCancelStops) {
  auto bert = Model::open(modelDir("bert"));
  ASSERT_TRUE(bert.ok());
  auto enc = (*bert)->encode("the cat sat", std::nullopt, "--text");
  ASSERT_TRUE(enc.ok());
  auto refused = (*bert)->generate(*enc, CausalGenerateOptions{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("causal language model"), std::string::npos)
      << refused.error().message;

  auto gpt2 = generationFolder("gpt2", -1);
  ASSERT_TRUE(gpt2);
  const Encoding prompt = idsEncoding(*gpt2, {10, 20, 30});
  CausalGenerateOptions o;
  o.beams = 9;
  EXPECT_FALSE(gpt2->generate(prompt, o).ok());
  o.beams = 2, o.doSample = true;  // beam sampling: no longer refused
  auto beamSampled = gpt2->generate(prompt, o);
  ASSERT_TRUE(beamSampled.ok()) << beamSampled.error().message;
  EXPECT_NE(beamSampled->settings.find("beam sampling (2 beams"), std::string::npos) << beamSampled->settings;
  o.beams = 1, o.temperature = 0.0;
  EXPECT_FALSE(gpt2->generate(prompt, o).ok());
  o = {};
  o.maxNewTokens = 200;  // past the 64 positions: clipped to them
  auto clipped = gpt2->generate(prompt, o);
  ASSERT_TRUE(clipped.ok());
  EXPECT_EQ(clipped->ids.size(), 64u);
  EXPECT_NE(clipped->settings.find("max_length 64"), std::string::npos) << clipped->settings;
  int calls = 0;
  auto cancelled = gpt2->generate(prompt, o, [&calls](double, std::string_view) { return ++calls < 3; });
  ASSERT_FALSE(cancelled.ok());
  EXPECT_NE(cancelled.error().message.find("cancelled"), std::string::npos);
}

TEST(CausalGeneration, TheConfigsSamplingSettingsApplyUnlessOverridden) {
  auto plain = generationFolder("gpt2", -1);
  auto sampling = generationFolder("gpt2", -1, ", \"do_sample\": true, \"top_k\": 1, \"temperature\": 0.5");
  ASSERT_TRUE(plain && sampling);
  const std::vector<int> prompt{10, 20, 30, 40};
  CausalGenerateOptions o;
  o.maxNewTokens = 8;
  auto greedy = plain->generate(idsEncoding(*plain, prompt), o);
  auto fromConfig = sampling->generate(idsEncoding(*sampling, prompt), o);
  ASSERT_TRUE(greedy.ok() && fromConfig.ok());
  EXPECT_NE(fromConfig->settings.find("sampling (top_k 1, top_p 1, temperature 0.5, seed 0)"),
            std::string::npos)
      << fromConfig->settings;
  EXPECT_EQ(fromConfig->ids, greedy->ids);  // top-k 1 leaves the argmax only
  o.doSample = false;
  auto overridden = sampling->generate(idsEncoding(*sampling, prompt), o);
  ASSERT_TRUE(overridden.ok());
  EXPECT_EQ(overridden->settings.rfind("greedy;", 0), 0u) << overridden->settings;
}

TEST(Seq2SeqSampling, TopOneIsGreedyAndSeedsRepeat) {
  auto model = Seq2SeqModel::open(modelDir("bart"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto src = (*model)->encode("Hello, world! The animal was tired.", "--text");
  ASSERT_TRUE(src.ok());
  GenerateOptions g;
  g.beams = 1;
  g.maxNewTokens = 12;
  auto greedy = (*model)->generate(*src, g);
  g.doSample = true, g.topK = 1, g.seed = 5;
  auto top1 = (*model)->generate(*src, g);
  ASSERT_TRUE(greedy.ok() && top1.ok());
  EXPECT_EQ(top1->targetIds, greedy->targetIds);
  EXPECT_NE(top1->settings.find("sampling (top_k 1"), std::string::npos) << top1->settings;
  g.topK = 0, g.temperature = 2.0, g.seed = 9;
  auto a = (*model)->generate(*src, g), b = (*model)->generate(*src, g);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->targetIds, b->targetIds);
  g.beams = 2;  // beam sampling, through the same loop as the causal models'
  auto c = (*model)->generate(*src, g), d = (*model)->generate(*src, g);
  ASSERT_TRUE(c.ok() && d.ok()) << (c ? "" : c.error().message);
  EXPECT_EQ(c->targetIds, d->targetIds);
  EXPECT_NE(c->settings.find("beam sampling (2 beams"), std::string::npos) << c->settings;
  g.topK = 51, g.topP = 0.0;  // the warpers' settings are still checked
  EXPECT_NE((*model)->generate(*src, g).error().message.find("--top-p"), std::string::npos);
}

}  // namespace
}  // namespace attn::models
