#include "attn/train/trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attn/engine/random.h"
#include "attn/train/induction_scores.h"

namespace attn::train {

namespace {

/// Adam (Kingma & Ba 2015, Algorithm 1) or plain SGD over every parameter.
class Optimizer {
 public:
  Optimizer(const TrainConfig& c, const ModelParams<float>& p) : c_(c) {
    if (c.optimizer == OptimizerKind::Adam) {
      m_ = p.zerosLike();
      v_ = p.zerosLike();
    }
  }
  void apply(ModelParams<float>& p, ModelParams<float>& g, float gradScale) {
    ++t_;
    const float lr = static_cast<float>(c_.learningRate);
    if (c_.optimizer == OptimizerKind::Sgd) {
      std::vector<MatT<float>*> gs;
      g.forEach([&](const std::string&, MatT<float>& m) { gs.push_back(&m); });
      size_t i = 0;
      p.forEach([&](const std::string&, MatT<float>& m) { m.noalias() -= (lr * gradScale) * *gs[i++]; });
      return;
    }
    constexpr double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    const float c1 = static_cast<float>(1.0 - std::pow(b1, t_));
    const float c2 = static_cast<float>(1.0 - std::pow(b2, t_));
    std::vector<MatT<float>*> gs, ms, vs;
    g.forEach([&](const std::string&, MatT<float>& m) { gs.push_back(&m); });
    m_.forEach([&](const std::string&, MatT<float>& m) { ms.push_back(&m); });
    v_.forEach([&](const std::string&, MatT<float>& m) { vs.push_back(&m); });
    size_t i = 0;
    p.forEach([&](const std::string&, MatT<float>& w) {
      auto gi = (gs[i]->array() * gradScale);
      auto& m = *ms[i];
      auto& v = *vs[i];
      m.array() = float(b1) * m.array() + float(1 - b1) * gi;
      v.array() = float(b2) * v.array() + float(1 - b2) * gi.square();
      w.array() -= lr * (m.array() / c1) / ((v.array() / c2).sqrt() + float(eps));
      ++i;
    });
  }

 private:
  const TrainConfig& c_;
  ModelParams<float> m_, v_;
  int t_ = 0;
};

double squaredNorm(const MatT<float>& m) { return m.template cast<double>().squaredNorm(); }

}  // namespace

struct Trainer::Impl {
  TrainConfig config;
  FixedExample example;
  TaskBatch exampleBatch, batch;
  TrainHistory history;
  StepSnapshot latest;
  ModelParams<float> params, grads;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<SeededRng> batchRng;
  ModelWorkspace<float> trainBuffers, exampleBuffers;
  bool diverged = false;

  void start() {
    params = initModelParams(config, streamSeed(config.seed, "train.weights"));
    optimizer = std::make_unique<Optimizer>(config, params);
    batchRng = std::make_unique<SeededRng>(streamSeed(config.seed, "train.batches"));
    history.steps.clear();
    diverged = false;
    measure(0);
  }

  /// Forward+backward at the current weights on a fresh batch: snapshot `step`.
  /// Its gradient is the one the next update applies.
  void measure(int step) {
    batch = sampleBatch(config, config.batchSize, *batchRng);
    const PassResult<float> r = forwardBackward(config, params, batch, grads, false, &trainBuffers);
    StepSnapshot s;
    s.step = step;
    s.loss = r.loss;
    s.crossEntropy = r.crossEntropy;
    s.accuracy = r.total > 0 ? static_cast<double>(r.correct) / r.total : 0.0;
    s.headEntropy.assign(r.headEntropy.begin(), r.headEntropy.end());
    double qk = 0, all = 0;
    grads.forEach([&](const std::string& name, const MatT<float>& m) {
      const double sq = squaredNorm(m);
      all += sq;
      if (name.size() > 4 && (name.compare(name.size() - 4, 4, ".w_q") == 0 ||
                              name.compare(name.size() - 4, 4, ".w_k") == 0))
        qk += sq;
    });
    s.gradNorm = std::sqrt(all);
    s.gradNormQK = std::sqrt(qk);
    s.clipped = config.gradClipNorm > 0 && s.gradNorm > config.gradClipNorm;
    s.diverged = !std::isfinite(s.loss) || !std::isfinite(s.gradNorm);
    const PassResult<float> ex = forward(config, params, exampleBatch, true, &exampleBuffers);
    s.maps.resize(ex.maps.size());
    for (size_t l = 0; l < ex.maps.size(); ++l)
      for (const auto& m : ex.maps[l]) s.maps[l].push_back(m);
    s.mapsStep = step;
    if (config.task == Task::Induction)
      for (const auto& layer : s.maps)
        for (const Mat& m : layer) {
          s.previousTokenScore.push_back(examplePreviousTokenScore(m));
          s.inductionScore.push_back(exampleInductionScore(m));
        }
    diverged = s.diverged;
    latest = s;
    if (step % config.mapEvery != 0) s.maps.clear();
    history.steps.push_back(std::move(s));
  }
};

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;
Trainer::~Trainer() = default;

Result<Trainer> Trainer::create(const TrainConfig& config) {
  if (auto st = validateTrainConfig(config); !st) return st.error();
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  SeededRng exRng(streamSeed(config.seed, "train.example"));
  impl->exampleBatch = exampleBatch(config, exRng);
  FixedExample& ex = impl->example;
  for (int i = 0; i < config.seqLen; ++i) {
    ex.source.push_back(impl->exampleBatch.inputs(0, i));
    ex.target.push_back(impl->exampleBatch.targets(0, i));
    ex.keyLabels.push_back(inputTokenLabel(config, ex.source.back()));
    ex.queryLabels.push_back(outputTokenLabel(config, ex.target.back()));
  }
  ex.expected = expectedPattern(config, ex.source);
  impl->start();
  return Trainer(std::move(impl));
}

const TrainConfig& Trainer::config() const { return impl_->config; }
const FixedExample& Trainer::example() const { return impl_->example; }

Status Trainer::step() {
  Impl& s = *impl_;
  if (s.diverged)
    return Error{fmt::format(
        "training diverged at step {}: the loss or gradient is not finite; lower the learning rate or set a "
        "gradient clip",
        s.latest.step)};
  float scale = 1.0f;
  if (s.latest.clipped) scale = static_cast<float>(s.config.gradClipNorm / (s.latest.gradNorm + 1e-6));
  s.optimizer->apply(s.params, s.grads, scale);
  s.measure(s.latest.step + 1);
  if (s.diverged)
    return Error{fmt::format(
        "training diverged at step {}: the loss or gradient is not finite; lower the learning rate or set a "
        "gradient clip",
        s.latest.step)};
  return okStatus();
}

Status Trainer::run(int steps, const std::atomic<bool>* cancel,
                    const std::function<bool(const StepSnapshot&)>& onStep) {
  for (int i = 0; i < steps; ++i) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return okStatus();
    if (auto st = step(); !st) return st;
    if (onStep && !onStep(impl_->latest)) return okStatus();
  }
  return okStatus();
}

void Trainer::reset() { impl_->start(); }
int Trainer::stepCount() const { return impl_->latest.step; }
bool Trainer::diverged() const { return impl_->diverged; }
const StepSnapshot& Trainer::latest() const { return impl_->latest; }
const TrainHistory& Trainer::history() const { return impl_->history; }

StepSnapshot Trainer::snapshotAt(int step) const {
  const auto& steps = impl_->history.steps;
  step = std::clamp(step, 0, static_cast<int>(steps.size()) - 1);
  StepSnapshot s = steps[static_cast<size_t>(step)];
  if (step == impl_->latest.step) return impl_->latest;
  if (s.maps.empty()) {
    for (int k = step; k >= 0; --k)
      if (!steps[static_cast<size_t>(k)].maps.empty()) {
        s.maps = steps[static_cast<size_t>(k)].maps;
        s.mapsStep = k;
        break;
      }
  }
  return s;
}

const ModelParams<float>& Trainer::parameters() const { return impl_->params; }
const TaskBatch& Trainer::latestBatch() const { return impl_->batch; }
const ModelParams<float>& Trainer::gradients() const { return impl_->grads; }

int Trainer::parameterCount() const {
  int n = 0;
  impl_->params.forEach([&](const std::string&, const MatT<float>& m) { n += static_cast<int>(m.size()); });
  return n;
}

}  // namespace attn::train
