// The training engine's hand-written backward pass against an independent
// reference: tests/scripts/gen_train_fixtures.py builds the same tiny model in
// PyTorch (autograd, float64) with fixed weights and a batch and writes the loss
// and every gradient; plus central finite differences in double precision.
// Covers every score function, mask, cross-attention, and the residual-stream
// model with and without its MLP (with some targets ignored, as induction does).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "attn/io/npy_reader.h"
#include "attn/train/tiny_model.h"

namespace fs = std::filesystem;
using namespace attn;
using namespace attn::train;

namespace {

fs::path fixtureDir() { return fs::path(ATTN_FIXTURE_DIR) / "train"; }

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  if (fs::is_directory(fixtureDir()))
    for (const auto& e : fs::directory_iterator(fixtureDir()))
      if (e.path().extension() == ".npz") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Fixture {
  TrainConfig config;
  ModelParams<double> params;
  TaskBatch batch;
  double loss = 0;
  std::map<std::string, MatT<double>> grads;
};

MatT<double> toMat(const NpyArray& a) {
  const int64_t rows = a.shape.size() == 2 ? a.shape[0] : 1;
  const int64_t cols = a.shape.empty() ? 1 : a.shape.back();
  MatT<double> m(rows, cols);
  for (int64_t i = 0; i < m.size(); ++i) m.data()[i] = a.values.data[static_cast<size_t>(i)];
  return m;
}

Fixture loadFixture(const std::string& name) {
  auto arrays = readNpzFile((fixtureDir() / (name + ".npz")).string());
  EXPECT_TRUE(arrays.ok()) << (arrays.ok() ? "" : arrays.error().message);
  std::map<std::string, NpyArray> byName;
  for (auto& a : *arrays) byName[a.name] = a;
  auto cfg = [&](const std::string& k) { return static_cast<double>(byName.at("config." + k).values.data[0]); };
  Fixture f;
  TrainConfig& c = f.config;
  c.task = cfg("cross") != 0 ? Task::Translate : Task::Copy;
  c.seqLen = static_cast<int>(cfg("seq_len"));
  c.vocabSize = static_cast<int>(cfg("vocab"));
  c.dModel = static_cast<int>(cfg("d_model"));
  c.dK = static_cast<int>(cfg("d_k"));
  c.additiveHidden = static_cast<int>(cfg("hidden"));
  c.heads = static_cast<int>(cfg("heads"));
  c.layers = static_cast<int>(cfg("layers"));
  c.causal = cfg("causal") != 0;
  c.residual = byName.count("config.residual") && cfg("residual") != 0;
  c.mlpHidden = byName.count("config.mlp_hidden") ? static_cast<int>(cfg("mlp_hidden")) : 0;
  c.mechanism = static_cast<TrainMechanism>(static_cast<int>(cfg("mechanism")));
  c.temperature = byName.at("config.temperature").values.data[0];
  c.entropyWeight = byName.at("config.entropy_weight").values.data[0];
  // The npz reader gives float32; the script's values have at most three
  // decimals, so rounding recovers them exactly.
  c.temperature = std::round(c.temperature * 1000) / 1000;
  c.entropyWeight = std::round(c.entropyWeight * 1000) / 1000;
  EXPECT_TRUE(validateTrainConfig(c).ok());
  f.params = initModelParams(c, 1).cast<double>();
  f.params.forEach([&](const std::string& pname, MatT<double>& m) {
    ASSERT_TRUE(byName.count(pname)) << name << ": no array " << pname;
    const MatT<double> v = toMat(byName.at(pname));
    ASSERT_EQ(v.rows(), m.rows()) << pname;
    ASSERT_EQ(v.cols(), m.cols()) << pname;
    m = v;
    f.grads[pname] = toMat(byName.at("grad." + pname));
  });
  const MatT<double> x = toMat(byName.at("inputs")), y = toMat(byName.at("targets"));
  f.batch.inputs = x.cast<int>();
  f.batch.targets = y.cast<int>();
  f.loss = byName.at("loss").values.data[0];
  return f;
}

class TrainTorchFixture : public ::testing::TestWithParam<std::string> {};

// Relative agreement per tensor: max |g - ref| <= tol * max |ref| (the reference
// gradients are stored as float32, about 6e-8 relative).
double relativeError(const MatT<double>& g, const MatT<double>& ref) {
  const double scale = std::max(ref.cwiseAbs().maxCoeff(), 1e-12);
  return (g - ref).cwiseAbs().maxCoeff() / scale;
}

TEST_P(TrainTorchFixture, LossAndEveryGradientMatchPyTorch) {
  const Fixture f = loadFixture(GetParam());
  ModelParams<double> g;
  const PassResult<double> r = forwardBackward(f.config, f.params, f.batch, g);
  EXPECT_NEAR(r.loss, f.loss, 1e-5 * std::abs(f.loss));
  int checked = 0;
  g.forEach([&](const std::string& name, const MatT<double>& m) {
    EXPECT_LE(relativeError(m, f.grads.at(name)), 1e-5) << GetParam() << " " << name;
    ++checked;
  });
  EXPECT_EQ(checked, static_cast<int>(f.grads.size()));
}

TEST_P(TrainTorchFixture, FloatEngineAgreesToSinglePrecision) {
  const Fixture f = loadFixture(GetParam());
  const ModelParams<float> pf = f.params.cast<float>();
  ModelParams<float> g;
  const PassResult<float> r = forwardBackward(f.config, pf, f.batch, g);
  EXPECT_NEAR(r.loss, f.loss, 1e-4 * std::abs(f.loss));
  g.forEach([&](const std::string& name, const MatT<float>& m) {
    // float32 through saturated softmaxes keeps about three digits (the unscaled
    // dot product on the residual stream: 1.2e-3 seen on the W_Q of its top layer).
    EXPECT_LE(relativeError(m.cast<double>(), f.grads.at(name)), 2e-3) << GetParam() << " " << name;
  });
}

TEST_P(TrainTorchFixture, EveryGradientMatchesCentralDifferences) {
  const Fixture f = loadFixture(GetParam());
  ModelParams<double> g;
  forwardBackward(f.config, f.params, f.batch, g);
  std::map<std::string, const MatT<double>*> analytic;
  g.forEach([&](const std::string& name, const MatT<double>& m) { analytic[name] = &m; });
  ModelParams<double> p = f.params;
  const double h = 1e-6;
  p.forEach([&](const std::string& name, MatT<double>& m) {
    const MatT<double>& an = *analytic.at(name);
    // Every entry of small tensors, a spread of entries of larger ones.
    const Eigen::Index step = std::max<Eigen::Index>(1, m.size() / 12);
    for (Eigen::Index i = 0; i < m.size(); i += step) {
      const double keep = m.data()[i];
      m.data()[i] = keep + h;
      const double up = forward(f.config, p, f.batch, false).loss;
      m.data()[i] = keep - h;
      const double down = forward(f.config, p, f.batch, false).loss;
      m.data()[i] = keep;
      const double fd = (up - down) / (2 * h);
      EXPECT_NEAR(an.data()[i], fd, 1e-6 + 1e-5 * std::abs(fd)) << GetParam() << " " << name << "[" << i << "]";
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Torch, TrainTorchFixture, ::testing::ValuesIn(fixtureNames()),
                         [](const auto& info) { return info.param; });

TEST(TrainTorchFixtures, EveryMechanismAndMaskIsCovered) {
  const auto names = fixtureNames();
  for (const char* mech : {"dot", "scaled_dot", "general", "additive"})
    for (const char* variant :
         {"full", "causal", "plain", "cross", "residual", "residual_mlp", "residual_cross"})
      EXPECT_NE(std::find(names.begin(), names.end(), std::string(mech) + "_" + variant), names.end())
          << mech << "_" << variant << ": run tests/scripts/gen_train_fixtures.py";
}

}  // namespace
