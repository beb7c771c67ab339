#include "attn_ui/common/flow_layout.h"

#include <QWidget>
#include <algorithm>

namespace attn::ui {

FlowLayout::FlowLayout(QWidget* parent, int hSpacing, int vSpacing)
    : QLayout(parent), hSpacing_(hSpacing), vSpacing_(vSpacing) {
  setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) { items_.append(item); }

QLayoutItem* FlowLayout::itemAt(int index) const {
  return index >= 0 && index < items_.size() ? items_.at(index) : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index) {
  return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

QSize FlowLayout::minimumSize() const {
  // As narrow as the widest item: everything else wraps.
  QSize size;
  for (const QLayoutItem* item : items_) size = size.expandedTo(item->minimumSize());
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  // Everything on one line.
  int width = 0, height = 0;
  for (const QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    const QSize s = item->sizeHint();
    width += (width > 0 ? hSpacing_ : 0) + s.width();
    height = std::max(height, s.height());
  }
  const QMargins m = contentsMargins();
  return {width + m.left() + m.right(), height + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true);
}

int FlowLayout::arrange(const QRect& rect, bool apply) const {
  const QMargins m = contentsMargins();
  const QRect area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom());
  // Each line's items are centred vertically on the line's tallest one.
  QList<QLayoutItem*> line;
  int x = area.x(), y = area.y(), lineHeight = 0;
  const auto place = [&] {
    if (apply)
      for (QLayoutItem* item : line) {
        const QRect g = item->geometry();
        item->setGeometry(QRect(QPoint(g.x(), y + (lineHeight - g.height()) / 2), g.size()));
      }
    line.clear();
  };
  for (QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    const QSize s = item->sizeHint();
    if (x > area.x() && x + s.width() > area.right() + 1) {
      place();
      x = area.x();
      y += lineHeight + vSpacing_;
      lineHeight = 0;
    }
    if (apply) item->setGeometry(QRect(QPoint(x, y), s));
    line.append(item);
    x += s.width() + hSpacing_;
    lineHeight = std::max(lineHeight, s.height());
  }
  place();
  return y + lineHeight - rect.y() + m.bottom();
}

}  // namespace attn::ui
