// Per-head interventions on the small random fixtures (core/attn/models/experiments/interventions.h):
// ablation against reference_ablate.npz (tests/scripts/gen_model_fixtures.py --step ablate,
// Hugging Face's head_mask zeroing one head), uniform / temperature / mask against
// hand-computed expectations, the prefix cache, compareRuns and head importance on a
// model where one head is made decisive.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
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
using attn::test::maxAbsDiff;

namespace fs = std::filesystem;

/// The encoding of reference case c (ids, type ids and attention mask from reference.npz).
Encoding referenceEncoding(const std::map<std::string, NpyArray>& ref, int c) {
  Encoding e;
  for (float v : ref.at(fmt::format("ids_{}", c)).values.data) e.ids.push_back(static_cast<int>(v));
  for (float v : ref.at(fmt::format("type_ids_{}", c)).values.data) e.typeIds.push_back(static_cast<int>(v));
  for (float v : ref.at(fmt::format("mask_{}", c)).values.data) e.attention.push_back(static_cast<uint8_t>(v));
  e.tokens.resize(e.ids.size());
  return e;
}

HeadIntervention iv(InterventionKind k, int layer, int head, float t = 1.0f, std::string mask = {}) {
  return HeadIntervention{k, layer, head, t, std::move(mask)};
}

class ModelAblationReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelAblationReference, OneHeadZeroedMatchesHeadMaskForward) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  const auto ref = loadNpz(modelDir(name) + "/reference.npz");
  const auto abl = loadNpz(modelDir(name) + "/reference_ablate.npz");
  const auto& which = abl.at("ablations");
  ASSERT_EQ(which.shape.size(), 2u);
  const int L = m.info().layers, H = m.info().heads, d = m.info().dModel;
  int cases = 0;
  while (ref.count(fmt::format("ids_{}", cases))) ++cases;
  ASSERT_GT(cases, 0);
  for (int a = 0; a < static_cast<int>(which.shape[0]); ++a) {
    const int layer = static_cast<int>(which.values.data[static_cast<size_t>(2 * a)]);
    const int head = static_cast<int>(which.values.data[static_cast<size_t>(2 * a + 1)]);
    for (int c = 0; c < cases; ++c) {
      SCOPED_TRACE(fmt::format("{} ablation {}.{} case {}", name, layer + 1, head + 1, c));
      const Encoding enc = referenceEncoding(ref, c);
      const int n = enc.size();
      RunOptions opt;
      opt.keepHiddenStates = true;
      opt.keepFullLogits = true;
      opt.interventions = {iv(InterventionKind::Ablate, layer, head)};
      auto run = m.run(enc, opt);
      ASSERT_TRUE(run.ok()) << run.error().message;
      const auto& attn = abl.at(fmt::format("attn_{}_{}", a, c));
      ASSERT_EQ(attn.shape, (std::vector<int64_t>{L, H, n, n}));
      for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
          const Mat& w = run->layers[static_cast<size_t>(l)].heads[static_cast<size_t>(h)].weights;
          EXPECT_LE(maxAbsDiff(w.data(), attn.values.data, (static_cast<size_t>(l) * H + h) * n * n,
                               static_cast<size_t>(n) * n),
                    1e-4)
              << "layer " << l << " head " << h;
        }
      EXPECT_EQ(run->layers[static_cast<size_t>(layer)].heads[static_cast<size_t>(head)].weights.cwiseAbs().maxCoeff(),
                0.0f);
      const auto& hid = abl.at(fmt::format("hidden_{}_{}", a, c));
      for (int l = 0; l <= L; ++l)
        EXPECT_LE(maxAbsDiff(run->hiddenStates[static_cast<size_t>(l)].data(), hid.values.data,
                             static_cast<size_t>(l) * n * d, static_cast<size_t>(n) * d),
                  1e-4)
            << "hidden " << l;
      if (m.info().causal) {
        const auto& logits = abl.at(fmt::format("logits_{}_{}", a, c));
        EXPECT_LE(maxAbsDiff(run->logits.data(), logits.values.data, 0, logits.values.data.size()), 1e-4);
      }
      // The same through the prefix cache: layers before the ablated one are not recomputed.
      ForwardCache cache;
      RunOptions fast;
      fast.keepAttention = false;
      fast.keepHiddenStates = true;
      fast.keepFullLogits = true;
      fast.cache = &cache;
      ASSERT_TRUE(m.run(enc, fast).ok());
      EXPECT_EQ(cache.layerInputs.size(), static_cast<size_t>(L));
      fast.interventions = opt.interventions;
      auto cached = m.run(enc, fast);
      ASSERT_TRUE(cached.ok()) << cached.error().message;
      EXPECT_EQ(cache.reusedLayers, layer);
      EXPECT_TRUE(cached->layers.empty());
      for (int l = 0; l <= L; ++l)
        EXPECT_LE(maxAbsDiff(cached->hiddenStates[static_cast<size_t>(l)].data(), hid.values.data,
                             static_cast<size_t>(l) * n * d, static_cast<size_t>(n) * d),
                  1e-4)
            << "cached hidden " << l;
      if (m.info().causal) {
        EXPECT_EQ((cached->logits - run->logits).cwiseAbs().maxCoeff(), 0.0f);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ModelAblationReference, ::testing::Values("gpt2", "bert", "llama"));

struct Fixture {
  std::shared_ptr<const Model> model;
  Encoding enc;
};

Fixture openCase(const std::string& name, int c) {
  auto model = Model::open(modelDir(name));
  EXPECT_TRUE(model.ok());
  return Fixture{*model, referenceEncoding(loadNpz(modelDir(name) + "/reference.npz"), c)};
}

/// Case with padding keys when the fixture has one (BERT), else case 0.
int paddedCase(const std::string& name) {
  const auto ref = loadNpz(modelDir(name) + "/reference.npz");
  for (int c = 0; ref.count(fmt::format("mask_{}", c)); ++c)
    for (float v : ref.at(fmt::format("mask_{}", c)).values.data)
      if (v == 0) return c;
  return 0;
}

TEST(ModelInterventions, UniformRowsAreOneOverAllowedKeys) {
  for (const std::string name : {"gpt2", "bert", "llama"}) {
    SCOPED_TRACE(name);
    Fixture f = openCase(name, paddedCase(name));
    ASSERT_TRUE(f.model);
    const int n = f.enc.size();
    RunOptions opt;
    auto base = f.model->run(f.enc, opt);
    opt.interventions = {iv(InterventionKind::Uniform, 1, 0)};
    auto run = f.model->run(f.enc, opt);
    ASSERT_TRUE(base.ok() && run.ok());
    const Mat& w = run->layers[1].heads[0].weights;
    int real = 0;
    for (uint8_t a : f.enc.attention) real += a != 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const bool allowed = f.enc.attention[static_cast<size_t>(j)] != 0 && (!f.model->info().causal || j <= i);
        const int count = f.model->info().causal ? std::min(i + 1, real) : real;  // pads trail
        EXPECT_FLOAT_EQ(w(i, j), allowed ? 1.0f / static_cast<float>(count) : 0.0f) << i << "," << j;
      }
    EXPECT_NEAR(run->layers[1].heads[0].entropy(n - 1),
                std::log(static_cast<float>(f.model->info().causal ? std::min(n, real) : real)), 1e-5);
    // Layer 0 and the other heads of layer 1 (their inputs are unchanged) are as before.
    for (int h = 0; h < f.model->info().heads; ++h)
      EXPECT_EQ((run->layers[0].heads[static_cast<size_t>(h)].weights - base->layers[0].heads[static_cast<size_t>(h)].weights)
                    .cwiseAbs()
                    .maxCoeff(),
                0.0f);
    EXPECT_EQ((run->layers[1].heads[1].weights - base->layers[1].heads[1].weights).cwiseAbs().maxCoeff(), 0.0f);
  }
}

/// softmax over a row of masked logits (-inf = masked), in double.
std::vector<double> softmaxRow(const Mat& logits, int i, double invT) {
  std::vector<double> out(static_cast<size_t>(logits.cols()), 0.0);
  double m = -INFINITY, sum = 0;
  for (int j = 0; j < logits.cols(); ++j)
    if (std::isfinite(logits(i, j))) m = std::max(m, logits(i, j) * invT);
  for (int j = 0; j < logits.cols(); ++j)
    if (std::isfinite(logits(i, j))) sum += out[static_cast<size_t>(j)] = std::exp(logits(i, j) * invT - m);
  for (auto& v : out) v /= sum;
  return out;
}

TEST(ModelInterventions, TemperatureIsSoftmaxOfTheKeptLogitsOverT) {
  for (const std::string name : {"gpt2", "bert", "llama"}) {
    for (float T : {0.5f, 2.0f, 10.0f}) {
      SCOPED_TRACE(fmt::format("{} T={}", name, T));
      Fixture f = openCase(name, paddedCase(name));
      RunOptions opt;
      opt.keepLogits = true;
      auto base = f.model->run(f.enc, opt);
      opt.interventions = {iv(InterventionKind::Temperature, 0, 1, T)};
      auto run = f.model->run(f.enc, opt);
      ASSERT_TRUE(base.ok() && run.ok());
      const HeadResult& hr = run->layers[0].heads[1];
      // The kept logits are the model's (layer 0 sees the same input); the weights are T-softened.
      EXPECT_EQ((hr.maskedLogits.array().isFinite()).count(), (base->layers[0].heads[1].maskedLogits.array().isFinite()).count());
      for (int i = 0; i < hr.weights.rows(); ++i) {
        const auto want = softmaxRow(hr.maskedLogits, i, 1.0 / T);
        for (int j = 0; j < hr.weights.cols(); ++j) {
          EXPECT_NEAR(hr.weights(i, j), want[static_cast<size_t>(j)], 1e-6) << i << "," << j;
          EXPECT_NEAR(hr.scaledLogits(i, j), base->layers[0].heads[1].scaledLogits(i, j), 1e-6);
        }
      }
    }
  }
}

TEST(ModelInterventions, MaskTermIsAndedWithTheModelMask) {
  // window:1 on a GPT-2 head: keys i-1 and i only; causal on a BERT head: no key after the query.
  struct Case {
    std::string name, mask;
  };
  for (const Case& tc : {Case{"gpt2", "window:1"}, Case{"bert", "causal"}, Case{"llama", "window:2"}}) {
    SCOPED_TRACE(tc.name + " " + tc.mask);
    Fixture f = openCase(tc.name, paddedCase(tc.name));
    RunOptions opt;
    opt.keepLogits = true;
    opt.interventions = {iv(InterventionKind::Mask, 1, 3, 1.0f, tc.mask)};
    auto run = f.model->run(f.enc, opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const HeadResult& hr = run->layers[1].heads[3];
    const int n = f.enc.size();
    const int window = tc.mask == "window:1" ? 1 : tc.mask == "window:2" ? 2 : n;
    for (int i = 0; i < n; ++i) {
      const auto want = softmaxRow(hr.maskedLogits, i, 1.0);
      double sum = 0;
      for (int j = 0; j < n; ++j) {
        const bool allowed = f.enc.attention[static_cast<size_t>(j)] != 0 && j <= i && i - j <= window;
        if (!allowed) {
          EXPECT_EQ(hr.weights(i, j), 0.0f) << i << "," << j;
          EXPECT_TRUE(std::isinf(hr.maskedLogits(i, j)));
        }
        EXPECT_NEAR(hr.weights(i, j), want[static_cast<size_t>(j)], 1e-6);
        sum += hr.weights(i, j);
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
    // Other heads keep the model's mask (BERT: keys after the query still attended).
    if (!f.model->info().causal) {
      EXPECT_GT(run->layers[1].heads[0].weights(0, 1), 0.0f);
    }
  }
}

TEST(ModelInterventions, ParseAndFormatTheCliForm) {
  auto a = parseIntervention("ablate:3.12");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, InterventionKind::Ablate);
  EXPECT_EQ(a->layer, 2);
  EXPECT_EQ(a->head, 11);
  auto t = parseIntervention("temperature:1.2=0.5");
  ASSERT_TRUE(t.ok());
  EXPECT_FLOAT_EQ(t->temperature, 0.5f);
  EXPECT_EQ(formatIntervention(*t), "temperature:1.2=0.5");
  auto m = parseIntervention("mask:2.1=causal+window:2");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mask, "causal+window:2");
  EXPECT_EQ(formatIntervention(*m), "mask:2.1=causal+window:2");
  for (const char* bad : {"ablate", "zero:1.1", "ablate:1", "ablate:0.1", "ablate:1.x", "ablate:1.1=2",
                          "temperature:1.1", "temperature:1.1=0", "temperature:1.1=-2", "temperature:1.1=abc",
                          "mask:1.1=wndow:2", "mask:1.1=window:", "uniform:1.1.1"}) {
    auto r = parseIntervention(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  }
}

TEST(ModelInterventions, AbsentLayerOrHeadOrBadMaskIsOneClearError) {
  Fixture f = openCase("gpt2", 0);
  struct Bad {
    HeadIntervention iv;
    std::string says;
  };
  for (const Bad& b : {Bad{iv(InterventionKind::Ablate, 2, 0), "layer 3 does not exist (the model has layers 1 to 2)"},
                       Bad{iv(InterventionKind::Uniform, 0, 4), "head 5 does not exist (the model has heads 1 to 4)"},
                       Bad{iv(InterventionKind::Ablate, -1, 0), "layer 0 does not exist"},
                       Bad{iv(InterventionKind::Temperature, 0, 0, 0.0f), "temperature must be a positive number"},
                       Bad{iv(InterventionKind::Mask, 0, 0, 1.0f, "window:x"), "mask 'window:x'"}}) {
    RunOptions opt;
    opt.interventions = {b.iv};
    auto r = f.model->run(f.enc, opt);
    ASSERT_FALSE(r.ok()) << b.says;
    EXPECT_NE(r.error().message.find(b.says), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("config.json"), std::string::npos) << r.error().message;
  }
}

TEST(ModelInterventions, CacheIsIgnoredForAnotherEncodingOrWhenEarlyLayersAreAsked) {
  Fixture f = openCase("gpt2", 0);
  ForwardCache cache;
  RunOptions opt;
  opt.cache = &cache;
  ASSERT_TRUE(f.model->run(f.enc, opt).ok());
  opt.interventions = {iv(InterventionKind::Ablate, 1, 0)};
  auto all = f.model->run(f.enc, opt);  // every layer's maps asked for: layer 0 recomputed
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(cache.reusedLayers, 0);
  EXPECT_EQ(all->layers.size(), 2u);
  opt.onlyLayer = 1;
  ASSERT_TRUE(f.model->run(f.enc, opt).ok());
  EXPECT_EQ(cache.reusedLayers, 1);
  Encoding other = f.enc;
  other.ids[0] = (other.ids[0] + 1) % f.model->info().vocabSize;
  auto r = f.model->run(other, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(cache.reusedLayers, 0);
}

TEST(ModelInterventions, CompareReportsWhatChanged) {
  Fixture f = openCase("gpt2", 0);
  RunOptions opt;
  opt.keepFullLogits = true;
  auto before = f.model->run(f.enc, opt);
  opt.interventions = {iv(InterventionKind::Ablate, 1, 2)};
  auto after = f.model->run(f.enc, opt);
  ASSERT_TRUE(before.ok() && after.ok());
  auto c = compareRuns(*f.model, *before, *after);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->firstChangedLayer, 1);
  for (const auto& h : c->weights[0]) EXPECT_EQ(h.maxAbs, 0.0f);
  EXPECT_GT(c->weights[1][2].maxAbs, 0.0f);
  EXPECT_EQ(c->weights[1][0].maxAbs, 0.0f);  // same layer input, other heads unchanged
  EXPECT_GT(c->hiddenChange, 0.0);
  // KL at the last position and the mean loss, recomputed here from the logits.
  const int n = f.enc.size(), V = f.model->info().vocabSize;
  auto logp = [&](const Mat& lg, int i) {
    std::vector<double> p(static_cast<size_t>(V));
    double mx = lg.row(i).maxCoeff(), s = 0;
    for (int j = 0; j < V; ++j) s += std::exp(lg(i, j) - mx);
    for (int j = 0; j < V; ++j) p[static_cast<size_t>(j)] = lg(i, j) - mx - std::log(s);
    return p;
  };
  const auto p = logp(before->logits, n - 1), q = logp(after->logits, n - 1);
  double kl = 0;
  for (int j = 0; j < V; ++j) kl += std::exp(p[static_cast<size_t>(j)]) * (p[static_cast<size_t>(j)] - q[static_cast<size_t>(j)]);
  EXPECT_EQ(c->position, n - 1);
  EXPECT_NEAR(c->kl, kl, 1e-9 + 1e-6 * kl);
  EXPECT_GT(c->kl, 0.0);
  double loss = 0;
  for (int i = 0; i + 1 < n; ++i) loss -= logp(after->logits, i)[static_cast<size_t>(f.enc.ids[static_cast<size_t>(i + 1)])];
  ASSERT_TRUE(c->hasLoss);
  EXPECT_NEAR(c->lossAfter, loss / (n - 1), 1e-5);
  ASSERT_EQ(c->topBefore.size(), 5u);
  EXPECT_NEAR(c->topAfter[0].prob, std::exp(*std::max_element(q.begin(), q.end())), 1e-6);
  // BERT: the [CLS] representation.
  Fixture b = openCase("bert", 0);
  RunOptions bo;
  auto b0 = b.model->run(b.enc, bo);
  bo.interventions = {iv(InterventionKind::Uniform, 0, 0)};
  auto b1 = b.model->run(b.enc, bo);
  ASSERT_TRUE(b0.ok() && b1.ok());
  auto bc = compareRuns(*b.model, *b0, *b1);
  ASSERT_TRUE(bc.ok());
  const auto a0 = b0->finalHidden.row(0).cast<double>(), a1 = b1->finalHidden.row(0).cast<double>();
  EXPECT_NEAR(bc->clsChange, (a1 - a0).norm() / a0.norm(), 1e-9);
  EXPECT_NEAR(bc->clsCosine, a0.dot(a1) / (a0.norm() * a1.norm()), 1e-9);
  EXPECT_GT(bc->clsChange, 0.0);
}

/// A copy of the gpt2 fixture whose layer `layer` head `head` output rows of c_proj are
/// multiplied by `factor` (Conv1D weight [in, out]: rows head*hd .. head*hd+hd-1).
std::string amplifiedGpt2(int layer, int head, float factor) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("attn_decisive_{}_{}", layer, head);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(modelDir("gpt2")))
    if (e.path().filename() != "model.safetensors") fs::copy_file(e.path(), dir / e.path().filename());
  std::ifstream in(modelDir("gpt2") + "/model.safetensors", std::ios::binary);
  std::string blob((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t hn = 0;
  std::memcpy(&hn, blob.data(), 8);
  const auto header = nlohmann::json::parse(blob.substr(8, hn));
  const auto& t = header.at(fmt::format("h.{}.attn.c_proj.weight", layer));
  const size_t begin = 8 + hn + t["data_offsets"][0].get<size_t>();
  const int d = t["shape"][0].get<int>(), hd = d / 4;
  for (int r = head * hd; r < (head + 1) * hd; ++r)
    for (int col = 0; col < d; ++col) {
      float v;
      char* p = blob.data() + begin + (static_cast<size_t>(r) * d + col) * 4;
      std::memcpy(&v, p, 4);
      v *= factor;
      std::memcpy(p, &v, 4);
    }
  std::ofstream(dir / "model.safetensors", std::ios::binary).write(blob.data(), static_cast<std::streamsize>(blob.size()));
  return dir.string();
}

TEST(ModelImportance, DecisiveHeadRanksFirst) {
  // Layer 1 head 3's output is amplified, and the text is that model's own greedy
  // continuation: the head drives the predictions, so zeroing it raises the loss most.
  const std::string dir = amplifiedGpt2(0, 2, 12.0f);
  auto model = Model::open(dir);
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  Encoding enc;
  enc.ids = {5, 17};
  RunOptions opt;
  opt.topK = 1;
  opt.keepAttention = false;
  while (enc.size() < 24) {
    enc.tokens.assign(enc.ids.size(), "");
    auto r = m.run(enc, opt);
    ASSERT_TRUE(r.ok());
    enc.ids.push_back(r->nextTokens.back()[0].id);
  }
  enc.tokens.assign(enc.ids.size(), "");
  std::vector<std::pair<double, std::string>> seen;
  auto imp = headImportance(m, enc, ImportanceOptions{4, true}, [&](double f, std::string_view s) {
    seen.emplace_back(f, std::string(s));
    return true;
  });
  ASSERT_TRUE(imp.ok()) << imp.error().message;
  const Mat& I = imp->importance;
  ASSERT_EQ(I.rows(), 2);
  ASSERT_EQ(I.cols(), 4);
  Eigen::Index bl = 0, bh = 0;
  I.maxCoeff(&bl, &bh);
  EXPECT_EQ(bl, 0);
  EXPECT_EQ(bh, 2) << I;
  EXPECT_NE(imp->measure.find("ablation estimate"), std::string::npos);
  // Each entry is the loss with that head alone zeroed minus the baseline, recomputed here.
  RunOptions full;
  full.keepFullLogits = true;
  auto base = m.run(enc, full);
  full.interventions = {iv(InterventionKind::Ablate, 1, 3)};
  auto one = m.run(enc, full);
  ASSERT_TRUE(base.ok() && one.ok());
  // The importance runs take the loss from the lm_head panels (next_token_loss.h): float rounding apart.
  EXPECT_NEAR(imp->baseline, *meanNextTokenLoss(*base), 1e-6 * imp->baseline);
  EXPECT_NEAR(I(1, 3), *meanNextTokenLoss(*one) - *meanNextTokenLoss(*base), 1e-5);
  // Prefix cache: layer-1 ablations skip layer 0.
  EXPECT_GE(imp->reusedLayers, 4);
  EXPECT_EQ(imp->forwardPasses, 1 + 8 + 4);  // base, 8 heads, curve points past 0
  // Curve: 0, 2, 4, 6, 8 heads removed; the last point removes the decisive head.
  ASSERT_EQ(imp->curve.size(), 5u);
  EXPECT_EQ(imp->curve[0].removed, 0);
  EXPECT_DOUBLE_EQ(imp->curve[0].value, imp->baseline);
  EXPECT_EQ(imp->curve[4].removed, 8);
  EXPECT_DOUBLE_EQ(imp->curve[4].fraction, 1.0);
  EXPECT_GT(imp->curve[4].value, imp->baseline);
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back().first, 1.0);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].first, seen[i - 1].first);
  // Cancel part-way.
  int calls = 0;
  auto cancelled = headImportance(m, enc, {}, [&](double, std::string_view) { return ++calls < 3; });
  ASSERT_FALSE(cancelled.ok());
  EXPECT_NE(cancelled.error().message.find("cancelled"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ModelImportance, EncoderImportanceIsTheHiddenStateChange) {
  Fixture f = openCase("bert", 0);
  auto imp = headImportance(*f.model, f.enc, ImportanceOptions{0, true});
  ASSERT_TRUE(imp.ok()) << imp.error().message;
  EXPECT_TRUE(imp->curve.empty());
  RunOptions o;
  auto base = f.model->run(f.enc, o);
  o.interventions = {iv(InterventionKind::Ablate, 1, 1)};
  auto one = f.model->run(f.enc, o);
  ASSERT_TRUE(base.ok() && one.ok());
  const double want = (one->finalHidden - base->finalHidden).cast<double>().norm() / base->finalHidden.cast<double>().norm();
  EXPECT_NEAR(imp->importance(1, 1), want, 1e-6);
  EXPECT_GT(imp->importance.minCoeff(), 0.0f);
}

}  // namespace
}  // namespace attn::models
