#pragma once
// A curve over training steps (loss, accuracy, per-head entropy, gradient
// norms): several named series, an optional dashed reference line (log N for
// entropy), and a vertical marker at the step the scrubber shows. Series of a
// second run (a demonstration's "B") are drawn dashed in the same colours.
#include <QColor>
#include <QString>
#include <QVector>
#include <qcustomplot.h>

namespace attn::ui {

struct CurveSeries {
  QString name;
  QColor color;
  QVector<double> steps;
  QVector<double> values;
  bool dashed = false;
};

class TrainingCurveChart : public QCustomPlot {
  Q_OBJECT
 public:
  explicit TrainingCurveChart(const QString& title, const QString& yLabel, QWidget* parent = nullptr);

  /// Replaces every series; the x range covers the longest one.
  void setSeries(const QVector<CurveSeries>& series);
  /// A dashed horizontal line at `value` named `label`; NaN hides it.
  void setReference(double value, const QString& label);
  /// Draws the step marker at `step` (< 0 hides it).
  void setMarker(double step);
  /// A labelled dotted vertical line at `step` (an event such as a phase change); < 0 hides it.
  void setEvent(double step, const QString& label);
  double eventStep() const { return eventStep_; }
  QString eventLabel() const;
  /// Where the legend sits inside the plot (default: top right).
  void setLegendAlignment(Qt::Alignment a) { axisRect()->insetLayout()->setInsetAlignment(0, a); }
  /// Log-scaled value axis (gradient norms span decades).
  void setLogScale(bool on);
  /// Fixed value range (accuracy: [0, 1]); lo >= hi lets the data decide.
  void setValueRange(double lo, double hi);

  int seriesCount() const { return graphCount(); }
  /// The data of series i as drawn (steps, values).
  QVector<double> seriesSteps(int i) const;
  QVector<double> seriesValues(int i) const;
  QString seriesName(int i) const;
  double marker() const { return markerStep_; }
  QString title() const { return title_->text(); }

 private:
  void rescale();

  QCPTextElement* title_;
  QCPItemStraightLine* marker_;
  QCPItemStraightLine* reference_;
  QCPItemText* referenceText_;
  QCPItemStraightLine* event_;
  QCPItemText* eventText_;
  double markerStep_ = -1;
  double eventStep_ = -1;
  double referenceValue_;
  double fixedLo_ = 0, fixedHi_ = 0;
  bool log_ = false;
};

}  // namespace attn::ui
