#include "attn_ui/explorer/head_grid.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "attn/analysis/entropy.h"
#include "attn/engine/precomputed.h"
#include "attn/models/model.h"
#include "attn/models/streamed/head_maps.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/theme/colormaps.h"

namespace attn::ui {
namespace {

constexpr int kThumb = 96;  // thumbnail pixels per side (at most)
constexpr int kCaption = 18;
constexpr int kGap = 6;

// Max-pools a matrix into at most kThumb x kThumb pixels, coloured by `lut`
// over [0, max]: peaks stay visible however long the sequence.
QImage thumbnail(const attn::Mat& w, const QVector<QRgb>& lut) {
  const int rows = static_cast<int>(w.rows()), cols = static_cast<int>(w.cols());
  if (rows == 0 || cols == 0) return {};
  const int sr = std::max(1, (rows + kThumb - 1) / kThumb), sc = std::max(1, (cols + kThumb - 1) / kThumb);
  const int h = (rows + sr - 1) / sr, wdt = (cols + sc - 1) / sc;
  // A signed map (attention x gradient) is drawn with 0 in the middle of the colormap and each
  // pooled block keeps its value of largest magnitude; a weight map from 0 to its largest value.
  const bool signedMap = w.minCoeff() < 0.0f;
  const float top = std::max(1e-12f, signedMap ? w.cwiseAbs().maxCoeff() : w.maxCoeff());
  QImage img(wdt, h, QImage::Format_RGB32);
  for (int y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
    for (int x = 0; x < wdt; ++x) {
      const auto block = w.block(y * sr, x * sc, std::min(sr, rows - y * sr), std::min(sc, cols - x * sc));
      float v = block.maxCoeff();
      if (signedMap) {
        const float low = block.minCoeff();
        v = (-low > v ? low : v) / top * 0.5f + 0.5f;
      } else {
        v /= top;
      }
      line[x] = lut[std::clamp(static_cast<int>(v * 255.0f), 0, 255)];
    }
  }
  return img;
}

}  // namespace

HeadGrid::~HeadGrid() = default;

HeadGrid::HeadGrid(ExplorerModel* model, QWidget* parent)
    : QWidget(parent), model_(model), thumbJob_(std::make_unique<NewestJob>(this)) {
  setFocusPolicy(Qt::StrongFocus);
  setToolTip(tr("Every head at a glance; click one (or use the arrow keys) to open it in the heatmap."));
  setMinimumSize(120, 120);
  connect(model_, &ExplorerModel::resultChanged, this, &HeadGrid::rebuild);
  connect(model_, &ExplorerModel::currentHeadChanged, this, qOverload<>(&QWidget::update));
  connect(model_, &ExplorerModel::currentLayerChanged, this, qOverload<>(&QWidget::update));
}

void HeadGrid::setTileMarks(const QMap<int, QString>& marks) {
  if (marks == marks_) return;
  marks_ = marks;
  update();
}

void HeadGrid::setHeadTypes(const QVector<QVector<QString>>& labels,
                            const QVector<QVector<QString>>& abbreviations,
                            const QVector<QVector<QString>>& details) {
  typeLabels_ = labels;
  typeShort_ = abbreviations;
  typeDetails_ = details;
  update();
}

// Layered tiles are (layer, head); one layer's tiles are the heads of the layer shown.
QString HeadGrid::typeAt(const QVector<QVector<QString>>& table, int tile) const {
  if (tile < 0 || tile >= thumbs_.size() || !model_->hasModel()) return {};
  const int layer = showsLayers() ? tile / heads_ : model_->currentLayer();
  const int head = showsLayers() ? tile % heads_ : tile;
  if (layer < 0 || layer >= table.size() || head < 0 || head >= table[layer].size()) return {};
  return table[layer][head];
}

QString HeadGrid::tileTypeLabel(int tile) const { return typeAt(typeLabels_, tile); }

// The captions' font (paintEvent draws every text one point smaller).
QFont HeadGrid::typeFont() const {
  QFont f = font();
  f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1.0));
  return f;
}

QString HeadGrid::tileTypeText(int tile) const {
  const QString label = tileTypeLabel(tile);
  const QRect band = tileTypeRect(tile);
  if (label.isEmpty() || band.isEmpty()) return {};
  const QFontMetrics fm(typeFont());
  if (fm.horizontalAdvance(label) <= band.width() - 4) return label;
  const QString abbreviation = typeAt(typeShort_, tile);
  return fm.elidedText(abbreviation.isEmpty() ? label : abbreviation, Qt::ElideRight, band.width() - 4);
}

QRect HeadGrid::tileTypeRect(int tile) const {
  if (tileTypeLabel(tile).isEmpty()) return {};
  const QRect r = tileRect(tile);
  const int h = QFontMetrics(typeFont()).height() + 2;
  if (r.height() < 2 * h || r.width() < 28) return {};  // too small to read: the tooltip has it
  return {r.left(), r.bottom() - h + 1, r.width(), h};
}

void HeadGrid::setColormap(const QString& name) {
  colormap_ = name;
  rebuild();
}

namespace {

QVector<QRgb> lookupTable(const QString& colormap) {
  QCPColorGradient g = colormapGradient(colormap);
  QVector<QRgb> lut(256);
  std::vector<double> v(256);
  for (int i = 0; i < 256; ++i) v[static_cast<size_t>(i)] = i;
  g.colorize(v.data(), QCPRange(0, 255), lut.data(), 256);
  return lut;
}

// Mean over rows that attend to something (fully masked rows have no entropy).
double meanEntropy(const attn::Vec& entropy, const std::vector<int>& fullyMasked) {
  double sum = 0;
  int n = 0;
  for (Eigen::Index i = 0; i < entropy.size(); ++i)
    if (std::find(fullyMasked.begin(), fullyMasked.end(), i) == fullyMasked.end()) {
      sum += entropy[i];
      ++n;
    }
  return n > 0 ? sum / n : 0.0;
}

}  // namespace

// A streamed run: the tiles' captions from the forward's measures at once, the
// thumbnails (every head's map pooled in blocks of about N / kThumb, recomputed from the
// kept q/k) from a worker when they are ready.
void HeadGrid::rebuildStreamed() {
  const auto run = model_->modelRun();
  const auto store = model_->streamedStore();
  if (run == streamedFrom_ && colormap_ == builtColormap_) return update();
  streamedFrom_ = run;
  builtFrom_.reset();
  builtColormap_ = colormap_;
  layers_ = store->layers();
  heads_ = store->heads();
  thumbs_ = QVector<QImage>(layers_ * heads_);
  entropy_.clear();
  for (const auto& layer : run->streamedLayers)
    for (const auto& h : layer.heads) entropy_ << h.entropyMean;
  entropy_.resize(layers_ * heads_);
  const int block = std::max(1, (store->tokens() + kThumb - 1) / kThumb);
  auto images = std::make_shared<QVector<QImage>>(thumbs_.size());
  const QVector<QRgb> lut = lookupTable(colormap_);
  const int layers = layers_, heads = heads_;
  thumbJob_->start(
      [store, block, images, lut, layers, heads](JobControl& control) {
        for (int l = 0; l < layers && !control.cancelled(); ++l)
          for (int h = 0; h < heads && !control.cancelled(); ++h)
            if (auto m = attn::models::pooledMap(*store, l, h, block, attn::models::Pooling::Max))
              (*images)[l * heads + h] = thumbnail(*m, lut);
      },
      [this, run, images] {
        if (run != streamedFrom_) return;
        thumbs_ = *images;
        update();
      });
  update();
}

void HeadGrid::rebuild() {
  if (model_->isStreamed()) return rebuildStreamed();
  if (streamedFrom_) {
    thumbJob_->cancel();
    streamedFrom_.reset();
  }
  const auto layered = model_->showsLayers() && model_->numLayers() > 1 ? model_->layeredAttention() : nullptr;
  if (layered) {
    if (layered == builtFrom_ && colormap_ == builtColormap_) return update();  // same tiles, new selection
    builtFrom_ = layered;
    builtColormap_ = colormap_;
    thumbs_.clear();
    entropy_.clear();
    const QVector<QRgb> lut = lookupTable(colormap_);
    const auto& attn = *layered;
    layers_ = attn.numLayers();
    heads_ = attn.numHeads();
    for (const auto& layer : attn.layers)
      for (const auto& w : layer) {
        thumbs_ << thumbnail(w, lut);
        std::vector<int> empty;  // all-zero rows, as resultFromPrecomputed flags them
        for (int i = 0; i < w.rows(); ++i)
          if ((w.row(i).array() == 0.0f).all()) empty.push_back(i);
        entropy_ << meanEntropy(attn::rowEntropy(w), empty);
      }
    update();
    return;
  }
  builtFrom_.reset();
  layers_ = heads_ = 0;
  thumbs_.clear();
  entropy_.clear();
  if (model_->hasResult()) {
    const QVector<QRgb> lut = lookupTable(colormap_);
    for (const auto& h : model_->result().heads) {
      thumbs_ << thumbnail(h.weights, lut);
      entropy_ << meanEntropy(h.entropy, h.fullyMaskedRows);
    }
  }
  update();
}

int HeadGrid::columns() const {
  if (showsLayers()) return heads_;
  const int n = static_cast<int>(thumbs_.size());
  if (n == 0) return 1;
  const int fit = std::max(1, (width() - kGap) / (kThumb / 2 + kGap));
  return std::clamp(static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)))), 1, fit);
}

int HeadGrid::rows() const {
  const int cols = columns();
  return (static_cast<int>(thumbs_.size()) + cols - 1) / cols;
}

// Layered tiles leave room for "L1" on the left and "H1" on top; tiles under
// kMinCaptioned pixels drop the caption (the tooltip has the entropy).
constexpr int kMinCaptioned = 40;

bool HeadGrid::captioned() const {
  if (!showsLayers()) return true;
  const int nrows = std::max(1, rows());
  return (height() - kCaption - kGap) / nrows - kGap - kCaption >= kMinCaptioned &&
         (width() - 26 - kGap) / columns() - kGap >= kMinCaptioned;
}

QRect HeadGrid::tileRect(int tile) const {
  const int cols = columns(), nrows = std::max(1, rows());
  const int left = showsLayers() ? 26 : 0, top = showsLayers() ? kCaption : 0;
  const int caption = captioned() ? kCaption : 0;
  const int side = std::max(showsLayers() ? 12 : 24, std::min((width() - left - kGap) / cols - kGap,
                                                              (height() - top - kGap) / nrows - kGap - caption));
  const int r = tile / cols, c = tile % cols;
  return {left + kGap + c * (side + kGap), top + kGap + r * (side + kGap + caption), side, side};
}

int HeadGrid::headAt(const QPoint& pos) const {
  for (int i = 0; i < thumbs_.size(); ++i)
    if (tileRect(i).adjusted(0, 0, 0, captioned() ? kCaption : kGap).contains(pos)) return i;
  return -1;
}

int HeadGrid::currentTile() const {
  return showsLayers() ? model_->currentLayer() * heads_ + model_->currentHead() : model_->currentHead();
}

void HeadGrid::select(int tile) {
  if (tile < 0 || tile >= thumbs_.size()) return;
  if (showsLayers())
    model_->setCurrentLayerHead(tile / heads_, tile % heads_);
  else
    model_->setCurrentHead(tile);
}

QString HeadGrid::tileLabel(int tile) const {
  const QString e = QString::number(entropy_[tile], 'f', 2);
  return showsLayers() ? tr("layer %1, head %2: mean entropy %3 nats").arg(tile / heads_ + 1).arg(tile % heads_ + 1).arg(e)
                       : tr("head %1: mean entropy %2 nats").arg(tile + 1).arg(e);
}

bool HeadGrid::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int t = headAt(help->pos());
    QString text = t >= 0 ? tileLabel(t) : toolTip();
    if (const QString detail = typeAt(typeDetails_, t); !detail.isEmpty()) text += QLatin1Char('\n') + detail;
    if (marks_.contains(t)) text += QLatin1Char('\n') + tr("Intervention: %1").arg(marks_.value(t));
    QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

void HeadGrid::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (thumbs_.isEmpty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("No result yet"));
    return;
  }
  const int current = currentTile();
  p.setFont(typeFont());
  p.setPen(palette().text().color());
  if (showsLayers()) {
    for (int h = 0; h < heads_; ++h) {
      const QRect r = tileRect(h);
      p.drawText(QRect(r.left() - kGap / 2, 0, r.width() + kGap, kCaption), Qt::AlignCenter, tr("H%1").arg(h + 1));
    }
    for (int l = 0; l < layers_; ++l) {
      const QRect r = tileRect(l * heads_);
      p.drawText(QRect(0, r.top(), r.left() - 2, r.height()), Qt::AlignRight | Qt::AlignVCenter, tr("L%1").arg(l + 1));
    }
  }
  for (int i = 0; i < thumbs_.size(); ++i) {
    const QRect r = tileRect(i);
    p.drawImage(r, thumbs_[i]);
    if (i == current) {
      p.setPen(QPen(palette().highlight(), 3));
      p.drawRect(r.adjusted(-2, -2, 2, 2));
    }
    if (marks_.contains(i)) {  // an intervened head: dashed orange frame and a corner badge
      const QColor mark(0xe6, 0x7e, 0x22);
      p.setPen(QPen(mark, 2, Qt::DashLine));
      p.drawRect(r.adjusted(1, 1, -1, -1));
      const int b = std::clamp(r.width() / 3, 10, 18);
      const QRect badge(r.right() - b + 1, r.top(), b, b);
      p.fillRect(badge, mark);
      p.setPen(Qt::white);
      p.drawText(badge, Qt::AlignCenter, QStringLiteral("✕"));
    }
    if (const QRect band = tileTypeRect(i); !band.isEmpty()) {  // the head's type on a dark band
      p.fillRect(band, QColor(0, 0, 0, 170));
      p.setPen(Qt::white);
      p.drawText(band.adjusted(2, 0, -2, 0), Qt::AlignCenter, tileTypeText(i));
    }
    p.setPen(palette().text().color());
    // Captions shrink with the tile so neighbours never run into each other.
    const QRect box(r.left(), r.bottom() + 2, r.width(), kCaption);
    QString caption;
    if (!showsLayers()) {
      caption = tr("H%1  %2 nats").arg(i + 1).arg(entropy_[i], 0, 'f', 2);
      if (p.fontMetrics().horizontalAdvance(caption) > box.width())
        caption = tr("H%1 %2").arg(i + 1).arg(entropy_[i], 0, 'f', 2);
    } else if (captioned()) {
      caption = QString::number(entropy_[i], 'f', 2);
    }
    if (!caption.isEmpty())
      p.drawText(box, Qt::AlignCenter, p.fontMetrics().elidedText(caption, Qt::ElideRight, box.width()));
  }
}

void HeadGrid::mousePressEvent(QMouseEvent* event) {
  select(headAt(event->pos()));
  setFocus();
}

void HeadGrid::keyPressEvent(QKeyEvent* event) {
  const int n = static_cast<int>(thumbs_.size()), cols = columns();
  int t = currentTile();
  switch (event->key()) {
    case Qt::Key_Left: t -= 1; break;
    case Qt::Key_Right: t += 1; break;
    case Qt::Key_Up: t -= cols; break;
    case Qt::Key_Down: t += cols; break;
    case Qt::Key_Home: t = 0; break;
    case Qt::Key_End: t = n - 1; break;
    default: QWidget::keyPressEvent(event); return;
  }
  if (t >= 0 && t < n) select(t);
}

}  // namespace attn::ui

namespace attn::ui {
bool HeadGrid::thumbnailsBusy() const { return thumbJob_->busy(); }
}  // namespace attn::ui
