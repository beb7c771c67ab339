#pragma once
// Keeps a top-level window on the screen it opens on. Without a window manager
// nothing else does: a window taller than the screen keeps its lower docks out of
// reach, and a geometry saved on a bigger (or another) screen restores off it.
#include <QRect>
#include <QSize>

class QScreen;
class QWidget;

namespace attn::ui {

/// `frame` no larger than `available` and moved inside it; where it cannot be
/// (a minimum larger than the screen), its top-left corner, with the title bar,
/// stays on screen.
QRect fitInside(const QRect& frame, const QRect& available);

/// A first window size: most of the available area, so the heatmap keeps room
/// between the docks, never more than the area itself.
QSize defaultWindowSize(const QRect& available);

/// The screen the window's frame is mostly on, else the one it was created on.
QScreen* screenOf(const QWidget* window);

/// Shrinks and moves `window` (frame included) into its screen's available
/// geometry; a maximized or full-screen window is the window manager's.
void fitToScreen(QWidget* window);

}  // namespace attn::ui
