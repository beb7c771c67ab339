// The "Attention variants" panel (offscreen): each variant runs on the
// explorer's input, draws its maps, walks a row, and exports a figure. The
// expected numbers come from the definitions (hop 1 = the explorer's own
// weights; fp32 map = the explorer's map; the span ramp by hand; a segment's
// memory columns), not from the panel.
// Set ATTN_UI_SHOTS=DIR to also write a PNG of each variant's figure.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QFile>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>

#include "attn/attn.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/variants/variant_chart_widget.h"
#include "attn_ui/variants/variant_maps_widget.h"
#include "attn_ui/variants/variants_panel.h"

namespace attn::ui {
namespace {
namespace av = attn::variants;

const char* kVariantsPanelText = "the cat sat on the mat and then it slept";  // 10 tokens

void load(ExplorerModel& m) {
  AttentionSpec s;
  s.heads = 2;
  s.dModel = 16;
  s.mask = Mask::causal();
  m.setSpec(s);
  m.setText(kVariantsPanelText);
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
}

void variantsShot(VariantsPanel& p, const char* name) {
  const QByteArray dir = qgetenv("ATTN_UI_SHOTS");
  if (dir.isEmpty()) return;
  ASSERT_TRUE(p.exportFigure(QString("%1/variant_%2.png").arg(QString(dir), name), {1400, 700}).ok());
}

TEST(VariantsPanel, SegmentMemorySetsTheMemoryColumnsApart) {
  ExplorerModel m;
  load(m);
  VariantsPanel p(&m);
  p.setVariant(av::VariantKind::SegmentMemory);
  p.segmentBox()->setValue(4);
  p.memoryBox()->setValue(3);
  ASSERT_TRUE(p.run().has_value()) << p.message().toStdString();
  const auto& maps = p.mapsWidget()->maps();
  ASSERT_EQ(maps.size(), 2u);
  // The last segment holds tokens 8, 9; its memory tokens 5, 6, 7.
  EXPECT_EQ(maps[0].memoryColumns, 3);
  EXPECT_EQ(maps[0].values.cols(), 5);
  EXPECT_EQ(maps[0].colLabels.front(), "mat");
  p.rowBox()->setValue(9);
  ASSERT_EQ(p.steps().size(), 5u);
  EXPECT_FALSE(p.chartWidget()->isEmpty());
  variantsShot(p, "xl");
}

TEST(VariantsPanel, SpanSlidersSetZPerHead) {
  ExplorerModel m;
  load(m);
  VariantsPanel p(&m);
  p.setVariant(av::VariantKind::AdaptiveSpan);
  ASSERT_EQ(p.spanSliders().size(), 2u);
  p.spanSliders()[1]->setValue(0);  // z = 0
  ASSERT_TRUE(p.run().has_value()) << p.message().toStdString();
  const auto& s = p.run()->span[1];
  EXPECT_EQ(s.z, 0.0);
  // R = 2, z = 0: m(0) = 1, m(1) = 0.5, m(2) = 0.
  EXPECT_FLOAT_EQ(s.ramp(1), 0.5f);
  EXPECT_FLOAT_EQ(s.ramp(2), 0.0f);
  EXPECT_EQ(p.chartWidget()->series().size(), 2u);
  EXPECT_EQ(p.steps().size(), 3u);
  variantsShot(p, "span");
}

TEST(VariantsPanel, FirstHopIsTheExplorersMap) {
  ExplorerModel m;
  load(m);
  VariantsPanel p(&m);
  p.setVariant(av::VariantKind::MultiHop);
  p.hopsBox()->setValue(3);
  ASSERT_TRUE(p.run().has_value()) << p.message().toStdString();
  ASSERT_EQ(p.mapsWidget()->maps().size(), 3u);
  EXPECT_LT((p.mapsWidget()->maps()[0].values - m.result().heads[0].weights).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_EQ(p.steps().size(), 3u);
  variantsShot(p, "hops");
}

TEST(VariantsPanel, PrecisionComparesWithTheExplorersMap) {
  ExplorerModel m;
  load(m);
  VariantsPanel p(&m);
  p.setVariant(av::VariantKind::Precision);
  p.precisionBox()->setCurrentIndex(3);  // int8-channel
  ASSERT_TRUE(p.run().has_value()) << p.message().toStdString();
  const auto& maps = p.mapsWidget()->maps();
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_LT((maps[0].values - m.result().heads[0].weights).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_TRUE(maps[2].isError);
  EXPECT_GE(p.steps().size(), 4u);
  variantsShot(p, "precision");
}

TEST(VariantsPanel, DynamicConvAndFigureExport) {
  ExplorerModel m;
  load(m);
  VariantsPanel p(&m);
  p.setVariant(av::VariantKind::DynamicConv);
  ASSERT_TRUE(p.run().has_value()) << p.message().toStdString();
  const Mat& band = p.mapsWidget()->maps()[0].values;
  EXPECT_EQ(band(5, 2), 0.0f);  // k = 3, causal: keys 3..5 only
  EXPECT_GT(band(5, 3), 0.0f);
  QTemporaryDir dir;
  const QString svg = dir.filePath("v.svg");
  ASSERT_TRUE(p.exportFigure(svg).ok());
  QFile f(svg);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_TRUE(f.readAll().contains("slept"));  // token labels stay text
  EXPECT_FALSE(p.exportFigure(dir.filePath("v.txt")).ok());
  variantsShot(p, "dynconv");
}

TEST(VariantsPanel, SelectorHasATooltipPerVariant) {
  ExplorerModel m;
  VariantsPanel p(&m);
  ASSERT_EQ(p.variantBox()->count(), 5);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(p.variantBox()->itemData(i, Qt::ToolTipRole).toString().isEmpty());
  EXPECT_FALSE(p.message().isEmpty());  // no result yet
}

TEST(VariantsPanel, SegmentMemoryOnACausalModelShowsItsKeyValueCache) {
  auto gpt2 = attn::models::Model::open(std::string(ATTN_FIXTURE_DIR) + "/models/gpt2");
  ASSERT_TRUE(gpt2.ok()) << gpt2.error().message;
  ExplorerModel m;
  m.setModel(*gpt2);
  m.setText("The animal didn't cross the street");
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
  VariantsPanel p(&m);
  p.setVariant(av::VariantKind::SegmentMemory);
  p.rowBox()->setValue(4);
  QCoreApplication::processEvents();
  ASSERT_TRUE(p.kvCacheShown()) << p.message().toStdString();
  EXPECT_TRUE(p.message().isEmpty()) << p.message().toStdString();
  // Token 4 over its 4 cached keys (memory columns) and its own: row 4 of the shown layer's map.
  const auto& maps = p.mapsWidget()->maps();
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0].memoryColumns, 4);
  ASSERT_EQ(maps[0].values.cols(), 5);
  const attn::Mat& w = m.result().heads[0].weights;
  for (int j = 0; j < 5; ++j) EXPECT_FLOAT_EQ(maps[0].values(0, j), w(4, j)) << j;
  EXPECT_EQ(maps[1].values.row(5).cwiseAbs().sum(), 0.0f);  // not generated yet
  EXPECT_EQ(p.steps().size(), 4u);
  EXPECT_TRUE(p.summaryText().contains("cached")) << p.summaryText().toStdString();
  // Another token follows the spin box; the figure exports.
  p.rowBox()->setValue(2);
  EXPECT_EQ(p.mapsWidget()->maps()[0].values.cols(), 3);
  QTemporaryDir dir;
  ASSERT_TRUE(p.exportFigure(dir.filePath("kv.png")).ok());
  variantsShot(p, "kv_cache");
  // The other variants say what they need.
  p.setVariant(av::VariantKind::MultiHop);
  EXPECT_FALSE(p.kvCacheShown());
  EXPECT_TRUE(p.message().contains("key/value cache")) << p.message().toStdString();
}

}  // namespace
}  // namespace attn::ui
