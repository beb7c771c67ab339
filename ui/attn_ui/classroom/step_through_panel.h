#pragma once
// The step-through panel: one query row of one head, one step at a time —
// its title, its formula and its numbers, with small bar vectors for q, k and
// the values. Keyboard: Right/Space/PageDown next, Left/Backspace/PageUp back,
// Home/End first/last. Every number comes from attn::stepThrough (core).
#include <QStringList>
#include <QWidget>
#include <optional>

#include "attn/teaching/step_through.h"
#include "attn_ui/theme/presentation_theme.h"

namespace attn::ui {

/// What one step shows: a formula and a table, one row per key.
struct StepTable {
  QString title, formula, note;
  QStringList headers;          // column headers after the token column
  struct Row {
    QString label;
    QStringList cells;
    attn::Vec bars;             // a small bar vector (q, k_j, a_j v_j); empty: none
    double bar = 0.0;           // a single bar for a scalar column
    bool hasBar = false;
    bool dimmed = false;        // masked keys
  };
  QString topLabel;             // a vector above the table (q or o), with bars
  attn::Vec topBars;
  std::vector<Row> rows;
};

/// The table for `kind` of `walk` (labels: the key tokens, the query token).
StepTable stepTable(const attn::StepThrough& walk, attn::StepKind kind, const QStringList& keyLabels,
                    const QString& queryLabel);
/// The step's name, e.g. "Scale by √d_k" (translated).
QString stepTitle(attn::StepKind kind);

class StepThroughPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StepThroughPanel(QWidget* parent = nullptr);

  void setWalk(const attn::StepThrough& walk, const QStringList& keyLabels, const QString& queryLabel);
  /// No walk; `message` (e.g. why not) is shown instead.
  void clearWalk(const QString& message = QString());
  bool hasWalk() const { return walk_.has_value(); }
  const attn::StepThrough& walk() const { return *walk_; }

  int step() const { return step_; }
  int stepCount() const { return static_cast<int>(steps_.size()); }
  attn::StepKind stepKind() const { return steps_.at(static_cast<size_t>(step_)); }
  void setTheme(const TeachingTheme& theme);
  const TeachingTheme& theme() const { return theme_; }

  /// Paints the current step into `target` (used by paintEvent and export).
  void paintStep(QPainter& painter, const QRect& target) const;
  QSize sizeHint() const override { return {520, 420}; }

 public slots:
  void setStep(int step);
  void next() { setStep(step_ + 1); }
  void previous() { setStep(step_ - 1); }

 signals:
  void stepChanged(int step);

 protected:
  void paintEvent(QPaintEvent*) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  std::optional<attn::StepThrough> walk_;
  std::vector<attn::StepKind> steps_;
  QStringList keyLabels_;
  QString queryLabel_;
  QString message_;
  int step_ = 0;
  TeachingTheme theme_;
};

}  // namespace attn::ui
