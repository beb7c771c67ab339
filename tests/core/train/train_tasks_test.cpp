// Toy tasks and config validation of the training engine, against
// hand-worked examples.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "attn/train/tasks.h"
#include "attn/train/train_config.h"

using namespace attn;
using namespace attn::train;

namespace {

std::vector<int> rowArgmax(const Mat& m) {
  std::vector<int> out;
  for (int i = 0; i < m.rows(); ++i) {
    Eigen::Index j = 0;
    m.row(i).maxCoeff(&j);
    EXPECT_FLOAT_EQ(m.row(i).sum(), 1.0f);
    out.push_back(static_cast<int>(j));
  }
  return out;
}

TrainConfig withTask(Task t, int n = 6) {
  TrainConfig c;
  c.task = t;
  c.seqLen = n;
  return c;
}

TEST(TrainTasks, ExpectedPatternsByHand) {
  const std::vector<int> x{3, 1, 4, 1, 5, 9};
  EXPECT_EQ(rowArgmax(expectedPattern(withTask(Task::Copy), x)), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(rowArgmax(expectedPattern(withTask(Task::Reverse), x)), (std::vector<int>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(rowArgmax(expectedPattern(withTask(Task::Shift), x)), (std::vector<int>{5, 0, 1, 2, 3, 4}));
  // sorted: 1(pos 1) 1(pos 3) 3(pos 0) 4(pos 2) 5(pos 4) 9(pos 5): stable.
  EXPECT_EQ(rowArgmax(expectedPattern(withTask(Task::Sort), x)), (std::vector<int>{1, 3, 0, 2, 4, 5}));
  EXPECT_EQ(rowArgmax(expectedPattern(withTask(Task::Translate), x)), (std::vector<int>{1, 0, 3, 2, 5, 4}));
  EXPECT_EQ(rowArgmax(expectedPattern(withTask(Task::Translate, 5), {0, 1, 2, 3, 4})),
            (std::vector<int>{1, 0, 3, 2, 4}));
  // "(())()": 0<->3, 1<->2, 4<->5.
  EXPECT_EQ(rowArgmax(expectedPattern(withTask(Task::Brackets), {0, 0, 1, 1, 0, 1})),
            (std::vector<int>{3, 2, 1, 0, 5, 4}));
}

TEST(TrainTasks, BatchesFollowTheTaskAndAreSeeded) {
  for (Task t : {Task::Copy, Task::Reverse, Task::Sort, Task::Shift, Task::Translate, Task::Brackets}) {
    TrainConfig c = withTask(t, 8);
    SeededRng a(5), b(5);
    const TaskBatch x = sampleBatch(c, 20, a), y = sampleBatch(c, 20, b);
    EXPECT_EQ(x.inputs, y.inputs) << taskName(t);
    EXPECT_EQ(x.targets, y.targets) << taskName(t);
    for (int r = 0; r < x.batch(); ++r) {
      std::vector<int> src(x.inputs.row(r).data(), x.inputs.row(r).data() + 8);
      const Mat e = expectedPattern(c, src);
      const std::vector<int> pos = rowArgmax(e);
      for (int i = 0; i < 8; ++i) {
        EXPECT_GE(x.inputs(r, i), 0);
        EXPECT_LT(x.inputs(r, i), inputVocabulary(c));
        EXPECT_LT(x.targets(r, i), outputVocabulary(c));
        // Reading the expected position gives the target token (brackets: the position).
        EXPECT_EQ(x.targets(r, i), t == Task::Brackets ? pos[i] : src[pos[i]]) << taskName(t);
      }
      if (t == Task::Brackets) {
        int depth = 0;
        for (int i = 0; i < 8; ++i) {
          depth += src[i] == 0 ? 1 : -1;
          EXPECT_GE(depth, 0);
        }
        EXPECT_EQ(depth, 0);
      }
    }
  }
}

TEST(TrainTasks, InductionExpectedPatternPointsAfterTheEarlierCopy) {
  // x = 3 1 4 1 5 3 1 4: query 3 (pos 1, token 1) -> after pos 1 = 2; pos 5 (3) -> 1;
  // pos 6 (1) -> latest earlier 1 is pos 3 -> 4; pos 7 (4) -> 3. Others: no earlier copy.
  const Mat e = expectedPattern(withTask(Task::Induction, 8), {3, 1, 4, 1, 5, 3, 1, 4});
  const std::vector<int> want{-1, -1, -1, 2, -1, 1, 4, 3};
  for (int i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ(e.row(i).sum(), want[i] < 0 ? 0.0f : 1.0f) << i;
    if (want[i] >= 0) EXPECT_EQ(e(i, want[i]), 1.0f) << i;
  }
}

TEST(TrainTasks, InductionBatchesRepeatASegmentAtVaryingOffsetsAndLengths) {
  TrainConfig c = withTask(Task::Induction, 32);
  c.vocabSize = 32;
  SeededRng rng(9);
  const TaskBatch b = sampleBatch(c, 200, rng);
  std::set<int> offsets, lengths;
  for (int r = 0; r < b.batch(); ++r) {
    // The scored targets are one run [t, t+len-1): each the next input token.
    int first = -1, last = -1;
    for (int i = 0; i < 32; ++i)
      if (b.targets(r, i) != kIgnoredTarget) {
        if (first < 0) first = i;
        last = i;
        ASSERT_LT(i + 1, 32);
        EXPECT_EQ(b.targets(r, i), b.inputs(r, i + 1));
      }
    ASSERT_GE(first, 0) << r;
    const int len = last - first + 2;
    for (int i = first; i <= last; ++i) EXPECT_NE(b.targets(r, i), kIgnoredTarget);
    EXPECT_GE(len, 4);
    EXPECT_LE(len, 16);
    // Some earlier segment of the same length equals the repeat (non-overlapping).
    int offset = -1;
    for (int d = len; d <= first && offset < 0; ++d) {
      bool same = true;
      for (int k = 0; k < len && same; ++k) same = b.inputs(r, first - d + k) == b.inputs(r, first + k);
      if (same) offset = d;
    }
    EXPECT_GT(offset, 0) << r;
    offsets.insert(offset);
    lengths.insert(len);
  }
  // Neither the offset nor the length is fixed: a model cannot solve it by position alone.
  EXPECT_GT(offsets.size(), 8u);
  EXPECT_GT(lengths.size(), 8u);
  // The shown example: distinct tokens, first half repeated; every second-half query has its key.
  SeededRng ex(3);
  const TaskBatch e = exampleBatch(c, ex);
  std::set<int> firstHalf;
  for (int i = 0; i < 16; ++i) firstHalf.insert(e.inputs(0, i));
  EXPECT_EQ(firstHalf.size(), 16u);
  const Mat p = expectedPattern(c, std::vector<int>(e.inputs.data(), e.inputs.data() + 32));
  for (int i = 16; i < 32; ++i) EXPECT_EQ(p(i, i - 15), 1.0f) << i;
  EXPECT_EQ(p.topRows(16).sum(), 0.0f);
  EXPECT_TRUE(isCausal(c));
}

TEST(TrainTasks, LabelsAndNames) {
  TrainConfig c = withTask(Task::Translate);
  EXPECT_EQ(inputTokenLabel(c, 3), "cat");
  EXPECT_EQ(outputTokenLabel(c, 3), "猫");
  EXPECT_EQ(inputTokenLabel(withTask(Task::Brackets), 1), ")");
  EXPECT_EQ(inputTokenLabel(withTask(Task::Copy), 11), "B");
  for (Task t :
       {Task::Copy, Task::Reverse, Task::Sort, Task::Shift, Task::Translate, Task::Brackets, Task::Induction})
    EXPECT_EQ(parseTask(taskName(t)), t);
  EXPECT_EQ(outputTokenLabel(withTask(Task::Induction), kIgnoredTarget), "·");
  EXPECT_EQ(parseTrainMechanism("scaled_dot"), TrainMechanism::ScaledDot);
  EXPECT_EQ(parseTrainInit("bad"), TrainInit::Bad);
  EXPECT_EQ(parseOptimizer("sgd"), OptimizerKind::Sgd);
  EXPECT_FALSE(parseTask("copyy").has_value());
}

TEST(TrainConfigValidation, NamesTheField) {
  TrainConfig c;
  EXPECT_TRUE(validateTrainConfig(c).ok());
  auto expectError = [](TrainConfig bad, const std::string& needle) {
    const Status st = validateTrainConfig(bad);
    ASSERT_FALSE(st.ok()) << needle;
    EXPECT_NE(st.error().message.find(needle), std::string::npos) << st.error().message;
  };
  c.seqLen = 1;
  expectError(c, "seq-len");
  c = {};
  c.layers = 3;
  expectError(c, "layers");
  c = {};
  c.learningRate = std::nan("");
  expectError(c, "lr");
  c = {};
  c.temperature = 0;
  expectError(c, "temperature");
  c = {};
  c.task = Task::Brackets;
  c.seqLen = 7;
  expectError(c, "even");
  c = {};
  c.task = Task::Translate;
  c.vocabSize = 20;
  expectError(c, "vocab");
  c = {};
  c.gradClipNorm = -1;
  expectError(c, "clip");
  c = {};
  c.mlpHidden = 8;
  expectError(c, "residual");
  c = {};
  c.task = Task::Induction;
  c.seqLen = 6;
  expectError(c, "seq-len");
}

}  // namespace
