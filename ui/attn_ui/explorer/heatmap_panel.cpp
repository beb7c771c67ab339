#include "attn_ui/explorer/heatmap_panel.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "attn/engine.h"
#include "attn/models/model.h"
#include "attn/spec.h"
#include "attn_ui/common/flow_layout.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_source.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/theme/colormaps.h"

namespace attn::ui {

attn::Mat rawLogitsOf(const attn::HeadResult& head, float logitScale) {
  // The tiled path keeps only the scaled logits (one N x N less per head).
  if (head.rawLogits.size() > 0 || head.scaledLogits.size() == 0 || logitScale == 0.0f) return head.rawLogits;
  return head.scaledLogits / logitScale;
}

attn::Mat heatmapValues(const attn::HeadResult& head, HeatmapQuantity q, const attn::Mask& mask,
                        float logitScale) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  switch (q) {
    case HeatmapQuantity::Weights: return head.weights;
    case HeatmapQuantity::Mask: {
      const Eigen::Index nq = head.output.rows(), nk = head.v.rows();
      attn::Mat m(nq, nk);
      for (Eigen::Index i = 0; i < nq; ++i)
        for (Eigen::Index j = 0; j < nk; ++j)
          m(i, j) = mask.allowed(static_cast<int>(i), static_cast<int>(j)) ? 1.f : 0.f;
      return m;
    }
    case HeatmapQuantity::ScaledLogits:
    case HeatmapQuantity::RawLogits: {
      attn::Mat m = q == HeatmapQuantity::RawLogits ? rawLogitsOf(head, logitScale) : head.scaledLogits;
      for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
          if (!mask.allowed(static_cast<int>(i), static_cast<int>(j))) m(i, j) = nan;
      return m;
    }
  }
  return head.weights;
}

void HeatmapPanel::addToolBarWidget(QWidget* w) {
  w->setParent(bar_);
  bar_->layout()->addWidget(w);
}

namespace {

/// A label and its control, kept on one line of the tool row.
QWidget* labelled(const QString& label, QWidget* control, QWidget* parent) {
  auto* group = new QWidget(parent);
  auto* row = new QHBoxLayout(group);
  row->setContentsMargins(0, 0, 0, 0);
  row->setSpacing(2);
  row->addWidget(new QLabel(label, group));
  row->addWidget(control);
  return group;
}

QToolButton* toolButton(QAction* action, QWidget* parent) {
  auto* b = new QToolButton(parent);
  b->setDefaultAction(action);
  b->setAutoRaise(true);
  return b;
}

}  // namespace

HeatmapPanel::HeatmapPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      heatmap_(new HeatmapWidget(this)),
      head_(new QSpinBox(this)),
      quantity_(new QComboBox(this)),
      colormap_(new QComboBox(this)),
      banner_(new QLabel(this)) {
  // The tool row wraps onto a second line in a narrow window rather than hiding controls.
  bar_ = new QWidget(this);
  auto* bar = new FlowLayout(bar_, 10, 2);
  head_->setRange(1, 1);
  head_->setToolTip(tr("Which attention head the heatmap shows (Ctrl+PgDown / Ctrl+PgUp step through heads)."));
  bar->addWidget(labelled(tr("Head "), head_, bar_));
  quantity_->addItem(tr("Weights"), int(HeatmapQuantity::Weights));
  quantity_->addItem(tr("Scaled logits"), int(HeatmapQuantity::ScaledLogits));
  quantity_->addItem(tr("Raw logits"), int(HeatmapQuantity::RawLogits));
  quantity_->addItem(tr("Mask"), int(HeatmapQuantity::Mask));
  quantity_->setToolTip(tr("What the heatmap draws: softmax weights, logits before softmax, or which cells the mask keeps."));
  bar->addWidget(labelled(tr("Show "), quantity_, bar_));
  maskOverlay_ = new QAction(tr("Show &Masked Cells"), this);
  maskOverlay_->setCheckable(true);
  maskOverlay_->setChecked(QSettings().value("view/maskOverlay", true).toBool());
  maskOverlay_->setToolTip(tr("Dims and hatches the cells the mask removed and outlines rows whose every key is masked."));
  heatmap_->setMaskOverlayVisible(maskOverlay_->isChecked());
  connect(maskOverlay_, &QAction::toggled, this, [this](bool on) {
    QSettings().setValue("view/maskOverlay", on);
    redraw();
  });
  bar->addWidget(toolButton(maskOverlay_, bar_));
  actions_ << maskOverlay_;
  for (const QString& n : colormapNames()) colormap_->addItem(n, n);
  colormap_->setToolTip(tr("Colormap; 'diverging' centres logits and differences on white."));
  bar->addWidget(labelled(tr("Colours "), colormap_, bar_));

  auto makeAction = [&](const QString& text, const QKeySequence& key, auto&& fn) {
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    connect(a, &QAction::triggered, this, fn);
    this->addAction(a);  // shortcuts work while the panel's window is active
    actions_ << a;
    return a;
  };
  makeAction(tr("Zoom &In"), QKeySequence::ZoomIn, [this] { heatmap_->zoomBy(0.8); });
  makeAction(tr("Zoom &Out"), QKeySequence::ZoomOut, [this] { heatmap_->zoomBy(1.25); });
  bar->addWidget(toolButton(
      makeAction(tr("&Reset View"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { heatmap_->resetView(); }),
      bar_));
  makeAction(tr("&Next Head"), QKeySequence(Qt::CTRL | Qt::Key_PageDown), [this] { head_->stepUp(); });
  makeAction(tr("&Previous Head"), QKeySequence(Qt::CTRL | Qt::Key_PageUp), [this] { head_->stepDown(); });
  // Esc first stops a model run in flight (the status bar's Cancel), then unpins.
  makeAction(tr("Unpin Row"), QKeySequence(Qt::Key_Escape), [this] {
    if (!model_->cancelModelRun()) model_->setPinnedRow(-1);
  });
  for (QAction* a : actions_) a->setShortcutContext(Qt::WindowShortcut);

  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::RichText);
  banner_->hide();
  connect(banner_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == QLatin1String("metrics-only")) model_->setMetricsOnlyAllowed(true);
  });

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(bar_);
  layout->addWidget(banner_);
  layout->addWidget(heatmap_, 1);

  setColormapName(QSettings().value("view/colormap", "viridis").toString());
  connect(colormap_, &QComboBox::currentIndexChanged, this, [this] {
    const QString name = colormap_->currentData().toString();
    QSettings().setValue("view/colormap", name);
    heatmap_->setColormap(name);
    emit colormapChanged(name);
  });
  connect(quantity_, &QComboBox::currentIndexChanged, this, [this] {
    const auto q = quantity();
    heatmap_->setPooling(q == HeatmapQuantity::Weights || q == HeatmapQuantity::Mask
                             ? HeatmapWidget::Pooling::Max : HeatmapWidget::Pooling::Mean);
    redraw();
  });
  connect(head_, &QSpinBox::valueChanged, this, [this](int h) { model_->setCurrentHead(h - 1); });
  connect(model_, &ExplorerModel::resultChanged, this, &HeatmapPanel::redraw);
  connect(model_, &ExplorerModel::errorOccurred, this, &HeatmapPanel::showError);
  connect(model_, &ExplorerModel::recomputeRequested, this, [this] { bannerSticky_ = false; });
  connect(model_, &ExplorerModel::pinnedRowChanged, heatmap_, &HeatmapWidget::setPinnedRow);
  connect(heatmap_, &HeatmapWidget::cellClicked, this, [this](int row, int) {
    model_->setPinnedRow(row == model_->pinnedRow() ? -1 : row);
  });
  connect(heatmap_, &HeatmapWidget::cellHovered, this, [this](int r, int c, const QPoint& at) {
    QToolTip::showText(at, hoverText(r, c), heatmap_);
  });
  connect(heatmap_, &HeatmapWidget::hoverLeft, this, [] { QToolTip::hideText(); });
}

HeatmapQuantity HeatmapPanel::quantity() const {
  return static_cast<HeatmapQuantity>(quantity_->currentData().toInt());
}

namespace {
const char* const kQuantityKeys[] = {"weights", "scaled_logits", "raw_logits", "mask"};
}

QString HeatmapPanel::quantityKey() const {
  return QString::fromLatin1(kQuantityKeys[static_cast<int>(quantity())]);
}

void HeatmapPanel::setQuantityKey(const QString& key) {
  for (int i = 0; i < 4; ++i)
    if (key == QLatin1String(kQuantityKeys[i])) quantity_->setCurrentIndex(quantity_->findData(i));
}

void HeatmapPanel::setColormapName(const QString& name) {
  const int i = colormap_->findData(isColormapName(name) ? name : QStringLiteral("viridis"));
  colormap_->setCurrentIndex(i);  // emits colormapChanged when it changes
  heatmap_->setColormap(colormap_->currentData().toString());
}

void HeatmapPanel::setSignedMaps(const QString& what, double range, const QString& note) {
  if (what == signedWhat_ && range == signedRange_ && note == signedNote_) return;
  signedWhat_ = what;
  signedRange_ = range > 0 ? range : 1.0;
  signedNote_ = note;
  const QString name = signedMaps() ? QStringLiteral("diverging") : colormap_->currentData().toString();
  heatmap_->setColormap(name);
  emit colormapChanged(name);  // the head grid follows
  redraw();
}

void HeatmapPanel::setMapsName(const QString& what) {
  if (what == mapsWhat_) return;
  mapsWhat_ = what;
  redraw();
}

// A streamed run keeps no map: the widget reads the current head from the kept q/k
// (an overview, and the visible rectangle at full resolution once zoomed in).
void HeatmapPanel::redrawStreamed() {
  const auto& r = model_->result();
  const auto store = model_->streamedStore();
  heatmap_->setColorScaleLabel(tr("weights"));
  heatmap_->setMaskOverlay(attn::Mask(), 0, 0, {});
  heatmap_->setMaskOverlayVisible(false);
  if (quantity() != HeatmapQuantity::Weights)
    showNotice(tr("%1 tokens, streamed: only the weights are recomputed from the kept q/k; "
                  "logits and the mask are not drawn.")
                   .arg(r.nq()));
  const auto* shown = dynamic_cast<const StreamedHeadSource*>(heatmap_->source().get());
  const bool same = shown && shown->store() == store && shown->layer() == model_->currentLayer() &&
                    shown->head() == model_->currentHead();
  if (!same)
    heatmap_->setSource(
        std::make_shared<StreamedHeadSource>(store, model_->currentLayer(), model_->currentHead()),
        model_->queryLabels(), model_->keyLabels(),
        tr("Weights — layer %1 of %2, head %3 of %4 — %5")
            .arg(model_->currentLayer() + 1)
            .arg(model_->numLayers())
            .arg(model_->currentHead() + 1)
            .arg(r.numHeads())
            .arg(QString::fromStdString(model_->modelPtr()->info().name)),
        0.0, 0.0);
  heatmap_->setPinnedRow(model_->pinnedRow());
}

QString HeatmapPanel::streamedHoverText(int row, int col) const {
  const QStringList q = model_->queryLabels(), k = model_->keyLabels();
  if (row < 0 || col < 0 || row >= q.size() || col >= k.size()) return {};
  float v = 0;
  const QString weight =
      heatmap_->cellValue(row, col, &v)
          ? QString::number(v, 'g', 5)
          : tr("(zoom in to read single cells: each drawn cell pools %1×%1)").arg(heatmap_->overviewBlock());
  return tr("<b>%1</b> → <b>%2</b><br>query %3, key %4<br>weight %5<br><i>recomputed from the kept q/k</i>")
      .arg(q[row].toHtmlEscaped(), k[col].toHtmlEscaped())
      .arg(row)
      .arg(col)
      .arg(weight);
}

QString HeatmapPanel::hoverText(int row, int col) const {
  if (model_->isStreamed()) return streamedHoverText(row, col);
  const auto* h = model_->currentHeadResult();
  if (!h || row < 0 || col < 0 || row >= h->weights.rows() || col >= h->weights.cols()) return {};
  const auto& r = model_->result();
  const bool masked = !shownMask().allowed(row, col);
  const bool rowMasked = std::find(h->fullyMaskedRows.begin(), h->fullyMaskedRows.end(), row) != h->fullyMaskedRows.end();
  const auto& spec = model_->resultSpec();
  const float scale = attn::logitScale(spec.mechanism, h->q.cols(), spec.temperature);
  auto cell = [&](const attn::Mat& m) {
    if (row < m.rows() && col < m.cols()) return QString::number(m(row, col), 'g', 5);
    if (model_->hasModel()) return tr("(not kept: the text is too long to keep every layer's logits)");
    return model_->showsPrecomputed() ? tr("(not in the file)")
                                      : tr("(not kept on the %1 path)").arg(QString::fromStdString(r.execUsed));
  };
  // Paths that keep only the scaled logits (tiled, sparse): raw = scaled / scale.
  const bool derived = h->rawLogits.size() == 0 && row < h->scaledLogits.rows() && col < h->scaledLogits.cols();
  const QString rawCell = derived ? QString::number(h->scaledLogits(row, col) / scale, 'g', 5) : cell(h->rawLogits);
  const QString stride = heatmap_->poolStride() > 1
                             ? tr("<br><i>zoom in to see single cells (each drawn cell pools %1×%1)</i>")
                                   .arg(heatmap_->poolStride())
                             : QString();
  const QString maskedText =
      masked ? (rowMasked ? tr("masked — every key of this query is masked, so its weights are all 0")
                          : tr("masked"))
             : tr("not masked");
  // Maps that are not the attention's weights (attention norms, ALTI, a signed difference such as
  // the quantization effect) name their own value; the attention's logits do not describe them.
  const QString named = signedMaps() ? signedWhat_ : mapsWhat_;
  if (!named.isEmpty() && quantity() == HeatmapQuantity::Weights)
    return tr("<b>%1</b> → <b>%2</b><br>query %3, key %4<br>%5: %6<br>%7%8")
        .arg(QString::fromStdString(r.queryTokens[static_cast<size_t>(row)]).toHtmlEscaped(),
             QString::fromStdString(r.keyTokens[static_cast<size_t>(col)]).toHtmlEscaped())
        .arg(row)
        .arg(col)
        .arg(named.toHtmlEscaped(), cell(h->weights))
        .arg(maskedText, stride);
  return tr("<b>%1</b> → <b>%2</b><br>query %3, key %4<br>raw logit %5<br>scaled logit %6<br>"
            "weight %7<br>%8%9")
      .arg(QString::fromStdString(r.queryTokens[static_cast<size_t>(row)]).toHtmlEscaped(),
           QString::fromStdString(r.keyTokens[static_cast<size_t>(col)]).toHtmlEscaped())
      .arg(row)
      .arg(col)
      .arg(rawCell, cell(h->scaledLogits), cell(h->weights))
      .arg(maskedText, stride);
}

void HeatmapPanel::redraw() {
  if (!bannerSticky_) banner_->hide();
  const auto* h = model_->currentHeadResult();
  if (!h) return;
  const auto& r = model_->result();
  {
    QSignalBlocker block(head_);
    head_->setRange(1, r.numHeads());
    head_->setValue(model_->currentHead() + 1);
  }
  if (model_->isStreamed()) return redrawStreamed();
  const auto q = quantity();
  const bool signedMap = signedMaps() && q == HeatmapQuantity::Weights;
  const bool named = !signedMap && !mapsWhat_.isEmpty() && q == HeatmapQuantity::Weights;
  const QString what = signedMap ? signedWhat_ : named ? mapsWhat_ : quantity_->currentText();
  const bool scaled = signedRange_ == 1.0;  // attention x gradient: ÷ its largest |value|
  heatmap_->setColorScaleLabel(signedMap && scaled ? tr("signed, ÷ max |·|")
                               : signedMap         ? tr("signed, ± %1").arg(signedRange_, 0, 'g', 3)
                               : named             ? tr("share of the row")
                                                   : what.toLower());
  const double lo = signedMap ? -signedRange_ : 0.0;
  const double hi = signedMap ? signedRange_ : q == HeatmapQuantity::Mask ? 1.0 : 0.0;
  const attn::Mask& mask = shownMask();
  attn::Mat values = model_->isMetricsOnly() ? attn::Mat() : heatmapValues(*h, q, mask,
                                         attn::logitScale(model_->resultSpec().mechanism, h->q.cols(),
                                                          model_->resultSpec().temperature));
  // The mask view already is the mask; elsewhere the overlay marks what it removed.
  const bool overlay = maskOverlay_->isChecked() && q != HeatmapQuantity::Mask && values.size() > 0;
  heatmap_->setMaskOverlay(overlay ? mask : attn::Mask(), static_cast<int>(values.rows()),
                           static_cast<int>(values.cols()), overlay ? h->fullyMaskedRows : std::vector<int>{});
  heatmap_->setMaskOverlayVisible(overlay);
  if (model_->isMetricsOnly()) {
    showNotice(tr("Metrics-only view: %1 tokens is over the N x N limit, so no weights were kept; "
                  "the Metrics panel shows entropy per head and per row.").arg(r.nq()));
  } else if (values.size() == 0 && model_->hasModel()) {
    showNotice(tr("%1 tokens: the model kept every layer's weights but not its logits (they would take too "
                  "much memory); choose Draw: weights.").arg(r.nq()));
  } else if (values.size() == 0 && model_->showsPrecomputed()) {
    showNotice(tr("Precomputed weights from %1: the file has no logits to draw.")
                   .arg(QFileInfo(model_->loadedSource()).fileName()));
  } else if (values.size() == 0) {
    showNotice(tr("The %1 path keeps weights only, not logits; choose Execution: naive to see them.")
                   .arg(QString::fromStdString(r.execUsed)));
  }
  if (signedMap && !signedNote_.isEmpty() && values.size() > 0)
    showNotice(tr("%1 This head: max |Δ| %2.")
                   .arg(signedNote_)
                   .arg(static_cast<double>(values.cwiseAbs().maxCoeff()), 0, 'g', 3));
  if (model_->showsLayers()) {  // a file's or a model's layer: no configured mechanism or mask made these weights
    const QString source = model_->hasModel() ? QString::fromStdString(model_->modelPtr()->info().name)
                                              : QFileInfo(model_->loadedSource()).fileName();
    heatmap_->setMatrix(std::move(values), model_->queryLabels(), model_->keyLabels(),
                        tr("%1 — layer %2 of %3, head %4 of %5 — %6")
                            .arg(what)
                            .arg(model_->currentLayer() + 1)
                            .arg(model_->numLayers())
                            .arg(model_->currentHead() + 1)
                            .arg(r.numHeads())
                            .arg(source),
                        lo, hi);
    heatmap_->setPinnedRow(model_->pinnedRow());
    return;
  }
  heatmap_->setMatrix(std::move(values), model_->queryLabels(), model_->keyLabels(),
                      tr("%1 — head %2 of %3 — %4 — mask: %5")
                          .arg(what)
                          .arg(model_->currentHead() + 1)
                          .arg(r.numHeads())
                          .arg(QString::fromUtf8(attn::mechanismName(model_->spec().mechanism).data()))
                          .arg(QString::fromStdString(model_->spec().mask.spec())),
                      lo, hi);
  heatmap_->setPinnedRow(model_->pinnedRow());
}

const attn::Mask& HeatmapPanel::shownMask() const {
  // The engine's result holds the mask it applied, pad tokens bound; a result
  // that did not come from the engine has none, and its spec says what it was.
  static const attn::Mask none;
  if (!model_->hasResult()) return none;
  return model_->result().mask.isNone() ? model_->resultSpec().mask : model_->result().mask;
}

void HeatmapPanel::showError(const QString& message) {
  banner_->setStyleSheet("QLabel { background: #fde2e1; color: #7a1010; padding: 6px; border-radius: 3px; }");
  QString text = tr("%1 — the previous view is kept.").arg(message.toHtmlEscaped());
  if (message.contains(QLatin1String("metrics-only")) && !model_->metricsOnlyAllowed())
    text += QStringLiteral(" <a href=\"metrics-only\">%1</a>").arg(tr("Compute metrics only"));
  banner_->setText(text);
  banner_->show();
  bannerSticky_ = true;
}

void HeatmapPanel::showNotice(const QString& message) {
  if (bannerSticky_) return;  // an error the user has not acted on yet outranks a notice
  banner_->setStyleSheet("QLabel { background: #e3eefc; color: #123a6b; padding: 6px; border-radius: 3px; }");
  banner_->setText(message.toHtmlEscaped());
  banner_->show();
}

}  // namespace attn::ui
