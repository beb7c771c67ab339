#pragma once
// What the model views draw for a loaded model: its attention weights, or what each
// key token contributes (core attribution/contributions.h). "Attention norms" shows
// each head's ||alpha_ij f(x_j)|| (Kobayashi et al. 2020) as a share of its row, "ALTI"
// each layer's ALTI contributions (Ferrando et al. 2022) in every head of the layer.
// The maps are computed on a worker (progress and Cancel as the model's own run) and
// shown as a run in place of the model's own (ExplorerModel::setIntervenedRun), so the
// heatmap, head grid, token lines, metrics and export all draw them. While interventions
// are shown the selector goes back to Weights: the maps are of the model's own run.
// "Attention × gradient" joins the selector once the Gradients panel has computed one for
// the shown text: alpha_ij * dLogit/dalpha_ij (Chefer et al. 2021, eq. 5), signed, every
// head divided by the largest |value| over all layers and heads (so [-1, 1], comparable
// across heads); it leaves the selector when the text or the model changes.
// "Quantization effect" is offered while a GGUF model with quantized products is open: each
// head's weights with llama.cpp's 8-bit activations minus those at full precision
// (models/quantization/quantization_effect.h), signed, over ± the largest |Δ| of all heads.
#include <QComboBox>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QWidget>
#include <memory>

#include "attn/models/gradients/gradient_attribution.h"
#include "attn/models/model.h"

namespace attn::ui {

class ExplorerModel;
class NewestJob;

enum class ContributionMode { Weights, AttentionNorms, Alti, AttentionGradient, QuantizationEffect };

/// `base` with every head's weights replaced by the mode's maps (rows summing to 1) and
/// the entropy of those rows; `base` itself for Weights.
std::shared_ptr<const attn::models::ModelRun> contributionRun(
    const std::shared_ptr<const attn::models::ModelRun>& base, const attn::models::Contributions& c,
    ContributionMode mode);

/// `base` with every head's weights replaced by its attention x gradient map divided by the
/// largest |value| over all maps (the entropy stays the weights'); null when the shapes differ.
std::shared_ptr<const attn::models::ModelRun> attentionGradientRun(
    const std::shared_ptr<const attn::models::ModelRun>& base, const attn::models::GradientAttribution& g);

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
  /// Offers "Attention × gradient" for `base`'s text (while it is the model's own run).
  void offerAttentionGradient(std::shared_ptr<const attn::models::GradientAttribution> gradients,
                              std::shared_ptr<const attn::models::ModelRun> base);
  bool offersAttentionGradient() const;
  /// "Quantization effect" is in the selector (a GGUF model with quantized products is open).
  bool offersQuantizationEffect() const;
  /// Blocks until the computation in progress has been delivered (tests).
  void waitForIdle();

 signals:
  /// One line for the user (a failed or refused computation).
  void message(const QString& text);
  /// What the shown signed maps are (empty: the maps are not signed), drawn over
  /// [-range, range], with a line to show over them (may be empty).
  void signedMapsChanged(const QString& what, double range, const QString& note);
  /// What the shown unsigned maps are ("ALTI …"; empty: the weights or signed maps).
  void mapsNameChanged(const QString& what);

 private:
  void follow();
  void launch();
  void launchQuantizationEffect();
  void offerQuantizationEffect();
  void showAttentionGradient();
  void withdrawAttentionGradient();

  ExplorerModel* model_;
  QPointer<QWidget> selector_;  // the tool bar it is put into owns it
  QPointer<QComboBox> box_;
  ContributionMode mode_ = ContributionMode::Weights;
  std::shared_ptr<const attn::models::ModelRun> base_, shown_;
  std::unique_ptr<NewestJob> job_;
  std::shared_ptr<const attn::models::GradientAttribution> gradients_;
  std::shared_ptr<const attn::models::ModelRun> gradientBase_;  // the run the gradients are of
};

}  // namespace attn::ui
