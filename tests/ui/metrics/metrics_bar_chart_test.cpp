// The per-head bar chart: the uniform bound's label fits above its line
// however short the dock makes the plot.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFontMetricsF>

#include "attn_ui/metrics/metrics_bar_chart.h"

namespace attn::ui {
namespace {

TEST(MetricsBarChart, BoundLabelHasRoomAboveItsLineAtAnyHeight) {
  for (int height : {120, 180, 400}) {
    MetricsBarChart chart;
    chart.resize(320, height);
    chart.show();  // a hidden widget gets its resize event only when shown
    QApplication::processEvents();
    // Entropies close to the bound, as near-uniform heads give.
    chart.setBars({2.5, 2.6, 2.55}, {false, false, false}, "mean entropy (nats)", 2.639, "uniform: log 14 = 2.639 nats");
    chart.replot();  // lays out, then fits the range to the axis rect's height
    chart.replot();
    const double linePx = chart.yAxis->coordToPixel(2.639);
    const double topPx = chart.axisRect()->top();
    ASSERT_LT(chart.axisRect()->height(), height);
    EXPECT_GE(linePx - topPx, QFontMetricsF(chart.font()).height()) << "plot height " << height;
    EXPECT_GE(chart.yAxis->range().upper, 2.639 * 1.12 - 1e-9);
    EXPECT_EQ(chart.yAxis->range().lower, 0.0);
  }
}

TEST(MetricsBarChart, WithoutABoundTheRangeFollowsTheTallestBar) {
  MetricsBarChart chart;
  chart.resize(320, 120);
  chart.show();
  QApplication::processEvents();
  chart.setBars({0.2, 0.9, 0.4}, {false, true, false}, "confidence", -1.0, "");
  chart.replot();
  chart.replot();
  EXPECT_NEAR(chart.yAxis->range().upper, 0.9 * 1.12, 1e-9);
}

}  // namespace
}  // namespace attn::ui
