#include "attn_ui/explorer/heatmap_widget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "attn_ui/theme/colormaps.h"
#include "attn_ui/explorer/mask_overlay.h"
#include "attn_ui/theme/plot_theme.h"

namespace attn::ui {
namespace {

constexpr int kFullResolutionCells = 1 << 20;  // below this the whole matrix is one image

// Labels for the visible index range, every k-th so that they stay readable.
QSharedPointer<QCPAxisTickerText> labelTicker(const QStringList& labels, const QCPRange& visible,
                                              int maxLabels) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int n = static_cast<int>(labels.size());
  const int lo = std::clamp(static_cast<int>(std::ceil(visible.lower)), 0, std::max(0, n - 1));
  const int hi = std::clamp(static_cast<int>(std::floor(visible.upper)), 0, std::max(0, n - 1));
  const int count = hi - lo + 1;
  const int step = std::max(1, (count + maxLabels - 1) / std::max(1, maxLabels));
  for (int i = (lo / step) * step; i <= hi && i < n; i += step) {
    QString s = labels[i];
    if (s.size() > 14) s = s.left(13) + QChar(0x2026);
    ticker->addTick(i, s);
  }
  return ticker;
}

}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent) : QCustomPlot(parent) {
  setMinimumSize(320, 240);
  title_ = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize() + 1, QFont::Bold));
  plotLayout()->insertRow(0);
  plotLayout()->addElement(0, 0, title_);

  map_ = new QCPColorMap(xAxis, yAxis);
  scale_ = new QCPColorScale(this);
  plotLayout()->addElement(1, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  map_->setColorScale(scale_);
  map_->setInterpolate(false);
  auto* group = new QCPMarginGroup(this);
  axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, group);

  overlay_ = new MaskOverlay(this);  // created before the pin outline, so drawn under it
  pin_ = new QCPItemRect(this);
  pin_->setPen(QPen(QColor(255, 64, 64), 2));
  pin_->setBrush(Qt::NoBrush);
  pin_->setVisible(false);
  pin_->setSelectable(false);

  yAxis->setRangeReversed(true);  // row 0 at the top, as in a matrix
  xAxis->setTickLabelRotation(60);
  for (QCPAxis* ax : {xAxis, yAxis}) {
    ax->setSubTicks(false);
    ax->setTickLength(0, 3);
    ax->grid()->setVisible(false);
  }
  xAxis->setLabel(tr("key"));
  yAxis->setLabel(tr("query"));
  setColormap("viridis");
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  followPalette(this);  // light or dark with the system
  setMouseTracking(true);

  rebuild_.setSingleShot(true);
  rebuild_.setInterval(40);
  connect(&rebuild_, &QTimer::timeout, this, [this] {
    rebuildImage();
    replot(QCustomPlot::rpQueuedReplot);
  });
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &HeatmapWidget::onRangeChanged);
  connect(yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &HeatmapWidget::onRangeChanged);

  connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    int r = 0, c = 0;
    if (cellAt(e->pos(), &r, &c))
      emit cellHovered(r, c, e->globalPosition().toPoint());
    else
      emit hoverLeft();
  });
  connect(this, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) { pressPos_ = e->pos(); });
  connect(this, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
    // A click, not the end of a drag-pan.
    if ((e->pos() - pressPos_).manhattanLength() > 4 || e->button() != Qt::LeftButton) return;
    int r = 0, c = 0;
    if (cellAt(e->pos(), &r, &c)) emit cellClicked(r, c);
  });
}

void HeatmapWidget::setMatrix(attn::Mat values, const QStringList& rowLabels,
                              const QStringList& colLabels, const QString& title, double lo,
                              double hi) {
  const bool sameShape = values.rows() == values_.rows() && values.cols() == values_.cols();
  values_ = std::move(values);  // a temporary moves in: no second N x N copy on this thread
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  if (!sameShape) {
    QSignalBlocker bx(xAxis), by(yAxis);
    xAxis->setRange(-0.5, static_cast<double>(values_.cols()) - 0.5);
    yAxis->setRange(-0.5, static_cast<double>(values_.rows()) - 0.5);
  }
  rebuildImage();
  if (lo < hi) {
    map_->setDataRange(QCPRange(lo, hi));
  } else {
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    for (Eigen::Index i = 0; i < values_.size(); ++i) {
      const float v = values_.data()[i];
      if (std::isfinite(v)) {
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
    }
    if (!(mn < mx)) { mn = std::isfinite(mn) ? mn - 0.5f : 0.f; mx = mn + 1.f; }
    map_->setDataRange(QCPRange(mn, mx));
  }
  fullTitle_ = title;
  applyTitle();
  setPinnedRow(pinnedRow_ < values_.rows() ? pinnedRow_ : -1);
  applyLabels();
  // Queued, so that the overlay and pin changes around a new matrix make one
  // replot, not three (each was a full replot during a slider drag).
  replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapWidget::rebuildImage() {
  const int rows = static_cast<int>(values_.rows()), cols = static_cast<int>(values_.cols());
  auto* data = map_->data();
  if (rows == 0 || cols == 0) {
    data->setSize(1, 1);
    data->setCell(0, 0, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  // Region to draw: the whole matrix when small, else the visible part plus a margin.
  int r0 = 0, r1 = rows, c0 = 0, c1 = cols, stride = 1;
  if (static_cast<long long>(rows) * cols > kFullResolutionCells) {
    const QCPRange xr = xAxis->range(), yr = yAxis->range();
    const double w = std::max(1.0, xr.size()), h = std::max(1.0, yr.size());
    c0 = std::clamp(static_cast<int>(std::floor(xr.lower - 0.25 * w)), 0, cols - 1);
    c1 = std::clamp(static_cast<int>(std::ceil(xr.upper + 0.25 * w)) + 1, c0 + 1, cols);
    r0 = std::clamp(static_cast<int>(std::floor(yr.lower - 0.25 * h)), 0, rows - 1);
    r1 = std::clamp(static_cast<int>(std::ceil(yr.upper + 0.25 * h)) + 1, r0 + 1, rows);
    const double px = std::max(64.0, axisRect()->width() * devicePixelRatioF());
    const double py = std::max(64.0, axisRect()->height() * devicePixelRatioF());
    stride = std::max({1, static_cast<int>(std::ceil(w / px)), static_cast<int>(std::ceil(h / py))});
  }
  stride_ = stride;
  const int kc = (c1 - c0 + stride - 1) / stride, vc = (r1 - r0 + stride - 1) / stride;
  data->setSize(kc, vc);
  // Cell centres: block b covers indices [c0 + b*stride, ...); its centre is the block's middle.
  const double half = (stride - 1) / 2.0;
  data->setRange(QCPRange(c0 + half, c0 + (kc - 1) * stride + half),
                 QCPRange(r0 + half, r0 + (vc - 1) * stride + half));
  if (kc == 1) data->setKeyRange(QCPRange(c0 + half - 0.5, c0 + half + 0.5));
  if (vc == 1) data->setValueRange(QCPRange(r0 + half - 0.5, r0 + half + 0.5));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int bv = 0; bv < vc; ++bv) {
    const int ra = r0 + bv * stride, rb = std::min(r1, ra + stride);
    for (int bk = 0; bk < kc; ++bk) {
      const int ca = c0 + bk * stride, cb = std::min(c1, ca + stride);
      if (stride == 1) {
        const float v = values_(ra, ca);
        data->setCell(bk, bv, std::isnan(v) ? nan : static_cast<double>(v));
        continue;
      }
      double acc = pooling_ == Pooling::Max ? -std::numeric_limits<double>::infinity() : 0.0;
      int n = 0;
      for (int r = ra; r < rb; ++r)
        for (int c = ca; c < cb; ++c) {
          const float v = values_(r, c);
          if (!std::isfinite(v)) continue;
          acc = pooling_ == Pooling::Max ? std::max(acc, static_cast<double>(v)) : acc + v;
          ++n;
        }
      data->setCell(bk, bv, n == 0 ? nan : (pooling_ == Pooling::Max ? acc : acc / n));
    }
  }
}

void HeatmapWidget::onRangeChanged() {
  applyLabels();
  if (static_cast<long long>(values_.rows()) * values_.cols() > kFullResolutionCells) rebuild_.start();
}

void HeatmapWidget::applyLabels() {
  // Roughly one label per 14 px of axis; at least a handful.
  const int maxX = std::max(4, axisRect()->width() / 14);
  const int maxY = std::max(4, axisRect()->height() / 14);
  xAxis->setTicker(labelTicker(colLabels_, xAxis->range(), maxX));
  yAxis->setTicker(labelTicker(rowLabels_, yAxis->range(), maxY));
}

void HeatmapWidget::setColormap(const QString& name) {
  QCPColorGradient g = colormapGradient(name);
  g.setNanHandling(QCPColorGradient::nhNanColor);
  g.setNanColor(QColor(128, 128, 128, 90));  // masked cells
  map_->setGradient(g);
  replot();
}

void HeatmapWidget::setColorScaleLabel(const QString& label) { scale_->axis()->setLabel(label); }

void HeatmapWidget::setPinnedRow(int row) {
  pinnedRow_ = row;
  pin_->setVisible(row >= 0 && values_.cols() > 0);
  if (row >= 0) {
    pin_->topLeft->setCoords(-0.5, row - 0.5);
    pin_->bottomRight->setCoords(static_cast<double>(values_.cols()) - 0.5, row + 0.5);
  }
  replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapWidget::setMaskOverlay(const attn::Mask& mask, int rows, int cols, std::vector<int> fullyMaskedRows) {
  overlay_->setMask(mask, rows, cols, std::move(fullyMaskedRows));
}

void HeatmapWidget::setMaskOverlayVisible(bool visible) {
  overlay_->setVisible(visible);
  replot(QCustomPlot::rpQueuedReplot);
}

bool HeatmapWidget::maskOverlayShown() const { return overlay_->visible() && overlay_->hasContent(); }

void HeatmapWidget::resetView() {
  xAxis->setRange(-0.5, static_cast<double>(values_.cols()) - 0.5);
  yAxis->setRange(-0.5, static_cast<double>(values_.rows()) - 0.5);
  replot();
}

void HeatmapWidget::zoomBy(double factor) {
  xAxis->scaleRange(factor, xAxis->range().center());
  yAxis->scaleRange(factor, yAxis->range().center());
  replot();
}

bool HeatmapWidget::cellAt(const QPoint& pos, int* row, int* col) const {
  if (!axisRect()->rect().contains(pos)) return false;
  const int c = static_cast<int>(std::lround(xAxis->pixelToCoord(pos.x())));
  const int r = static_cast<int>(std::lround(yAxis->pixelToCoord(pos.y())));
  if (r < 0 || c < 0 || r >= values_.rows() || c >= values_.cols()) return false;
  *row = r;
  *col = c;
  return true;
}

void HeatmapWidget::resizeEvent(QResizeEvent* event) {
  QCustomPlot::resizeEvent(event);
  applyTitle();
  applyLabels();
  if (static_cast<long long>(values_.rows()) * values_.cols() > kFullResolutionCells) rebuild_.start();
}

void HeatmapWidget::applyTitle() {
  // On screen a narrow central widget would clip a long title on both sides,
  // so it is elided; figures drawn off screen keep every word (title()).
  // The title sits above the map's column only, not above the colour scale.
  const QFontMetrics fm(title_->font());
  const int column = axisRect()->outerRect().width() > 0 ? axisRect()->outerRect().width() : width() - 90;
  title_->setText(isVisible() ? fm.elidedText(fullTitle_, Qt::ElideRight, std::max(40, column - 40))
                              : fullTitle_);
}

void HeatmapWidget::showEvent(QShowEvent* event) {
  QCustomPlot::showEvent(event);
  applyTitle();
}

void HeatmapWidget::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  emit hoverLeft();
}

}  // namespace attn::ui
