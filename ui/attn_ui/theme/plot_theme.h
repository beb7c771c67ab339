#pragma once
// QCustomPlot draws white backgrounds and black axes whatever the widget's
// palette says; this keeps every plot in step with the application palette
// (light or dark, as the system sets it) and re-applies it when the palette
// changes at run time. Plots that carry their own theme (presentation mode)
// set the property kFixedThemeProperty and are left alone.
class QCustomPlot;
class QPalette;

namespace attn::ui {

inline constexpr const char* kFixedThemeProperty = "attnFixedTheme";

/// Colours `plot`'s background, axes, tick labels and titles from `palette`.
void applyPlotPalette(QCustomPlot* plot, const QPalette& palette);

/// Applies the plot's palette now and again on every palette change.
void followPalette(QCustomPlot* plot);

/// Exported figures are always black on white (papers, slides), whatever
/// the screen's palette: fixes `plot` to that theme.
void useFigureTheme(QCustomPlot* plot);

/// True when `palette` is a dark one (window text lighter than the window).
bool isDarkPalette(const QPalette& palette);

}  // namespace attn::ui
