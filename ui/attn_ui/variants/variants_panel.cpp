#include "attn_ui/variants/variants_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "attn/variants/kv_cache.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/window/hidden_panel_gate.h"
#include "attn_ui/variants/kv_cache_text.h"
#include "attn_ui/variants/variant_chart_widget.h"
#include "attn_ui/variants/variant_figure.h"
#include "attn_ui/variants/variant_maps_widget.h"

namespace attn::ui {
namespace av = attn::variants;

namespace {
constexpr av::VariantKind kKinds[] = {av::VariantKind::SegmentMemory, av::VariantKind::AdaptiveSpan,
                                      av::VariantKind::DynamicConv, av::VariantKind::MultiHop,
                                      av::VariantKind::Precision};

QSpinBox* spin(QWidget* parent, int lo, int hi, int value, const QString& tip) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setValue(value);
  s->setToolTip(tip);
  return s;
}
}  // namespace

VariantsPanel::VariantsPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      variant_(new QComboBox(this)),
      head_(spin(this, 1, 1, 1, tr("The head drawn and walked."))),
      row_(spin(this, 0, 0, 0, tr("The query row of the step-through (follows the pinned row)."))),
      params_(new QStackedWidget(this)),
      maps_(new VariantMapsWidget(this)),
      chart_(new VariantChartWidget(this)),
      summary_(new QLabel(this)),
      message_(new QLabel(this)),
      stepTitle_(new QLabel(this)),
      stepBody_(new QTextBrowser(this)),
      prev_(new QPushButton(tr("◀ Previous"), this)),
      next_(new QPushButton(tr("Next ▶"), this)),
      export_(new QPushButton(tr("Export figure…"), this)) {
  for (auto k : kKinds) {
    variant_->addItem(variantDisplayName(k), QString::fromUtf8(av::variantName(k).data()));
    variant_->setItemData(variant_->count() - 1, variantToolTip(k), Qt::ToolTipRole);
  }
  variant_->setToolTip(tr("The attention variant run on the current input and configuration."));
  export_->setToolTip(tr("Write the maps and the chart as PNG, SVG or PDF."));
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Variant"), this));
  top->addWidget(variant_, 1);
  top->addWidget(new QLabel(tr("Head"), this));
  top->addWidget(head_);
  top->addWidget(new QLabel(tr("Query row"), this));
  top->addWidget(row_);
  top->addWidget(export_);
  params_->addWidget(buildParameters());
  for (QLabel* l : {summary_, message_, stepTitle_}) {
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
  }
  message_->setStyleSheet("color: #b03020");
  auto* left = new QVBoxLayout;
  left->addLayout(top);
  left->addWidget(params_);
  left->addWidget(maps_, 3);
  left->addWidget(chart_, 1);
  left->addWidget(summary_);
  left->addWidget(message_);
  auto* right = new QVBoxLayout;
  auto* nav = new QHBoxLayout;
  nav->addWidget(prev_);
  nav->addWidget(next_);
  right->addWidget(new QLabel(tr("<b>Step-through</b>"), this));
  right->addWidget(stepTitle_);
  right->addWidget(stepBody_, 1);
  right->addLayout(nav);
  auto* layout = new QHBoxLayout(this);
  layout->addLayout(left, 3);
  layout->addLayout(right, 2);

  connect(variant_, &QComboBox::currentIndexChanged, this, [this](int i) {
    params_->widget(0)->findChild<QStackedWidget*>()->setCurrentIndex(i);
    refresh();
  });
  connect(head_, &QSpinBox::valueChanged, this, &VariantsPanel::refresh);
  connect(row_, &QSpinBox::valueChanged, this, [this] {
    if (kvShown_) showKvCache();
    else showWalk();
  });
  connect(prev_, &QPushButton::clicked, this, [this] { setStep(step_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { setStep(step_ + 1); });
  connect(export_, &QPushButton::clicked, this, &VariantsPanel::exportClicked);
  auto* gate = new HiddenPanelGate(this, [this] { refresh(); });
  connect(model_, &ExplorerModel::resultChanged, gate, &HiddenPanelGate::request);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, [this](int r) {
    if (r >= 0) row_->setValue(r);
  });
  refresh();
}

QWidget* VariantsPanel::buildParameters() {
  auto* box = new QWidget(this);
  auto* stack = new QStackedWidget(box);
  auto* outer = new QVBoxLayout(box);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(stack);
  // xl
  auto* xl = new QWidget(stack);
  auto* xlForm = new QHBoxLayout(xl);
  segment_ = spin(xl, 1, 4096, 8, tr("Segment length L: tokens processed together."));
  memory_ = spin(xl, 0, 4096, 8, tr("Memory length M: cached tokens of the previous segments each query may attend to."));
  layers_ = spin(xl, 1, 64, 1, tr("Layers stacked: each layer's memory holds the layer below, so the reach grows by "
                                   "about M per layer."));
  segmentShown_ = spin(xl, 0, 4096, 0, tr("The segment drawn on the left (0: the last)."));
  for (auto [label, w] : {std::pair{tr("Segment L"), segment_}, {tr("Memory M"), memory_}, {tr("Layers"), layers_},
                          {tr("Show segment"), segmentShown_}}) {
    xlForm->addWidget(new QLabel(label, xl));
    xlForm->addWidget(w);
  }
  xlForm->addStretch(1);
  stack->addWidget(xl);
  // span
  auto* span = new QWidget(stack);
  auto* spanLayout = new QHBoxLayout(span);
  ramp_ = new QDoubleSpinBox(span);
  ramp_->setRange(0.5, 256);
  ramp_->setValue(2.0);
  ramp_->setSingleStep(0.5);
  ramp_->setToolTip(tr("Ramp length R: how softly the span ends."));
  spanLayout->addWidget(new QLabel(tr("Ramp R"), span));
  spanLayout->addWidget(ramp_);
  zBox_ = new QWidget(span);
  zLayout_ = new QVBoxLayout(zBox_);
  zLayout_->setContentsMargins(0, 0, 0, 0);
  spanLayout->addWidget(zBox_, 1);
  stack->addWidget(span);
  // dynconv
  auto* dc = new QWidget(stack);
  auto* dcLayout = new QHBoxLayout(dc);
  kernel_ = spin(dc, 1, 63, 3, tr("Kernel width k (causal when the mask has a causal term, centred otherwise)."));
  dcLayout->addWidget(new QLabel(tr("Kernel k"), dc));
  dcLayout->addWidget(kernel_);
  dcLayout->addStretch(1);
  stack->addWidget(dc);
  // hops
  auto* hp = new QWidget(stack);
  auto* hpLayout = new QHBoxLayout(hp);
  hops_ = spin(hp, 1, 16, 3, tr("Number of hops K."));
  hopUpdate_ = new QComboBox(hp);
  hopUpdate_->addItem(tr("q + o"), "add");
  hopUpdate_->addItem(tr("q H + o (seeded H)"), "linear");
  hopUpdate_->setToolTip(tr("How the next hop's query is formed from the previous query and output."));
  hpLayout->addWidget(new QLabel(tr("Hops"), hp));
  hpLayout->addWidget(hops_);
  hpLayout->addWidget(new QLabel(tr("Update"), hp));
  hpLayout->addWidget(hopUpdate_);
  hpLayout->addStretch(1);
  stack->addWidget(hp);
  // precision
  auto* pr = new QWidget(stack);
  auto* prLayout = new QHBoxLayout(pr);
  precision_ = new QComboBox(pr);
  for (auto p : av::allPrecisions()) precision_->addItem(QString::fromUtf8(p.data()), QString::fromUtf8(p.data()));
  precision_->setItemData(0, tr("IEEE half: 11-bit mantissa, largest value 65504."), Qt::ToolTipRole);
  precision_->setItemData(1, tr("bfloat16: fp32's range with an 8-bit mantissa."), Qt::ToolTipRole);
  precision_->setItemData(2, tr("Symmetric INT8 with one scale for the whole tensor."), Qt::ToolTipRole);
  precision_->setItemData(3, tr("Symmetric INT8 with one scale per channel (column)."), Qt::ToolTipRole);
  accumulate_ = new QComboBox(pr);
  accumulate_->addItem(tr("accumulate in fp32"), "fp32");
  accumulate_->addItem(tr("accumulate in low precision"), "low");
  accumulate_->setToolTip(tr("fp16/bf16: sum q·k in fp32 and round once, or round every product and partial sum."));
  quantize_ = new QComboBox(pr);
  quantize_->addItem(tr("quantize Q and K"), "qk");
  quantize_->addItem(tr("quantize W_Q, W_K, W_V"), "proj");
  quantize_->setToolTip(tr("INT8: what is quantized."));
  prLayout->addWidget(new QLabel(tr("Format"), pr));
  prLayout->addWidget(precision_);
  prLayout->addWidget(accumulate_);
  prLayout->addWidget(quantize_);
  prLayout->addStretch(1);
  stack->addWidget(pr);

  for (QSpinBox* s : {segment_, memory_, layers_, segmentShown_, kernel_, hops_})
    connect(s, &QSpinBox::valueChanged, this, &VariantsPanel::refresh);
  connect(ramp_, &QDoubleSpinBox::valueChanged, this, &VariantsPanel::refresh);
  for (QComboBox* c : {hopUpdate_, precision_, accumulate_, quantize_})
    connect(c, &QComboBox::currentIndexChanged, this, &VariantsPanel::refresh);
  return box;
}

void VariantsPanel::rebuildSpanSliders(int heads) {
  if (static_cast<int>(zSliders_.size()) == heads) return;
  for (QSlider* s : zSliders_) s->parentWidget()->deleteLater();
  zSliders_.clear();
  zLabels_.clear();
  for (int h = 0; h < heads; ++h) {
    auto* row = new QWidget(zBox_);
    auto* l = new QHBoxLayout(row);
    l->setContentsMargins(0, 0, 0, 0);
    auto* slider = new QSlider(Qt::Horizontal, row);
    slider->setRange(0, 2 * kMaxTokens);  // z in steps of 0.5
    slider->setValue(2 * (1 << std::min(h, 8)));
    slider->setToolTip(tr("Span z of head %1: keys farther than z + R are cut.").arg(h + 1));
    auto* label = new QLabel(row);
    label->setMinimumWidth(90);
    l->addWidget(label);
    l->addWidget(slider, 1);
    zLayout_->addWidget(row);
    zSliders_.push_back(slider);
    zLabels_.push_back(label);
    connect(slider, &QSlider::valueChanged, this, &VariantsPanel::refresh);
  }
}

av::VariantOptions VariantsPanel::options() const {
  av::VariantOptions o;
  o.kind = kKinds[std::clamp(variant_->currentIndex(), 0, 4)];
  o.segment = segment_->value();
  o.memory = memory_->value();
  o.layers = layers_->value();
  o.spanRamp = ramp_->value();
  for (QSlider* s : zSliders_) o.spanZ.push_back(s->value() / 2.0);
  o.kernel = kernel_->value();
  o.hops = hops_->value();
  o.hopUpdate = hopUpdate_->currentData().toString() == "linear" ? av::HopUpdate::Linear : av::HopUpdate::Add;
  o.precision.format = *av::parsePrecision(precision_->currentData().toString().toStdString());
  o.precision.accumulate = accumulate_->currentData().toString() == "low" ? av::Accumulation::Low : av::Accumulation::Fp32;
  o.precision.target = quantize_->currentData().toString() == "proj" ? av::QuantTarget::Projections : av::QuantTarget::QK;
  return o;
}

void VariantsPanel::setVariant(av::VariantKind kind) {
  for (int i = 0; i < 5; ++i)
    if (kKinds[i] == kind) variant_->setCurrentIndex(i);
}

QString VariantsPanel::message() const { return message_->text(); }
QString VariantsPanel::summaryText() const { return summary_->text(); }

void VariantsPanel::refresh() {
  run_.reset();
  steps_.clear();
  message_->clear();
  summary_->clear();
  const bool span = kKinds[std::clamp(variant_->currentIndex(), 0, 4)] == av::VariantKind::AdaptiveSpan;
  const bool precision = kKinds[std::clamp(variant_->currentIndex(), 0, 4)] == av::VariantKind::Precision;
  if (precision) {
    const bool isInt8 = precision_->currentIndex() >= 2;
    accumulate_->setEnabled(!isInt8);
    quantize_->setEnabled(isInt8);
  }
  const auto fail = [this](const QString& m) {
    message_->setText(m);
    maps_->setMaps({});
    chart_->clear();
    showWalk();
  };
  kvShown_ = false;
  if (!model_->hasResult()) return fail(tr("No result yet: type a sentence or open a file."));
  if (model_->hasModel()) {
    if (kKinds[std::clamp(variant_->currentIndex(), 0, 4)] == av::VariantKind::SegmentMemory) return showKvCache();
    return fail(tr("On a pretrained model this view shows segment memory as the model's key/value cache; the other "
                   "variants run on text or tensor input."));
  }
  const auto& spec = model_->resultSpec();
  std::shared_ptr<const attn::AttentionInput> input;
  if (const auto* loaded = model_->loadedInput()) {
    input = std::make_shared<attn::AttentionInput>(*loaded);
  } else {
    const auto& res = model_->result();
    std::vector<std::string> keys;
    if (!model_->keyText().isEmpty()) keys = res.keyTokens;
    input = std::make_shared<attn::AttentionInput>(attn::inputFromTokens(res.queryTokens, spec.dModel, spec.seed, keys));
  }
  const long long n = input->isProjected() ? input->q.front().rows() : input->x.rows();
  if (n > kMaxTokens)
    return fail(tr("%1 tokens: the variants view draws up to %2 tokens. Shorten the input.").arg(n).arg(kMaxTokens));
  if (span) rebuildSpanSliders(spec.heads);
  for (size_t h = 0; h < zSliders_.size(); ++h)
    zLabels_[h]->setText(tr("head %1: z = %2").arg(h + 1).arg(zSliders_[h]->value() / 2.0));
  auto opts = options();
  if (!span) opts.spanZ.clear();
  auto r = av::runVariant(*input, spec, opts);
  if (!r) return fail(QString::fromStdString(r.error().message));
  run_ = std::move(r).value();
  input_ = input;
  head_->setRange(1, std::max(1, run_->numHeads()));
  row_->setRange(0, std::max<int>(0, static_cast<int>(run_->tokens.size()) - 1));
  const int head = head_->value() - 1;
  maps_->setMaps(av::variantMaps(*run_, head, segmentShown_->value() - 1));
  fillVariantChart(*chart_, *run_, head);
  QStringList lines;
  for (const auto& l : av::variantSummary(*run_)) lines << QString::fromStdString(l).toHtmlEscaped();
  summary_->setText(lines.join("<br>"));
  showWalk();
}

void VariantsPanel::showWalk() {
  steps_.clear();
  if (run_) {
    QString error;
    steps_ = variantWalkSteps(*run_, *input_, head_->value() - 1, row_->value(), &error);
    if (steps_.empty() && !error.isEmpty()) message_->setText(error);
    if (!run_->xl) maps_->setHighlightRow(row_->value());
    else maps_->setHighlightRow(-1);
  }
  setStep(std::clamp(step_, 0, std::max(0, static_cast<int>(steps_.size()) - 1)));
}

void VariantsPanel::showKvCache() {
  kvShown_ = true;
  steps_.clear();
  message_->clear();
  const auto model = model_->modelPtr();
  const attn::AttentionResult& layer = model_->result();
  const int n = layer.nq();
  {
    const QSignalBlocker blockHead(head_), blockRow(row_);  // this call already shows the clamped values
    head_->setRange(1, std::max(1, layer.numHeads()));
    row_->setRange(0, std::max(0, n - 1));
  }
  const int head = head_->value() - 1, t = row_->value();
  const auto& info = model->info();
  const auto fail = [this](const QString& m) {
    message_->setText(m);
    maps_->setMaps({});
    chart_->clear();
    summary_->clear();
    setStep(0);
  };
  if (n > kMaxTokens)
    return fail(tr("%1 tokens: the variants view draws up to %2 tokens. Shorten the input.").arg(n).arg(kMaxTokens));
  const QStringList shown = model_->queryLabels();  // "␣animal", as the heatmap labels them
  std::vector<std::string> labels;
  for (const QString& l : shown) labels.push_back(l.toStdString());
  auto v = av::kvCacheView(layer, head, t, av::KvCacheShape{info.layers, info.kvHeads, info.headDim, 2}, labels);
  if (!v) return fail(QString::fromStdString(v.error().message));
  maps_->setMaps(v->maps);
  maps_->setHighlightRow(-1);
  std::vector<std::vector<double>> series = v->cachedWeight;
  QStringList names;
  for (int h = 0; h < layer.numHeads(); ++h) names << tr("head %1").arg(h + 1);
  chart_->setSeries(tr("Weight on cached keys per query"), tr("query position"), tr("weight"), std::move(series), names);
  const QString token = QString::fromStdString(v->maps[0].rowLabels.front());
  summary_->setText(kvCacheSummary(*v, model_->currentLayer(), head, token, info));
  steps_ = kvCacheSteps(*v, head, token, info);
  setStep(step_);
}

void VariantsPanel::setStep(int step) {
  const int n = static_cast<int>(steps_.size());
  step_ = std::clamp(step, 0, std::max(0, n - 1));
  prev_->setEnabled(step_ > 0);
  next_->setEnabled(step_ + 1 < n);
  if (n == 0) {
    stepTitle_->clear();
    stepBody_->clear();
    return;
  }
  const auto& s = steps_[static_cast<size_t>(step_)];
  stepTitle_->setText(tr("Step %1 of %2: <b>%3</b>").arg(step_ + 1).arg(n).arg(s.title));
  stepBody_->setHtml(s.body);
}

attn::Status VariantsPanel::exportFigure(const QString& path, QSize size, int dpi) const {
  if (!run_ && !kvShown_) return attn::Error{(path + ": " + tr("no variant result to draw")).toStdString()};
  FigureOptions fo;
  fo.size = size;
  fo.dpi = dpi;
  fo.title = kvShown_ ? tr("Key/value cache — layer %1, head %2").arg(model_->currentLayer() + 1).arg(head_->value())
                      : variant_->currentText() + tr(" — head %1").arg(head_->value());
  if (auto st = checkFigureOptions(path, fo); !st) return st;
  return writeFigure(path, fo, variantFigurePainter(*maps_, *chart_, fo.title));
}

void VariantsPanel::exportClicked() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export variant figure"), QString(),
                                                    tr("Figures (*.png *.svg *.pdf)"));
  if (path.isEmpty()) return;
  if (auto st = exportFigure(path); !st)
    QMessageBox::warning(this, tr("Export figure"), QString::fromStdString(st.error().message));
}

}  // namespace attn::ui
