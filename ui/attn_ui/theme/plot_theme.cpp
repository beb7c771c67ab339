#include "attn_ui/theme/plot_theme.h"

#include <QEvent>
#include <QPalette>
#include <qcustomplot.h>

namespace attn::ui {
namespace {

class PaletteFollower : public QObject {
 public:
  explicit PaletteFollower(QCustomPlot* plot) : QObject(plot), plot_(plot) {}

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == plot_ && (event->type() == QEvent::PaletteChange ||
                             event->type() == QEvent::ApplicationPaletteChange)) {
      if (!plot_->property(kFixedThemeProperty).toBool()) {
        applyPlotPalette(plot_, plot_->palette());
        plot_->replot(QCustomPlot::rpQueuedReplot);
      }
    }
    return false;
  }

 private:
  QCustomPlot* plot_;
};

void colourAxis(QCPAxis* ax, const QColor& text, const QColor& grid) {
  ax->setBasePen(QPen(text, 0));
  ax->setTickPen(QPen(text, 0));
  ax->setSubTickPen(QPen(text, 0));
  ax->setTickLabelColor(text);
  ax->setLabelColor(text);
  ax->grid()->setPen(QPen(grid, 0, Qt::DotLine));
}

}  // namespace

bool isDarkPalette(const QPalette& palette) {
  return palette.color(QPalette::WindowText).lightness() > palette.color(QPalette::Window).lightness();
}

void applyPlotPalette(QCustomPlot* plot, const QPalette& palette) {
  const QColor base = palette.color(QPalette::Base);
  const QColor text = palette.color(QPalette::Text);
  QColor grid = text;
  grid.setAlpha(60);
  plot->setBackground(base);
  for (QCPAxisRect* rect : plot->axisRects()) {
    rect->setBackground(base);
    for (QCPAxis* ax : rect->axes()) colourAxis(ax, text, grid);
  }
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
    QCPLayoutElement* el = plot->plotLayout()->elementAt(i);
    if (auto* title = qobject_cast<QCPTextElement*>(el)) title->setTextColor(text);
    if (auto* scale = qobject_cast<QCPColorScale*>(el)) colourAxis(scale->axis(), text, grid);
  }
  // Only labels at the default colour (or the one this set last) follow; coloured ones keep theirs.
  const QColor previous = plot->property("attnThemeText").value<QColor>();
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* label = qobject_cast<QCPItemText*>(plot->item(i));
        label && (label->color() == QColor(Qt::black) || label->color() == previous))
      label->setColor(text);
  plot->setProperty("attnThemeText", text);
}

void useFigureTheme(QCustomPlot* plot) {
  QPalette light;
  light.setColor(QPalette::Base, Qt::white);
  light.setColor(QPalette::Text, Qt::black);
  plot->setProperty(kFixedThemeProperty, true);
  applyPlotPalette(plot, light);
}

void followPalette(QCustomPlot* plot) {
  applyPlotPalette(plot, plot->palette());
  plot->installEventFilter(new PaletteFollower(plot));
}

}  // namespace attn::ui
