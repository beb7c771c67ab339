#include "attn_ui/spatial/qk_geometry_view.h"
#include "attn_ui/spatial/nearest_point.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace attn::ui {
namespace {

const QColor kQueryColour(31, 119, 180);
const QColor kKeyColour(255, 127, 14);

struct Bounds {
  float x0, x1, y0, y1;
};

Bounds boundsOf(const attn::Mat& p) {
  Bounds b{p.col(0).minCoeff(), p.col(0).maxCoeff(), p.col(1).minCoeff(), p.col(1).maxCoeff()};
  const float span = std::max({b.x1 - b.x0, b.y1 - b.y0, 1e-6f});
  const float cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
  // Equal scales on both axes (distances are what the view is about), 5% margin.
  return {cx - span * 0.55f, cx + span * 0.55f, cy - span * 0.55f, cy + span * 0.55f};
}

}  // namespace

QPointF qkPointPosition(const QkGeometryFigure& f, const QRectF& r, int row) {
  const Bounds b = boundsOf(f.geometry.points);
  const float x = f.geometry.points(row, 0), y = f.geometry.points(row, 1);
  return {r.left() + (x - b.x0) / (b.x1 - b.x0) * r.width(), r.bottom() - (y - b.y0) / (b.y1 - b.y0) * r.height()};
}

void paintQkGeometry(QPainter& p, const QRect& target, const QkGeometryFigure& f, QRectF* plotRect) {
  p.save();
  const QColor text = p.pen().color();
  const QFontMetrics fm(p.font());
  const int titleH = f.title.isEmpty() ? 0 : fm.height() + 6;
  if (!f.title.isEmpty())
    p.drawText(QRect(target.left(), target.top() + 2, target.width(), titleH), Qt::AlignCenter, f.title);
  if (!f.valid()) {
    p.restore();
    return;
  }
  const int legendH = fm.height() + 8;
  const QRect body = target.adjusted(10, 8 + titleH, -10, -8 - legendH - fm.height());
  const double side = std::max(10, std::min(body.width(), body.height()));
  const QRectF r(body.left() + (body.width() - side) / 2, body.top() + (body.height() - side) / 2, side, side);
  if (plotRect) *plotRect = r;
  p.setPen(QPen(QColor(160, 160, 160), 1));
  p.drawRect(r);
  p.setPen(text);
  p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), fm.height() + 2), Qt::AlignHCenter,
             QString("PC1 (%1% of variance)  ·  PC2 (%2%)")
                 .arg(100 * f.geometry.explained[0], 0, 'f', 1)
                 .arg(100 * f.geometry.explained[1], 0, 'f', 1));
  p.setRenderHint(QPainter::Antialiasing, true);
  const int nq = f.geometry.numQueries, nk = f.geometry.numKeys;
  const bool highlight = f.query >= 0 && f.query < nq && f.weights.rows() == nq && f.weights.cols() == nk;
  std::vector<int> top;
  if (highlight) {
    top = attn::topKeys(f.weights.row(f.query), f.topK);
    const float maxW = std::max(f.weights.row(f.query).maxCoeff(), 1e-12f);
    for (int j : top) {
      QColor c(200, 30, 30);
      c.setAlphaF(0.3 + 0.7 * f.weights(f.query, j) / maxW);
      p.setPen(QPen(c, 1 + 4 * f.weights(f.query, j) / maxW));
      p.drawLine(qkPointPosition(f, r, f.query), qkPointPosition(f, r, nq + j));
    }
  }
  const double rad = nq + nk > 300 ? 2.5 : 4.5;
  const bool labels = nq + nk <= 120;
  for (int row = 0; row < nq + nk; ++row) {
    const bool isQuery = row < nq;
    const QPointF c = qkPointPosition(f, r, row);
    const bool lit = highlight && (row == f.query || (!isQuery && std::find(top.begin(), top.end(), row - nq) != top.end()));
    p.setPen(lit ? QPen(QColor(200, 30, 30), 2) : Qt::NoPen);
    p.setBrush(isQuery ? kQueryColour : kKeyColour);
    if (isQuery) {
      p.drawEllipse(c, rad, rad);
    } else {
      QPainterPath tri;
      tri.moveTo(c + QPointF(0, -rad - 1));
      tri.lineTo(c + QPointF(rad + 1, rad));
      tri.lineTo(c + QPointF(-rad - 1, rad));
      tri.closeSubpath();
      p.drawPath(tri);
    }
    if (labels || lit) {
      const QStringList& names = isQuery ? f.queryLabels : f.keyLabels;
      const int idx = isQuery ? row : row - nq;
      if (idx < names.size()) {
        p.setPen(isQuery ? kQueryColour.darker(130) : kKeyColour.darker(140));
        p.drawText(c + QPointF(rad + 2, -2), names[idx]);
      }
    }
  }
  // Legend.
  const double ly = target.bottom() - legendH / 2.0 - 2;
  p.setPen(Qt::NoPen);
  p.setBrush(kQueryColour);
  p.drawEllipse(QPointF(target.left() + 20, ly), 5, 5);
  p.setBrush(kKeyColour);
  p.drawEllipse(QPointF(target.left() + 120, ly), 5, 5);
  p.setPen(text);
  p.drawText(QPointF(target.left() + 30, ly + fm.ascent() / 2.0 - 1), QStringLiteral("queries"));
  p.drawText(QPointF(target.left() + 130, ly + fm.ascent() / 2.0 - 1), QStringLiteral("keys"));
  p.restore();
}

QkGeometryView::QkGeometryView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(220, 220);
}

void QkGeometryView::setFigure(QkGeometryFigure figure) {
  figure_ = std::move(figure);
  update();
}

void QkGeometryView::setHighlightedQuery(int query) {
  if (figure_.query == query) return;
  figure_.query = query;
  update();
}

int QkGeometryView::queryAt(const QPointF& pos) const {
  if (!figure_.valid() || plotRect_.isEmpty()) return -1;
  return nearestPoint(
      figure_.geometry.numQueries, [this](int i) { return qkPointPosition(figure_, plotRect_, i); }, pos, 10.0);
}

void QkGeometryView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(palette().color(QPalette::WindowText));
  paintQkGeometry(p, rect(), figure_, &plotRect_);
}

void QkGeometryView::mouseMoveEvent(QMouseEvent* event) {
  const int q = queryAt(event->position());
  if (q >= 0 && q != figure_.query) {
    setHighlightedQuery(q);
    emit queryHovered(q);
  }
}

}  // namespace attn::ui
