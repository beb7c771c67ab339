#pragma once
// Activation patching of the loaded model (Meng et al. 2022; Wang et al. 2023, section 3):
// two texts of the same token count, a target and a foil token, and which sites to patch
// (the residual stream per layer and position, each head's output, each MLP's output per
// layer and position). Run computes Model::patch on a worker with progress and Cancel; the
// maps show the fraction of the clean - corrupt logit difference each patch recovers, on a
// diverging scale centred at 0 (a patch can overshoot, > 1, or hurt, < 0). Clicking a head
// cell shows that layer and head in the main views. A cancelled or refused run keeps the
// maps that were shown.
#include <QWidget>
#include <memory>

#include "attn/models/model.h"
#include "attn/models/patching/activation_patching.h"
#include "attn_ui/export/figure_export.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTimer;

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;
class NewestJob;

class PatchingPanel : public QWidget {
  Q_OBJECT
 public:
  /// The maps, in the order of the tabs.
  enum class Site { Residual, Heads, Mlp };

  explicit PatchingPanel(ExplorerModel* model, QWidget* parent = nullptr);
  ~PatchingPanel() override;

  QLineEdit* cleanEdit() const { return clean_; }
  QLineEdit* corruptEdit() const { return corrupt_; }
  QLineEdit* targetEdit() const { return target_; }
  QLineEdit* foilEdit() const { return foil_; }
  QCheckBox* siteBox(Site site) const;
  /// Starts a run of the fields' request (Run, Ctrl+Return); a refused request only says why.
  void run();
  void cancel();
  bool busy() const;
  /// Blocks until the run in flight has been delivered (tests).
  void waitForIdle();

  /// The result shown (null before the first run that succeeded).
  const std::shared_ptr<const attn::models::PatchingResult>& result() const { return result_; }
  const QString& status() const { return statusText_; }
  HeatmapWidget* map(Site site) const;
  /// The tooltip of a map's cell.
  QString cellDetails(Site site, int row, int column) const;
  /// Writes the shown map as a figure (PNG, SVG, PDF); false with `error` set otherwise.
  bool exportFigure(Site site, const QString& path, const FigureOptions& options, QString* error);
  QSize sizeHint() const override { return {760, 340}; }

 private:
  void buildLayout();
  void connectControls();
  void updateCounts();
  void followModel();
  void showResult(std::shared_ptr<const attn::models::PatchingResult> result, QStringList tokens);
  void drawMaps();
  void setStatus(const QString& text, bool error = false);
  void showExportDialog();
  int tokenCount(const QString& text) const;

  ExplorerModel* model_;
  QLineEdit *clean_, *corrupt_, *target_, *foil_;
  QLabel *cleanCount_, *corruptCount_, *targetCount_, *foilCount_;
  QCheckBox *residual_, *heads_, *mlp_;
  QPushButton *run_, *cancel_, *export_;
  QLabel* status_;
  QLabel* diffs_;
  QTabWidget* tabs_;
  HeatmapWidget *residualMap_, *headsMap_, *mlpMap_;
  QTimer* poll_;
  std::unique_ptr<NewestJob> job_;
  std::shared_ptr<const attn::models::PatchingResult> result_;
  QStringList tokens_;  // the clean text's tokens of the shown result
  QString modelName_;   // the model the shown result is of
  QString statusText_;
};

}  // namespace attn::ui
