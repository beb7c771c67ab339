#include "attn_ui/head_grid.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "attn_ui/colormaps.h"
#include "attn_ui/explorer_model.h"

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
  const float top = std::max(1e-12f, w.maxCoeff());
  QImage img(wdt, h, QImage::Format_RGB32);
  for (int y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
    for (int x = 0; x < wdt; ++x) {
      const float v = w.block(y * sr, x * sc, std::min(sr, rows - y * sr), std::min(sc, cols - x * sc)).maxCoeff();
      line[x] = lut[std::clamp(static_cast<int>(v / top * 255.0f), 0, 255)];
    }
  }
  return img;
}

}  // namespace

HeadGrid::HeadGrid(ExplorerModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  setFocusPolicy(Qt::StrongFocus);
  setToolTip(tr("Every head at a glance; click one (or use the arrow keys) to open it in the heatmap."));
  setMinimumSize(120, 120);
  connect(model_, &ExplorerModel::resultChanged, this, &HeadGrid::rebuild);
  connect(model_, &ExplorerModel::currentHeadChanged, this, qOverload<>(&QWidget::update));
}

void HeadGrid::setColormap(const QString& name) {
  colormap_ = name;
  rebuild();
}

void HeadGrid::rebuild() {
  thumbs_.clear();
  entropy_.clear();
  if (model_->hasResult()) {
    QCPColorGradient g = colormapGradient(colormap_);
    QVector<QRgb> lut(256);
    g.colorize(std::vector<double>([] {
                 std::vector<double> v(256);
                 for (int i = 0; i < 256; ++i) v[i] = i;
                 return v;
               }()).data(), QCPRange(0, 255), lut.data(), 256);
    for (const auto& h : model_->result().heads) {
      thumbs_ << thumbnail(h.weights, lut);
      // Mean over rows that attend to something (fully masked rows have no entropy).
      double sum = 0;
      int n = 0;
      for (Eigen::Index i = 0; i < h.entropy.size(); ++i)
        if (std::find(h.fullyMaskedRows.begin(), h.fullyMaskedRows.end(), i) == h.fullyMaskedRows.end()) {
          sum += h.entropy[i];
          ++n;
        }
      entropy_ << (n > 0 ? sum / n : 0.0);
    }
  }
  update();
}

int HeadGrid::columns() const {
  const int n = static_cast<int>(thumbs_.size());
  if (n == 0) return 1;
  const int fit = std::max(1, (width() - kGap) / (kThumb / 2 + kGap));
  return std::clamp(static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)))), 1, fit);
}

QRect HeadGrid::tileRect(int head) const {
  const int cols = columns();
  const int rows = (static_cast<int>(thumbs_.size()) + cols - 1) / cols;
  const int side = std::max(24, std::min((width() - kGap) / cols - kGap,
                                         (height() - kGap) / std::max(1, rows) - kGap - kCaption));
  const int r = head / cols, c = head % cols;
  return {kGap + c * (side + kGap), kGap + r * (side + kGap + kCaption), side, side};
}

int HeadGrid::headAt(const QPoint& pos) const {
  for (int i = 0; i < thumbs_.size(); ++i)
    if (tileRect(i).adjusted(0, 0, 0, kCaption).contains(pos)) return i;
  return -1;
}

void HeadGrid::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (thumbs_.isEmpty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("No result yet"));
    return;
  }
  const int current = model_->currentHead();
  p.setFont([this] {
    QFont f = font();
    f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1.0));
    return f;
  }());
  for (int i = 0; i < thumbs_.size(); ++i) {
    const QRect r = tileRect(i);
    p.drawImage(r, thumbs_[i]);
    if (i == current) {
      p.setPen(QPen(palette().highlight(), 3));
      p.drawRect(r.adjusted(-2, -2, 2, 2));
    }
    p.setPen(palette().text().color());
    // Captions shrink with the tile so neighbours never run into each other.
    const QRect box(r.left(), r.bottom() + 2, r.width(), kCaption);
    QString caption = tr("H%1  %2 nats").arg(i + 1).arg(entropy_[i], 0, 'f', 2);
    if (p.fontMetrics().horizontalAdvance(caption) > box.width())
      caption = tr("H%1 %2").arg(i + 1).arg(entropy_[i], 0, 'f', 2);
    p.drawText(box, Qt::AlignCenter, p.fontMetrics().elidedText(caption, Qt::ElideRight, box.width()));
  }
}

void HeadGrid::mousePressEvent(QMouseEvent* event) {
  const int h = headAt(event->pos());
  if (h >= 0) model_->setCurrentHead(h);
  setFocus();
}

void HeadGrid::keyPressEvent(QKeyEvent* event) {
  const int n = static_cast<int>(thumbs_.size()), cols = columns();
  int h = model_->currentHead();
  switch (event->key()) {
    case Qt::Key_Left: h -= 1; break;
    case Qt::Key_Right: h += 1; break;
    case Qt::Key_Up: h -= cols; break;
    case Qt::Key_Down: h += cols; break;
    case Qt::Key_Home: h = 0; break;
    case Qt::Key_End: h = n - 1; break;
    default: QWidget::keyPressEvent(event); return;
  }
  if (h >= 0 && h < n) model_->setCurrentHead(h);
}

}  // namespace attn::ui
