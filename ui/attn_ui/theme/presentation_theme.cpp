#include "attn_ui/theme/presentation_theme.h"

namespace attn::ui {

QColor headColor(int head) {
  static const QRgb kTab10[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
  return QColor::fromRgb(kTab10[((head % 10) + 10) % 10]);
}

}  // namespace attn::ui
