// View-model tests: what the model publishes is exactly what core computes,
// and an older request never replaces a newer one.
#include <gtest/gtest.h>

#include <QCoreApplication>

#include "attn/tokenizers/tokenizer.h"
#include "attn_ui/explorer/explorer_model.h"

namespace attn::ui {
namespace {

attn::AttentionResult direct(const std::string& text, const attn::AttentionSpec& spec,
                             const std::string& keyText = {}) {
  auto in = attn::inputFromTokens(attn::tokenizeWords(text), spec.dModel, spec.seed,
                                  attn::tokenizeWords(keyText));
  auto r = attn::runAttention(in, spec);
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

attn::AttentionSpec smallSpec() {
  attn::AttentionSpec s;
  s.heads = 2;
  s.dModel = 16;
  return s;
}

TEST(ExplorerModel, PublishesExactlyWhatCoreComputes) {
  ExplorerModel m;
  m.setSpec(smallSpec());
  m.setText("the cat sat on the mat");
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
  const auto ref = direct("the cat sat on the mat", smallSpec());
  ASSERT_EQ(m.result().numHeads(), 2);
  EXPECT_EQ(m.result().heads[1].weights, ref.heads[1].weights);
  EXPECT_EQ(m.currentWeights(), ref.heads[0].weights);
}

TEST(ExplorerModel, MaskTemperatureAndHeadChangesFollowCore) {
  ExplorerModel m;
  m.setSpec(smallSpec());
  m.setText("one two three four five");
  m.waitForIdle();
  const attn::Mat plain = m.currentWeights();

  m.setCausal(true);
  m.waitForIdle();
  auto spec = smallSpec();
  spec.mask = attn::Mask::causal();
  EXPECT_EQ(m.currentWeights(), direct("one two three four five", spec).heads[0].weights);
  EXPECT_EQ(m.currentWeights()(0, 4), 0.0f);
  EXPECT_NE(m.currentWeights(), plain);

  m.setTemperature(0.25f);
  m.waitForIdle();
  spec.temperature = 0.25f;
  const auto ref = direct("one two three four five", spec);
  EXPECT_EQ(m.currentWeights(), ref.heads[0].weights);

  m.setCurrentHead(1);
  EXPECT_EQ(m.currentHead(), 1);
  EXPECT_EQ(m.currentWeights(), ref.heads[1].weights);

  spec.mechanism = attn::Mechanism::Dot;
  m.setSpec(spec);
  m.waitForIdle();
  EXPECT_EQ(m.currentWeights(), direct("one two three four five", spec).heads[1].weights);
}

TEST(ExplorerModel, CrossAttentionUsesTheKeyText) {
  ExplorerModel m;
  m.setSpec(smallSpec());
  m.setText("a b c");
  m.setKeyText("x y z w");
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
  EXPECT_EQ(m.result().nq(), 3);
  EXPECT_EQ(m.result().nk(), 4);
  EXPECT_EQ(m.currentWeights(), direct("a b c", smallSpec(), "x y z w").heads[0].weights);
}

TEST(ExplorerModel, BurstsAreCoalescedAndOnlyTheNewestIsShown) {
  ExplorerModel m;
  int delivered = 0;
  QObject::connect(&m, &ExplorerModel::resultChanged, [&] { ++delivered; });
  m.setSpec(smallSpec());
  m.setText("one two three");
  m.setText("one two three four five");
  m.setCausal(true);
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
  EXPECT_EQ(delivered, 1);  // one burst, one job
  EXPECT_EQ(m.result().nq(), 5);
  EXPECT_EQ(m.result().heads[0].weights(0, 4), 0.0f);
}

TEST(ExplorerModel, StaleResultNeverOverwritesANewerOne) {
  // Requests made while a job runs: the shown generation only ever grows and
  // the final result is the newest request's.
  ExplorerModel m;
  m.setCoalesceMs(0);
  m.setSpec(smallSpec());
  std::vector<quint64> shown;
  QObject::connect(&m, &ExplorerModel::resultChanged, [&] { shown.push_back(m.shownGeneration()); });
  std::string text = "w0";
  for (int i = 1; i < 30; ++i) {
    text += " w" + std::to_string(i);
    m.setText(QString::fromStdString(text));
    QCoreApplication::processEvents();  // let some jobs start and finish in between
  }
  m.waitForIdle();
  ASSERT_FALSE(shown.empty());
  for (size_t i = 1; i < shown.size(); ++i) EXPECT_GT(shown[i], shown[i - 1]);
  EXPECT_EQ(m.result().nq(), 30);
  EXPECT_EQ(m.currentWeights(), direct(text, smallSpec()).heads[0].weights);
}

TEST(ExplorerModel, BadInputKeepsThePreviousResult) {
  ExplorerModel m;
  m.setSpec(smallSpec());
  m.setText("keep this view");
  m.waitForIdle();
  const attn::Mat before = m.currentWeights();
  QString error;
  QObject::connect(&m, &ExplorerModel::errorOccurred, [&](const QString& e) { error = e; });

  m.setText("   ");  // empty sequence
  m.waitForIdle();
  EXPECT_TRUE(error.contains("no tokens")) << error.toStdString();
  EXPECT_EQ(m.currentWeights(), before);

  auto bad = smallSpec();
  bad.heads = 3;  // 16 is not divisible by 3
  m.setText("keep this view");
  m.setSpec(bad);
  m.waitForIdle();
  EXPECT_TRUE(error.contains("divisible")) << error.toStdString();
  EXPECT_EQ(m.currentWeights(), before);

  m.setSpec(smallSpec());
  m.setMaxMaterializedTokens(100);
  QString longText;
  for (int i = 0; i < 100000; ++i) longText += QStringLiteral("t ");
  m.setText(longText);
  m.waitForIdle();
  EXPECT_TRUE(error.contains("100000")) << error.toStdString();
  EXPECT_TRUE(error.contains("metrics-only")) << error.toStdString();
  EXPECT_EQ(m.currentWeights(), before);
}

TEST(ExplorerModel, PinnedRowIsSharedAndClampedToTheResult) {
  ExplorerModel m;
  m.setSpec(smallSpec());
  m.setText("a b c d");
  m.waitForIdle();
  int signalled = -2;
  QObject::connect(&m, &ExplorerModel::pinnedRowChanged, [&](int r) { signalled = r; });
  m.setPinnedRow(3);
  EXPECT_EQ(m.pinnedRow(), 3);
  EXPECT_EQ(signalled, 3);
  m.setText("a b");  // row 3 no longer exists
  m.waitForIdle();
  EXPECT_EQ(m.pinnedRow(), -1);
  EXPECT_EQ(signalled, -1);
}

}  // namespace
}  // namespace attn::ui
