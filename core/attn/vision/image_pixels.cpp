#include "attn/vision/image_pixels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "attn/io/npy_reader.h"

namespace attn::vision {
namespace {

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// Next whitespace-separated header token, skipping '#' comments (netpbm(5)).
bool headerToken(const std::string& b, size_t& pos, std::string& tok) {
  tok.clear();
  while (pos < b.size()) {
    const char c = b[pos];
    if (c == '#') {
      while (pos < b.size() && b[pos] != '\n') ++pos;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos;
    } else {
      break;
    }
  }
  while (pos < b.size() && !std::isspace(static_cast<unsigned char>(b[pos])) && tok.size() < 12) tok += b[pos++];
  return !tok.empty();
}

bool headerNumber(const std::string& b, size_t& pos, long long& out) {
  std::string tok;
  if (!headerToken(b, pos, tok)) return false;
  if (!std::all_of(tok.begin(), tok.end(), [](unsigned char c) { return std::isdigit(c); }) || tok.size() > 9)
    return false;
  out = std::stoll(tok);
  return true;
}

}  // namespace

Status checkImagePixels(const ImagePixels& img, const std::string& source) {
  if (img.height <= 0 || img.width <= 0)
    return Error{fmt::format("{}: the image is empty ({} x {} pixels)", source, img.width, img.height)};
  if (img.channels != 1 && img.channels != 3)
    return Error{fmt::format("{}: {} channels (expected 1 or 3)", source, img.channels)};
  if (static_cast<long long>(img.height) * img.width > kMaxImagePixels)
    return Error{fmt::format("{}: {} x {} pixels is too large (at most {} pixels)", source, img.width, img.height,
                             kMaxImagePixels)};
  if (img.values.size() != static_cast<size_t>(img.height) * img.width * img.channels)
    return Error{fmt::format("{}: {} values for {} x {} x {}", source, img.values.size(), img.height, img.width,
                             img.channels)};
  for (size_t i = 0; i < img.values.size(); ++i)
    if (!std::isfinite(img.values[i]) || img.values[i] < 0.0f || img.values[i] > 1.0f)
      return Error{fmt::format("{}: pixel value {} at index {} is not in [0, 1]", source, img.values[i], i)};
  return okStatus();
}

Result<ImagePixels> parsePnm(const std::string& b, const std::string& source) {
  size_t pos = 0;
  std::string magic;
  if (!headerToken(b, pos, magic) || (magic != "P5" && magic != "P6"))
    return Error{fmt::format("{}: not a binary PGM/PPM (expected 'P5' or 'P6' at the start)", source)};
  long long w = 0, h = 0, maxval = 0;
  if (!headerNumber(b, pos, w) || !headerNumber(b, pos, h) || !headerNumber(b, pos, maxval))
    return Error{fmt::format("{}: bad header (expected width, height and maxval as decimal numbers)", source)};
  if (w <= 0 || h <= 0) return Error{fmt::format("{}: the image is empty ({} x {} pixels)", source, w, h)};
  if (w * h > kMaxImagePixels)
    return Error{fmt::format("{}: {} x {} pixels is too large (at most {} pixels)", source, w, h, kMaxImagePixels)};
  if (maxval < 1 || maxval > 65535) return Error{fmt::format("{}: maxval {} is not in 1..65535", source, maxval)};
  if (pos >= b.size()) return Error{fmt::format("{}: no pixel data after the header", source)};
  ++pos;  // the single whitespace byte after maxval
  ImagePixels img;
  img.width = static_cast<int>(w);
  img.height = static_cast<int>(h);
  img.channels = magic == "P6" ? 3 : 1;
  const size_t bytesPer = maxval > 255 ? 2 : 1;
  const size_t count = static_cast<size_t>(w * h) * img.channels;
  if (b.size() - pos < count * bytesPer)
    return Error{fmt::format("{}: pixel data is truncated ({} bytes, {} x {} x {} needs {})", source, b.size() - pos,
                             w, h, img.channels, count * bytesPer)};
  img.values.resize(count);
  const auto* p = reinterpret_cast<const unsigned char*>(b.data() + pos);
  for (size_t i = 0; i < count; ++i) {
    const unsigned v = bytesPer == 2 ? (static_cast<unsigned>(p[2 * i]) << 8 | p[2 * i + 1]) : p[i];
    if (v > maxval) return Error{fmt::format("{}: sample {} at index {} is above maxval {}", source, v, i, maxval)};
    img.values[i] = static_cast<float>(v) / static_cast<float>(maxval);
  }
  return img;
}

Result<ImagePixels> readImageArrayFile(const std::string& path) {
  NpyArray arr;
  if (lowerExtension(path) == ".npz") {
    auto arrays = readNpzFile(path);
    if (!arrays) return arrays.error();
    const auto named = std::find_if(arrays->begin(), arrays->end(), [](const NpyArray& a) { return a.name == "image"; });
    if (named != arrays->end()) {
      arr = std::move(*named);
    } else if (arrays->size() == 1) {
      arr = std::move(arrays->front());
    } else {
      return Error{fmt::format("{}: no array named 'image' (and {} arrays, not one)", path, arrays->size())};
    }
  } else {
    auto one = readNpyFile(path);
    if (!one) return one.error();
    arr = std::move(one).value();
  }
  const std::string where = fmt::format("{}: array '{}'", path, arr.name);
  if (arr.isText) return Error{fmt::format("{} holds text, not pixels", where)};
  const auto& s = arr.shape;
  if (s.size() != 2 && s.size() != 3)
    return Error{fmt::format("{} has shape {} (expected [H, W] or [H, W, C])", where, arr.shapeString())};
  const int64_t c = s.size() == 3 ? s[2] : 1;
  if (c != 1 && c != 3 && c != 4)
    return Error{fmt::format("{} has {} channels (expected 1, 3 or 4)", where, c)};
  if (s[0] <= 0 || s[1] <= 0) return Error{fmt::format("{} has shape {}: the image is empty", where, arr.shapeString())};
  if (s[0] * s[1] > kMaxImagePixels)
    return Error{fmt::format("{}: {} x {} pixels is too large (at most {} pixels)", where, s[1], s[0], kMaxImagePixels)};
  const bool bytes = arr.descr.size() == 3 && arr.descr[1] == 'u' && arr.descr[2] == '1';
  ImagePixels img;
  img.height = static_cast<int>(s[0]);
  img.width = static_cast<int>(s[1]);
  img.channels = c == 1 ? 1 : 3;
  img.values.resize(static_cast<size_t>(img.height) * img.width * img.channels);
  const float scale = bytes ? 1.0f / 255.0f : 1.0f;
  for (int64_t p = 0; p < s[0] * s[1]; ++p)
    for (int ch = 0; ch < img.channels; ++ch)
      img.values[static_cast<size_t>(p) * img.channels + ch] = arr.values.data[static_cast<size_t>(p * c + ch)] * scale;
  if (auto st = checkImagePixels(img, where); !st)
    return Error{st.error().message + (bytes ? "" : " (float pixels must lie in [0, 1]; uint8 are divided by 255)")};
  return img;
}

bool coreReadsImage(const std::string& path) {
  const std::string ext = lowerExtension(path);
  return ext == ".ppm" || ext == ".pgm" || ext == ".pnm" || ext == ".npy" || ext == ".npz";
}

Result<ImagePixels> readImageFile(const std::string& path) {
  const std::string ext = lowerExtension(path);
  if (ext == ".npy" || ext == ".npz") return readImageArrayFile(path);
  if (ext == ".ppm" || ext == ".pgm" || ext == ".pnm") {
    auto bytes = readFileBytes(path, int64_t{512} << 20);
    if (!bytes) return bytes.error();
    return parsePnm(*bytes, path);
  }
  return Error{fmt::format("{}: unsupported image type '{}' (this reader takes .ppm, .pgm, .npy, .npz; "
                           "PNG/JPEG are read through Qt)",
                           path, ext)};
}

}  // namespace attn::vision
