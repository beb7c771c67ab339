#pragma once
#include <qcustomplot.h>
#include <QString>
#include <QStringList>
#include <string>

namespace attn::ui {

/// Names offered to users: viridis, magma, cividis, grayscale, diverging.
QStringList colormapNames();
bool isColormapName(const QString& name);
inline bool isColormapNameStd(const std::string& name) { return isColormapName(QString::fromStdString(name)); }
/// A QCustomPlot gradient built from colour stops (QCustomPlot 2.1 has no
/// viridis preset). Unknown names give viridis.
QCPColorGradient colormapGradient(const QString& name);

}  // namespace attn::ui
