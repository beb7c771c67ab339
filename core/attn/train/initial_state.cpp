#include "attn/train/initial_state.h"

#include <fmt/format.h>

#include "attn/io/npy_writer.h"

namespace attn::train {
namespace {

Tensor matrixTensor(const MatT<float>& m) {
  Tensor t;
  t.shape = {m.rows(), m.cols()};
  t.data.assign(m.data(), m.data() + m.size());
  return t;
}

Tensor idTensor(const Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& ids) {
  Tensor t;
  t.shape = {ids.rows(), ids.cols()};
  for (Eigen::Index i = 0; i < ids.size(); ++i) t.data.push_back(static_cast<float>(ids.data()[i]));
  return t;
}

Tensor scalarTensor(double v) {
  Tensor t;
  t.shape = {1};
  t.data = {static_cast<float>(v)};
  return t;
}

}  // namespace

Status writeInitialState(const Trainer& trainer, const std::string& path) {
  const TrainConfig& c = trainer.config();
  NpzWriter npz;
  trainer.parameters().forEach(
      [&](const std::string& name, const MatT<float>& m) { npz.add(name, matrixTensor(m)); });
  trainer.gradients().forEach(
      [&](const std::string& name, const MatT<float>& m) { npz.add("grad." + name, matrixTensor(m)); });
  npz.add("inputs", idTensor(trainer.latestBatch().inputs));
  npz.add("targets", idTensor(trainer.latestBatch().targets));
  npz.add("loss", scalarTensor(trainer.latest().loss));
  npz.add("cross_entropy", scalarTensor(trainer.latest().crossEntropy));
  const std::pair<const char*, double> config[] = {
      {"seq_len", c.seqLen},
      {"vocab", inputVocabulary(c)},
      {"output_vocab", outputVocabulary(c)},
      {"d_model", c.dModel},
      {"d_k", c.dK},
      {"hidden", c.additiveHidden},
      {"heads", c.heads},
      {"layers", c.layers},
      {"batch", c.batchSize},
      {"mechanism", static_cast<int>(c.mechanism)},
      {"causal", isCausal(c) ? 1 : 0},
      {"cross", isCrossAttention(c.task) ? 1 : 0},
      {"residual", c.residual ? 1 : 0},
      {"mlp_hidden", c.mlpHidden},
      {"temperature", c.temperature},
      {"entropy_weight", c.entropyWeight},
      {"seed", static_cast<double>(c.seed)},
  };
  for (const auto& [key, value] : config) npz.add(fmt::format("config.{}", key), scalarTensor(value));
  npz.addStrings("config.task", {std::string(taskName(c.task))});
  return npz.write(path);
}

}  // namespace attn::train
