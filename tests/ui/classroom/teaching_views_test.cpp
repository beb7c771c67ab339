// The teaching views, offscreen: step-through, token lines, compare, toy
// input and presentation mode, driven as a user would (keys, mouse, edits).
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QImage>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QSpinBox>
#include <QTableWidget>
#include <cmath>

#include "attn/teaching/step_through.h"
#include "attn_ui/classroom/compare_panel.h"
#include "attn_ui/classroom/compare_view.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/classroom/presentation_window.h"
#include "attn_ui/classroom/step_through_panel.h"
#include "attn_ui/classroom/step_through_view.h"
#include "attn_ui/explorer/token_lines_widget.h"
#include "attn_ui/explorer/toy_input_panel.h"
#include "matrix_matchers.h"

namespace attn::ui {
namespace {

void press(QWidget* w, int key, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QKeyEvent e(QEvent::KeyPress, key, mods);
  QCoreApplication::sendEvent(w, &e);
}

int nonBackground(const QImage& img) {
  const QRgb bg = img.pixel(0, 0);
  int n = 0;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) n += img.pixel(x, y) != bg;
  return n;
}

attn::AttentionResult toyResult(attn::AttentionSpec& spec) {
  attn::AttentionInput in;
  attn::Mat q(3, 2), k(3, 2), v(3, 2);
  q << 1, 0, 0, 2, 1, 1;
  k << 1, 0, 0, 1, 1, 1;
  v << 1, 0, 0, 1, 2, 2;
  in.q = {q};
  in.k = {k};
  in.v = {v};
  in.queryTokens = {"我", "爱", "猫"};
  auto res = attn::runAttention(in, spec);
  EXPECT_TRUE(res.ok());
  return std::move(res).value();
}

TEST(StepThroughPanel, KeysWalkTheStepsAndTablesShowCoreNumbers) {
  attn::AttentionSpec spec;
  spec.mask = attn::Mask::causal();
  const auto res = toyResult(spec);
  auto walk = attn::stepThrough(res.heads[0], spec, 1);
  ASSERT_TRUE(walk.ok());
  StepThroughPanel panel;
  panel.resize(600, 420);
  const QStringList keys{"我", "爱", "猫"};
  panel.setWalk(*walk, keys, "爱");
  EXPECT_EQ(panel.stepCount(), 8);
  EXPECT_EQ(panel.step(), 0);
  press(&panel, Qt::Key_Right);
  press(&panel, Qt::Key_Space);
  EXPECT_EQ(panel.step(), 2);
  EXPECT_EQ(panel.stepKind(), attn::StepKind::Scale);
  press(&panel, Qt::Key_Left);
  EXPECT_EQ(panel.stepKind(), attn::StepKind::RawScores);
  press(&panel, Qt::Key_End);
  EXPECT_EQ(panel.stepKind(), attn::StepKind::Output);
  press(&panel, Qt::Key_Right);  // stays on the last step
  EXPECT_EQ(panel.step(), 7);

  // Softmax table: a_j as core computed it (0.196, 0.804, 0); the hidden key is −∞ and dimmed.
  const StepTable t = stepTable(*walk, attn::StepKind::Softmax, keys, "爱");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].cells.last(), "0.196");
  EXPECT_EQ(t.rows[1].cells.last(), "0.804");
  EXPECT_EQ(t.rows[2].cells.first(), "−∞");
  EXPECT_TRUE(t.rows[2].dimmed);
  EXPECT_TRUE(t.formula.contains("1.414"));  // the shift m
  const StepTable scale = stepTable(*walk, attn::StepKind::Scale, keys, "爱");
  EXPECT_TRUE(scale.formula.contains("√2"));
  EXPECT_EQ(scale.rows[1].cells, (QStringList{"2.000", "1.414"}));

  QImage img(600, 420, QImage::Format_ARGB32);
  QPainter p(&img);
  panel.paintStep(p, img.rect());
  p.end();
  EXPECT_GT(nonBackground(img), 500);
}

TEST(StepThroughPanel, CosineWalkShowsNormsAndUnitScores) {
  attn::AttentionSpec spec;
  spec.mechanism = attn::Mechanism::Cosine;
  const auto res = toyResult(spec);
  auto walk = attn::stepThrough(res.heads[0], spec, 1);
  ASSERT_TRUE(walk.ok()) << walk.error().message;
  const QStringList keys{"我", "爱", "猫"};
  const StepTable norm = stepTable(*walk, attn::StepKind::CosineNormalize, keys, "爱");
  ASSERT_EQ(norm.rows.size(), 3u);
  EXPECT_TRUE(norm.formula.contains("2.000"));           // |q| for q = [0, 2]
  EXPECT_EQ(norm.rows[2].cells.first(), "1.414");        // |k_2| = sqrt 2
  const StepTable raw = stepTable(*walk, attn::StepKind::RawScores, keys, "爱");
  EXPECT_TRUE(raw.formula.contains("cos"));
  EXPECT_EQ(raw.rows[2].cells.first(), "0.707");
  StepThroughPanel panel;
  panel.setWalk(*walk, keys, "爱");
  press(&panel, Qt::Key_Right);
  EXPECT_EQ(panel.stepKind(), attn::StepKind::CosineNormalize);
}

TEST(TokenLinesWidget, HoverIsolatesATokensLinesAndHeadsGetColours) {
  TokenLinesWidget w;
  w.resize(400, 300);
  attn::Mat a(3, 3), b(3, 3);
  a << 1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5;
  b << 0, 0, 1, 0, 1, 0, 1, 0, 0;
  w.setData({"a", "b", "c"}, {"a", "b", "c"}, {a, b}, {2, 6});
  EXPECT_EQ(w.visibleLines().size(), 6u + 3u);  // cells >= 0.01
  // Hover over query "b" (left column, second row).
  QPoint onB;
  for (int y = 0; y < 300 && onB.isNull(); ++y)
    for (int x = 0; x < 200; ++x)
      if (w.tokenAt({x, y}) == std::pair{TokenLinesWidget::Side::Query, 1}) {
        onB = {x, y};
        break;
      }
  ASSERT_FALSE(onB.isNull());
  QMouseEvent move(QEvent::MouseMove, QPointF(onB), w.mapToGlobal(QPointF(onB)), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QCoreApplication::sendEvent(&w, &move);
  EXPECT_EQ(w.focusSide(), TokenLinesWidget::Side::Query);
  EXPECT_EQ(w.focusIndex(), 1);
  const auto lines = w.visibleLines();
  ASSERT_EQ(lines.size(), 3u);  // a: 0.5, 0.5; b: 1
  for (const auto& l : lines) EXPECT_EQ(l.query, 1);
  w.setFocusToken(TokenLinesWidget::Side::Key, 2);
  EXPECT_EQ(w.visibleLines().size(), 2u);  // a(2,2) = 0.5, b(0,2) = 1
  EXPECT_NE(headColor(2), headColor(6));
  QImage img(400, 300, QImage::Format_ARGB32);
  QPainter p(&img);
  w.paintLines(p, img.rect());
  p.end();
  EXPECT_GT(nonBackground(img), 200);
}

TEST(CompareView, DifferenceIsCentredOnZero) {
  CompareView v;
  attn::HeadResult a, b;
  a.weights = attn::Mat::Identity(2, 2);
  b.weights.resize(2, 2);
  b.weights << 0.5, 0.5, 0, 1;
  auto s = attn::compareHeads(a, b);
  ASSERT_TRUE(s.ok());
  v.setComparison(a.weights, b.weights, *s, {"x", "y"}, {"x", "y"}, "A", "B");
  const QCPRange r = v.plotDiff()->colorMap()->dataRange();
  EXPECT_DOUBLE_EQ(r.lower, -0.5);
  EXPECT_DOUBLE_EQ(r.upper, 0.5);
  EXPECT_DOUBLE_EQ(v.plotDiff()->colorMap()->data()->cell(1, 0), 0.5);  // B - A at (0, 1)
  EXPECT_TRUE(v.deltasText().contains("max |B − A| = 0.5000")) << v.deltasText().toStdString();
}

TEST(ComparePanel, CausalVersusNoMaskShowsTheHiddenUpperTriangle) {
  ExplorerModel model;
  attn::AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  model.setSpec(spec);
  model.setText("one two three four");
  model.waitForIdle();
  ComparePanel panel(&model);
  panel.maskB()->setText("causal");
  panel.syncB();
  panel.modelB()->waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_TRUE(panel.modelB()->hasResult());
  const auto& diff = panel.view()->plotDiff()->matrix();
  ASSERT_EQ(diff.rows(), 4);
  // B - A above the diagonal is minus A's weight there; the last row is identical.
  EXPECT_FLOAT_EQ(diff(0, 3), -model.result().heads[0].weights(0, 3));
  EXPECT_NEAR(diff.row(3).cwiseAbs().maxCoeff(), 0.0f, 1e-6f);
}

TEST(ToyInputPanel, HeatmapAndStepThroughFollowEachEdit) {
  ToyInputPanel toy;
  ASSERT_TRUE(toy.result().has_value());
  const attn::Mat before = toy.result()->heads[0].weights;
  EXPECT_EQ(toy.heatmap()->matrix(), before);
  // Query 0 = [1,0,0,0]; raising k_0[0] to 5 makes key 0 dominate row 0.
  toy.table(ToyInputPanel::Matrix::K)->item(0, 0)->setText("5");
  ASSERT_TRUE(toy.result().has_value());
  const attn::Mat after = toy.result()->heads[0].weights;
  EXPECT_GT(after(0, 0), before(0, 0));
  // Hand check: scores q0.k = [5, 0, 1, 0] / 2 = [2.5, 0, 0.5, 0].
  const double z = std::exp(2.5) + 1 + std::exp(0.5) + 1;
  EXPECT_NEAR(after(0, 0), std::exp(2.5) / z, 1e-5);
  EXPECT_EQ(toy.heatmap()->matrix(), after);
  EXPECT_NEAR(toy.stepPanel()->walk().weights(0), after(0, 0), 1e-6);
  // Not a number: named, and no stale picture claims to be current.
  toy.table(ToyInputPanel::Matrix::V)->item(1, 2)->setText("abc");
  EXPECT_FALSE(toy.result().has_value());
  EXPECT_TRUE(toy.errorText().contains("V[2, 3]")) << toy.errorText().toStdString();
  toy.table(ToyInputPanel::Matrix::V)->item(1, 2)->setText("−1.5");  // a typographic minus is fine
  ASSERT_TRUE(toy.result().has_value());
  EXPECT_FLOAT_EQ(toy.result()->heads[0].v(1, 2), -1.5f);
  toy.causalToggle()->setChecked(true);
  EXPECT_EQ(toy.result()->heads[0].weights(0, 1), 0.0f);
  toy.resizeTables(3, 2);
  ASSERT_TRUE(toy.result().has_value());
  EXPECT_EQ(toy.result()->heads[0].weights.rows(), 3);
}

TEST(PresentationWindow, KeyboardDrivesStepsQueriesHeadsAndViews) {
  ExplorerModel model;
  attn::AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  model.setSpec(spec);
  model.setText("我 爱 我 的 猫");
  model.waitForIdle();
  auto* win = new PresentationWindow(&model, PresentationWindow::Heatmap | PresentationWindow::StepThrough);
  win->resize(1200, 700);
  win->show();
  QCoreApplication::processEvents();
  press(win, Qt::Key_Right);
  EXPECT_EQ(win->stepThrough()->panel()->step(), 1);
  press(win, Qt::Key_Down);
  press(win, Qt::Key_Down);
  EXPECT_EQ(win->stepThrough()->query(), 2);
  EXPECT_EQ(win->stepThrough()->panel()->walk().query, 2);
  press(win, Qt::Key_H);
  model.waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_EQ(model.currentHead(), 1);
  EXPECT_EQ(win->heatmap()->matrix(), model.result().heads[1].weights);
  EXPECT_FALSE(win->tokenLines()->isVisible());
  press(win, Qt::Key_3);
  EXPECT_TRUE(win->tokenLines()->isVisible());
  EXPECT_EQ(win->tokenLines()->focusIndex(), 2);  // lines of the selected query
  EXPECT_EQ(win->stepThrough()->panel()->theme().background, QColor(Qt::black));
  bool closed = false;
  QObject::connect(win, &PresentationWindow::closed, [&] { closed = true; });
  press(win, Qt::Key_Escape);
  EXPECT_TRUE(closed);
}

TEST(StepThroughView, FollowsTheModelsHeadAndQuery) {
  ExplorerModel model;
  attn::AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  model.setSpec(spec);
  model.setText("a b c d");
  model.waitForIdle();
  StepThroughView view(&model);
  HeatmapWidget heat;
  view.attachHeatmap(&heat);
  view.setQuery(3);
  EXPECT_EQ(model.pinnedRow(), 3);  // the heatmap outlines the row being walked
  model.setCurrentHead(1);
  QCoreApplication::processEvents();
  const auto& walk = view.panel()->walk();
  EXPECT_EQ(walk.query, 3);
  EXPECT_MATRIX_NEAR(walk.weights.transpose(), model.result().heads[1].weights.row(3), 1e-6);
  model.setPinnedRow(1);  // pinning a row in the heatmap walks that row
  EXPECT_EQ(view.query(), 1);
  EXPECT_EQ(view.panel()->walk().query, 1);
  emit heat.cellClicked(2, 0);
  EXPECT_EQ(model.pinnedRow(), 2);
  EXPECT_EQ(view.query(), 2);
  model.setPinnedRow(-1);  // unpinning keeps the row being explained
  EXPECT_EQ(view.query(), 2);
}

}  // namespace
}  // namespace attn::ui
