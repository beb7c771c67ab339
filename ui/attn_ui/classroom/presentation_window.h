#pragma once
// Presentation mode: a full-screen, high-contrast window with large fonts
// showing only the chosen views of the explorer's result, driven from the
// keyboard (a clicker sends PageUp/PageDown):
//   Right / Space / PageDown  next step        Left / Backspace / PageUp  previous step
//   Down / Up                 next / previous query row
//   H / Shift+H               next / previous head
//   1 / 2 / 3                 show or hide heatmap / step-through / token lines
//   F11 or F                  full screen on/off      Esc  leave presentation mode
#include <QWidget>

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;
class StepThroughView;
class TokenLinesWidget;

class PresentationWindow : public QWidget {
  Q_OBJECT
 public:
  enum View { Heatmap = 1, StepThrough = 2, TokenLines = 4 };

  explicit PresentationWindow(ExplorerModel* model, int views = Heatmap | StepThrough, QWidget* parent = nullptr);

  int views() const { return views_; }
  void setViews(int views);
  HeatmapWidget* heatmap() const { return heatmap_; }
  StepThroughView* stepThrough() const { return steps_; }
  TokenLinesWidget* tokenLines() const { return lines_; }

 signals:
  void closed();

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void refresh();

  ExplorerModel* model_;
  HeatmapWidget* heatmap_;
  StepThroughView* steps_;
  TokenLinesWidget* lines_;
  int views_ = 0;
};

/// Makes a QCustomPlot heatmap high-contrast with large fonts (presentation).
void applyHighContrast(HeatmapWidget* plot, double fontScale);

}  // namespace attn::ui
