#pragma once
#include <QMainWindow>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;

/// Builds and connects the explorer's widgets; the model does the work.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  ExplorerModel* model() const { return model_; }
  HeatmapWidget* heatmap() const { return heatmap_; }
  QCheckBox* causalToggle() const { return causal_; }
  QSpinBox* headSelector() const { return head_; }

 private:
  void showResult();

  ExplorerModel* model_;
  HeatmapWidget* heatmap_;
  QLineEdit* text_;
  QSpinBox* head_;
  QCheckBox* causal_;
  QLabel* status_;
};

}  // namespace attn::ui
