#pragma once
// Compare mode in the explorer: A is the explorer's configuration (a chosen
// head), B the same text with another head, mask or temperature. With a
// pretrained model open, B is the same model at another layer and head, on
// the same text or a second sentence of as many tokens. B runs on its own
// view-model (off the GUI thread, like A); the CompareView shows both, their
// difference and the metric deltas.
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
  /// With a model: B's layer (1-based) and B's text (empty: A's text).
  QSpinBox* layerB() const { return layerB_; }
  QLineEdit* textB() const { return textB_; }

  /// Re-runs B from A's text and spec with B's overrides.
  void syncB();
  /// Redraws from the newest A and B results (when their shapes agree).
  void refresh();

 private:
  void followModel();  // B's controls: layer and text for a model, mask/temperature/path otherwise

  ExplorerModel* modelA_;
  ExplorerModel* modelB_;
  CompareView* view_;
  QSpinBox *headA_, *headB_;
  QLineEdit* maskB_;
  QDoubleSpinBox* temperatureB_;
  QComboBox* execB_;
  QSpinBox* layerB_;
  QLineEdit* textB_;
  QList<QWidget*> engineOnly_, modelOnly_;  // B's controls for the text mode / for a model
  QLabel* status_;
};

}  // namespace attn::ui
