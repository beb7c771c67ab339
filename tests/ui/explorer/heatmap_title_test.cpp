// The heatmap's title at a laptop's width: a title wider than the map's column goes on
// two lines broken at a " — " (every word kept), and is elided only when a line still
// does not fit.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFontMetrics>

#include "attn_ui/explorer/heatmap_widget.h"

namespace attn::ui {
namespace {

const QString kStreamedTitle =
    QStringLiteral("Weights — layer 2 of 4, head 3 of 8 — longgui_llama — max of 4 × 4 blocks");

TEST(HeatmapTitle, FitsWholeOnOneLineWhenThereIsRoom) {
  const QFontMetrics fm(QApplication::font());
  EXPECT_EQ(fittedTitle(kStreamedTitle, fm, fm.horizontalAdvance(kStreamedTitle) + 1), kStreamedTitle);
}

TEST(HeatmapTitle, BreaksAtTheLastSeparatorThatLetsTheFirstLineFit) {
  const QFontMetrics fm(QApplication::font());
  const QString first = QStringLiteral("Weights — layer 2 of 4, head 3 of 8 — longgui_llama");
  const QString fitted = fittedTitle(kStreamedTitle, fm, fm.horizontalAdvance(first) + 2);
  EXPECT_EQ(fitted, first + QStringLiteral("\nmax of 4 × 4 blocks"));
  // Narrower: the break moves left and the rest still fits on the second line.
  const QString shortFirst = QStringLiteral("Weights — layer 2 of 4, head 3 of 8");
  const QString rest = QStringLiteral("longgui_llama — max of 4 × 4 blocks");
  const int w = std::max(fm.horizontalAdvance(shortFirst), fm.horizontalAdvance(rest)) + 2;
  ASSERT_LT(w, fm.horizontalAdvance(first));
  EXPECT_EQ(fittedTitle(kStreamedTitle, fm, w), shortFirst + QLatin1Char('\n') + rest);
}

TEST(HeatmapTitle, ElidesOnlyWhatStillDoesNotFit) {
  const QFontMetrics fm(QApplication::font());
  const int w = fm.horizontalAdvance(QStringLiteral("Weights")) + 2;  // no part but the first fits
  const QString fitted = fittedTitle(kStreamedTitle, fm, w);
  EXPECT_TRUE(fitted.startsWith(QStringLiteral("Weights\n"))) << fitted.toStdString();
  EXPECT_TRUE(fitted.endsWith(QStringLiteral("…"))) << fitted.toStdString();
  EXPECT_FALSE(fittedTitle(QStringLiteral("one-long-title-without-separators"), fm, 30).contains('\n'));
}

TEST(HeatmapTitle, TheDrawnTitleKeepsEveryWordAt1366Wide) {
  HeatmapWidget heatmap;
  heatmap.resize(750, 600);  // the central column of a 1366-pixel window beside its two dock columns
  heatmap.setMatrix(attn::Mat::Constant(8, 8, 0.125f), {}, {}, kStreamedTitle);
  heatmap.show();
  QCoreApplication::processEvents();
  const QString drawn = heatmap.drawnTitle();
  EXPECT_FALSE(drawn.contains(QStringLiteral("…"))) << drawn.toStdString();
  QString joined = drawn;
  joined.replace(QStringLiteral("\n"), QStringLiteral(" — "));
  EXPECT_EQ(joined, kStreamedTitle);
}

}  // namespace
}  // namespace attn::ui
