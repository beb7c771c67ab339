#include "attn_ui/spatial/image_loader.h"

#include <QFileInfo>
#include <QImageReader>

#include <algorithm>
#include <cmath>

namespace attn::ui {

attn::vision::ImagePixels pixelsFromImage(const QImage& image) {
  attn::vision::ImagePixels p;
  const bool grey = image.isGrayscale();
  const QImage img = image.convertToFormat(grey ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
  p.height = img.height();
  p.width = img.width();
  p.channels = grey ? 1 : 3;
  p.values.resize(static_cast<size_t>(p.height) * p.width * p.channels);
  size_t k = 0;
  for (int y = 0; y < p.height; ++y) {
    const uchar* line = img.constScanLine(y);
    for (int x = 0; x < p.width * p.channels; ++x) p.values[k++] = line[x] / 255.0f;
  }
  return p;
}

QImage imageFromPixels(const attn::vision::ImagePixels& p) {
  QImage img(p.width, p.height, QImage::Format_RGB888);
  for (int y = 0; y < p.height; ++y) {
    uchar* line = img.scanLine(y);
    for (int x = 0; x < p.width; ++x)
      for (int c = 0; c < 3; ++c) {
        const float v = p.at(y, x, p.channels == 1 ? 0 : c);
        line[x * 3 + c] = static_cast<uchar>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
      }
  }
  return img;
}

attn::Result<attn::vision::ImagePixels> loadImagePixels(const QString& path) {
  const std::string p = path.toStdString();
  if (attn::vision::coreReadsImage(p)) return attn::vision::readImageFile(p);
  if (!QFileInfo::exists(path)) return attn::Error{p + ": no such file"};
  QImageReader reader(path);
  reader.setAutoTransform(true);
  const QSize size = reader.size();
  if (size.isValid() && static_cast<long long>(size.width()) * size.height() > attn::vision::kMaxImagePixels)
    return attn::Error{p + ": image is too large (" + std::to_string(size.width()) + " x " +
                       std::to_string(size.height()) + " pixels)"};
  const QImage img = reader.read();
  if (img.isNull()) return attn::Error{p + ": cannot read the image (" + reader.errorString().toStdString() + ")"};
  auto pixels = pixelsFromImage(img);
  if (auto st = attn::vision::checkImagePixels(pixels, p); !st) return st.error();
  return pixels;
}

}  // namespace attn::ui
