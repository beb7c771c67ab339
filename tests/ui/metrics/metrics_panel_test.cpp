// The metrics panel (offscreen) shows exactly what core's analysis computes.
// Set ATTN_UI_SHOTS=DIR to also write PNGs of the panel for a visual check.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QMouseEvent>
#include <QSpinBox>
#include <cmath>
#include <random>

#include "attn/attn.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/metrics/metrics_bar_chart.h"
#include "attn_ui/metrics/metrics_panel.h"
#include "attn_ui/metrics/metrics_row_chart.h"

namespace attn::ui {
namespace {

std::shared_ptr<const AttentionResult> runExample(bool causal) {
  AttentionSpec spec;
  spec.heads = 4;
  spec.dModel = 32;
  if (causal) spec.mask = Mask::causal();
  auto res = runAttention(inputFromTokens(tokenizeWords("The cat sat on the mat, and it purred."), 32, 5), spec);
  EXPECT_TRUE(res.ok());
  return std::make_shared<const AttentionResult>(std::move(res).value());
}

Mat softmaxRows(int n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, scale);
  Mat a(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) a(i, j) = std::exp(g(rng));
    a.row(i) /= a.row(i).sum();
  }
  return a;
}

void shot(QWidget& w, const char* name) {
  if (!qEnvironmentVariableIsSet("ATTN_UI_SHOTS")) return;
  QCoreApplication::processEvents();
  w.grab().save(qEnvironmentVariable("ATTN_UI_SHOTS") + "/" + name);
}

void settleMetricsPanel(MetricsPanel& p) {
  p.waitForIdle();
  QCoreApplication::processEvents();
  p.barChart()->replot();  // lays out the axes so pixel <-> value mapping holds
}

TEST(MetricsPanel, ShowsTheCoreNumbers) {
  const auto res = runExample(true);
  MetricsPanel p;
  p.resize(460, 1100);
  p.show();
  p.setResult(res, 1);
  settleMetricsPanel(p);
  const Analysis want = analyzeResult(*res);
  ASSERT_NE(p.analysis(), nullptr);
  ASSERT_EQ(p.barChart()->values().size(), 4u);
  for (size_t h = 0; h < 4; ++h) EXPECT_EQ(p.barChart()->values()[h], want.heads[h].entropyMean) << h;
  EXPECT_DOUBLE_EQ(p.barChart()->bound(), std::log(11.0));  // uniform bound log N drawn
  EXPECT_EQ(p.barChart()->selectedHead(), 1);
  // The row curve is head 2's per-row entropy.
  const Vec& rows = want.heads[1].perRow.entropy;
  ASSERT_EQ(p.rowChart()->values().size(), 11u);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(p.rowChart()->values()[static_cast<size_t>(i)], rows[i]);
  EXPECT_NE(p.rowChart()->title().indexOf("head 2"), -1);
  // Similarity heatmap: the divergence matrix in the similarity order.
  const Mat& sim = p.similarityMap()->matrix();
  ASSERT_EQ(sim.rows(), 4);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      EXPECT_EQ(sim(a, b), want.headDivergence(want.headOrder[static_cast<size_t>(a)],
                                               want.headOrder[static_cast<size_t>(b)]));
  // Hover names the head and its values.
  const QString tip = p.headToolTip(2);
  EXPECT_TRUE(tip.startsWith("Head 3")) << tip.toStdString();
  EXPECT_NE(tip.indexOf(QString::number(want.heads[2].entropyMean, 'g', 4)), -1) << tip.toStdString();
  EXPECT_NE(tip.indexOf("confidence"), -1);
  EXPECT_NE(p.thresholdsLabel()->text().indexOf("0.95"), -1);
  shot(p, "metrics_panel_result.png");
}

TEST(MetricsPanel, SignedMapsAreNotMeasuredAndThePanelSaysWhy) {
  const auto res = runExample(true);
  MetricsPanel p;
  p.resize(460, 1100);
  p.show();
  p.setResult(res, 0);
  settleMetricsPanel(p);
  ASSERT_NE(p.analysis(), nullptr);
  p.setSignedMaps("attention x gradient");
  settleMetricsPanel(p);
  EXPECT_EQ(p.analysis(), nullptr);
  EXPECT_TRUE(p.barChart()->values().empty());
  EXPECT_NE(p.flagsLabel()->text().indexOf("attention x gradient"), -1);
  EXPECT_EQ(p.flagsLabel()->text().indexOf("counted as 0"), -1);  // no per-row warnings
  p.setSignedMaps(QString());  // back to the weights: measured again, as before
  settleMetricsPanel(p);
  ASSERT_NE(p.analysis(), nullptr);
  EXPECT_EQ(p.barChart()->values()[0], analyzeResult(*res).heads[0].entropyMean);
}

TEST(MetricsPanel, OtherMeasuresAndRowCurves) {
  const auto res = runExample(false);
  MetricsPanel p;
  p.setResult(res, 0);
  settleMetricsPanel(p);
  const Analysis want = analyzeResult(*res);
  p.measureSelector()->setCurrentIndex(p.measureSelector()->findData("confidence"));
  for (size_t h = 0; h < 4; ++h) EXPECT_EQ(p.barChart()->values()[h], want.heads[h].confidence);
  EXPECT_LT(p.barChart()->bound(), 0.0);  // no entropy bound for confidence
  p.measureSelector()->setCurrentIndex(p.measureSelector()->findData("mean_distance"));
  EXPECT_EQ(p.barChart()->values()[3], want.heads[3].meanDistance);
  p.rowMeasureSelector()->setCurrentIndex(2);  // max weight
  EXPECT_EQ(p.rowChart()->values()[4], want.heads[0].perRow.maxWeight[4]);
  p.setCurrentHead(3);
  EXPECT_EQ(p.rowChart()->values()[4], want.heads[3].perRow.maxWeight[4]);
  p.rowMeasureSelector()->setCurrentIndex(p.rowMeasureSelector()->findText("max / min weight"));
  EXPECT_EQ(p.rowChart()->values()[4], want.heads[3].perRow.maxMinRatio[4]);
  // The relative-offset profile: one value per offset j - i, from -(N-1) to N-1 here.
  p.rowMeasureSelector()->setCurrentIndex(p.rowMeasureSelector()->findText("relative-offset profile (mass at j − i)"));
  const auto& mass = want.heads[3].offsets.mass;
  ASSERT_EQ(p.rowChart()->values().size(), static_cast<size_t>(mass.size()));
  for (Eigen::Index k = 0; k < mass.size(); ++k) EXPECT_EQ(p.rowChart()->values()[static_cast<size_t>(k)], mass[k]);
  EXPECT_NE(p.rowChart()->title().indexOf("offset"), -1);
}

TEST(MetricsPanel, ClickingABarActivatesItsHead) {
  MetricsPanel p;
  p.resize(460, 900);
  p.show();
  p.setResult(runExample(false), 0);
  settleMetricsPanel(p);
  int activated = -1;
  QObject::connect(&p, &MetricsPanel::headActivated, [&](int h) { activated = h; });
  auto* bars = p.barChart();
  const QPointF at(bars->xAxis->coordToPixel(3.0), bars->yAxis->coordToPixel(bars->values()[2] / 2));
  EXPECT_EQ(bars->headAt(at.toPoint()), 2);
  QMouseEvent press(QEvent::MouseButtonPress, at, bars->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton,
                    Qt::NoModifier);
  QCoreApplication::sendEvent(bars, &press);
  EXPECT_EQ(activated, 2);
  EXPECT_EQ(p.currentHead(), 2);
  EXPECT_EQ(bars->selectedHead(), 2);
}

TEST(MetricsPanel, CollapseFlagsAndBadRowsAreVisibleWarnings) {
  Mat uniform = Mat::Constant(6, 6, 1.0f / 6);
  // Softmax output is never exactly 0 off the mask (exact zeros in a file
  // count as masked), so "one-hot" here is 0.98 on one key, 0.004 elsewhere.
  Mat oneHot = Mat::Constant(6, 6, 0.004f);
  for (int i = 0; i < 6; ++i) oneHot(i, (i + 1) % 6) = 0.98f;
  Mat offRows = softmaxRows(6, 3, 1.0f);
  offRows.row(2) *= 0.6f;
  MetricsPanel p;
  p.resize(460, 900);
  p.show();
  p.setLayers({{uniform, oneHot, offRows}}, {"a", "b", "c", "d", "e", "f"});
  settleMetricsPanel(p);
  ASSERT_TRUE(p.flagsLabel()->isVisible());
  const QString text = p.flagsLabel()->text();
  EXPECT_NE(text.indexOf("Layer 1: Head 1 is near-uniform: 100% of its rows have normalized entropy above 0.95"), -1)
      << text.toStdString();
  EXPECT_NE(text.indexOf("Head 2 is near-one-hot"), -1) << text.toStdString();
  EXPECT_NE(text.indexOf("layer 1 head 3: 1 row(s) do not sum to 1 (row 2 sums to 0.6"), -1) << text.toStdString();
  shot(p, "metrics_panel_flags.png");

  // A healthy result clears them.
  p.setResult(runExample(false), 0);
  settleMetricsPanel(p);
  EXPECT_FALSE(p.flagsLabel()->isVisible());
}

TEST(MetricsPanel, LayersShowRolloutAndFlow) {
  LayeredWeights layers;
  for (int l = 0; l < 3; ++l) layers.push_back({softmaxRows(5, 10 + l, 2.0f), softmaxRows(5, 20 + l, 2.0f)});
  MetricsPanel p;
  p.resize(460, 1300);
  p.show();
  p.setLayers(layers, {"[CLS]", "a", "b", "c", "[SEP]"});
  settleMetricsPanel(p);
  ASSERT_NE(p.layeredAnalysis(), nullptr);
  EXPECT_TRUE(p.rolloutMap()->isVisible());
  EXPECT_TRUE(p.layerSelector()->isVisible());
  EXPECT_EQ(p.layerSelector()->maximum(), 3);
  auto rollout = attentionRollout(layers);
  ASSERT_TRUE(rollout.ok());
  EXPECT_EQ(p.rolloutMap()->matrix(), rollout->back());
  p.layerFlowSelector()->setCurrentIndex(1);
  auto flow = attentionFlow(layers);
  ASSERT_TRUE(flow.ok());
  EXPECT_EQ(p.rolloutMap()->matrix(), *flow);
  // Bars follow the chosen layer.
  p.layerSelector()->setValue(2);
  EXPECT_EQ(p.barChart()->values()[1], analyzeHeads(layers[1], {}).heads[1].entropyMean);
  shot(p, "metrics_panel_layers.png");

  // Back to a plain result: no rollout.
  p.setResult(runExample(false), 0);
  settleMetricsPanel(p);
  EXPECT_FALSE(p.rolloutMap()->isVisible());
  EXPECT_FALSE(p.layerSelector()->isVisible());
}

TEST(MetricsPanel, RapidChangesEndOnTheNewestInput) {
  MetricsPanel p;
  const auto first = runExample(false), last = runExample(true);
  int shown = 0;
  QObject::connect(&p, &MetricsPanel::analysisChanged, [&] { ++shown; });
  for (int i = 0; i < 5; ++i) p.setResult(i % 2 ? last : first, 0);
  p.setResult(last, 0);
  settleMetricsPanel(p);
  EXPECT_LE(shown, 2);  // the first request's analysis at most, then the newest
  EXPECT_EQ(p.barChart()->values()[0], analyzeResult(*last).heads[0].entropyMean);
}

TEST(MetricsPanel, FollowsTheModelAndIsDockedInTheMainWindow) {
  MainWindow w;
  w.resize(1500, 950);
  w.show();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  auto* p = w.findChild<MetricsPanel*>();
  ASSERT_NE(p, nullptr);
  settleMetricsPanel(*p);
  ASSERT_NE(p->analysis(), nullptr);
  EXPECT_EQ(p->analysis()->heads.size(), static_cast<size_t>(w.model()->result().numHeads()));
  EXPECT_EQ(p->barChart()->values()[0], analyzeResult(w.model()->result()).heads[0].entropyMean);
  emit p->headActivated(2);
  EXPECT_EQ(w.model()->currentHead(), 2);
  EXPECT_EQ(p->currentHead(), 2);
  shot(w, "main_window_with_metrics.png");
}

}  // namespace
}  // namespace attn::ui
