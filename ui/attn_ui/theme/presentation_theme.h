#pragma once
// Colours and font scale the teaching views paint with: the ordinary light
// look, or presentation mode's high-contrast one (white and yellow on black,
// readable from the back of a lecture hall and on a washed-out projector).
#include <QColor>
#include <QFont>

namespace attn::ui {

struct TeachingTheme {
  QColor background = Qt::white;
  QColor text = QColor(0x20, 0x20, 0x20);
  QColor dim = QColor(0x90, 0x90, 0x90);
  QColor accent = QColor(0x1f, 0x77, 0xb4);  // titles, highlighted row
  QColor positive = QColor(0x2c, 0x7f, 0xb8);
  QColor negative = QColor(0xd9, 0x5f, 0x0e);
  QColor grid = QColor(0xe0, 0xe0, 0xe0);
  double fontScale = 1.0;  // multiplies the base point size

  static TeachingTheme light() { return {}; }
  static TeachingTheme highContrast() {
    TeachingTheme t;
    t.background = Qt::black;
    t.text = Qt::white;
    t.dim = QColor(0xb0, 0xb0, 0xb0);
    t.accent = QColor(0xff, 0xd7, 0x00);
    t.positive = QColor(0x4f, 0xc3, 0xf7);
    t.negative = QColor(0xff, 0x8a, 0x65);
    t.grid = QColor(0x50, 0x50, 0x50);
    t.fontScale = 1.8;
    return t;
  }
  QFont font(double basePt = 10.0, bool bold = false) const {
    QFont f;
    f.setPointSizeF(basePt * fontScale);
    f.setBold(bold);
    return f;
  }
};

/// One colour per head (Tableau 10), cycling past ten heads.
QColor headColor(int head);

}  // namespace attn::ui
