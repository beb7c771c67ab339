#include "attn/train/train_config.h"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <utility>

#include "attn/train/tasks.h"

namespace attn::train {
namespace {

template <class E, size_t N>
std::optional<E> parseName(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view name) {
  for (const auto& [e, n] : table)
    if (n == name) return e;
  return std::nullopt;
}
template <class E, size_t N>
std::string_view nameOf(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [v, n] : table)
    if (v == e) return n;
  return "?";
}

constexpr std::array<std::pair<Task, std::string_view>, 7> kTasks{{{Task::Copy, "copy"},
                                                                   {Task::Reverse, "reverse"},
                                                                   {Task::Sort, "sort"},
                                                                   {Task::Shift, "shift"},
                                                                   {Task::Translate, "translate"},
                                                                   {Task::Brackets, "brackets"},
                                                                   {Task::Induction, "induction"}}};
constexpr std::array<std::pair<TrainMechanism, std::string_view>, 4> kMechanisms{
    {{TrainMechanism::Dot, "dot"},
     {TrainMechanism::ScaledDot, "scaled_dot"},
     {TrainMechanism::General, "general"},
     {TrainMechanism::Additive, "additive"}}};
constexpr std::array<std::pair<TrainInit, std::string_view>, 4> kInits{{{TrainInit::Xavier, "xavier"},
                                                                        {TrainInit::Kaiming, "kaiming"},
                                                                        {TrainInit::Orthogonal, "orthogonal"},
                                                                        {TrainInit::Bad, "bad"}}};
constexpr std::array<std::pair<OptimizerKind, std::string_view>, 2> kOptimizers{
    {{OptimizerKind::Sgd, "sgd"}, {OptimizerKind::Adam, "adam"}}};

Status rangeError(std::string_view field, long long lo, long long hi, long long got) {
  return Error{fmt::format("{} must be between {} and {} (got {})", field, lo, hi, got)};
}

}  // namespace

std::string_view taskName(Task t) { return nameOf(kTasks, t); }
std::optional<Task> parseTask(std::string_view name) { return parseName(kTasks, name); }
std::string_view trainMechanismName(TrainMechanism m) { return nameOf(kMechanisms, m); }
std::optional<TrainMechanism> parseTrainMechanism(std::string_view name) {
  if (name == "scaled" || name == "scaled-dot") return TrainMechanism::ScaledDot;
  if (name == "bilinear") return TrainMechanism::General;
  return parseName(kMechanisms, name);
}
std::string_view trainInitName(TrainInit i) { return nameOf(kInits, i); }
std::optional<TrainInit> parseTrainInit(std::string_view name) { return parseName(kInits, name); }
std::string_view optimizerName(OptimizerKind o) { return nameOf(kOptimizers, o); }
std::optional<OptimizerKind> parseOptimizer(std::string_view name) { return parseName(kOptimizers, name); }

Status validateTrainConfig(const TrainConfig& c) {
  using L = TrainLimits;
  if (c.seqLen < 2 || c.seqLen > L::maxSeqLen) return rangeError("seq-len", 2, L::maxSeqLen, c.seqLen);
  if (c.task == Task::Brackets && c.seqLen % 2 != 0)
    return Error{fmt::format("seq-len must be even for the brackets task (got {})", c.seqLen)};
  if (c.task == Task::Translate) {
    if (c.vocabSize < 2 || c.vocabSize > translateVocabularyLimit())
      return rangeError("vocab (words per toy language for translate)", 2, translateVocabularyLimit(),
                        c.vocabSize);
  } else if (c.task != Task::Brackets && (c.vocabSize < 2 || c.vocabSize > L::maxVocab)) {
    return rangeError("vocab", 2, L::maxVocab, c.vocabSize);
  }
  if (c.heads < 1 || c.heads > L::maxHeads) return rangeError("heads", 1, L::maxHeads, c.heads);
  if (c.dK < 1 || c.dK > L::maxDim) return rangeError("d-k", 1, L::maxDim, c.dK);
  if (c.dModel < 1 || c.dModel > L::maxDim) return rangeError("d-model", 1, L::maxDim, c.dModel);
  if (c.layers < 1 || c.layers > L::maxLayers) return rangeError("layers", 1, L::maxLayers, c.layers);
  if (c.task == Task::Induction && c.seqLen < L::minInductionSeqLen)
    return rangeError("seq-len (induction)", L::minInductionSeqLen, L::maxSeqLen, c.seqLen);
  if (c.mlpHidden < 0 || c.mlpHidden > L::maxDim) return rangeError("mlp", 0, L::maxDim, c.mlpHidden);
  if (c.mlpHidden > 0 && !c.residual)
    return Error{
        fmt::format("mlp needs the residual stream (--residual): got mlp {} without it", c.mlpHidden)};
  if (c.mechanism == TrainMechanism::Additive && (c.additiveHidden < 1 || c.additiveHidden > L::maxDim))
    return rangeError("additive hidden width", 1, L::maxDim, c.additiveHidden);
  if (c.batchSize < 1 || c.batchSize > L::maxBatch) return rangeError("batch", 1, L::maxBatch, c.batchSize);
  if (!std::isfinite(c.learningRate) || c.learningRate <= 0 || c.learningRate > 100)
    return Error{fmt::format("lr must be a number in (0, 100] (got {})", c.learningRate)};
  if (!std::isfinite(c.temperature) || c.temperature <= 0 || c.temperature > 1e6)
    return Error{fmt::format("temperature must be a number in (0, 1e6] (got {})", c.temperature)};
  if (!std::isfinite(c.entropyWeight) || std::fabs(c.entropyWeight) > 100)
    return Error{fmt::format("entropy-weight must be a number in [-100, 100] (got {})", c.entropyWeight)};
  if (!std::isfinite(c.gradClipNorm) || c.gradClipNorm < 0)
    return Error{fmt::format("clip must be a number >= 0, 0 = off (got {})", c.gradClipNorm)};
  if (c.mapEvery < 1) return rangeError("map-every", 1, 1000000, c.mapEvery);
  return okStatus();
}

}  // namespace attn::train
