#include "attn_ui/spatial/example_image.h"

#include <QLinearGradient>
#include <QPainter>

namespace attn::ui {

QImage exampleImage() {
  QImage img(128, 128, QImage::Format_RGB888);
  QPainter p(&img);
  QLinearGradient sky(0, 0, 0, 80);
  sky.setColorAt(0, QColor(70, 130, 220));
  sky.setColorAt(1, QColor(190, 220, 250));
  p.fillRect(0, 0, 128, 80, sky);
  p.fillRect(0, 80, 128, 48, QColor(70, 150, 60));
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(250, 210, 40));
  p.drawEllipse(QPointF(100, 24), 14, 14);
  p.setBrush(QColor(200, 60, 50));
  p.drawRect(22, 56, 44, 40);
  p.setBrush(QColor(120, 40, 30));
  p.drawPolygon(QPolygonF({QPointF(16, 58), QPointF(44, 32), QPointF(72, 58)}));
  p.setBrush(QColor(240, 240, 200));
  p.drawRect(34, 72, 12, 24);
  return img;
}

}  // namespace attn::ui
