#pragma once
// Compare mode in the explorer: A is the explorer's configuration (a chosen
// head), B the same text with another head, mask or temperature. B runs on
// its own view-model (off the GUI thread, like A); the CompareView shows both,
// their difference and the metric deltas.
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QLabel;
class QSpinBox;

namespace attn::ui {

class CompareView;
class ExplorerModel;

class ComparePanel : public QWidget {
  Q_OBJECT
 public:
  explicit ComparePanel(ExplorerModel* modelA, QWidget* parent = nullptr);

  CompareView* view() const { return view_; }
  ExplorerModel* modelB() const { return modelB_; }
  QSpinBox* headA() const { return headA_; }
  QSpinBox* headB() const { return headB_; }
  QLineEdit* maskB() const { return maskB_; }
  QDoubleSpinBox* temperatureB() const { return temperatureB_; }
  /// B's execution path: index 0 = same as A, then attn::allExecPaths().
  QComboBox* execB() const { return execB_; }

  /// Re-runs B from A's text and spec with B's overrides.
  void syncB();
  /// Redraws from the newest A and B results (when their shapes agree).
  void refresh();

 private:
  ExplorerModel* modelA_;
  ExplorerModel* modelB_;
  CompareView* view_;
  QSpinBox *headA_, *headB_;
  QLineEdit* maskB_;
  QDoubleSpinBox* temperatureB_;
  QComboBox* execB_;
  QLabel* status_;
};

}  // namespace attn::ui
