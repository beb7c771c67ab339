#include "attn_ui/window/screen_fit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>
#include <algorithm>

namespace attn::ui {

QRect fitInside(const QRect& frame, const QRect& available) {
  if (available.isEmpty()) return frame;
  QRect out(frame.topLeft(), frame.size().boundedTo(available.size()));
  out.moveLeft(std::max(available.left(), std::min(out.left(), available.right() + 1 - out.width())));
  out.moveTop(std::max(available.top(), std::min(out.top(), available.bottom() + 1 - out.height())));
  return out;
}

QSize defaultWindowSize(const QRect& available) {
  // Below about 1024 × 700 the docks crowd the heatmap out; a smaller screen gets all of it.
  const QSize most(available.width() * 9 / 10, available.height() * 9 / 10);
  return most.expandedTo(QSize(1024, 700)).boundedTo(available.size());
}

QScreen* screenOf(const QWidget* window) {
  const QRect frame = window->frameGeometry();
  QScreen* best = nullptr;
  qint64 bestArea = 0;
  for (QScreen* s : QGuiApplication::screens()) {
    const QRect common = s->geometry().intersected(frame);
    const qint64 area = qint64(common.width()) * common.height();
    if (area > bestArea) {
      best = s;
      bestArea = area;
    }
  }
  if (best) return best;
  return window->screen() ? window->screen() : QGuiApplication::primaryScreen();
}

void fitToScreen(QWidget* window) {
  if (!window || window->isMaximized() || window->isFullScreen()) return;
  const QScreen* screen = screenOf(window);
  if (!screen) return;
  const QRect available = screen->availableGeometry();
  const QRect frame = window->frameGeometry();
  const QRect inner = window->geometry();
  const QMargins decoration(inner.left() - frame.left(), inner.top() - frame.top(),
                            frame.right() - inner.right(), frame.bottom() - inner.bottom());
  const QRect fitted = fitInside(frame, available);
  if (fitted == frame) return;
  window->resize(fitted.size().shrunkBy(decoration));
  // A minimum size may have kept it larger than asked: place what it is.
  window->move(fitInside(QRect(fitted.topLeft(), window->size().grownBy(decoration)), available).topLeft());
}

}  // namespace attn::ui
