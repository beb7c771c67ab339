#include "attn_ui/attribution/contribution_view.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <algorithm>
#include <cmath>

#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/quantization/quantization_maps.h"

namespace attn::ui {
namespace {

/// Each row divided by its sum (a row of zeros stays zero), and its entropy in nats.
void asDistribution(Mat& m, Vec& entropy) {
  entropy.setZero(m.rows());
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const float sum = m.row(i).sum();
    if (sum <= 0) continue;
    m.row(i) /= sum;
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (m(i, j) > 0) entropy(i) -= m(i, j) * std::log(m(i, j));
  }
}

}  // namespace

std::shared_ptr<const attn::models::ModelRun> contributionRun(
    const std::shared_ptr<const attn::models::ModelRun>& base, const attn::models::Contributions& c,
    ContributionMode mode) {
  if (mode == ContributionMode::Weights || !base) return base;
  auto run = std::make_shared<attn::models::ModelRun>(*base);
  for (size_t i = 0; i < run->layers.size(); ++i) {
    const size_t l = static_cast<size_t>(run->firstLayer) + i;
    if (l >= c.alti.size()) break;
    auto& heads = run->layers[i].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      heads[h].weights = mode == ContributionMode::Alti ? c.alti[l] : c.attentionNorms[l][h];
      asDistribution(heads[h].weights, heads[h].entropy);
    }
  }
  return run;
}

std::shared_ptr<const attn::models::ModelRun> attentionGradientRun(
    const std::shared_ptr<const attn::models::ModelRun>& base, const attn::models::GradientAttribution& g) {
  if (!base || g.attnGrad.size() != static_cast<size_t>(g.layers) * static_cast<size_t>(g.heads))
    return nullptr;
  float top = 0;
  for (const Mat& m : g.attnGrad)
    if (m.size() > 0) top = std::max(top, m.cwiseAbs().maxCoeff());
  const float scale = top > 0 ? 1.0f / top : 1.0f;
  auto run = std::make_shared<attn::models::ModelRun>(*base);
  for (size_t i = 0; i < run->layers.size(); ++i) {
    const size_t l = static_cast<size_t>(run->firstLayer) + i;
    auto& heads = run->layers[i].heads;
    if (l >= static_cast<size_t>(g.layers) || heads.size() != static_cast<size_t>(g.heads)) return nullptr;
    for (size_t h = 0; h < heads.size(); ++h) {
      const Mat& m = g.attnGrad[l * static_cast<size_t>(g.heads) + h];
      if (m.rows() != heads[h].weights.rows() || m.cols() != heads[h].weights.cols()) return nullptr;
      heads[h].weights = m * scale;
    }
  }
  return run;
}

ContributionView::ContributionView(ExplorerModel* model, QObject* parent)
    : QObject(parent),
      model_(model),
      selector_(new QWidget),
      box_(new QComboBox(selector_)),
      job_(std::make_unique<NewestJob>(this)) {
  auto* layout = new QHBoxLayout(selector_);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Maps "), selector_));
  layout->addWidget(box_);
  box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // "Quantization effect" unelided
  box_->addItem(tr("Weights"), int(ContributionMode::Weights));
  box_->addItem(tr("Attention norms"), int(ContributionMode::AttentionNorms));
  box_->addItem(tr("ALTI"), int(ContributionMode::Alti));
  box_->setToolTip(
      tr("What a loaded model's maps show: attention weights; attention norms ‖α f(x)‖ per head "
         "(Kobayashi et al. 2020) as a share of each row; or ALTI, each layer's token-to-token "
         "contributions with the residual and norm (Ferrando et al. 2022), the same in every head."));
  selector_->setEnabled(model_->hasModel());
  connect(box_, &QComboBox::currentIndexChanged, this,
          [this] { setMode(static_cast<ContributionMode>(box_->currentData().toInt())); });
  connect(model_, &ExplorerModel::resultChanged, this, &ContributionView::follow);
  connect(model_, &ExplorerModel::modelChanged, this, [this] {
    if (selector_) selector_->setEnabled(model_->hasModel());
    withdrawAttentionGradient();
    offerQuantizationEffect();
    job_->cancel();
    base_.reset();
    shown_.reset();
  });
}

ContributionView::~ContributionView() {
  job_->cancel();
  if (selector_ && !selector_->parent()) delete selector_.data();  // never put into a layout
}

void ContributionView::setMode(ContributionMode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  if (box_ && box_->currentIndex() != box_->findData(int(mode)))
    box_->setCurrentIndex(box_->findData(int(mode)));
  job_->cancel();
  emit signedMapsChanged(QString(), 1.0, QString());
  emit mapsNameChanged(QString());
  if (mode_ == ContributionMode::Weights) {
    if (shown_ && model_->modelRun() == shown_) model_->setIntervenedRun(nullptr);
    shown_.reset();
    return;
  }
  if (mode_ == ContributionMode::AttentionGradient) return showAttentionGradient();
  if (model_->showsIntervenedRun() && model_->modelRun() != shown_) {
    emit message(
        mode_ == ContributionMode::QuantizationEffect
            ? tr("The quantization effect is of the model's own run: clear the interventions first.")
            : tr("Attention norms and ALTI are of the model's own run: clear the interventions first."));
    setMode(ContributionMode::Weights);
    return;
  }
  base_ = model_->ownModelRun();
  launch();
}

void ContributionView::follow() {
  if (gradients_ && model_->ownModelRun() != gradientBase_) withdrawAttentionGradient();  // a new text
  if (!model_->hasModel() || mode_ == ContributionMode::Weights) return;
  if (shown_ && model_->modelRun() == shown_) return;  // the maps themselves, or another layer of them
  if (model_->showsIntervenedRun()) {                  // interventions replaced the maps
    shown_.reset();
    setMode(ContributionMode::Weights);
    return;
  }
  if (model_->ownModelRun() == base_ && job_->busy()) return;
  base_ = model_->ownModelRun();
  launch();  // a new text: its maps
}

void ContributionView::launch() {
  if (mode_ == ContributionMode::QuantizationEffect) return launchQuantizationEffect();
  auto model = model_->modelPtr();
  auto base = base_;
  if (!model || !base) return;
  struct Result {
    std::shared_ptr<const attn::models::ModelRun> run;
    QString error;
  };
  auto result = std::make_shared<Result>();
  const ContributionMode mode = mode_;
  job_->start(
      [model, base, mode, result](JobControl& control) {
        attn::models::RunOptions opt;
        opt.contributions = true;
        opt.keepQkv = false;
        opt.topK = 0;
        opt.maskTopK = 0;
        auto run = model->run(base->encoding, opt,
                              [&control](double f, std::string_view s) { return control.report(f, s); });
        if (!run) {
          result->error = QString::fromStdString(run.error().message);
          return;
        }
        result->run = contributionRun(base, *run->contributions, mode);
      },
      [this, result, base] {
        if (!result->run) {
          if (!result->error.endsWith(QLatin1String("cancelled"))) emit message(result->error);
          setMode(ContributionMode::Weights);
          return;
        }
        if (model_->ownModelRun() != base) return;  // the text changed meanwhile; follow() runs again
        shown_ = result->run;
        emit mapsNameChanged(mode_ == ContributionMode::Alti ? tr("ALTI (the layer's, in every head)")
                                                             : tr("Attention norms"));
        model_->setIntervenedRun(shown_);
      },
      tr("Computing contributions"));
}

bool ContributionView::offersAttentionGradient() const {
  return box_ && box_->findData(int(ContributionMode::AttentionGradient)) >= 0;
}

void ContributionView::offerAttentionGradient(
    std::shared_ptr<const attn::models::GradientAttribution> gradients,
    std::shared_ptr<const attn::models::ModelRun> base) {
  if (!gradients || !base || base != model_->ownModelRun()) return;  // of a text no longer shown
  gradients_ = std::move(gradients);
  gradientBase_ = std::move(base);
  if (box_ && !offersAttentionGradient())
    box_->addItem(tr("Attention × gradient"), int(ContributionMode::AttentionGradient));
  if (mode_ == ContributionMode::AttentionGradient) showAttentionGradient();  // the new maps
}

void ContributionView::showAttentionGradient() {
  if (!gradients_ || model_->ownModelRun() != gradientBase_) return setMode(ContributionMode::Weights);
  if (model_->showsIntervenedRun() && model_->modelRun() != shown_) {
    emit message(tr("Attention × gradient is of the model's own run: clear the interventions first."));
    return setMode(ContributionMode::Weights);
  }
  auto run = attentionGradientRun(gradientBase_, *gradients_);
  if (!run) return setMode(ContributionMode::Weights);
  base_ = gradientBase_;
  shown_ = std::move(run);
  model_->setIntervenedRun(shown_);
  emit signedMapsChanged(
      tr("Attention × gradient (signed; each map ÷ the largest |α·∂logit/∂α| of all heads)"), 1.0, QString());
}

bool ContributionView::offersQuantizationEffect() const {
  return box_ && box_->findData(int(ContributionMode::QuantizationEffect)) >= 0;
}

void ContributionView::offerQuantizationEffect() {
  const auto model = model_->modelPtr();
  const bool quantized = model && attn::models::checkQuantizationEffect(model->info()).ok();
  if (mode_ == ContributionMode::QuantizationEffect && !quantized) setMode(ContributionMode::Weights);
  if (!box_ || quantized == offersQuantizationEffect()) return;
  if (quantized) {
    box_->addItem(tr("Quantization effect"), int(ContributionMode::QuantizationEffect));
    box_->setItemData(box_->count() - 1,
                      tr("Each head's weights with llama.cpp's quantized products minus those at full "
                         "precision (the dequantized weights on f32 activations)."),
                      Qt::ToolTipRole);
  } else {
    box_->removeItem(box_->findData(int(ContributionMode::QuantizationEffect)));
  }
}

void ContributionView::launchQuantizationEffect() {
  auto model = model_->modelPtr();
  auto base = base_;
  if (!model || !base) return;
  if (base->layers.empty()) {  // a streamed run: no map to subtract from
    emit message(
        tr("The quantization effect compares every layer's maps: this text is streamed (too long to "
           "keep them); shorten it."));
    return setMode(ContributionMode::Weights);
  }
  struct Result {
    std::shared_ptr<const attn::models::ModelRun> run;
    QString note, error;
    double range = 1.0;
  };
  auto result = std::make_shared<Result>();
  job_->start(
      [model, base, result](JobControl& control) {
        attn::models::RunOptions opt;
        opt.keepQkv = opt.keepOutputs = false;
        opt.topK = opt.maskTopK = 0;
        auto effect = attn::models::quantizationEffect(
            *model, base->encoding, opt,
            [&control](double f, std::string_view s) { return control.report(f, s); });
        if (!effect) {
          result->error = QString::fromStdString(effect.error().message);
          return;
        }
        result->run = quantizationEffectRun(base, *effect);
        result->note = quantizationEffectNote(*effect);
        result->range = effect->largestChange > 0 ? effect->largestChange : 1.0;
      },
      [this, result, base] {
        if (!result->run) {
          if (!result->error.endsWith(QLatin1String("cancelled"))) emit message(result->error);
          setMode(ContributionMode::Weights);
          return;
        }
        if (model_->ownModelRun() != base) return;  // the text changed meanwhile; follow() runs again
        shown_ = result->run;
        emit signedMapsChanged(tr("Quantized − full precision"), result->range, result->note);
        model_->setIntervenedRun(shown_);
      },
      tr("Computing the quantization effect"));
}

void ContributionView::withdrawAttentionGradient() {
  gradients_.reset();
  gradientBase_.reset();
  if (mode_ == ContributionMode::AttentionGradient) setMode(ContributionMode::Weights);
  if (box_) {
    const int i = box_->findData(int(ContributionMode::AttentionGradient));
    if (i >= 0) box_->removeItem(i);
  }
}

bool ContributionView::busy() const { return job_->busy(); }

void ContributionView::waitForIdle() {
  while (job_->busy()) {
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

}  // namespace attn::ui
