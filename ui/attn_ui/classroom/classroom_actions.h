#pragma once
// Adds the classroom features to the main window without growing it: panels
// for the step-through, token lines, compare mode and the toy example; File >
// Export Figure (PNG/SVG/PDF of any view) and Export Data; View > Presentation
// Mode. installExtraPanels (panel_registry.cpp) creates one. (The language is
// chosen in View > Language, preferences_menu.cpp, or with --lang.)
#include <QObject>
#include <QPointer>

#include "attn_ui/export/figure_export.h"


namespace attn::ui {

class ComparePanel;
class ExplorerModel;
class HeatmapWidget;
class MainWindow;
class PresentationWindow;
class StepThroughView;
class TokenLinesWidget;
class ToyInputPanel;

class ClassroomActions : public QObject {
  Q_OBJECT
 public:
  explicit ClassroomActions(MainWindow& window);

  StepThroughView* stepThrough() const { return steps_; }
  TokenLinesWidget* tokenLines() const { return lines_; }
  ComparePanel* compare() const { return compare_; }
  ToyInputPanel* toyInput() const { return toy_; }
  PresentationWindow* presentation() const;

  /// The figure views File > Export offers, in order.
  enum FigureView {
    CurrentHeatmap, HeadGrid, TokenLines, StepThrough, Compare, ToyHeatmap,
    MetricsBars, MetricsRows, HeadSimilarity, Rollout
  };
  QStringList figureViewNames() const;
  /// Draws `view` into `path` (what File > Export does after its dialog).
  bool exportFigure(int view, const QString& path, const FigureOptions& options, QString* error);

 public slots:
  void showExportFigureDialog();
  void showExportDataDialog();
  void startPresentation();

 private:
  void refreshTokenLines();

  MainWindow* window_;
  ExplorerModel* model_;
  HeatmapWidget* heatmap_;
  StepThroughView* steps_;
  TokenLinesWidget* lines_;
  ComparePanel* compare_;
  ToyInputPanel* toy_;
  bool allHeadLines_ = false;
  QPointer<PresentationWindow> presentation_;
};

}  // namespace attn::ui
