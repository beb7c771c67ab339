#pragma once
// Gradient attribution of the loaded model's text (core gradients/gradient_attribution.h):
// one target token's logit at one position (the last, or a masked-LM model's first mask
// token), differentiated back to the input embeddings. Gradient x input (Shrikumar et al.
// 2016) and integrated gradients (Sundararajan et al. 2017, eq. 3, a right Riemann sum from
// the zero embedding) are drawn per token as signed bars, with the completeness sums. The
// attention x gradient maps (Chefer et al. 2021, eq. 5) are offered to the main views
// through attentionGradientReady. Computed on a worker with progress and Cancel; a cancelled
// or refused run keeps what was shown.
#include <QWidget>
#include <memory>

#include "attn/models/gradients/gradient_attribution.h"
#include "attn/models/model.h"
#include "attn_ui/export/figure_export.h"

class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace attn::ui {

class ExplorerModel;
class NewestJob;

class GradientPanel : public QWidget {
  Q_OBJECT
 public:
  explicit GradientPanel(ExplorerModel* model, QWidget* parent = nullptr);
  ~GradientPanel() override;

  QLineEdit* targetEdit() const { return target_; }
  /// -1: the last position (causal) or the first mask token (masked LM).
  QSpinBox* positionBox() const { return position_; }
  QSpinBox* stepsBox() const { return steps_; }
  void run();
  void cancel();
  bool busy() const;
  void waitForIdle();

  const std::shared_ptr<const attn::models::GradientAttribution>& result() const { return result_; }
  const QString& status() const { return statusText_; }
  const QString& sums() const { return sumsText_; }
  QCustomPlot* chart() const { return chart_; }
  bool exportFigure(const QString& path, const FigureOptions& options, QString* error);
  QSize sizeHint() const override { return {760, 320}; }

 signals:
  /// A new result, with the run whose text it is of (the maps match that run's tokens).
  void attentionGradientReady(std::shared_ptr<const attn::models::GradientAttribution> gradients,
                              std::shared_ptr<const attn::models::ModelRun> base);

 private:
  void followModel();
  void followText();
  void updateCount();
  void showResult(std::shared_ptr<const attn::models::GradientAttribution> result, QStringList tokens);
  void drawBars();
  void setStatus(const QString& text, bool error = false);
  void showExportDialog();

  ExplorerModel* model_;
  QLineEdit* target_;
  QLabel* targetCount_;
  QSpinBox *position_, *steps_;
  QPushButton *run_, *cancel_, *export_;
  QLabel *status_, *sums_;
  QCustomPlot* chart_;
  QTimer* poll_;
  std::unique_ptr<NewestJob> job_;
  std::shared_ptr<const attn::models::GradientAttribution> result_;
  QStringList tokens_;
  QString statusText_, sumsText_;
  bool targetEdited_ = false;  // typed by hand: a new text does not replace it
};

}  // namespace attn::ui
