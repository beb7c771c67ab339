#pragma once
// The "Training" view: a teacher sets up a toy task and a tiny
// attention model, presses Train and watches the fixed example's attention
// form — per head, beside the pattern that solves the task — with the loss,
// accuracy, per-head entropy and W_Q/W_K gradient-norm curves; pauses, steps,
// resets, scrubs back to any recorded step, runs the built-in demonstrations
// and exports the curves, a grid of map snapshots and the animation.
//
// Every number drawn comes from the core trainer (attn::train) through the
// TrainingController; this class only lays out and draws.
#include <QWidget>
#include <vector>

#include "attn/train/demonstrations.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/training/training_controller.h"
#include "attn_ui/training/training_figures.h"

class QAction;
class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QSlider;

namespace attn::ui {

class HeatmapWidget;
class TrainingConfigForm;
class TrainingCurveChart;

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(QWidget* parent = nullptr);
  ~TrainingPanel() override;

  TrainingController* controller() const { return controller_; }
  TrainingConfigForm* form() const { return form_; }
  /// The heatmap of head `h` of the shown layer and run.
  HeatmapWidget* headMap(int h) const;
  int headMapCount() const;
  HeatmapWidget* expectedMap() const { return expected_; }
  TrainingCurveChart* lossChart() const { return loss_; }
  TrainingCurveChart* accuracyChart() const { return accuracy_; }
  TrainingCurveChart* entropyChart() const { return entropy_; }
  TrainingCurveChart* gradChart() const { return grad_; }
  /// Induction task only (in place of the gradient chart): previous-token and induction scores.
  TrainingCurveChart* scoreChart() const { return scores_; }
  QSlider* scrubber() const { return scrubber_; }
  QCheckBox* followBox() const { return follow_; }
  QComboBox* runBox() const { return runBox_; }
  QComboBox* layerBox() const { return layerBox_; }
  QLabel* statusLabel() const { return status_; }
  QLabel* demoExplanationLabel() const { return demoText_; }
  QAction* trainAction() const { return trainAct_; }
  QAction* pauseAction() const { return pauseAct_; }
  QAction* stepAction() const { return stepAct_; }
  QAction* resetAction() const { return resetAct_; }

  /// The step the maps show (the newest while following).
  int shownStep() const { return shown_; }
  /// The run whose maps are shown (demonstrations have two).
  int shownRun() const;
  int shownLayer() const;
  /// The step of the maps shown (maps are kept every mapEvery steps).
  int shownMapsStep() const { return shownMapsStep_; }

  /// Applies the form to a fresh single run at step 0; false (message in
  /// the status line) when the setup is invalid.
  bool applyForm();
  /// Loads demonstration `demo` (runs side by side) and starts training it.
  bool startDemonstration(const attn::train::Demonstration& demo);
  /// Shows recorded step `step` (stops following the newest).
  void scrubTo(int step);

  // Exports (what the Export menu does after its dialogs).
  /// Loss, accuracy, entropy and gradient-norm curves in a 2 x 2 figure.
  attn::Status exportCurves(const QString& path, const FigureOptions& options);
  /// `rows` snapshots of the shown run's maps, evenly spaced over the
  /// recorded steps (first and newest included), the expected pattern last.
  attn::Status exportSnapshotGrid(const QString& path, const FigureOptions& options, int rows = 6);
  /// `frames` PNG frames of the map forming into `dir` (frame_0000.png ...),
  /// and DIR/training.gif when `gif` and ImageMagick is installed. Returns the
  /// files written; `gifNote` says why no GIF was written.
  attn::Result<QStringList> exportAnimation(const QString& dir, int frames, bool gif, QString* gifNote = nullptr);

  /// The recorded steps a snapshot grid / animation of `count` pictures shows.
  std::vector<int> sampledSteps(int count) const;

 public slots:
  void train();
  void pause();
  void stepOnce();
  void reset();

 protected:
  void hideEvent(QHideEvent* event) override;

 private:
  QWidget* buildSetup();
  QWidget* buildViews();
  void rebuildMaps();
  void onAdvanced();
  void onStateChanged();
  void showStep(int step);
  void updateCurves();
  void updateInductionCurves();
  void updateStatus();
  void updateMarkers();
  void showExportCurvesDialog();
  void showExportGridDialog();
  void showExportAnimationDialog();
  MapRow mapRowAt(int step, int* mapsStep) const;
  QStringList mapColumnTitles() const;

  TrainingController* controller_;
  TrainingConfigForm* form_;
  QAction *trainAct_, *pauseAct_, *stepAct_, *resetAct_;
  QPushButton *trainBtn_, *pauseBtn_, *stepBtn_, *resetBtn_, *exportBtn_;
  QLabel* demoText_;
  QLabel* demoTitle_;
  QComboBox* runBox_;
  QComboBox* layerBox_;
  QLabel* mapsOfLabel_ = nullptr;  // "Maps of": shown only with a run or layer to pick
  QGridLayout* mapGrid_;
  std::vector<HeatmapWidget*> heads_;
  HeatmapWidget* expected_;
  TrainingCurveChart *loss_, *accuracy_, *entropy_, *grad_, *scores_;
  QSlider* scrubber_;
  QLabel* stepLabel_;
  QCheckBox* follow_;
  QLabel* status_;
  QString colormap_ = QStringLiteral("viridis");
  QString demoId_;  // the demonstration loaded, empty for a plain run
  int shown_ = 0;
  int shownMapsStep_ = 0;
  QString message_;  // an error or divergence note, shown in the status line
};

}  // namespace attn::ui
