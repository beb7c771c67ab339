#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QImage>
#include <QSpinBox>
#include <QTemporaryDir>

#include "attn_ui/explorer_model.h"
#include "attn_ui/figure_export.h"
#include "attn_ui/heatmap_widget.h"
#include "attn_ui/main_window.h"

namespace attn::ui {
namespace {

TEST(MainWindowSlice, StartsOnTheExampleAndShowsAHeatmap) {
  MainWindow w;
  w.show();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_TRUE(w.model()->hasResult());
  const auto& m = w.heatmap()->matrix();
  EXPECT_EQ(m.rows(), 14);  // the bundled sentence has 14 tokens
  EXPECT_EQ(m.cols(), 14);
  EXPECT_EQ(w.headSelector()->maximum(), w.model()->result().numHeads());
}

TEST(MainWindowSlice, TogglingTheMaskChangesTheHeatmap) {
  MainWindow w;
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  const attn::Mat before = w.heatmap()->matrix();
  EXPECT_GT(before(0, before.cols() - 1), 0.0f);
  w.causalToggle()->setChecked(true);
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  const attn::Mat after = w.heatmap()->matrix();
  ASSERT_EQ(after.rows(), before.rows());
  EXPECT_EQ(after(0, after.cols() - 1), 0.0f);  // masked: exactly zero
  EXPECT_EQ(after(0, 0), 1.0f);
  EXPECT_EQ(after, w.model()->result().heads[0].weights);  // exactly what core computed
  // The heatmap's colour map holds the same numbers.
  EXPECT_DOUBLE_EQ(w.heatmap()->colorMap()->data()->cell(0, 0), 1.0);
}

TEST(MainWindowSlice, HeadSelectorSwitchesHeads) {
  MainWindow w;
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  w.headSelector()->setValue(3);
  QCoreApplication::processEvents();
  EXPECT_EQ(w.model()->currentHead(), 2);
  EXPECT_EQ(w.heatmap()->matrix(), w.model()->result().heads[2].weights);
}

TEST(ExplorerModel, StaleResultsNeverOverwriteNewer) {
  ExplorerModel m;
  int delivered = 0;
  QObject::connect(&m, &ExplorerModel::resultChanged, [&] { ++delivered; });
  attn::AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  m.setSpec(spec);
  m.setText("one two three");
  m.setText("one two three four five");
  m.setCausal(true);
  m.waitForIdle();
  ASSERT_TRUE(m.hasResult());
  EXPECT_EQ(delivered, 1);  // only the newest request was delivered
  EXPECT_EQ(m.result().nq(), 5);
  EXPECT_EQ(m.result().heads[0].weights(0, 4), 0.0f);
}

TEST(FigureExport, PngHasRequestedSizeAndContent) {
  QTemporaryDir dir;
  attn::Mat v(3, 3);
  v << 1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5;
  FigureOptions o;
  o.size = QSize(400, 300);
  const QString path = dir.filePath("f.png");
  ASSERT_TRUE(exportHeatmap(v, {"a", "b", "c"}, {"a", "b", "c"}, path, o).ok());
  QImage img(path);
  ASSERT_FALSE(img.isNull());
  EXPECT_EQ(img.size(), QSize(400, 300));
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 5)
    for (int x = 0; x < img.width(); x += 5) colours.insert(img.pixel(x, y));
  EXPECT_GT(colours.size(), 5);
  EXPECT_FALSE(exportHeatmap(v, {}, {}, dir.filePath("f.bmpx"), o).ok());
}

}  // namespace
}  // namespace attn::ui
