#include "attn_ui/explorer/heatmap_widget.h"

#include <QThread>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/heatmap_source.h"
#include "attn_ui/explorer/mask_overlay.h"
#include "attn_ui/theme/colormaps.h"
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
  detailMap_ = new QCPColorMap(xAxis, yAxis);  // a source's full-resolution rectangle, over the overview
  scale_ = new QCPColorScale(this);
  plotLayout()->addElement(1, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  map_->setColorScale(scale_);
  map_->setInterpolate(false);
  detailMap_->setColorScale(scale_);
  detailMap_->setInterpolate(false);
  detailMap_->setVisible(false);
  overviewJob_ = std::make_unique<NewestJob>(this);
  detailJob_ = std::make_unique<NewestJob>(this);
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

HeatmapWidget::~HeatmapWidget() = default;

void HeatmapWidget::setMatrix(attn::Mat values, const QStringList& rowLabels,
                              const QStringList& colLabels, const QString& title, double lo,
                              double hi) {
  const bool sameShape = values.rows() == rows() && values.cols() == cols();
  if (source_) {  // back to an in-memory matrix
    overviewJob_->cancel();
    detailJob_->cancel();
    source_.reset();
    overview_ = detail_ = attn::Mat();
    overviewBlock_ = 0;
    detailShown_ = false;
    detailMap_->setVisible(false);
  }
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
  if (source_) return requestDetail();  // the overview stays; the visible rectangle may sharpen
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
  if (source_ || static_cast<long long>(values_.rows()) * values_.cols() > kFullResolutionCells)
    rebuild_.start();
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
  detailMap_->setGradient(g);
  replot();
}

void HeatmapWidget::setColorScaleLabel(const QString& label) { scale_->axis()->setLabel(label); }

void HeatmapWidget::setPinnedRow(int row) {
  pinnedRow_ = row;
  pin_->setVisible(row >= 0 && cols() > 0);
  if (row >= 0) {
    pin_->topLeft->setCoords(-0.5, row - 0.5);
    pin_->bottomRight->setCoords(static_cast<double>(cols()) - 0.5, row + 0.5);
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
  xAxis->setRange(-0.5, static_cast<double>(cols()) - 0.5);
  yAxis->setRange(-0.5, static_cast<double>(rows()) - 0.5);
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
  if (r < 0 || c < 0 || r >= rows() || c >= cols()) return false;
  *row = r;
  *col = c;
  return true;
}

void HeatmapWidget::resizeEvent(QResizeEvent* event) {
  QCustomPlot::resizeEvent(event);
  applyTitle();
  applyLabels();
  if (source_ || static_cast<long long>(values_.rows()) * values_.cols() > kFullResolutionCells)
    rebuild_.start();
}

void HeatmapWidget::applyTitle() {
  // On screen a narrow central widget would clip a long title on both sides,
  // so it is elided; figures drawn off screen keep every word (title()).
  // The title sits above the map's column only, not above the colour scale.
  const QFontMetrics fm(title_->font());
  const int column = axisRect()->outerRect().width() > 0 ? axisRect()->outerRect().width() : width() - 90;
  title_->setText(isVisible() ? fittedTitle(fullTitle_, fm, std::max(40, column - 40)) : fullTitle_);
}

QString fittedTitle(const QString& title, const QFontMetrics& fm, int width) {
  if (fm.horizontalAdvance(title) <= width) return title;
  // Two lines, broken at the last " — " that lets the first fit (the parts name the
  // quantity, the head, the model and the pooling); each line elided only if still too long.
  const QString sep = QStringLiteral(" — ");
  for (qsizetype at = title.lastIndexOf(sep); at > 0; at = title.lastIndexOf(sep, at - 1)) {
    const QString first = title.left(at);
    if (fm.horizontalAdvance(first) > width) continue;
    return first + QLatin1Char('\n') + fm.elidedText(title.mid(at + sep.size()), Qt::ElideRight, width);
  }
  return fm.elidedText(title, Qt::ElideRight, width);
}

QString HeatmapWidget::drawnTitle() const { return title_->text(); }

void HeatmapWidget::showEvent(QShowEvent* event) {
  QCustomPlot::showEvent(event);
  applyTitle();
}

void HeatmapWidget::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  emit hoverLeft();
}

}  // namespace attn::ui

// --- a source: overview, then the visible rectangle at full resolution --------------

namespace attn::ui {
namespace {

attn::models::Pooling corePooling(HeatmapWidget::Pooling p) {
  return p == HeatmapWidget::Pooling::Max ? attn::models::Pooling::Max : attn::models::Pooling::Mean;
}

// What a worker hands back: the matrix, or why there is none.
struct SourceAnswer {
  attn::Mat values;
  std::string error;
};

}  // namespace

int HeatmapWidget::rows() const { return source_ ? source_->rows() : static_cast<int>(values_.rows()); }
int HeatmapWidget::cols() const { return source_ ? source_->cols() : static_cast<int>(values_.cols()); }

void HeatmapWidget::setPooling(Pooling p) {
  if (p == pooling_) return;
  pooling_ = p;
  if (source_) requestOverview();
}

void HeatmapWidget::setSource(std::shared_ptr<const HeatmapSource> source, const QStringList& rowLabels,
                              const QStringList& colLabels, const QString& title, double lo, double hi) {
  if (!source) return setMatrix(attn::Mat(), rowLabels, colLabels, title, lo, hi);
  const bool sameShape = source->rows() == rows() && source->cols() == cols();
  values_ = attn::Mat();
  source_ = std::move(source);
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  baseTitle_ = title;
  lo_ = lo;
  hi_ = hi;
  if (!sameShape) {
    QSignalBlocker bx(xAxis), by(yAxis);
    xAxis->setRange(-0.5, static_cast<double>(cols()) - 0.5);
    yAxis->setRange(-0.5, static_cast<double>(rows()) - 0.5);
  }
  detailShown_ = false;
  detailMap_->setVisible(false);
  detailJob_->cancel();
  overviewBlock_ = 0;
  requestOverview();
  setPinnedRow(pinnedRow_ < rows() ? pinnedRow_ : -1);
  applyLabels();
}

void HeatmapWidget::requestOverview() {
  const int block = attn::ui::overviewBlock(std::max(rows(), cols()), overviewSide_);
  const auto pooling = corePooling(pooling_);
  auto answer = std::make_shared<SourceAnswer>();
  auto source = source_;
  fullTitle_ = tr("%1 — computing the overview…").arg(baseTitle_);
  applyTitle();
  overviewJob_->start(
      [source, block, pooling, answer] {
        auto m = source->overview(block, pooling);
        if (m)
          answer->values = std::move(m).value();
        else
          answer->error = m.error().message;
      },
      [this, source, block, answer] {
        if (source != source_) return;
        if (!answer->error.empty()) {
          fullTitle_ = tr("%1 — %2").arg(baseTitle_, QString::fromStdString(answer->error));
          applyTitle();
          replot(QCustomPlot::rpQueuedReplot);
          return;
        }
        overview_ = std::move(answer->values);
        overviewBlock_ = block;
        drawOverview();
        requestDetail();
      });
}

void HeatmapWidget::setDataRangeFrom(const attn::Mat& m) {
  if (lo_ < hi_) return map_->setDataRange(QCPRange(lo_, hi_));
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (std::isfinite(m.data()[i])) {
      mn = std::min(mn, m.data()[i]);
      mx = std::max(mx, m.data()[i]);
    }
  if (!(mn < mx)) {
    mn = std::isfinite(mn) ? mn - 0.5f : 0.f;
    mx = mn + 1.f;
  }
  map_->setDataRange(QCPRange(mn, mx));
}

void HeatmapWidget::drawOverview() {
  auto* data = map_->data();
  const int kc = static_cast<int>(overview_.cols()), vc = static_cast<int>(overview_.rows());
  const int b = overviewBlock_;
  if (kc == 0 || vc == 0) return;
  data->setSize(kc, vc);
  // Block (I, J) covers rows [I b, (I+1) b): drawn centred on the block's middle.
  const double half = (b - 1) / 2.0;
  data->setRange(QCPRange(half, (kc - 1) * b + half), QCPRange(half, (vc - 1) * b + half));
  if (kc == 1) data->setKeyRange(QCPRange(half - 0.5, half + 0.5));
  if (vc == 1) data->setValueRange(QCPRange(half - 0.5, half + 0.5));
  for (int r = 0; r < vc; ++r)
    for (int c = 0; c < kc; ++c) data->setCell(c, r, static_cast<double>(overview_(r, c)));
  setDataRangeFrom(overview_);
  stride_ = detailShown_ ? 1 : b;
  const QString pooled =
      pooling_ == Pooling::Max ? tr("max of %1 × %1 blocks") : tr("mean of %1 × %1 blocks");
  fullTitle_ = b > 1 ? tr("%1 — %2").arg(baseTitle_, pooled.arg(b)) : baseTitle_;
  applyTitle();
  replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapWidget::requestDetail() {
  if (!source_ || overviewBlock_ <= 1) return;  // an overview of 1 x 1 blocks is the matrix itself
  const QCPRange xr = xAxis->range(), yr = yAxis->range();
  const int nr = rows(), nc = cols();
  auto clampTo = [](double v, int lo, int hi) { return std::clamp(static_cast<int>(v), lo, hi); };
  // The visible cells, then a margin around them so that a short pan stays sharp.
  const int c0 = clampTo(std::floor(xr.lower + 0.5), 0, nc - 1),
            c1 = clampTo(std::ceil(xr.upper + 0.5), c0 + 1, nc);
  const int r0 = clampTo(std::floor(yr.lower + 0.5), 0, nr - 1),
            r1 = clampTo(std::ceil(yr.upper + 0.5), r0 + 1, nr);
  const long long visible = static_cast<long long>(r1 - r0) * (c1 - c0);
  if (visible > detailCells_) {  // zoomed out: the overview alone
    detailJob_->cancel();
    if (detailShown_) {
      detailShown_ = false;
      detailMap_->setVisible(false);
      drawOverview();
    }
    return;
  }
  if (detailShown_ && detailRect_.contains(QRect(c0, r0, c1 - c0, r1 - r0))) return;  // already sharp
  const int mc = (c1 - c0) / 4, mr = (r1 - r0) / 4;
  attn::models::MapRect rect{std::max(0, r0 - mr), std::min(nr, r1 + mr), std::max(0, c0 - mc),
                             std::min(nc, c1 + mc)};
  if (rect.cells() > detailCells_) rect = {r0, r1, c0, c1};
  auto answer = std::make_shared<SourceAnswer>();
  auto source = source_;
  detailJob_->start(
      [source, rect, answer] {
        auto m = source->cells(rect);
        if (m)
          answer->values = std::move(m).value();
        else
          answer->error = m.error().message;
      },
      [this, source, rect, answer] {
        if (source != source_ || !answer->error.empty()) return;
        detail_ = std::move(answer->values);
        detailRect_ = QRect(rect.col0, rect.row0, rect.col1 - rect.col0, rect.row1 - rect.row0);
        drawDetail();
      });
}

void HeatmapWidget::drawDetail() {
  auto* data = detailMap_->data();
  const int kc = static_cast<int>(detail_.cols()), vc = static_cast<int>(detail_.rows());
  if (kc == 0 || vc == 0) return;
  const int c0 = detailRect_.x(), r0 = detailRect_.y();
  data->setSize(kc, vc);
  data->setRange(QCPRange(c0, c0 + kc - 1), QCPRange(r0, r0 + vc - 1));
  if (kc == 1) data->setKeyRange(QCPRange(c0 - 0.5, c0 + 0.5));
  if (vc == 1) data->setValueRange(QCPRange(r0 - 0.5, r0 + 0.5));
  for (int r = 0; r < vc; ++r)
    for (int c = 0; c < kc; ++c) data->setCell(c, r, static_cast<double>(detail_(r, c)));
  detailShown_ = true;
  detailMap_->setVisible(true);
  stride_ = 1;
  fullTitle_ = tr("%1 — rows %2–%3 × keys %4–%5 at full resolution")
                   .arg(baseTitle_)
                   .arg(r0)
                   .arg(r0 + vc - 1)
                   .arg(c0)
                   .arg(c0 + kc - 1);
  applyTitle();
  replot(QCustomPlot::rpQueuedReplot);
}

bool HeatmapWidget::cellValue(int row, int col, float* value) const {
  if (!source_) {
    if (row < 0 || col < 0 || row >= values_.rows() || col >= values_.cols()) return false;
    *value = values_(row, col);
    return true;
  }
  if (!detailShown_ || !detailRect_.contains(col, row)) return false;
  *value = detail_(row - detailRect_.y(), col - detailRect_.x());
  return true;
}

bool HeatmapWidget::sourceBusy() const {
  return overviewJob_->busy() || detailJob_->busy() || rebuild_.isActive();
}

void HeatmapWidget::waitForSource() {
  while (sourceBusy()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
}

}  // namespace attn::ui
