#include "attn_ui/theme/app_theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace attn::ui {
namespace {
// The palette and style the platform gave at start-up, to return to.
QPalette& systemPalette() {
  static QPalette p = QApplication::palette();
  return p;
}
QString& systemStyle() {
  static QString s = QApplication::style() ? QApplication::style()->name() : QString();
  return s;
}
}  // namespace

QStringList themeNames() { return {"system", "light", "dark"}; }

QPalette darkPalette() {
  QPalette p;
  const QColor window(45, 45, 48), base(30, 30, 32), text(225, 225, 225), disabled(128, 128, 128);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(255, 90, 90));
  p.setColor(QPalette::Link, QColor(110, 170, 255));
  p.setColor(QPalette::Highlight, QColor(60, 120, 215));
  p.setColor(QPalette::HighlightedText, Qt::white);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  return p;
}

void applyTheme(const QString& name) {
  (void)systemPalette();  // remember the platform's before the first change
  (void)systemStyle();
  static bool changed = false;  // "system" at start-up has nothing to undo: no style re-creation
  const bool system = name != QLatin1String("dark") && name != QLatin1String("light");
  if (system && !changed) return;
  changed = !system;
  if (name == QLatin1String("dark") || name == QLatin1String("light")) {
    QApplication::setStyle(QStyleFactory::create("Fusion"));
    QApplication::setPalette(name == QLatin1String("dark") ? darkPalette()
                                                           : QApplication::style()->standardPalette());
  } else {
    if (!systemStyle().isEmpty()) QApplication::setStyle(QStyleFactory::create(systemStyle()));
    QApplication::setPalette(systemPalette());
  }
}

QString savedTheme() {
  const QString t = QSettings().value("ui/theme", "system").toString();
  return themeNames().contains(t) ? t : QStringLiteral("system");
}

}  // namespace attn::ui
