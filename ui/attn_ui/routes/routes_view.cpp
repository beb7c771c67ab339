#include "attn_ui/routes/routes_view.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn::ui {
namespace {

using attn::models::RouteEdge;
using attn::models::RouteEdgeKind;

constexpr double kBow = 0.32;       // how far a curved edge bows, in columns
constexpr double kHitPixels = 5.0;  // how close the pointer must be to an edge
constexpr int kCurveSamples = 12;   // segments a curve is hit-tested on
constexpr int kMaxGridDots = 6000;  // faint dots for every node only while they stay cheap

int fromRow(const RouteEdge& e) {
  const bool attention = e.kind == RouteEdgeKind::Head || e.kind == RouteEdgeKind::AttnResidual;
  return attention ? 2 * e.layer : 2 * e.layer + 1;
}

QString rowLabel(int row) {
  if (row == 0) return RoutesView::tr("embeddings");
  const int layer = (row - 1) / 2 + 1;
  return row % 2 == 1 ? RoutesView::tr("L%1 attention").arg(layer) : RoutesView::tr("L%1 MLP").arg(layer);
}

QPointF curvePoint(const QPointF& a, const QPointF& c, const QPointF& b, double t) {
  const double u = 1.0 - t;
  return u * u * a + 2 * u * t * c + t * t * b;
}

double segmentDistance(const QPointF& p, const QPointF& a, const QPointF& b) {
  const QPointF d = b - a;
  const double len2 = QPointF::dotProduct(d, d);
  const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / len2, 0.0, 1.0) : 0.0;
  const QPointF q = a + t * d - p;
  return std::hypot(q.x(), q.y());
}

double edgeWidth(float importance) { return 0.8 + 5.0 * std::clamp(double(importance), 0.0, 1.0); }

// Token text under its column: elided to the column (two staggered lines when narrow).
void paintTokens(QPainter& p, const RoutesLayout& l, const RoutesFigure& f, const QFontMetricsF& fm) {
  const double column = l.columns > 1 ? l.node(0, 1).x() - l.node(0, 0).x() : l.plot.width();
  const bool stagger = column < 3.2 * fm.averageCharWidth() * 2;
  const double room = stagger ? 2 * column - 4 : column - 2;
  for (int i = 0; i < l.columns; ++i) {
    const QString text = fm.elidedText(f.tokens[i], Qt::ElideRight, std::max(8.0, room));
    const double y = l.plot.bottom() + 8 + ((stagger && i % 2 == 1) ? fm.height() : 0.0);
    const QRectF box(l.node(0, i).x() - room / 2, y, room, fm.height());
    QFont font = p.font();
    font.setBold(i == f.position);
    p.setFont(font);
    p.drawText(box, Qt::AlignHCenter | Qt::AlignTop, text);
  }
  QFont font = p.font();
  font.setBold(false);
  p.setFont(font);
}

void paintLegend(QPainter& p, const QRectF& area, const QFontMetricsF& fm) {
  const std::pair<RouteEdgeKind, QString> kinds[] = {
      {RouteEdgeKind::Head, RoutesView::tr("attention head")},
      {RouteEdgeKind::AttnResidual, RoutesView::tr("residual")},
      {RouteEdgeKind::Mlp, RoutesView::tr("MLP")}};
  const QColor text = p.pen().color();
  double x = area.right() - 4;
  for (auto it = std::rbegin(kinds); it != std::rend(kinds); ++it) {
    const double w = fm.horizontalAdvance(it->second);
    x -= w;
    p.drawText(QPointF(x, area.top() + fm.ascent() + 2), it->second);
    x -= 24;
    p.setPen(QPen(routeEdgeColour(it->first), 3));
    const double y = area.top() + 2 + fm.height() / 2;
    p.drawLine(QPointF(x, y), QPointF(x + 18, y));
    p.setPen(text);
    x -= 14;
  }
}

}  // namespace

QColor routeEdgeColour(RouteEdgeKind kind) {
  switch (kind) {
    case RouteEdgeKind::Head:
      return QColor(31, 119, 180);
    case RouteEdgeKind::Mlp:
      return QColor(230, 120, 20);
    default:
      return QColor(130, 130, 130);
  }
}

QPointF RoutesLayout::node(int row, int column) const {
  const double dx = columns > 1 ? plot.width() / (columns - 1) : 0.0;
  const double dy = rows > 1 ? plot.height() / (rows - 1) : 0.0;
  return {columns > 1 ? plot.left() + column * dx : plot.center().x(), plot.bottom() - row * dy};
}

void RoutesLayout::edgeCurve(const RouteEdge& e, QPointF& from, QPointF& control, QPointF& to) const {
  const int row = fromRow(e);
  from = node(row, e.from);
  to = node(row + 1, e.to);
  control = (from + to) / 2;
  const double column = columns > 1 ? plot.width() / (columns - 1) : plot.width() / 2;
  if (e.kind == RouteEdgeKind::Mlp) control.rx() += kBow * column;
  if (e.kind == RouteEdgeKind::Head && e.from == e.to) control.rx() -= kBow * column;
}

RoutesLayout routesLayout(const RoutesFigure& f, const QRectF& area, const QFontMetricsF& fm) {
  RoutesLayout l;
  l.rows = 2 * f.layers + 1;
  l.columns = static_cast<int>(f.tokens.size());
  double labels = 0;
  for (int r = 0; r < l.rows; ++r) labels = std::max(labels, fm.horizontalAdvance(rowLabel(r)));
  const double top = area.top() + 2.5 * fm.height() + 14;      // title and legend
  const double bottom = area.bottom() - 2 * fm.height() - 12;  // tokens, maybe on two lines
  const double left = area.left() + labels + 18;
  const double right = area.right() - 36;  // room for the last column's MLP bow
  l.plot = QRectF(QPointF(left, top), QPointF(std::max(left + 1, right), std::max(top + 1, bottom)));
  return l;
}

void paintRoutes(QPainter& p, const QRectF& area, const RoutesFigure& f, const QPalette& palette,
                 int hovered) {
  p.save();
  p.fillRect(area, palette.color(QPalette::Base));
  const QFontMetricsF fm(p.font());
  const QColor text = palette.color(QPalette::Text);
  p.setPen(text);
  p.drawText(QRectF(area.left() + 4, area.top() + 2, area.width() - 8, fm.height()), Qt::AlignLeft, f.title);
  if (!f.valid()) return p.restore();
  const RoutesLayout l = routesLayout(f, area, fm);
  p.setRenderHint(QPainter::Antialiasing);
  paintLegend(p, QRectF(area.left(), area.top() + fm.height() + 2, area.width(), fm.height() + 4), fm);
  p.setPen(text);
  for (int r = 0; r < l.rows; ++r) {
    const QPointF at = l.node(r, 0);
    p.drawText(
        QRectF(area.left() + 2, at.y() - fm.height() / 2, l.plot.left() - area.left() - 12, fm.height()),
        Qt::AlignRight | Qt::AlignVCenter, rowLabel(r));
  }
  paintTokens(p, l, f, fm);
  QColor faint = text;
  faint.setAlpha(50);
  if (l.rows * l.columns <= kMaxGridDots) {
    p.setPen(Qt::NoPen);
    p.setBrush(faint);
    for (int r = 0; r < l.rows; ++r)
      for (int i = 0; i < l.columns; ++i) p.drawEllipse(l.node(r, i), 1.3, 1.3);
  }
  // The least important first, so the strong edges lie on top.
  std::vector<size_t> order(f.edges.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&f](size_t a, size_t b) { return f.edges[a].importance < f.edges[b].importance; });
  p.setBrush(Qt::NoBrush);
  for (const size_t k : order) {
    const RouteEdge& e = f.edges[k];
    QPointF a, c, b;
    l.edgeCurve(e, a, c, b);
    QColor colour = routeEdgeColour(e.kind);
    colour.setAlphaF(0.35 + 0.65 * std::clamp(double(e.importance), 0.0, 1.0));
    QPainterPath path(a);
    path.quadTo(c, b);
    if (static_cast<int>(k) == hovered) {
      QColor halo = palette.color(QPalette::Highlight);
      halo.setAlpha(150);
      p.strokePath(path, QPen(halo, edgeWidth(e.importance) + 5, Qt::SolidLine, Qt::RoundCap));
    }
    p.strokePath(path, QPen(colour, edgeWidth(e.importance), Qt::SolidLine, Qt::RoundCap));
  }
  p.setPen(QPen(text, 1));
  p.setBrush(palette.color(QPalette::Base));
  for (const RouteEdge& e : f.edges) {
    const int row = fromRow(e);
    p.drawEllipse(l.node(row, e.from), 3, 3);
    p.drawEllipse(l.node(row + 1, e.to), 3, 3);
  }
  if (f.position >= 0 && f.position < l.columns) {
    p.setBrush(text);
    p.drawEllipse(l.node(l.rows - 1, f.position), 4.5, 4.5);
  }
  p.restore();
}

RoutesView::RoutesView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("RoutesView"));
  setMouseTracking(true);
}

void RoutesView::setFigure(RoutesFigure figure) {
  figure_ = std::move(figure);
  hovered_ = -1;
  update();
}

RoutesLayout RoutesView::layout() const {
  return routesLayout(figure_, QRectF(rect()), QFontMetricsF(font()));
}

int RoutesView::edgeAt(const QPointF& point) const {
  if (!figure_.valid()) return -1;
  const RoutesLayout l = layout();
  int best = -1;
  double bestDistance = 0;
  for (size_t k = 0; k < figure_.edges.size(); ++k) {
    const RouteEdge& e = figure_.edges[k];
    QPointF a, c, b;
    l.edgeCurve(e, a, c, b);
    double d = 1e30;
    QPointF prev = a;
    for (int s = 1; s <= kCurveSamples; ++s) {
      const QPointF next = curvePoint(a, c, b, double(s) / kCurveSamples);
      d = std::min(d, segmentDistance(point, prev, next));
      prev = next;
    }
    if (d > kHitPixels + edgeWidth(e.importance) / 2) continue;
    // Nearest wins; edges drawn over each other (heads between the same tokens) by importance.
    const bool closer = best < 0 || d < bestDistance - 0.5;
    const bool tie = best >= 0 && std::abs(d - bestDistance) <= 0.5 &&
                     e.importance > figure_.edges[static_cast<size_t>(best)].importance;
    if (closer || tie) {
      best = static_cast<int>(k);
      bestDistance = d;
    }
  }
  return best;
}

QPointF RoutesView::edgeMiddle(int index) const {
  if (index < 0 || index >= static_cast<int>(figure_.edges.size())) return {};
  QPointF a, c, b;
  layout().edgeCurve(figure_.edges[static_cast<size_t>(index)], a, c, b);
  return curvePoint(a, c, b, 0.5);
}

QString RoutesView::edgeText(int index) const {
  if (index < 0 || index >= static_cast<int>(figure_.edges.size())) return {};
  const RouteEdge& e = figure_.edges[static_cast<size_t>(index)];
  auto token = [this](int i) {
    return i >= 0 && i < figure_.tokens.size() ? tr("%1 “%2”").arg(i).arg(figure_.tokens[i])
                                               : QString::number(i);
  };
  QString what;
  switch (e.kind) {
    case RouteEdgeKind::Head:
      what = tr("Layer %1, head %2").arg(e.layer + 1).arg(e.head + 1);
      break;
    case RouteEdgeKind::AttnResidual:
      what = tr("Layer %1, residual around attention").arg(e.layer + 1);
      break;
    case RouteEdgeKind::Mlp:
      what = tr("Layer %1, MLP").arg(e.layer + 1);
      break;
    case RouteEdgeKind::MlpResidual:
      what = tr("Layer %1, residual around the MLP").arg(e.layer + 1);
      break;
  }
  QString text = tr("%1\nfrom token %2 to token %3\nimportance %4")
                     .arg(what, token(e.from), token(e.to), QString::number(e.importance, 'f', 3));
  if (e.kind == RouteEdgeKind::Head) text += tr("\nClick to show this head");
  return text;
}

void RoutesView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintRoutes(p, QRectF(rect()), figure_, palette(), hovered_);
}

void RoutesView::mouseMoveEvent(QMouseEvent* event) {
  const int k = edgeAt(event->position());
  if (k != hovered_) {
    hovered_ = k;
    update();
  }
  if (k < 0) QToolTip::hideText();
}

bool RoutesView::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  // The edge under the pointer, or nothing (not the panel's general tooltip).
  const auto* help = static_cast<QHelpEvent*>(event);
  const int k = edgeAt(help->pos());
  if (k >= 0)
    QToolTip::showText(help->globalPos(), edgeText(k), this);
  else
    QToolTip::hideText();
  return true;
}

void RoutesView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  const int k = edgeAt(event->position());
  if (k >= 0) emit edgeClicked(figure_.edges[static_cast<size_t>(k)]);
}

void RoutesView::leaveEvent(QEvent* event) {
  QWidget::leaveEvent(event);
  if (hovered_ >= 0) {
    hovered_ = -1;
    update();
  }
}

}  // namespace attn::ui
