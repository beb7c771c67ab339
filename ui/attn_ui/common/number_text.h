#pragma once
// How the panels write a number for people: infinities as ∞ / −∞, NaN as the
// caller's word for it, everything else with `digits` significant digits.
#include <QString>

#include <cmath>

namespace attn::ui {

inline QString numberText(double v, int digits = 4, const QString& nanText = QStringLiteral("NaN")) {
  if (std::isnan(v)) return nanText;
  if (std::isinf(v)) return v < 0 ? QStringLiteral("−∞") : QStringLiteral("∞");
  return QString::number(v, 'g', digits);
}

}  // namespace attn::ui
