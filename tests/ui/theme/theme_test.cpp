// Light and dark palettes: plots follow the application palette at run time,
// exported figures stay black on white, the choice persists.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QImage>
#include <QSettings>
#include <QTemporaryDir>
#include <QThread>

#include "attn_ui/theme/app_theme.h"
#include "attn_ui/classroom/classroom_actions.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/metrics/metrics_bar_chart.h"
#include "attn_ui/metrics/metrics_panel.h"
#include "attn_ui/theme/plot_theme.h"

namespace attn::ui {
namespace {

struct ThemeReset {
  ~ThemeReset() {
    applyTheme("system");
    QSettings().remove("ui/theme");
  }
};

TEST(Theme, DarkPaletteRecoloursPlotsAndBackAgain) {
  ThemeReset reset;
  HeatmapWidget heat;
  MetricsBarChart bars;
  heat.resize(300, 240);
  const QColor lightBg = heat.axisRect()->backgroundBrush().color();
  applyTheme("dark");
  QCoreApplication::processEvents();
  EXPECT_TRUE(isDarkPalette(QApplication::palette()));
  EXPECT_EQ(heat.axisRect()->backgroundBrush().color(), darkPalette().color(QPalette::Base));
  EXPECT_EQ(heat.xAxis->tickLabelColor(), darkPalette().color(QPalette::Text));
  EXPECT_EQ(bars.yAxis->labelColor(), darkPalette().color(QPalette::Text));
  // The rendered plot is mostly dark.
  attn::Mat m = attn::Mat::Constant(4, 4, 0.25f);
  heat.setMatrix(m, {"a", "b", "c", "d"}, {"a", "b", "c", "d"}, "t");
  const QImage img = heat.toPixmap(300, 240).toImage();
  EXPECT_LT(QColor(img.pixel(2, 2)).lightness(), 80);

  applyTheme("light");
  QCoreApplication::processEvents();
  EXPECT_FALSE(isDarkPalette(QApplication::palette()));
  EXPECT_GT(heat.axisRect()->backgroundBrush().color().lightness(), 200);
  EXPECT_NE(heat.axisRect()->backgroundBrush().color(), darkPalette().color(QPalette::Base));
  (void)lightBg;
}

TEST(Theme, ExportedFiguresStayBlackOnWhiteInDarkMode) {
  ThemeReset reset;
  applyTheme("dark");
  QTemporaryDir dir;
  const QString path = dir.filePath("dark.png");
  FigureOptions o;
  o.title = "dark mode export";
  attn::Mat m = attn::Mat::Constant(3, 3, 1.0f / 3);
  ASSERT_TRUE(exportHeatmap(m, {"x", "y", "z"}, {"x", "y", "z"}, path, o).ok());
  QImage img(path);
  ASSERT_FALSE(img.isNull());
  EXPECT_EQ(QColor(img.pixel(1, 1)), QColor(Qt::white));
}

TEST(Theme, MenuChoicePersistsAndAppliesToTheWindow) {
  ThemeReset reset;
  MainWindow w;
  QAction* dark = w.findChild<QAction*>("theme_dark");
  ASSERT_NE(dark, nullptr);
  dark->trigger();
  QCoreApplication::processEvents();
  EXPECT_EQ(QSettings().value("ui/theme").toString(), "dark");
  EXPECT_EQ(w.heatmap()->axisRect()->backgroundBrush().color(), darkPalette().color(QPalette::Base));
  QAction* system = w.findChild<QAction*>("theme_system");
  ASSERT_NE(system, nullptr);
  system->trigger();
  QCoreApplication::processEvents();
  EXPECT_FALSE(isDarkPalette(QApplication::palette()));
}

}  // namespace
}  // namespace attn::ui

namespace attn::ui {
namespace {

// File > Export offers the metric charts; they come out black on white even
// when the screen is dark, and rollout without layers is refused in words.
TEST(MetricsExport, BarsAndRowCurveExportAndRolloutNeedsLayers) {
  ThemeReset reset;
  MainWindow w;
  w.resize(1280, 820);
  applyTheme("dark");
  QCoreApplication::processEvents();
  EXPECT_TRUE(isDarkPalette(QApplication::palette()));
  w.model()->waitForIdle();
  auto* metrics = w.findChild<MetricsPanel*>();
  auto* actions = w.findChild<ClassroomActions*>();
  ASSERT_NE(metrics, nullptr);
  ASSERT_NE(actions, nullptr);
  for (int i = 0; i < 200 && !metrics->analysis(); ++i) {
    QCoreApplication::processEvents();
    QThread::msleep(10);
  }
  ASSERT_NE(metrics->analysis(), nullptr);
  ASSERT_EQ(metrics->barChart()->axisRect()->backgroundBrush().color(), darkPalette().color(QPalette::Base));
  EXPECT_TRUE(actions->figureViewNames().contains(QObject::tr("Metrics: per-head bars")));
  QTemporaryDir dir;
  QString error;
  for (auto view : {ClassroomActions::MetricsBars, ClassroomActions::MetricsRows, ClassroomActions::HeadSimilarity}) {
    const QString path = dir.filePath(QStringLiteral("m%1.png").arg(int(view)));
    FigureOptions o;
    o.size = QSize(640, 400);
    ASSERT_TRUE(actions->exportFigure(view, path, o, &error)) << error.toStdString();
    const QImage img(path);
    ASSERT_EQ(img.size(), QSize(640, 400));
    EXPECT_EQ(QColor(img.pixel(1, 1)), QColor(Qt::white));  // figure theme, not the dark screen
    int coloured = 0;
    for (int y = 0; y < img.height(); y += 4)
      for (int x = 0; x < img.width(); x += 4) coloured += img.pixel(x, y) != img.pixel(1, 1);
    EXPECT_GT(coloured, 300) << int(view);
  }
  // The on-screen chart went back to the dark palette.
  EXPECT_EQ(metrics->barChart()->axisRect()->backgroundBrush().color(), darkPalette().color(QPalette::Base));
  EXPECT_FALSE(actions->exportFigure(ClassroomActions::Rollout, dir.filePath("r.png"), FigureOptions{}, &error));
  EXPECT_TRUE(error.contains("layers")) << error.toStdString();
  EXPECT_FALSE(QFile::exists(dir.filePath("r.png")));
}

}  // namespace
}  // namespace attn::ui
