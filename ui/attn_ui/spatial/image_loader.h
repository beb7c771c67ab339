#pragma once
// PNG/JPEG (any format Qt's image plugins read) to the pixels core's vision
// path takes; .ppm/.pgm/.npy/.npz go through core's own reader, so both front
// ends accept the same files. The CLI calls this when it is built with the UI.
#include <QImage>
#include <QString>

#include "attn/status.h"
#include "attn/vision/image_pixels.h"

namespace attn::ui {

/// Reads any image file; errors name the file and Qt's reason.
attn::Result<attn::vision::ImagePixels> loadImagePixels(const QString& path);

/// Grey or RGB pixels from a QImage (alpha dropped: composited on nothing).
attn::vision::ImagePixels pixelsFromImage(const QImage& image);

/// The pixels back as a QImage (for drawing the image a run used).
QImage imageFromPixels(const attn::vision::ImagePixels& pixels);

}  // namespace attn::ui
