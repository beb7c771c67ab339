#pragma once
// What an intervention changed on the head shown: the compare view with
// A = the original model's map and B = the intervened model's map of the
// current layer and head, their difference and the metric deltas.
#include <QWidget>

class QLabel;

namespace attn::ui {

class CompareView;
class ExplorerModel;
class InterventionsController;

class InterventionEffectPanel : public QWidget {
  Q_OBJECT
 public:
  InterventionEffectPanel(ExplorerModel* model, InterventionsController* controller, QWidget* parent = nullptr);

  CompareView* view() const { return view_; }
  /// The line above the plots (which head, or why nothing is compared).
  QString statusText() const;
  void setColormap(const QString& name);
  QSize sizeHint() const override { return {900, 300}; }

 private:
  void refresh();

  ExplorerModel* model_;
  InterventionsController* controller_;
  QLabel* status_;
  CompareView* view_;
};

}  // namespace attn::ui
