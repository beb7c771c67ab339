#include "attn_ui/spatial/graph_attention_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "attn_ui/theme/colormaps.h"
#include "attn_ui/spatial/nearest_point.h"

namespace attn::ui {
namespace {

QColor groupColour(int g) {
  static const QColor k[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                             QColor(148, 103, 189), QColor(140, 86, 75)};
  return g < 0 ? QColor(110, 110, 110) : k[g % 6];
}

QPointF at(const GraphAttentionFigure& f, const QRectF& r, int i) {
  return {r.left() + f.layout(i, 0) * r.width(), r.top() + f.layout(i, 1) * r.height()};
}

}  // namespace

QImage graphHeatmapImage(const GraphAttentionFigure& f) {
  if (!f.valid()) return {};
  const int n = f.numNodes();
  QImage img(n, n, QImage::Format_RGB32);
  QCPColorGradient grad = colormapGradient(f.colormap);
  QRgb lut[256];  // one gradient lookup per level, not per cell (2,000 nodes are 4M cells)
  for (int k = 0; k < 256; ++k) lut[k] = grad.color(k / 255.0, QCPRange(0, 1));
  const float scale = 255.0f / std::max(f.weights.maxCoeff(), 1e-12f);
  for (int i = 0; i < n; ++i) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(i));
    const uint8_t* keep = f.keep.data() + static_cast<size_t>(i) * n;
    for (int j = 0; j < n; ++j)
      line[j] = keep[j] ? lut[std::clamp(static_cast<int>(f.weights(i, j) * scale + 0.5f), 0, 255)]
                        : qRgb(205, 205, 205);
  }
  return img;
}

void paintGraphAttention(QPainter& p, const QRect& target, const GraphAttentionFigure& f, QRectF* graphRect) {
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
  const int n = f.numNodes();
  const QRect body = target.adjusted(8, 8 + titleH, -8, -8);
  const int graphW = f.heatmap ? body.width() * 55 / 100 : body.width();
  const double side = std::max(10, std::min(graphW, body.height()) - 16);
  const QRectF g(body.left() + (graphW - side) / 2 + 8, body.top() + (body.height() - side) / 2 + 8, side - 16,
                 side - 16);
  if (graphRect) *graphRect = g;
  const int sel = std::clamp(f.node, 0, n - 1);
  const float maxW = std::max(f.weights.row(sel).maxCoeff(), 1e-12f);
  p.setRenderHint(QPainter::Antialiasing, true);
  // Faint structure first, then the selected node's neighbourhood on top.
  p.setPen(QPen(QColor(150, 150, 150, n > 300 ? 25 : 60), 1));
  for (auto [s, t] : f.edges) p.drawLine(at(f, g, s), at(f, g, t));
  const QColor hot(200, 30, 30);
  for (int j = 0; j < n; ++j) {
    const float w = f.weights(sel, j);
    if (j == sel || w <= 0.0f) continue;
    QColor c = hot;
    c.setAlphaF(0.15 + 0.85 * w / maxW);
    p.setPen(QPen(c, 1.0 + 5.0 * w / maxW, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(at(f, g, sel), at(f, g, j));
  }
  const double radius = n > 500 ? 2.0 : n > 100 ? 3.5 : 7.0;
  for (int i = 0; i < n; ++i) {
    QColor c = groupColour(f.groups.empty() ? -1 : f.groups[static_cast<size_t>(i)]);
    p.setPen(Qt::NoPen);
    p.setBrush(c);
    p.drawEllipse(at(f, g, i), radius, radius);
  }
  // Self-attention of the selected node as the ring's width.
  const QPointF c0 = at(f, g, sel);
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(hot, 2.5));
  p.drawEllipse(c0, radius + 4, radius + 4);
  if (n <= 60) {
    p.setPen(text);
    for (int i = 0; i < n && i < f.labels.size(); ++i)
      p.drawText(at(f, g, i) + QPointF(radius + 2, -radius - 1), f.labels[i]);
  }
  p.setPen(text);
  p.drawText(QRectF(g.left(), g.bottom() + 4, g.width(), fm.height() + 2), Qt::AlignHCenter,
             QString("%1: self %2, max %3")
                 .arg(sel < f.labels.size() ? f.labels[sel] : QString::number(sel))
                 .arg(f.weights(sel, sel), 0, 'f', 3)
                 .arg(maxW, 0, 'f', 3));
  if (f.heatmap) {
    // N x N heatmap, non-edges grey, the selected row outlined.
    const QRect hm = body.adjusted(graphW + 8, 0, 0, 0);
    const int hs = std::max(10, std::min(hm.width(), hm.height()) - 8);
    const QImage img = f.heatmapImage.isNull() ? graphHeatmapImage(f) : f.heatmapImage;
    const QRectF hr(hm.left() + (hm.width() - hs) / 2.0, hm.top() + (hm.height() - hs) / 2.0, hs, hs);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(hr, img);
    p.setPen(QPen(hot, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(hr.left(), hr.top() + sel * hs / n, hs, std::max(1.0, hs / static_cast<double>(n))));
    p.setPen(text);
    p.drawText(QRectF(hr.left(), hr.bottom() + 2, hr.width(), fm.height() + 2), Qt::AlignHCenter,
               QString("alpha [%1 x %1], grey = not a neighbour").arg(n));
  }
  p.restore();
}

GraphAttentionView::GraphAttentionView(QWidget* parent) : QWidget(parent) { setMinimumSize(240, 180); }

void GraphAttentionView::setFigure(GraphAttentionFigure figure) {
  figure_ = std::move(figure);
  update();
}

int GraphAttentionView::nodeAt(const QPointF& pos) const {
  if (!figure_.valid()) return -1;
  return nearestPoint(figure_.numNodes(), [this](int i) { return at(figure_, graphRect_, i); }, pos, 12.0);
}

void GraphAttentionView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(palette().color(QPalette::WindowText));
  paintGraphAttention(p, rect(), figure_, &graphRect_);
}

void GraphAttentionView::mousePressEvent(QMouseEvent* event) {
  const int k = nodeAt(event->position());
  if (k >= 0) emit nodeClicked(k);
}

}  // namespace attn::ui
