#pragma once
// Toy tasks: seeded batches of (source, target) token ids, token labels for the
// axes, and the attention pattern that solves each task.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "attn/engine/random.h"
#include "attn/tensor.h"
#include "attn/train/train_config.h"

namespace attn::train {

/// A target the loss and the accuracy skip (Induction: tokens outside the repeat
/// cannot be predicted).
inline constexpr int kIgnoredTarget = -1;

/// A batch of B sequences. inputs: [B, N] source ids in [0, inputVocab);
/// targets: [B, N] ids in [0, outputVocab), or kIgnoredTarget.
struct TaskBatch {
  Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> inputs;
  Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> targets;
  int batch() const { return static_cast<int>(inputs.rows()); }
  int seqLen() const { return static_cast<int>(inputs.cols()); }
};

/// Words per language of the bundled Translate vocabularies.
int translateVocabularyLimit();

/// Number of input symbols the model embeds (Brackets: 2).
int inputVocabulary(const TrainConfig& c);
/// Number of output classes (Brackets: N positions; otherwise the (target) vocabulary).
int outputVocabulary(const TrainConfig& c);
/// True for Translate: queries are target positions, keys/values the source
/// (cross-attention); false: self-attention over the input.
bool isCrossAttention(Task t);
/// True when self-attention is masked causally (key j <= query i): config.causal,
/// and always for Induction (next-token prediction); never for cross-attention.
bool isCausal(const TrainConfig& c);

/// Draws `batch` fresh sequences from `rng` (deterministic for its state).
TaskBatch sampleBatch(const TrainConfig& c, int batch, SeededRng& rng);
/// The one sequence whose maps the training view shows. Induction: distinct
/// tokens (when the vocabulary allows) whose first half repeats as the second,
/// the repeated random sequence on which Olsson et al. 2022 score induction
/// heads; every other task: one sequence drawn as sampleBatch draws them.
TaskBatch exampleBatch(const TrainConfig& c, SeededRng& rng);

/// The attention pattern that solves the task for one source sequence `source`
/// ([N] ids): [N, N], rows = queries (output positions), columns = keys (input
/// positions), each row one-hot (sort: the stable sorting permutation).
/// Induction: row i attends to the token after the latest earlier occurrence
/// of x_i (the induction head's rule); a row whose token has not occurred
/// before is all zeros.
Mat expectedPattern(const TrainConfig& c, const std::vector<int>& source);

/// Display text of an input id ("0".."9","A".."Z"; "(" ")"; Translate: the source word).
std::string inputTokenLabel(const TrainConfig& c, int id);
/// Display text of an output id (Brackets: the position "0".."N-1"; Translate: the target word).
std::string outputTokenLabel(const TrainConfig& c, int id);

/// A short English sentence describing the task ("Copy the input: each output
/// position should attend to the same input position (the diagonal).").
std::string taskDescription(Task t);

}  // namespace attn::train
