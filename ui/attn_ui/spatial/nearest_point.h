#pragma once
// Hit testing for the point views (graph nodes, query–key scatter): the index
// of the point nearest to a mouse position within a radius, or -1.
#include <QPointF>

namespace attn::ui {

/// `position(i)` gives point i's widget position for i in [0, count).
template <typename PositionFn>
int nearestPoint(int count, PositionFn position, const QPointF& pos, double radius) {
  int best = -1;
  double bestD = radius * radius;
  for (int i = 0; i < count; ++i) {
    const QPointF d = position(i) - pos;
    const double dd = d.x() * d.x() + d.y() * d.y();
    if (dd < bestD) bestD = dd, best = i;
  }
  return best;
}

}  // namespace attn::ui
