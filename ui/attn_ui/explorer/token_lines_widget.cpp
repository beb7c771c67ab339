#include "attn_ui/explorer/token_lines_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace attn::ui {

TokenLinesWidget::TokenLinesWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(240, 200);
  setToolTip(tr("Hover a token to see only its lines."));
}

void TokenLinesWidget::setData(const QStringList& queryTokens, const QStringList& keyTokens,
                               const std::vector<attn::Mat>& heads, const QList<int>& headNumbers) {
  queries_ = queryTokens;
  keys_ = keyTokens;
  heads_ = heads;
  headNumbers_ = headNumbers;
  if ((focusSide_ == Side::Query && focusIndex_ >= queries_.size()) ||
      (focusSide_ == Side::Key && focusIndex_ >= keys_.size()))
    setFocusToken(Side::None, -1);
  update();
}

void TokenLinesWidget::setFocusToken(Side side, int index) {
  if (side == Side::None) index = -1;
  if (side == focusSide_ && index == focusIndex_) return;
  focusSide_ = side;
  focusIndex_ = index;
  update();
  emit focusTokenChanged(static_cast<int>(side), index);
}

void TokenLinesWidget::setTheme(const TeachingTheme& theme) {
  theme_ = theme;
  update();
}

std::vector<TokenLinesWidget::Line> TokenLinesWidget::visibleLines() const {
  std::vector<Line> out;
  for (size_t h = 0; h < heads_.size(); ++h) {
    const attn::Mat& w = heads_[h];
    for (int i = 0; i < w.rows(); ++i) {
      if (focusSide_ == Side::Query && i != focusIndex_) continue;
      for (int j = 0; j < w.cols(); ++j) {
        if (focusSide_ == Side::Key && j != focusIndex_) continue;
        if (w(i, j) >= minWeight_) out.push_back({static_cast<int>(h), i, j, w(i, j)});
      }
    }
  }
  return out;
}

TokenLinesWidget::Geometry TokenLinesWidget::geometry(const QRect& target) const {
  Geometry g;
  const double s = theme_.fontScale;
  const double legend = heads_.size() > 1 ? 22 * s : 0;
  const int n = static_cast<int>(std::max(queries_.size(), keys_.size()));
  g.top = target.top() + 8 * s + legend;
  const double avail = target.height() - (g.top - target.top()) - 8 * s;
  g.rowH = n > 0 ? std::min(40.0 * s, avail / n) : 0;
  g.top += (avail - g.rowH * n) / 2;  // centred: short sentences sit mid-figure
  const double colW = target.width() * 0.3;
  g.left = QRectF(target.left() + 8 * s, g.top, colW, g.rowH * queries_.size());
  g.right = QRectF(target.right() - 8 * s - colW, g.top, colW, g.rowH * keys_.size());
  return g;
}

std::pair<TokenLinesWidget::Side, int> TokenLinesWidget::tokenAt(const QPoint& pos) const {
  const Geometry g = geometry(rect());
  if (g.rowH <= 0) return {Side::None, -1};
  const int row = static_cast<int>((pos.y() - g.top) / g.rowH);
  if (g.left.contains(pos) && row >= 0 && row < queries_.size()) return {Side::Query, row};
  if (g.right.contains(pos) && row >= 0 && row < keys_.size()) return {Side::Key, row};
  return {Side::None, -1};
}

void TokenLinesWidget::mouseMoveEvent(QMouseEvent* e) {
  const auto [side, index] = tokenAt(e->position().toPoint());
  setFocusToken(side, index);
}

void TokenLinesWidget::leaveEvent(QEvent*) { setFocusToken(Side::None, -1); }

void TokenLinesWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paintLines(p, rect());
}

void TokenLinesWidget::paintLines(QPainter& p, const QRect& target) const {
  const TeachingTheme& th = theme_;
  p.save();
  p.fillRect(target, th.background);
  const Geometry g = geometry(target);
  QFont f = th.font(std::clamp(g.rowH / th.fontScale * 0.45, 5.0, 11.0));
  p.setFont(f);
  // Legend: one colour per head.
  if (heads_.size() > 1) {
    double x = target.left() + 8 * th.fontScale;
    for (size_t h = 0; h < heads_.size(); ++h) {
      const int id = h < static_cast<size_t>(headNumbers_.size()) ? headNumbers_[static_cast<int>(h)] : static_cast<int>(h);
      const QString text = tr("head %1").arg(id + 1);
      p.fillRect(QRectF(x, target.top() + 8 * th.fontScale, 12 * th.fontScale, 10 * th.fontScale), headColor(id));
      p.setPen(th.text);
      const double tw = p.fontMetrics().horizontalAdvance(text);
      p.drawText(QPointF(x + 16 * th.fontScale, target.top() + 17 * th.fontScale), text);
      x += tw + 30 * th.fontScale;
    }
  }
  // Lines under the text; a multi-head view shares the opacity budget.
  const double x0 = g.left.right() + 4, x1 = g.right.left() - 4;
  for (const Line& l : visibleLines()) {
    const int id = l.head < headNumbers_.size() ? headNumbers_[l.head] : l.head;
    QColor c = heads_.size() > 1 ? headColor(id) : th.accent;
    c.setAlphaF(std::clamp(l.weight, 0.0, 1.0));
    p.setPen(QPen(c, std::max(1.0, 3.0 * th.fontScale * l.weight)));
    const double y0 = g.top + (l.query + 0.5) * g.rowH, y1 = g.top + (l.key + 0.5) * g.rowH;
    p.drawLine(QPointF(x0, y0), QPointF(x1, y1));
  }
  auto drawColumn = [&](const QStringList& tokens, const QRectF& col, Side side, Qt::Alignment align) {
    for (int i = 0; i < tokens.size(); ++i) {
      const QRectF cell(col.left(), g.top + i * g.rowH, col.width(), g.rowH);
      const bool focused = focusSide_ == side && focusIndex_ == i;
      if (focused) p.fillRect(cell, QColor(th.accent.red(), th.accent.green(), th.accent.blue(), 60));
      p.setPen(focusSide_ == Side::None || focused || focusSide_ != side ? th.text : th.dim);
      p.drawText(cell, align | Qt::AlignVCenter,
                 p.fontMetrics().elidedText(tokens[i], Qt::ElideRight, static_cast<int>(col.width())));
    }
  };
  drawColumn(queries_, g.left, Side::Query, Qt::AlignRight);
  drawColumn(keys_, g.right, Side::Key, Qt::AlignLeft);
  p.restore();
}

}  // namespace attn::ui
