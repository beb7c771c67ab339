#pragma once
// Pillow's resize of 8-bit images (src/libImaging/Resample.c: precompute_coeffs,
// normalize_coeffs_8bpc, a horizontal then a vertical convolution pass in 22-bit
// fixed point, each clipped to 0..255). Hugging Face image processors resize
// through PIL.Image.resize, so a checkpoint's preprocessing is only reproduced to
// the last bit by the same arithmetic, not by a float resampler.
#include <cstdint>
#include <string_view>
#include <vector>

namespace attn::vision {

/// PIL.Image.Resampling values, as preprocessor_config.json's "resample" stores them.
enum class Resampling { Nearest = 0, Lanczos = 1, Bilinear = 2, Bicubic = 3, Box = 4, Hamming = 5 };

/// "nearest", "lanczos", "bilinear", "bicubic", "box", "hamming".
std::string_view resamplingName(Resampling r);

/// An 8-bit image, row-major [height, width, channels].
struct Image8 {
  int height = 0, width = 0, channels = 0;
  std::vector<uint8_t> values;
};

/// `in` resized to outHeight x outWidth with `filter` (every one but Nearest), as
/// Image.resize((outWidth, outHeight), filter) on an RGB / L image. Sizes must be >= 1.
Image8 resizePil(const Image8& in, int outHeight, int outWidth, Resampling filter);

}  // namespace attn::vision
