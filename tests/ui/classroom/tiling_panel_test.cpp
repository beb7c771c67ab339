// The "Tiling & approximation" panel (offscreen): the path that ran and what
// auto picked, the approximate paths' error, and the tiled teaching view whose
// trace must end at the engine's own entropy of the row.
// Set ATTN_UI_SHOTS=DIR to also write a PNG of the panel.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSpinBox>
#include <QTableWidget>

#include "attn/attn.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/classroom/tiling_panel.h"

namespace attn::ui {
namespace {

const char* kTilingPanelText = "the cat sat on the mat and then it slept for a while";  // 13 tokens

AttentionSpec tilingSpec() {
  AttentionSpec s;
  s.heads = 2;
  s.dModel = 16;
  return s;
}

TEST(TilingPanel, CausalScheduleAndRowTraceMatchTheEngine) {
  ExplorerModel m;
  auto spec = tilingSpec();
  spec.mask = Mask::causal();
  m.setSpec(spec);
  m.setText(kTilingPanelText);
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
  TilingPanel p(&m);
  p.tileSizeBox()->setValue(4);
  p.rowBox()->setValue(9);
  ASSERT_TRUE(p.view().has_value()) << p.message().toStdString();
  const auto& v = *p.view();
  // 13 tokens in tiles of 4: 4 x 4 tiles; causal computes the 10 on or below
  // the diagonal (4 of them mixed) and skips the 6 above it.
  EXPECT_EQ(v.schedule.numQueryBlocks, 4);
  EXPECT_EQ(v.schedule.numKeyBlocks, 4);
  EXPECT_EQ(v.schedule.computedTiles(), 10);
  EXPECT_EQ(v.schedule.states[0 * 4 + 1], BlockState::AllMasked);
  EXPECT_EQ(v.schedule.states[3 * 4 + 0], BlockState::AllAllowed);
  EXPECT_EQ(v.schedule.states[2 * 4 + 2], BlockState::Mixed);
  // Row 9 sits in query tile 2: key tiles 0, 1 full, tile 2 (keys 8-11) mixed, tile 3 skipped.
  EXPECT_EQ(v.trace.queryBlock, 2);
  ASSERT_EQ(p.traceTable()->rowCount(), 4);
  EXPECT_EQ(p.traceTable()->item(0, 0)->text(), "0–3");
  EXPECT_EQ(v.trace.steps[3].state, BlockState::AllMasked);
  // The online pass ends where the engine's entropy of the row is.
  EXPECT_NEAR(v.trace.finalEntropy, m.result().heads[0].entropy[9], 1e-5);
  EXPECT_NEAR(v.trace.finalEntropy, v.engineEntropy, 1e-5);
  // The running normalizer after the last computed tile: sum_j e^(s_j - m) over keys 0..9.
  const auto& h = m.result().heads[0];
  double l = 0;
  for (int j = 0; j <= 9; ++j) l += std::exp(double(h.scaledLogits(9, j)) - v.trace.steps[2].runningMax);
  EXPECT_NEAR(v.trace.steps[2].runningSum, l, 1e-4);
  EXPECT_TRUE(p.pathText().contains("naive")) << p.pathText().toStdString();
  EXPECT_TRUE(p.pathText().contains("picked by auto")) << p.pathText().toStdString();
  EXPECT_TRUE(p.errorText().isEmpty());
  // The pinned row drives the trace.
  m.setPinnedRow(2);
  EXPECT_EQ(p.view()->row, 2);
  EXPECT_EQ(p.view()->trace.queryBlock, 0);
  if (qEnvironmentVariableIsSet("ATTN_UI_SHOTS")) {
    p.resize(520, 760);
    p.show();
    QCoreApplication::processEvents();
    p.grab().save(qEnvironmentVariable("ATTN_UI_SHOTS") + "/tiling_panel.png");
  }
}

TEST(TilingPanel, ShowsTheApproximationErrorOfPerformer) {
  ExplorerModel m;
  auto spec = tilingSpec();
  spec.exec = ExecPath::Performer;
  m.setSpec(spec);
  m.setText(kTilingPanelText);
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
  TilingPanel p(&m);
  const auto& e = *m.result().heads[0].approxError;
  EXPECT_TRUE(p.pathText().contains("performer")) << p.pathText().toStdString();
  EXPECT_TRUE(p.pathText().contains("chosen"));
  EXPECT_TRUE(p.errorText().contains(QString::number(e.weightsFrobenius, 'g', 4))) << p.errorText().toStdString();
  EXPECT_TRUE(p.errorText().contains(QString::number(e.meanRowKl, 'g', 4))) << p.errorText().toStdString();
  m.setCurrentHead(1);
  const auto& e1 = *m.result().heads[1].approxError;
  EXPECT_TRUE(p.errorText().startsWith("Head 2"));
  EXPECT_TRUE(p.errorText().contains(QString::number(e1.weightsFrobenius, 'g', 4)));
}

TEST(TilingPanel, AdditiveMechanismSaysWhyThereIsNoTiledView) {
  ExplorerModel m;
  auto spec = tilingSpec();
  spec.mechanism = Mechanism::Additive;
  spec.exec = ExecPath::Tiled;
  m.setSpec(spec);
  m.setText(kTilingPanelText);
  m.waitForIdle();
  TilingPanel p(&m);
  EXPECT_FALSE(p.view().has_value());
  EXPECT_TRUE(p.message().contains("additive")) << p.message().toStdString();
  EXPECT_TRUE(p.pathText().contains("asked for tiled")) << p.pathText().toStdString();
  EXPECT_EQ(p.traceTable()->rowCount(), 0);
}

}  // namespace
}  // namespace attn::ui
