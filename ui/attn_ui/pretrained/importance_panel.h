#pragma once
// The Head importance dock: a layers x heads heatmap of each head's
// importance by ablation (hover for the value, click to open the head), the
// pruning curve under it, the computation's progress with Cancel, and export
// of both as a figure (through the figure export) and as CSV.
#include <QWidget>
#include <memory>

#include "attn/status.h"
#include "attn_ui/export/figure_export.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;
class QToolButton;

namespace attn::models {
struct HeadImportance;
}

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;
class ImportanceController;
class PruningCurvePlot;

class ImportancePanel : public QWidget {
  Q_OBJECT
 public:
  ImportancePanel(ExplorerModel* model, ImportanceController* controller, QWidget* parent = nullptr);

  HeatmapWidget* heatmap() const { return heatmap_; }
  PruningCurvePlot* curve() const { return curve_; }
  QProgressBar* progressBar() const { return progress_; }
  QPushButton* cancelButton() const { return cancel_; }
  QString statusText() const;
  /// The tooltip text for cell (layer, head), 0-based.
  QString cellText(int layer, int head) const;
  void setColormap(const QString& name);

  enum Figure { ImportanceMap, PruningCurve };
  /// Writes the importance map or the pruning curve as a figure (PNG, SVG, PDF).
  attn::Status exportFigure(Figure figure, const QString& path, const FigureOptions& options);
  /// Writes the importance (layer,head,importance) or the curve as CSV.
  attn::Status exportCsv(Figure figure, const QString& path);
  QSize sizeHint() const override { return {320, 520}; }

 private:
  void refresh();
  void started();
  void showProgress();
  void exportFigureDialog();
  void exportCsvDialog();

  ExplorerModel* model_;
  ImportanceController* controller_;
  QLabel* status_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  HeatmapWidget* heatmap_;
  PruningCurvePlot* curve_;
  QToolButton* export_;
  QTimer* poll_;
  QString colormap_ = QStringLiteral("viridis");
  std::shared_ptr<const attn::models::HeadImportance> shown_;  // the result the plots draw
};

}  // namespace attn::ui
