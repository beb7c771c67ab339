#pragma once
// What the model views draw for a loaded model: its attention weights, or what each
// key token contributes (core attribution/contributions.h). "Attention norms" shows
// each head's ||alpha_ij f(x_j)|| (Kobayashi et al. 2020) as a share of its row, "ALTI"
// each layer's ALTI contributions (Ferrando et al. 2022) in every head of the layer.
// The maps are computed on a worker (progress and Cancel as the model's own run) and
// shown as a run in place of the model's own (ExplorerModel::setIntervenedRun), so the
// heatmap, head grid, token lines, metrics and export all draw them. While interventions
// are shown the selector goes back to Weights: the maps are of the model's own run.
#include <QComboBox>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QWidget>
#include <memory>

#include "attn/models/model.h"

namespace attn::ui {

class ExplorerModel;
class NewestJob;

enum class ContributionMode { Weights, AttentionNorms, Alti };

/// `base` with every head's weights replaced by the mode's maps (rows summing to 1) and
/// the entropy of those rows; `base` itself for Weights.
std::shared_ptr<const attn::models::ModelRun> contributionRun(
    const std::shared_ptr<const attn::models::ModelRun>& base, const attn::models::Contributions& c,
    ContributionMode mode);

class ContributionView : public QObject {
  Q_OBJECT
 public:
  explicit ContributionView(ExplorerModel* model, QObject* parent = nullptr);
  ~ContributionView() override;

  /// "Show: Weights / Attention norms / ALTI" (owned by the caller's layout once added).
  QWidget* selector() const { return selector_; }
  QComboBox* modeBox() const { return box_; }
  ContributionMode mode() const { return mode_; }
  void setMode(ContributionMode mode);
  bool busy() const;
  /// Blocks until the computation in progress has been delivered (tests).
  void waitForIdle();

 signals:
  /// One line for the user (a failed or refused computation).
  void message(const QString& text);

 private:
  void follow();
  void launch();

  ExplorerModel* model_;
  QPointer<QWidget> selector_;  // the tool bar it is put into owns it
  QPointer<QComboBox> box_;
  ContributionMode mode_ = ContributionMode::Weights;
  std::shared_ptr<const attn::models::ModelRun> base_, shown_;
  std::unique_ptr<NewestJob> job_;
};

}  // namespace attn::ui
