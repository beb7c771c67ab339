#pragma once
// A bundled example image, drawn in code so the image view works without a
// file: sky, grass, a sun and a house, 128 x 128 (8 x 8 patches of 16).
#include <QImage>

namespace attn::ui {

QImage exampleImage();

}  // namespace attn::ui
