#pragma once
// The status bar line: N, heads, mechanism, compute time, warnings.
#include <QLabel>

namespace attn {
struct Analysis;
}

namespace attn::ui {

/// One line per collapse kind naming the flagged heads (1-based), from core's flags.
QStringList collapseWarnings(const attn::Analysis& analysis);

class ExplorerModel;

class StatusSummary : public QLabel {
  Q_OBJECT
 public:
  explicit StatusSummary(ExplorerModel* model, QWidget* parent = nullptr);
  /// Warnings other views derive from the result (e.g. collapse flags).
  void setExtraWarnings(const QStringList& warnings);
  /// What the line says of a streamed model run over `tokens` tokens.
  static QString streamedNote(int tokens);

 private:
  void refresh();
  ExplorerModel* model_;
  QStringList extraWarnings_;
};

}  // namespace attn::ui
