#pragma once
// Experiments on a loaded model, wired into the window in one
// place: the Experiments menu (Compute Head Importance, Undo / Redo / Clear
// Interventions), the right-click intervention menu on the head grid and the
// heatmap, the intervened tiles' marks, and the Interventions, Intervention
// effect and Head importance docks; the Predictions panel gets the
// next-token change.
#include <QObject>

class QDockWidget;

namespace attn::models {
struct RunComparison;
}

namespace attn::ui {

class HeadGrid;
class HeadTypesController;
class ImportanceController;
class ImportancePanel;
class InterventionEffectPanel;
class InterventionsController;
class InterventionsPanel;
class MainWindow;

class ExperimentsActions : public QObject {
  Q_OBJECT
 public:
  explicit ExperimentsActions(MainWindow& window);

  InterventionsController* interventions() const { return interventions_; }
  ImportanceController* importance() const { return importance_; }
  /// Labels the head grid's tiles with what each head of the model does.
  HeadTypesController* headTypes() const { return headTypes_; }
  InterventionsPanel* interventionsPanel() const { return list_; }
  InterventionEffectPanel* effectPanel() const { return effect_; }
  ImportancePanel* importancePanel() const { return importancePanel_; }
  /// Shows the intervention menu of head (layer, head) at a global position.
  void showMenu(int layer, int head, const QPoint& globalPos);

 private:
  void refreshMarks();
  void refreshPrediction();

  MainWindow* window_;
  InterventionsController* interventions_;
  ImportanceController* importance_;
  InterventionsPanel* list_;
  InterventionEffectPanel* effect_;
  ImportancePanel* importancePanel_;
  HeadGrid* grid_;
  HeadTypesController* headTypes_;
  QDockWidget* effectDock_;
};

/// The Predictions panel's lines on the change: KL, top-5 before and after, loss.
QString predictionEffectText(const attn::models::RunComparison& c);

}  // namespace attn::ui
