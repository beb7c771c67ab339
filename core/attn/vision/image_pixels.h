#pragma once
// Pixels of an image as the vision path reads them, and the small readers core
// has for them: binary PPM/PGM (P6/P5) and NumPy .npy/.npz arrays. PNG/JPEG are
// decoded by Qt in the ui layer (attn_ui/spatial/image_loader.h) and handed to
// core as ImagePixels, so core stays free of image codecs.
#include <string>
#include <vector>

#include "attn/status.h"

namespace attn::vision {

struct ImagePixels {
  int height = 0, width = 0, channels = 0;  // channels 1 (grey) or 3 (RGB)
  std::vector<float> values;                // row-major [height, width, channels], in [0, 1]

  float at(int y, int x, int c) const {
    return values[(static_cast<size_t>(y) * width + x) * channels + c];
  }
};

/// Largest image accepted (pixels), so a forged header cannot ask for gigabytes.
constexpr long long kMaxImagePixels = 64LL * 1024 * 1024;

/// Checks sizes and values (finite, in [0, 1]); errors start with `source`.
Status checkImagePixels(const ImagePixels& img, const std::string& source);

/// Binary PPM (P6) or PGM (P5), maxval 1..65535, '#' comments in the header.
Result<ImagePixels> parsePnm(const std::string& bytes, const std::string& source);

/// An array [H, W] or [H, W, C] (C = 1, 3, or 4 with alpha dropped): uint8
/// values are divided by 255, float values must already lie in [0, 1]. In an
/// .npz the array named 'image' is read, else the only array.
Result<ImagePixels> readImageArrayFile(const std::string& path);

/// .ppm/.pgm/.pnm, .npy or .npz by extension; other extensions get an error
/// that says which formats core reads (PNG/JPEG need the Qt loader).
Result<ImagePixels> readImageFile(const std::string& path);

/// True for the extensions readImageFile handles.
bool coreReadsImage(const std::string& path);

}  // namespace attn::vision
