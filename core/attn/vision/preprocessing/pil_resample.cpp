#include "attn/vision/preprocessing/pil_resample.h"

#include <algorithm>
#include <cmath>

namespace attn::vision {
namespace {

// 8 bits of result, 2 spare bits for filters with negative lobes (Resample.c).
constexpr int kPrecisionBits = 32 - 8 - 2;

double boxFilter(double x) { return x > -0.5 && x <= 0.5 ? 1.0 : 0.0; }
double bilinearFilter(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}
double hammingFilter(double x) {
  x = std::fabs(x);
  if (x == 0.0) return 1.0;
  if (x >= 1.0) return 0.0;
  x *= M_PI;
  return std::sin(x) / x * (0.54 + 0.46 * std::cos(x));
}
// Keys' cubic convolution with a = -0.5 (Keys 1981), Pillow's BICUBIC.
double bicubicFilter(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}
double sinc(double x) {
  if (x == 0.0) return 1.0;
  x *= M_PI;
  return std::sin(x) / x;
}
double lanczosFilter(double x) { return -3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0; }

struct Filter {
  double (*fn)(double);
  double support;
};

Filter filterOf(Resampling r) {
  switch (r) {
    case Resampling::Lanczos:
      return {lanczosFilter, 3.0};
    case Resampling::Bicubic:
      return {bicubicFilter, 2.0};
    case Resampling::Box:
      return {boxFilter, 0.5};
    case Resampling::Hamming:
      return {hammingFilter, 1.0};
    case Resampling::Bilinear:
    case Resampling::Nearest:
      break;
  }
  return {bilinearFilter, 1.0};
}

/// One output position's taps: the first input index and the fixed-point weights.
struct Taps {
  int first = 0;
  std::vector<int32_t> k;
};

/// precompute_coeffs + normalize_coeffs_8bpc over the whole input (box [0, inSize]).
std::vector<Taps> resampleTaps(int inSize, int outSize, Filter f) {
  const double scale = static_cast<double>(inSize) / outSize;
  const double filterscale = std::max(scale, 1.0);
  const double support = f.support * filterscale;
  std::vector<Taps> taps(static_cast<size_t>(outSize));
  std::vector<double> w;
  for (int xx = 0; xx < outSize; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    const int xmin = std::max(static_cast<int>(center - support + 0.5), 0);
    const int xmax = std::min(static_cast<int>(center + support + 0.5), inSize) - xmin;
    w.assign(static_cast<size_t>(std::max(xmax, 0)), 0.0);
    double ww = 0.0;
    for (int x = 0; x < xmax; ++x) {
      w[static_cast<size_t>(x)] = f.fn((x + xmin - center + 0.5) * ss);
      ww += w[static_cast<size_t>(x)];
    }
    Taps& t = taps[static_cast<size_t>(xx)];
    t.first = xmin;
    t.k.resize(w.size());
    for (size_t x = 0; x < w.size(); ++x) {
      const double v = ww != 0.0 ? w[x] / ww : w[x];
      t.k[x] =
          static_cast<int32_t>(v < 0 ? -0.5 + v * (1 << kPrecisionBits) : 0.5 + v * (1 << kPrecisionBits));
    }
  }
  return taps;
}

uint8_t clip8(int32_t ss) { return static_cast<uint8_t>(std::clamp(ss >> kPrecisionBits, 0, 255)); }

/// One pass along x (horizontal) or y (vertical).
Image8 resamplePass(const Image8& in, int outSize, Filter f, bool horizontal) {
  const int inSize = horizontal ? in.width : in.height;
  const std::vector<Taps> taps = resampleTaps(inSize, outSize, f);
  Image8 out;
  out.channels = in.channels;
  out.height = horizontal ? in.height : outSize;
  out.width = horizontal ? outSize : in.width;
  out.values.resize(static_cast<size_t>(out.height) * out.width * out.channels);
  const int C = in.channels;
  auto px = [&](int y, int x, int c) {
    return static_cast<int32_t>(in.values[(static_cast<size_t>(y) * in.width + x) * C + c]);
  };
#pragma omp parallel for schedule(static) if (static_cast <int64_t>(out.height) * out.width > 65536)
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const Taps& t = taps[static_cast<size_t>(horizontal ? x : y)];
      for (int c = 0; c < C; ++c) {
        int32_t ss = 1 << (kPrecisionBits - 1);
        for (size_t i = 0; i < t.k.size(); ++i) {
          const int at = t.first + static_cast<int>(i);
          ss += (horizontal ? px(y, at, c) : px(at, x, c)) * t.k[i];
        }
        out.values[(static_cast<size_t>(y) * out.width + x) * C + c] = clip8(ss);
      }
    }
  return out;
}

}  // namespace

std::string_view resamplingName(Resampling r) {
  switch (r) {
    case Resampling::Nearest:
      return "nearest";
    case Resampling::Lanczos:
      return "lanczos";
    case Resampling::Bilinear:
      return "bilinear";
    case Resampling::Bicubic:
      return "bicubic";
    case Resampling::Box:
      return "box";
    case Resampling::Hamming:
      return "hamming";
  }
  return "?";
}

Image8 resizePil(const Image8& in, int outHeight, int outWidth, Resampling filter) {
  const Filter f = filterOf(filter);
  // ImagingResampleInner: horizontal first, then vertical; a pass at unchanged size is skipped.
  if (in.width == outWidth && in.height == outHeight) return in;
  if (in.width == outWidth) return resamplePass(in, outHeight, f, false);
  Image8 h = resamplePass(in, outWidth, f, true);
  if (in.height == outHeight) return h;
  return resamplePass(h, outHeight, f, false);
}

}  // namespace attn::vision
