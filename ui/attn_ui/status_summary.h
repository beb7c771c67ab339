#pragma once
// The status bar line: N, heads, mechanism, compute time, warnings.
#include <QLabel>

namespace attn::ui {

class ExplorerModel;

class StatusSummary : public QLabel {
  Q_OBJECT
 public:
  explicit StatusSummary(ExplorerModel* model, QWidget* parent = nullptr);

 private:
  void refresh();
  ExplorerModel* model_;
};

}  // namespace attn::ui
