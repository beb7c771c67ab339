#pragma once
// A per-row measure of one head as a curve over the query tokens, with the
// per-row uniform bound log(unmasked keys) dashed where the measure has one.
#include <QStringList>
#include <qcustomplot.h>
#include <vector>

namespace attn::ui {

class MetricsRowChart : public QCustomPlot {
  Q_OBJECT
 public:
  explicit MetricsRowChart(QWidget* parent = nullptr);

  /// `bound` empty hides the bound curve; `rowLabels` name the x ticks when
  /// there are few enough rows to read them.
  void setCurve(const std::vector<double>& values, const std::vector<double>& bound, const QStringList& rowLabels,
                const QString& title, const QString& yLabel);

  const std::vector<double>& values() const { return values_; }
  QString title() const { return title_->text(); }

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QCPGraph* curve_;
  QCPGraph* bound_;
  QCPTextElement* title_;
  std::vector<double> values_;
  QStringList labels_;
};

}  // namespace attn::ui
