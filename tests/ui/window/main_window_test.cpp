// Widget smoke tests (offscreen): the window opens on the example, controls
// reach the model, the heatmap holds exactly the model's numbers.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>

#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/explorer/mask_selector.h"
#include "attn_ui/window/session_controller.h"

namespace attn::ui {
namespace {

void settleMainWindow(MainWindow& w) {
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
}

TEST(MainWindow, StartsOnTheExampleAndShowsAHeatmap) {
  MainWindow w;
  w.show();
  settleMainWindow(w);
  ASSERT_TRUE(w.model()->hasResult());
  const auto& m = w.heatmap()->matrix();
  EXPECT_EQ(m.rows(), 14);  // the bundled sentence has 14 tokens
  EXPECT_EQ(m.cols(), 14);
  EXPECT_EQ(w.heatmapPanel()->headSelector()->maximum(), w.model()->result().numHeads());
  EXPECT_EQ(m, w.model()->result().heads[0].weights);
}

TEST(MainWindow, ChoosingTheCausalMaskChangesTheHeatmap) {
  MainWindow w;
  settleMainWindow(w);
  const attn::Mat before = w.heatmap()->matrix();
  EXPECT_GT(before(0, before.cols() - 1), 0.0f);
  w.configPanel()->maskSelector()->familyCheck("causal")->setChecked(true);
  settleMainWindow(w);
  const attn::Mat after = w.heatmap()->matrix();
  ASSERT_EQ(after.rows(), before.rows());
  EXPECT_EQ(after(0, after.cols() - 1), 0.0f);  // masked: exactly zero
  EXPECT_EQ(after(0, 0), 1.0f);
  EXPECT_EQ(after, w.model()->result().heads[0].weights);
  EXPECT_DOUBLE_EQ(w.heatmap()->colorMap()->data()->cell(0, 0), 1.0);
}

TEST(MainWindow, HeadSelectorAndTemperatureReachTheModel) {
  MainWindow w;
  settleMainWindow(w);
  w.heatmapPanel()->headSelector()->setValue(3);
  QCoreApplication::processEvents();
  EXPECT_EQ(w.model()->currentHead(), 2);
  EXPECT_EQ(w.heatmap()->matrix(), w.model()->result().heads[2].weights);

  auto* t = w.configPanel()->temperatureSlider();
  t->setValue(ConfigPanel::temperatureToSlider(0.5));
  settleMainWindow(w);
  EXPECT_NEAR(w.model()->spec().temperature, 0.5, 0.01);
  EXPECT_EQ(w.heatmap()->matrix(), w.model()->result().heads[2].weights);
}

TEST(MainWindow, QuantitySelectorDrawsLogitsWithMaskedCellsAsNaN) {
  MainWindow w;
  settleMainWindow(w);
  w.configPanel()->maskSelector()->familyCheck("causal")->setChecked(true);
  settleMainWindow(w);
  auto* q = w.heatmapPanel()->quantitySelector();
  q->setCurrentIndex(q->findData(int(HeatmapQuantity::ScaledLogits)));
  const auto& head = w.model()->result().heads[0];
  const attn::Mat& m = w.heatmap()->matrix();
  EXPECT_EQ(m(1, 0), head.scaledLogits(1, 0));
  EXPECT_TRUE(std::isnan(m(0, 1)));
  q->setCurrentIndex(q->findData(int(HeatmapQuantity::Mask)));
  EXPECT_EQ(w.heatmap()->matrix()(0, 1), 0.0f);
  EXPECT_EQ(w.heatmap()->matrix()(1, 0), 1.0f);
  const QString hover = w.heatmapPanel()->hoverText(0, 1);
  EXPECT_TRUE(hover.contains("masked")) << hover.toStdString();
  EXPECT_TRUE(hover.contains("weight 0")) << hover.toStdString();
}

TEST(MainWindow, BadInputShowsAMessageAndKeepsTheView) {
  MainWindow w;
  settleMainWindow(w);
  const attn::Mat before = w.heatmap()->matrix();
  w.inputPanel()->queryEdit()->setPlainText("   ");
  settleMainWindow(w);
  EXPECT_FALSE(w.heatmapPanel()->errorBanner()->isHidden());
  EXPECT_TRUE(w.heatmapPanel()->errorBanner()->text().contains("no tokens"));
  EXPECT_EQ(w.heatmap()->matrix(), before);
  w.inputPanel()->queryEdit()->setPlainText("back to work");
  settleMainWindow(w);
  EXPECT_TRUE(w.heatmapPanel()->errorBanner()->isHidden());
  EXPECT_EQ(w.heatmap()->matrix().rows(), 3);
}

TEST(MainWindow, PanelsAreListedInTheViewMenu) {
  MainWindow w;
  auto* extra = new QLabel("extra");
  extra->setObjectName("ExtraPanel");
  QDockWidget* dock = w.addPanel("Extra", extra, Qt::BottomDockWidgetArea);
  EXPECT_EQ(dock->objectName(), "ExtraPanelDock");
  bool listed = false;
  for (QAction* a : w.viewMenu()->findChildren<QMenu*>().value(0)->actions())
    listed |= a == dock->toggleViewAction();
  EXPECT_TRUE(listed);
  QMenu* exp = w.menu("&Export");
  EXPECT_EQ(w.menu("&Export"), exp);  // found, not created twice
  EXPECT_EQ(w.menuBar()->actions().last()->text(), "&Help");  // new menus go before Help
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

namespace attn::ui {
namespace {

TEST(SessionController, SaveThenOpenRestoresInputConfigurationAndView) {
  QTemporaryDir dir;
  const QString path = dir.filePath("s.json");
  {
    MainWindow w;
    settleMainWindow(w);
    w.inputPanel()->queryEdit()->setPlainText("alpha beta gamma delta");
    w.configPanel()->maskSelector()->familyCheck("causal")->setChecked(true);
    w.configPanel()->headsSpin()->setValue(8);
    settleMainWindow(w);
    w.model()->setCurrentHead(5);
    w.model()->setPinnedRow(2);
    w.heatmapPanel()->setQuantityKey("raw_logits");
    w.heatmapPanel()->setColormapName("magma");
    ASSERT_TRUE(w.sessions()->savePath(path));
  }
  MainWindow w;
  settleMainWindow(w);
  ASSERT_TRUE(w.sessions()->openPath(path));
  settleMainWindow(w);
  EXPECT_EQ(w.model()->text(), "alpha beta gamma delta");
  EXPECT_EQ(w.model()->spec().heads, 8);
  EXPECT_EQ(w.model()->spec().mask.spec(), "causal");
  EXPECT_EQ(w.model()->currentHead(), 5);
  EXPECT_EQ(w.model()->pinnedRow(), 2);
  EXPECT_EQ(w.heatmapPanel()->quantityKey(), "raw_logits");
  EXPECT_EQ(w.heatmapPanel()->colormapSelector()->currentData().toString(), "magma");
  EXPECT_EQ(w.heatmap()->matrix().rows(), 4);

  // A broken file: message, nothing changes.
  QFile bad(dir.filePath("bad.json"));
  ASSERT_TRUE(bad.open(QIODevice::WriteOnly));
  bad.write(R"({"format":"attnscope-session","version":1,"config":{"heads":-3}})");
  bad.close();
  EXPECT_FALSE(w.sessions()->openPath(bad.fileName()));
  EXPECT_EQ(w.model()->spec().heads, 8);
}

}  // namespace
}  // namespace attn::ui

namespace attn::ui {
namespace {

TEST(MainWindow, TiledPathAndMetricsOnlyViewNeverIndexMissingMatrices) {
  MainWindow w;
  w.show();
  settleMainWindow(w);
  QString text;
  for (int i = 0; i < 600; ++i) text += QStringLiteral("t%1 ").arg(i);
  w.inputPanel()->queryEdit()->setPlainText(text);  // 600 > 512: auto runs the tiled path
  settleMainWindow(w);
  ASSERT_EQ(w.model()->result().nq(), 600);
  EXPECT_EQ(w.heatmap()->matrix().rows(), 600);  // weights are kept
  // The tiled path keeps the scaled logits of the map it materializes; the
  // raw logits are scaled / (1/sqrt(d_k)) (hover and the logits views work).
  const auto& h0 = w.model()->result().heads[0];
  ASSERT_EQ(h0.scaledLogits.rows(), 600);
  const float scale = logitScale(w.model()->resultSpec().mechanism, h0.q.cols(), w.model()->resultSpec().temperature);
  const QString hover = w.heatmapPanel()->hoverText(5, 7);
  EXPECT_FALSE(hover.contains("not kept")) << hover.toStdString();
  EXPECT_TRUE(hover.contains(QString::number(h0.scaledLogits(5, 7), 'g', 5))) << hover.toStdString();
  EXPECT_TRUE(hover.contains(QString::number(h0.scaledLogits(5, 7) / scale, 'g', 5))) << hover.toStdString();
  auto* q = w.heatmapPanel()->quantitySelector();
  q->setCurrentIndex(q->findData(int(HeatmapQuantity::RawLogits)));
  EXPECT_TRUE(w.heatmapPanel()->errorBanner()->isHidden());  // drawn, nothing to explain
  EXPECT_EQ(w.heatmap()->matrix().rows(), 600);
  EXPECT_NEAR(w.heatmap()->matrix()(5, 7), h0.scaledLogits(5, 7) / scale, 1e-4);
  q->setCurrentIndex(q->findData(int(HeatmapQuantity::Weights)));

  // Over the limit: an error with the offer; accepting it gives metrics only.
  w.model()->setMaxMaterializedTokens(200);
  w.model()->recompute();
  settleMainWindow(w);
  EXPECT_TRUE(w.heatmapPanel()->errorBanner()->text().contains("Compute metrics only"));
  EXPECT_EQ(w.heatmap()->matrix().rows(), 600);  // previous view kept
  w.model()->setMetricsOnlyAllowed(true);
  settleMainWindow(w);
  ASSERT_TRUE(w.model()->isMetricsOnly());
  EXPECT_EQ(w.model()->result().heads[0].entropy.size(), 600);
  EXPECT_EQ(w.heatmap()->matrix().size(), 0);
  EXPECT_TRUE(w.heatmapPanel()->errorBanner()->text().contains("Metrics-only"));
  EXPECT_TRUE(w.heatmapPanel()->hoverText(1, 1).isEmpty());
}

}  // namespace
}  // namespace attn::ui

namespace attn::ui {
namespace {

TEST(MainWindow, EveryMechanismFromCoreIsOfferedAndComputesExactlyAsCore) {
  MainWindow w;
  settleMainWindow(w);
  auto* mech = w.configPanel()->mechanismSelector();
  EXPECT_EQ(mech->count(), static_cast<int>(attn::allMechanisms().size()));
  mech->setCurrentIndex(mech->findData("additive"));
  settleMainWindow(w);
  ASSERT_EQ(w.model()->resultSpec().mechanism, attn::Mechanism::Additive);
  auto in = attn::inputFromTokens(w.model()->result().queryTokens, w.model()->spec().dModel, w.model()->spec().seed);
  auto ref = attn::runAttention(in, w.model()->spec());
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_EQ(w.heatmap()->matrix(), ref->heads[0].weights);
}

}  // namespace
}  // namespace attn::ui
