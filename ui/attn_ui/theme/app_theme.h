#pragma once
// Light and dark palettes. "system" keeps whatever the platform theme gives
// (so a dark desktop gets a dark AttnScope); "light" and "dark" force one,
// with the Fusion style so every widget honours the palette. Plots follow
// through plot_theme.h.
#include <QPalette>
#include <QString>
#include <QStringList>

namespace attn::ui {

/// "system", "light", "dark".
QStringList themeNames();
/// The dark palette used by "dark" (also handy in tests).
QPalette darkPalette();
/// Applies `name` to the running application (unknown names act as "system").
void applyTheme(const QString& name);
/// The saved choice (QSettings "ui/theme", default "system").
QString savedTheme();

}  // namespace attn::ui
