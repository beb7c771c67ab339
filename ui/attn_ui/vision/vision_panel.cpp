#include "attn_ui/vision/vision_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSlider>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/models/model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/spatial/image_loader.h"
#include "attn_ui/vision/vision_head_grid.h"
#include "attn_ui/vision/vision_overlay_view.h"
#include "attn_ui/window/hidden_panel_gate.h"

namespace attn::ui {

VisionPanel::VisionPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      showBox_(new QComboBox(this)),
      opacity_(new QSlider(Qt::Horizontal, this)),
      queryLabel_(new QLabel(this)),
      clsButton_(new QToolButton(this)),
      cancel_(new QToolButton(this)),
      status_(new QLabel(this)),
      view_(new VisionOverlayView(this)),
      grid_(new VisionHeadGrid(this)),
      split_(new QSplitter(Qt::Vertical, this)),
      poll_(new QTimer(this)),
      job_(std::make_unique<NewestJob>(this)) {
  setObjectName(QStringLiteral("VisionPanel"));
  showBox_->addItem(tr("Head attention"), int(Mode::Head));
  showBox_->addItem(tr("Attention rollout"), int(Mode::Rollout));
  showBox_->addItem(tr("60% mass mask"), int(Mode::Mask));
  showBox_->setToolTip(
      tr("Head attention: the query's attention in the chosen layer and head. Attention rollout: "
         "the attention composed through the layers up to the chosen one, residual included "
         "(Abnar & Zuidema 2020). 60% mass mask: the patches that together hold 60% of the "
         "head's attention, as in DINO (Caron et al. 2021)."));
  opacity_->setRange(0, 100);
  opacity_->setValue(60);
  opacity_->setMaximumWidth(120);
  opacity_->setToolTip(tr("Opacity of the heat layer over the image"));
  clsButton_->setText(tr("Reset to [CLS]"));
  clsButton_->setToolTip(tr("Show the [CLS] token's attention again (click a patch to show that patch's)"));
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(tr("Stop computing the patch maps"));
  cancel_->hide();
  status_->setTextFormat(Qt::PlainText);
  // One line, cut at the panel's edge (the tool tip holds it whole): a wrapped label makes the
  // panel height-for-width, and a scroll area then gives it its preferred height instead of the
  // dock's, so the panel would always scroll.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  view_->setToolTip(tr("Brighter = more attention. Click a patch to see where it attends."));
  grid_->setToolTip(
      tr("Every layer (rows) and head (columns) for the same query; the last column is the "
         "rollout through each layer. Click a tile to open it above."));

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Show"), this));
  top->addWidget(showBox_);
  top->addWidget(new QLabel(tr("Opacity"), this));
  top->addWidget(opacity_);
  top->addWidget(queryLabel_);
  top->addWidget(clsButton_);
  top->addStretch(1);
  top->addWidget(cancel_);
  split_->addWidget(view_);
  split_->addWidget(grid_);
  split_->setStretchFactor(0, 1);
  split_->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addLayout(top);
  layout->addWidget(split_, 1);
  layout->addWidget(status_);

  gate_ = new HiddenPanelGate(this, [this] { launch(); });
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    const auto& c = job_->current();
    cancel_->setVisible(c != nullptr);
    if (!c) return poll_->stop();
    const auto [stage, fraction] = c->progress();
    status_->setText(tr("%1… %2%").arg(stage).arg(qRound(100 * fraction)));
  });
  connect(cancel_, &QToolButton::clicked, this, &VisionPanel::cancel);
  connect(showBox_, &QComboBox::currentIndexChanged, this,
          [this] { setMode(static_cast<Mode>(showBox_->currentData().toInt())); });
  connect(opacity_, &QSlider::valueChanged, this, &VisionPanel::redraw);
  connect(clsButton_, &QToolButton::clicked, this, [this] { model_->setPinnedRow(-1); });
  connect(view_, &VisionOverlayView::patchClicked, this,
          [this](int patch) { model_->setPinnedRow(layout_.prefix + patch); });
  connect(grid_, &VisionHeadGrid::tileClicked, this, &VisionPanel::openTile);
  connect(model_, &ExplorerModel::resultChanged, this, &VisionPanel::request);
  connect(model_, &ExplorerModel::pinnedRowChanged, this, &VisionPanel::request);
  // A run that fails delivers no result: without this the panel would keep saying it is running.
  connect(model_, &ExplorerModel::errorOccurred, this, &VisionPanel::request);
  connect(model_, &ExplorerModel::currentHeadChanged, this, &VisionPanel::redraw);
  connect(model_, &ExplorerModel::modelChanged, this, [this] {
    job_->cancel();
    run_.reset();
    maps_.reset();
    request();
  });
  request();
}

VisionPanel::~VisionPanel() { job_->cancel(); }

void VisionPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitOrientation();
}

bool VisionPanel::event(QEvent* event) {
  // The dock wraps the panel in a scroll area after construction: watch the frame it shows in.
  if (event->type() == QEvent::ParentAboutToChange && parentWidget()) parentWidget()->removeEventFilter(this);
  if (event->type() == QEvent::ParentChange && parentWidget()) parentWidget()->installEventFilter(this);
  return QWidget::event(event);
}

bool VisionPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == parentWidget() && event->type() == QEvent::Resize) fitOrientation();
  return QWidget::eventFilter(watched, event);
}

Qt::Orientation VisionPanel::orientation() const { return split_->orientation(); }

void VisionPanel::fitOrientation() {
  // A wide, short dock (a laptop screen's right column): the overlay beside the grid. The
  // height that counts is the frame's (a scroll area's viewport): the panel itself is never
  // shorter than the stacked layout's minimum, so its own height would keep it stacked.
  const int available = parentWidget() ? std::min(height(), parentWidget()->height()) : height();
  const Qt::Orientation wanted = width() > available * 5 / 4 ? Qt::Horizontal : Qt::Vertical;
  if (wanted == split_->orientation()) return;
  split_->setOrientation(wanted);
  // Side by side needs less height: the scroll area around the panel (if any) fits it anew.
  QWidget::layout()->invalidate();
  QWidget::layout()->activate();
  if (auto* area = qobject_cast<QScrollArea*>(parentWidget() ? parentWidget()->parentWidget() : nullptr))
    QCoreApplication::postEvent(area, new QEvent(QEvent::LayoutRequest));
}

void VisionPanel::setMode(Mode mode) {
  mode_ = mode;
  const int index = showBox_->findData(int(mode));
  if (showBox_->currentIndex() != index) showBox_->setCurrentIndex(index);
  redraw();
}

void VisionPanel::setOpacity(double opacity) {
  opacity_->setValue(qRound(std::clamp(opacity, 0.0, 1.0) * 100));
}
double VisionPanel::opacity() const { return opacity_->value() / 100.0; }
int VisionPanel::query() const { return std::max(model_->pinnedRow(), 0); }
bool VisionPanel::busy() const { return job_->busy(); }

void VisionPanel::cancel() {
  if (!job_->busy()) return;
  job_->cancel();
  cancel_->hide();
  run_.reset();  // the next change of layer, head or query computes them again
  clear(tr("Cancelled."));
}

void VisionPanel::waitForIdle() {
  while (job_->busy() || gate_->pending()) {
    if (gate_->pending()) return;  // nothing runs until the panel is shown
    if (const auto& c = job_->current()) c->wait();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
}

void VisionPanel::request() {
  if (!model_->hasVisionModel()) {
    job_->cancel();
    run_.reset();
    maps_.reset();
    clear(
        tr("Open a vision transformer (ViT, DeiT, DINOv2, CLIP) with File > Open Model…, then an image with "
           "File > Open "
           "Image…, to see its attention over the image."));
    return;
  }
  const auto run = model_->modelRun();
  if (!run) {
    clear(model_->lastError().isEmpty() ? tr("Running the model on the image…") : model_->lastError());
    return;
  }
  if (run == run_ && query() == mapsQuery_) return redraw();
  gate_->request();
}

void VisionPanel::launch() {
  const auto model = model_->modelPtr();
  const auto run = model_->modelRun();
  const auto layered = model_->layeredAttention();
  if (!model || !model->info().vision || !run || !layered) return;
  const int q = query();
  if (run == run_ && q == mapsQuery_) return;
  const auto& info = model->info();
  const int patch = std::max(info.patchSize, 1);
  const attn::vision::PatchLayout layout{info.prefixTokens, run->pixelValues.height / patch,
                                         run->pixelValues.width / patch, patch};
  if (run != run_)
    image_ = imageFromPixels(attn::vision::pixelsForDisplay(run->pixelValues, model->imageProcessor()));
  run_ = run;
  mapsQuery_ = q;
  layout_ = layout;
  struct Out {
    std::shared_ptr<const attn::vision::QueryMaps> maps;
    QString error;
  };
  auto out = std::make_shared<Out>();
  job_->start(
      [layered, layout, q, out](JobControl& control) {
        auto maps = attn::vision::computeQueryMaps(layered->layers, q, layout, 0.6,
                                                   [&control](double f) { return control.report(f); });
        if (maps)
          out->maps = std::make_shared<const attn::vision::QueryMaps>(std::move(maps).value());
        else
          out->error = QString::fromStdString(maps.error().message);
      },
      [this, out] {
        if (!out->maps) return clear(out->error);
        maps_ = out->maps;
        redraw();
      },
      tr("Computing the patch maps"));
  poll_->start();
}

void VisionPanel::clear(const QString& why) {
  maps_.reset();
  view_->setOverlay({}, QString(), 0.0);
  grid_->setMaps(QImage(), nullptr, false, opacity());
  queryLabel_->clear();
  setStatus(why);
}

void VisionPanel::setStatus(const QString& text) {
  statusText_ = text;
  status_->setText(text);
  status_->setToolTip(text);
}

void VisionPanel::openTile(int layer, int head) {
  if (!maps_) return;
  if (head >= maps_->heads) {
    setMode(Mode::Rollout);
    model_->setCurrentLayer(layer);
    return;
  }
  if (mode_ == Mode::Rollout) setMode(Mode::Head);
  model_->setCurrentLayerHead(layer, head);
}

void VisionPanel::redraw() {
  const auto layered = model_->layeredAttention();
  if (!maps_ || !layered || layered->numLayers() != maps_->layers) return;
  const int layer = std::clamp(model_->currentLayer(), 0, maps_->layers - 1);
  const int head = std::clamp(model_->currentHead(), 0, maps_->heads - 1);
  const QStringList labels = model_->queryLabels();
  const int q = maps_->query;
  const QString who = q < labels.size() ? labels[q] : QString::number(q);
  PatchOverlay o;
  o.image = image_;
  o.opacity = opacity();
  o.queryPatch = q >= layout_.prefix ? q - layout_.prefix : -1;
  const attn::Mat& raw =
      mode_ == Mode::Rollout ? maps_->rollout[static_cast<size_t>(layer)] : maps_->headMap(layer, head);
  o.levels = attn::vision::normalizedToMax(raw);
  if (mode_ == Mode::Mask) o.mask = maps_->headMask(layer, head);
  QString caption;
  if (mode_ == Mode::Head)
    caption = tr("Layer %1, head %2: attention of %3").arg(layer + 1).arg(head + 1).arg(who);
  else if (mode_ == Mode::Rollout)
    caption = tr("Rollout through layer %1: attention of %2").arg(layer + 1).arg(who);
  else
    caption =
        tr("Layer %1, head %2: patches holding 60% of %3's attention").arg(layer + 1).arg(head + 1).arg(who);
  view_->setOverlay(o, caption, raw.size() > 0 ? raw.maxCoeff() : 0.0);
  grid_->setMaps(image_, maps_, mode_ == Mode::Mask, opacity());
  grid_->setSelected(layer, mode_ == Mode::Rollout ? maps_->heads : head);
  queryLabel_->setText(tr("Query: %1").arg(who));
  const attn::Mat& w = layered->layers[static_cast<size_t>(layer)][static_cast<size_t>(head)];
  const double distance = attn::vision::meanAttentionDistancePixels(w, layout_);
  setStatus(tr("%1 x %2 patches of %3 px. Layer %4, head %5: mean attention distance %6 px.")
                .arg(layout_.cols)
                .arg(layout_.rows)
                .arg(layout_.patch)
                .arg(layer + 1)
                .arg(head + 1)
                .arg(distance, 0, 'f', 1));
}

}  // namespace attn::ui
