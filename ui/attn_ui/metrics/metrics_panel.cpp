#include "attn_ui/metrics/metrics_panel.h"

#include <fmt/format.h>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "attn/engine/precomputed.h"
#include "attn/models/model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/metrics/metrics_bar_chart.h"
#include "attn_ui/metrics/metrics_row_chart.h"
#include "attn_ui/metrics/metrics_text.h"

namespace attn::ui {
namespace {

// Head similarity costs H^2/2 * Nq * Nk pair cells; past this
// the panel skips it and says so (12 heads of N = 1024 are still compared).
constexpr double kMaxSimilarityWork = 1e8;

enum class RowMeasure { Entropy, NormalizedEntropy, MaxWeight, MeanDistance, CoverageK, MaxMinGap, MaxMinRatio,
                        OffsetProfile };

QStringList toLabels(const std::vector<std::string>& tokens) {
  QStringList l;
  for (const auto& t : tokens) l << QString::fromStdString(t);
  return l;
}

}  // namespace

struct MetricsPanel::Job {
  attn::AnalysisOptions options;
  std::shared_ptr<const attn::AttentionResult> result;
  std::shared_ptr<const attn::LayeredWeights> layers;
  std::vector<std::string> tokens;
  std::shared_ptr<attn::Analysis> analysis;
  std::shared_ptr<attn::LayeredAnalysis> layered;
};

MetricsPanel::MetricsPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      bars_(new MetricsBarChart(this)),
      rows_(new MetricsRowChart(this)),
      similarity_(new HeatmapWidget(this)),
      rollout_(new HeatmapWidget(this)),
      measure_(new QComboBox(this)),
      rowMeasure_(new QComboBox(this)),
      rolloutKind_(new QComboBox(this)),
      bits_(new QCheckBox(tr("bits"), this)),
      coverage_(new QDoubleSpinBox(this)),
      layer_(new QSpinBox(this)),
      layerLabel_(new QLabel(tr("Layer"), this)),
      flags_(new QLabel(this)),
      thresholds_(new QLabel(this)),
      similarityNote_(new QLabel(this)),
      layerBox_(new QWidget(this)),
      jobs_(std::make_unique<NewestJob>(this)) {
  setUpSelectors();
  setUpCharts();
  buildLayout();
  connectControls();
  if (model_) connectModel();
}

// The measure pickers and the options that change what is computed.
void MetricsPanel::setUpSelectors() {
  for (const auto& m : attn::headMeasures())
    measure_->addItem(coreText(m.label),
                      QString::fromUtf8(m.key.data(), static_cast<qsizetype>(m.key.size())));
  measure_->setToolTip(tr("Which per-head measure the bars show."));
  measure_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  measure_->setMinimumContentsLength(14);
  rowMeasure_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  rowMeasure_->setMinimumContentsLength(14);
  rowMeasure_->addItem(tr("row entropy"), int(RowMeasure::Entropy));
  rowMeasure_->addItem(tr("normalized entropy"), int(RowMeasure::NormalizedEntropy));
  rowMeasure_->addItem(tr("max weight"), int(RowMeasure::MaxWeight));
  rowMeasure_->addItem(tr("mean attention distance"), int(RowMeasure::MeanDistance));
  rowMeasure_->addItem(tr("keys covering the mass (k)"), int(RowMeasure::CoverageK));
  rowMeasure_->addItem(tr("max − min weight"), int(RowMeasure::MaxMinGap));
  rowMeasure_->addItem(tr("max / min weight"), int(RowMeasure::MaxMinRatio));
  rowMeasure_->addItem(tr("relative-offset profile (mass at j − i)"), int(RowMeasure::OffsetProfile));
  rowMeasure_->setToolTip(tr("Which per-row measure the curve shows for the selected head."));
  bits_->setToolTip(tr("Entropy in bits instead of nats."));
  coverage_->setRange(0.05, 1.0);
  coverage_->setSingleStep(0.05);
  coverage_->setValue(0.9);
  coverage_->setToolTip(tr("Sparsity: the share of a row's mass that its k largest weights must cover."));
  layer_->setRange(1, 1);
  layer_->setToolTip(tr("Which layer's heads the bars and the row curve show."));
  rolloutKind_->addItem(tr("Attention rollout"));
  rolloutKind_->addItem(tr("Attention flow"));
  rolloutKind_->setToolTip(tr("How attention composes through the layers (Abnar & Zuidema 2020): rollout "
                              "multiplies the layers' head-averaged attention with the residual; flow is a max-flow."));
}

// The warning and threshold lines and the two heatmaps' axes.
void MetricsPanel::setUpCharts() {
  flags_->setWordWrap(true);
  flags_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  flags_->setStyleSheet(QStringLiteral("QLabel { background: #fff1d6; color: #7a3f00; border: 1px solid #e0a040;"
                                       " border-radius: 3px; padding: 4px; }"));
  thresholds_->setWordWrap(true);
  thresholds_->setStyleSheet(QStringLiteral("QLabel { color: #666; font-size: 9pt; }"));
  similarityNote_->setWordWrap(true);
  similarityNote_->setVisible(false);
  similarity_->setMinimumHeight(220);
  similarity_->setColorScaleLabel(tr("JS divergence"));
  rollout_->setMinimumHeight(260);
  rollout_->setColorScaleLabel(tr("share of input"));
  similarity_->xAxis->setLabel(tr("head"));
  similarity_->yAxis->setLabel(tr("head"));
  rollout_->xAxis->setLabel(tr("input token"));
  rollout_->yAxis->setLabel(tr("token after the last layer"));
}

// Controls above the chart each one drives, in one scrolling column.
void MetricsPanel::buildLayout() {
  auto* content = new QWidget(this);
  auto* v = new QVBoxLayout(content);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Bars"), content));
  controls->addWidget(measure_, 1);
  v->addLayout(controls);
  auto* options = new QHBoxLayout;
  options->addWidget(layerLabel_);
  options->addWidget(layer_);
  options->addWidget(bits_);
  options->addStretch(1);
  options->addWidget(new QLabel(tr("k covers"), content));
  options->addWidget(coverage_);
  v->addLayout(options);
  v->addWidget(flags_);
  v->addWidget(bars_, 3);
  auto* rowControls = new QHBoxLayout;
  rowControls->addWidget(new QLabel(tr("Selected head, per row:"), content));
  rowControls->addWidget(rowMeasure_, 1);
  v->addLayout(rowControls);
  v->addWidget(rows_, 3);
  auto* similarityTitle =
      new QLabel(tr("Head similarity (Jensen–Shannon divergence, similar heads adjacent):"), content);
  similarityTitle->setWordWrap(true);
  v->addWidget(similarityTitle);
  v->addWidget(similarityNote_);
  v->addWidget(similarity_, 3);
  auto* lv = new QVBoxLayout(layerBox_);
  lv->setContentsMargins(0, 0, 0, 0);
  lv->addWidget(rolloutKind_);
  lv->addWidget(rollout_);
  v->addWidget(layerBox_, 3);
  v->addWidget(thresholds_);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);
  layerBox_->setVisible(false);
  layerLabel_->setVisible(false);
  layer_->setVisible(false);
  flags_->setVisible(false);
  fitWidth();
}

// As wide as the widest row of shown controls plus the scroll bar, so the
// dock never clips "k covers" (the layer row appears with layered input).
void MetricsPanel::fitWidth() {
  auto* scroll = findChild<QScrollArea*>();
  if (!scroll || !scroll->widget()) return;
  const int need =
      scroll->widget()->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width();
  setMinimumWidth(std::max(340, need));
}

void MetricsPanel::connectControls() {
  bars_->setToolTipProvider([this](int h) { return headToolTip(h); });
  connect(bars_, &MetricsBarChart::headClicked, this, [this](int h) {
    setCurrentHead(h);
    emit headActivated(h);
  });
  connect(similarity_, &HeatmapWidget::cellClicked, this, [this](int row, int) {
    const attn::Analysis* an = analysis();
    if (an && row >= 0 && row < static_cast<int>(an->headOrder.size())) {
      const int h = an->headOrder[static_cast<size_t>(row)];
      setCurrentHead(h);
      emit headActivated(h);
    }
  });
  connect(measure_, &QComboBox::currentIndexChanged, this, [this] { drawBars(); });
  connect(rowMeasure_, &QComboBox::currentIndexChanged, this, [this] { drawRows(); });
  connect(layer_, &QSpinBox::valueChanged, this, [this] { redraw(); });
  connect(rolloutKind_, &QComboBox::currentIndexChanged, this, [this] { drawLayers(); });
  connect(bits_, &QCheckBox::toggled, this, [this] { launch(); });
  connect(coverage_, &QDoubleSpinBox::valueChanged, this, [this] { launch(); });
}

// Follows the explorer: its result, head and layer.
void MetricsPanel::connectModel() {
  connect(model_, &ExplorerModel::resultChanged, this, &MetricsPanel::followModel);
  connect(model_, &ExplorerModel::currentHeadChanged, this, &MetricsPanel::setCurrentHead);
  connect(this, &MetricsPanel::headActivated, model_, &ExplorerModel::setCurrentHead);
  // The layer shown here and in the heatmap is one choice.
  // The box's range is the last analysis's until the new one arrives: a layer of a
  // freshly opened, deeper model widens it rather than being clamped and written back.
  connect(model_, &ExplorerModel::currentLayerChanged, this, [this](int l) {
    if (!layeredFrom_ && !streamedFrom_) return;
    if (l + 1 > layer_->maximum()) layer_->setMaximum(l + 1);
    layer_->setValue(l + 1);
  });
  connect(layer_, &QSpinBox::valueChanged, this, [this](int l) {
    if (layeredFrom_ || streamedFrom_) model_->setCurrentLayer(l - 1);
  });
  if (model_->hasResult()) followModel();
}

MetricsPanel::~MetricsPanel() = default;

// Layered weights (a loaded file's 'attn', a model's run) are analyzed as
// layers, once per input: per-layer bars, rollout and flow. Anything else is
// the model's engine result.
void MetricsPanel::followModel() {
  if (model_->isStreamed()) return followStreamed();
  streamedFrom_.reset();
  const auto layered = model_->showsLayers() && model_->numLayers() > 1 ? model_->layeredAttention() : nullptr;
  if (layered) {
    if (layered != layeredFrom_) {
      layeredFrom_ = layered;
      // The layers' own labels (a result shown meanwhile may still be an older input's).
      setLayers(layered->layers, model_->layerTokens(), model_->currentHead());
    } else {
      setCurrentHead(model_->currentHead());
    }
    return;
  }
  if (layeredFrom_ || model_->resultPtr() != result_) {
    layeredFrom_.reset();
    setResult(model_->resultPtr(), model_->currentHead());
  } else {
    setCurrentHead(model_->currentHead());  // same result: no new analysis
  }
}

attn::AnalysisOptions MetricsPanel::options() const {
  attn::AnalysisOptions o;
  o.unit = bits_->isChecked() ? attn::EntropyUnit::Bits : attn::EntropyUnit::Nats;
  o.coverageLevel = coverage_->value();
  return o;
}

void MetricsPanel::setResult(std::shared_ptr<const attn::AttentionResult> result, int currentHead) {
  result_ = std::move(result);
  layers_.reset();
  tokens_ = result_ ? toLabels(result_->queryTokens) : QStringList();
  head_ = currentHead;
  launch();
}

void MetricsPanel::setLayers(attn::LayeredWeights layers, std::vector<std::string> tokens, int currentHead) {
  layers_ = std::make_shared<const attn::LayeredWeights>(std::move(layers));
  result_.reset();
  tokens_ = toLabels(tokens);
  head_ = currentHead;
  launch();
}

// A streamed run's measures were computed by the forward itself (no map to analyze here):
// they are shown as they are, every layer, without rollout or flow.
void MetricsPanel::followStreamed() {
  const auto run = model_->modelRun();
  if (run == streamedFrom_) return setCurrentHead(model_->currentHead());
  streamedFrom_ = run;
  layeredFrom_.reset();
  result_.reset();
  layers_.reset();
  tokens_ = toLabels(run->encoding.tokens);
  head_ = model_->currentHead();
  launch();
}

void MetricsPanel::launch() {
  if (streamedFrom_) {
    jobs_->cancel();
    rerun_ = false;
    auto job = std::make_shared<Job>();
    auto layered = std::make_shared<attn::LayeredAnalysis>();
    layered->layers = streamedFrom_->streamedLayers;
    for (size_t l = 0; l < layered->layers.size(); ++l)
      for (const auto& w : layered->layers[l].warnings)
        layered->warnings.push_back(fmt::format("layer {} {}", l + 1, w));
    job->options = layered->layers.empty() ? options() : layered->layers.front().options;
    job->options.headSimilarity =
        !layered->layers.empty() && layered->layers.front().headDivergence.size() > 0;
    job->layered = std::move(layered);
    return deliver(job);
  }
  if (!signedMaps_.isEmpty()) {  // entropy, sink share, ... are defined on weights only
    jobs_->cancel();
    rerun_ = false;
    analysis_.reset();
    layered_.reset();
    redraw();
    emit analysisChanged();
    return;
  }
  auto job = std::make_shared<Job>();
  job->options = options();
  job->result = result_;
  job->layers = layers_;
  for (const auto& t : tokens_) job->tokens.push_back(t.toStdString());
  if (!job->result && !job->layers) {
    jobs_->cancel();  // a running analysis is of the input just closed
    rerun_ = false;
    analysis_.reset();
    layered_.reset();
    redraw();
    return;
  }
  // Heads' shapes for the similarity cost estimate.
  double heads = 0, cells = 0;
  if (job->result) {
    heads = job->result->numHeads();
    cells = static_cast<double>(job->result->nq()) * job->result->nk();
  } else if (!job->layers->empty() && !job->layers->front().empty()) {
    heads = static_cast<double>(job->layers->front().size());
    cells = static_cast<double>(job->layers->front().front().size());
  }
  job->options.headSimilarity = heads * (heads - 1) / 2 * cells <= kMaxSimilarityWork;
  // One analysis at a time: requests made meanwhile collapse into one rerun
  // with the newest input when the running one finishes.
  if (jobs_->busy()) {
    rerun_ = true;
    return;
  }
  // The worker owns the job (not `this`), so it may outlive the panel.
  jobs_->start(
      [job] {
        if (job->result)
          job->analysis = std::make_shared<attn::Analysis>(attn::analyzeResult(*job->result, job->options));
        else
          job->layered = std::make_shared<attn::LayeredAnalysis>(
              attn::analyzeLayers(*job->layers, job->tokens, job->options));
      },
      [this, job] {
        if (rerun_) {
          rerun_ = false;
          launch();  // the newest input; this job's result is stale
          return;
        }
        deliver(job);
      });
}

void MetricsPanel::deliver(const std::shared_ptr<Job>& job) {
  analysis_ = job->analysis;
  layered_ = job->layered;
  const int layers = layered_ ? static_cast<int>(layered_->layers.size()) : 1;
  layer_->setRange(1, std::max(1, layers));
  layer_->setVisible(layered_ != nullptr);
  layerLabel_->setVisible(layered_ != nullptr);
  fitWidth();
  similarityNote_->setVisible(!job->options.headSimilarity);
  similarityNote_->setText(tr("Too many heads × tokens to compare every pair here; use attnscope-cli metrics."));
  similarity_->setVisible(job->options.headSimilarity);
  if ((layeredFrom_ || streamedFrom_) && model_) {
    const QSignalBlocker block(layer_);  // already the model's layer
    layer_->setValue(model_->currentLayer() + 1);
  }
  redraw();
  emit analysisChanged();
}

void MetricsPanel::waitForIdle() {
  while (jobs_->busy() || rerun_) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

const attn::Analysis* MetricsPanel::analysis() const {
  if (analysis_) return analysis_.get();
  if (layered_ && !layered_->layers.empty())
    return &layered_->layers[static_cast<size_t>(std::clamp(layer_->value() - 1, 0,
                                                            static_cast<int>(layered_->layers.size()) - 1))];
  return nullptr;
}

QString MetricsPanel::headToolTip(int head) const {
  const attn::Analysis* an = analysis();
  if (!an) return {};
  QString s = headSummaryText(*an, head);
  if (layered_) s = tr("Layer %1, ").arg(layer_->value()) + s;
  return s;
}

void MetricsPanel::setCurrentHead(int head) {
  if (head == head_) return;
  head_ = head;
  bars_->setSelectedHead(head_);
  drawRows();
}

void MetricsPanel::redraw() {
  drawBars();
  drawRows();
  drawSimilarity();
  drawLayers();
  showFlags();
}

void MetricsPanel::drawBars() {
  const attn::Analysis* an = analysis();
  const auto* m = attn::findHeadMeasure(measure_->currentData().toString().toStdString());
  if (!an || !m) {
    bars_->setBars({}, {}, QString(), -1, QString());
    return;
  }
  showHeadMeasure(*bars_, *an, *m, head_);
}

void MetricsPanel::drawRows() {
  const attn::Analysis* an = analysis();
  if (!an || head_ < 0 || head_ >= static_cast<int>(an->heads.size())) {
    rows_->setCurve({}, {}, {}, tr("No head selected"), QString());
    return;
  }
  const auto& h = an->heads[static_cast<size_t>(head_)];
  const auto which = static_cast<RowMeasure>(rowMeasure_->currentData().toInt());
  const QString where = layered_ ? tr("layer %1, head %2").arg(layer_->value()).arg(head_ + 1) : tr("head %1").arg(head_ + 1);
  if (which == RowMeasure::OffsetProfile) {  // x = key offset j - i, not a query token
    const attn::Vec& m = h.offsets.mass;
    QStringList offsets;
    for (Eigen::Index k = 0; k < m.size(); ++k) offsets << QString::number(h.offsets.minOffset + k);
    rows_->setCurve(std::vector<double>(m.data(), m.data() + m.size()), {}, offsets,
                    tr("mass at each key offset j − i, averaged over rows — %1").arg(where), tr("mass"));
    return;
  }
  const attn::Vec* v = nullptr;
  QString label;
  std::vector<double> bound;
  const QString unit = coreText(attn::unitName(an->options.unit));
  switch (which) {
    case RowMeasure::Entropy:
      v = &h.perRow.entropy;
      label = tr("entropy (%1)").arg(unit);
      for (int n : h.perRow.keptKeys) bound.push_back(attn::uniformEntropy(n, an->options.unit));
      break;
    case RowMeasure::NormalizedEntropy: v = &h.perRow.normalizedEntropy; label = tr("normalized entropy"); break;
    case RowMeasure::MaxWeight: v = &h.perRow.maxWeight; label = tr("max weight"); break;
    case RowMeasure::MeanDistance: v = &h.perRow.meanDistance; label = tr("distance (tokens)"); break;
    case RowMeasure::CoverageK: v = &h.perRow.coverageK; label = tr("k (keys)"); break;
    case RowMeasure::MaxMinGap: v = &h.perRow.maxMinGap; label = tr("max − min"); break;
    case RowMeasure::MaxMinRatio: v = &h.perRow.maxMinRatio; label = tr("max / min"); break;
    case RowMeasure::OffsetProfile: return;  // drawn above
  }
  std::vector<double> values(v->data(), v->data() + v->size());
  rows_->setCurve(values, bound, tokens_, tr("%1 per query token — %2").arg(rowMeasure_->currentText(), where), label);
}

void MetricsPanel::drawSimilarity() {
  const attn::Analysis* an = analysis();
  if (!an || an->headDivergence.size() == 0) {
    similarity_->setMatrix(attn::Mat(), {}, {}, QString());
    return;
  }
  const auto& order = an->headOrder;
  const auto n = static_cast<Eigen::Index>(order.size());
  attn::Mat ordered(n, n);
  QStringList labels;
  for (Eigen::Index a = 0; a < n; ++a) {
    labels << tr("h%1").arg(order[static_cast<size_t>(a)] + 1);
    for (Eigen::Index b = 0; b < n; ++b) ordered(a, b) = an->headDivergence(order[static_cast<size_t>(a)], order[static_cast<size_t>(b)]);
  }
  const double maxJs = an->options.unit == attn::EntropyUnit::Bits ? 1.0 : std::numbers::ln2;
  similarity_->setMatrix(ordered, labels, labels, tr("0 = identical heads, max log 2"), 0.0, maxJs);
}

void MetricsPanel::drawLayers() {
  const bool show = layered_ && !layered_->rollout.empty();
  layerBox_->setVisible(layered_ != nullptr);
  if (!layered_) return;
  if (!show) {
    rollout_->setMatrix(attn::Mat(), {}, {},
                        streamedFrom_ ? tr("No rollout: a streamed run keeps no layer's map")
                                      : tr("No rollout: the layers are not square self-attention"));
    return;
  }
  const bool flow = rolloutKind_->currentIndex() == 1;
  if (flow && layered_->flow.size() == 0) {
    rollout_->setMatrix(attn::Mat(), {}, {}, tr("Flow not computed: %1").arg(QString::fromStdString(layered_->flowNote)));
    return;
  }
  const attn::Mat& m = flow ? layered_->flow : layered_->rollout.back();
  rollout_->setMatrix(m, tokens_, tokens_,
                      (flow ? tr("Attention flow through %1 layer(s)") : tr("Attention rollout through %1 layer(s)"))
                          .arg(layered_->rollout.size()),
                      0.0, 1.0);
}

void MetricsPanel::setSignedMaps(const QString& what) {
  if (what == signedMaps_) return;
  signedMaps_ = what;
  launch();
}

void MetricsPanel::showFlags() {
  const attn::Analysis* an = analysis();
  QString text;
  if (layered_) {
    QStringList all;
    for (size_t l = 0; l < layered_->layers.size(); ++l) {
      auto& la = layered_->layers[l];
      attn::Analysis flagsOnly = la;
      flagsOnly.warnings.clear();  // layer warnings are in layered_->warnings
      const QString t = collapseFlagsText(flagsOnly, tr("Layer %1: ").arg(l + 1));
      if (!t.isEmpty()) all << t;
    }
    for (const auto& w : layered_->warnings) all << QStringLiteral("⚠ ") + QString::fromStdString(w);
    text = all.join(QLatin1Char('\n'));
  } else if (an) {
    text = collapseFlagsText(*an);
  }
  if (!signedMaps_.isEmpty())
    text = tr("The measures are defined on attention weights (non-negative rows that sum to 1). The maps "
              "shown are %1, so none is computed: choose Weights in the heatmap's Maps to see them.")
               .arg(signedMaps_);
  flags_->setText(text);
  flags_->setVisible(!text.isEmpty());
  thresholds_->setText(thresholdsText(an ? an->options : options()));
}

}  // namespace attn::ui
