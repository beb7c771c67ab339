#include "attn_ui/theme/colormaps.h"

#include <array>

namespace attn::ui {
namespace {

// Nine samples of each matplotlib map (van der Walt & Smith, BIDS 2015), at 0, 1/8, ..., 1.
using Stops = std::array<QRgb, 9>;
constexpr Stops kViridis = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                            0x28ae80, 0x5ec962, 0xaadc32, 0xfde725};
constexpr Stops kMagma = {0x000004, 0x1c1044, 0x4f127b, 0x812581, 0xb5367a,
                          0xe55064, 0xfb8761, 0xfec287, 0xfcfdbf};
constexpr Stops kCividis = {0x00224e, 0x123570, 0x3b496c, 0x575d6d, 0x707173,
                            0x8a8779, 0xa69d75, 0xc4b56c, 0xfee838};
// Diverging blue-white-red (ColorBrewer RdBu, reversed so negative is blue).
constexpr Stops kDiverging = {0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
                              0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b};

QCPColorGradient fromStops(const Stops& stops) {
  QCPColorGradient g;
  g.clearColorStops();
  for (size_t i = 0; i < stops.size(); ++i)
    g.setColorStopAt(static_cast<double>(i) / (stops.size() - 1), QColor::fromRgb(stops[i]));
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  g.setLevelCount(256);
  return g;
}

}  // namespace

QStringList colormapNames() { return {"viridis", "magma", "cividis", "grayscale", "diverging"}; }

bool isColormapName(const QString& name) { return colormapNames().contains(name); }

QCPColorGradient colormapGradient(const QString& name) {
  if (name == "magma") return fromStops(kMagma);
  if (name == "cividis") return fromStops(kCividis);
  if (name == "diverging") return fromStops(kDiverging);
  if (name == "grayscale") {
    QCPColorGradient g(QCPColorGradient::gpGrayscale);
    g.setLevelCount(256);
    return g;
  }
  return fromStops(kViridis);
}

}  // namespace attn::ui
