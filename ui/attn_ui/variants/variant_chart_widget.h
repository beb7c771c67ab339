#pragma once
// A small line chart for the variants' per-head curves: the adaptive-span
// ramps m_z(x) over the distance x, the mean entropy per hop. One colour per
// head; the same paint function serves the screen and the figure export.
#include <QStringList>
#include <QWidget>
#include <vector>

class QPainter;

namespace attn::ui {

class VariantChartWidget : public QWidget {
  Q_OBJECT
 public:
  explicit VariantChartWidget(QWidget* parent = nullptr);

  /// series[s][x] for x = xStart, xStart + 1, ...; names label the series.
  void setSeries(const QString& title, const QString& xLabel, const QString& yLabel,
                 std::vector<std::vector<double>> series, QStringList names, int xStart = 0);
  void clear();
  bool isEmpty() const { return series_.empty(); }
  const std::vector<std::vector<double>>& series() const { return series_; }
  void paintChart(QPainter& painter, const QRect& target, bool figure = false) const;
  QSize sizeHint() const override { return {360, 160}; }
  static QColor seriesColour(int index);

 protected:
  void paintEvent(class QPaintEvent*) override;

 private:
  QString title_, xLabel_, yLabel_;
  std::vector<std::vector<double>> series_;
  QStringList names_;
  int xStart_ = 0;
};

}  // namespace attn::ui
