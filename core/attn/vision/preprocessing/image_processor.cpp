#include "attn/vision/preprocessing/image_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attn/io/json_document.h"

namespace attn::vision {
namespace {

using nlohmann::json;

constexpr int kMaxSide = 8192;  // far past any checkpoint's input; keeps every buffer small

Status readBool(const json& doc, const char* key, bool& out, const std::string& src) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return okStatus();
  if (!it->is_boolean()) return Error{fmt::format("{}: '{}' must be true or false", src, key)};
  out = it->get<bool>();
  return okStatus();
}

Result<int> sideOf(const json& obj, const char* key, const std::string& what, const std::string& src) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer())
    return Error{fmt::format("{}: '{}' needs an integer '{}'", src, what, key)};
  const int64_t v = it->get<int64_t>();
  if (v < 1 || v > kMaxSide)
    return Error{fmt::format("{}: '{}.{}' is {}, expected 1 to {}", src, what, key, v, kMaxSide)};
  return static_cast<int>(v);
}

/// size / crop_size: {"height", "width"}, {"shortest_edge"} (size only) or a bare integer (square).
Status readSize(const json& doc, const char* key, int& h, int& w, int* shortest, const std::string& src) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return okStatus();
  if (it->is_number_integer()) {
    auto s = sideOf(doc, key, key, src);
    if (!s) return s.error();
    h = w = *s;
    return okStatus();
  }
  if (!it->is_object()) return Error{fmt::format("{}: '{}' must be an object or an integer", src, key)};
  if (shortest && it->contains("shortest_edge")) {
    auto s = sideOf(*it, "shortest_edge", key, src);
    if (!s) return s.error();
    *shortest = *s;
    return okStatus();
  }
  auto hh = sideOf(*it, "height", key, src);
  if (!hh) return hh.error();
  auto ww = sideOf(*it, "width", key, src);
  if (!ww) return ww.error();
  h = *hh, w = *ww;
  return okStatus();
}

Status readTriple(const json& doc, const char* key, std::vector<float>& out, bool positive,
                  const std::string& src) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return okStatus();
  std::vector<float> v;
  if (it->is_number())
    v.push_back(it->get<float>());
  else if (it->is_array() && !it->empty() && it->size() <= 4)
    for (const auto& x : *it) {
      if (!x.is_number()) return Error{fmt::format("{}: '{}' must hold numbers", src, key)};
      v.push_back(x.get<float>());
    }
  else
    return Error{fmt::format("{}: '{}' must be a number or a list of 1 to 4 numbers", src, key)};
  for (float x : v)
    if (!std::isfinite(x) || (positive && !(x > 0)))
      return Error{fmt::format("{}: '{}' holds {}, expected {}", src, key, x,
                               positive ? "a number above 0" : "a finite number")};
  out = std::move(v);
  return okStatus();
}

Status readResample(const json& doc, Resampling& out, const std::string& src) {
  auto it = doc.find("resample");
  if (it == doc.end() || it->is_null()) return okStatus();
  const char* supported = "1 lanczos, 2 bilinear, 3 bicubic, 4 box, 5 hamming";
  if (!it->is_number_integer())
    return Error{fmt::format("{}: 'resample' is {}, expected a PIL resampling number ({})", src,
                             jsonExcerpt(*it), supported)};
  const int64_t r = it->get<int64_t>();
  if (r == 0) return Error{fmt::format("{}: 'resample' 0 (nearest) is not supported ({})", src, supported)};
  if (r < 1 || r > 5)
    return Error{fmt::format("{}: 'resample' {} is not a known resampling ({})", src, r, supported)};
  out = static_cast<Resampling>(r);
  return okStatus();
}

/// The image at 8 bits per channel, grey repeated to RGB.
Image8 toImage8(const ImagePixels& img) {
  Image8 out;
  out.height = img.height, out.width = img.width, out.channels = 3;
  const size_t n = static_cast<size_t>(img.height) * static_cast<size_t>(img.width);
  out.values.resize(n * 3);
  for (size_t p = 0; p < n; ++p)
    for (int c = 0; c < 3; ++c) {
      const float v =
          img.values[p * static_cast<size_t>(img.channels) + static_cast<size_t>(img.channels == 1 ? 0 : c)];
      out.values[p * 3 + static_cast<size_t>(c)] =
          static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
    }
  return out;
}

/// transformers' image_transforms.center_crop along one axis: the crop starts at
/// floor((side - crop) / 2); a crop longer than the side pads the image with zeros, ceil of the
/// difference / 2 before it, and the window is then the whole padded axis. `offset` maps an output
/// index to the image's (out of range = padding).
struct CropWindow {
  int offset = 0, size = 0;
};
CropWindow centerCropWindow(int side, int crop) {
  if (crop <= side) return {(side - crop) / 2, crop};
  return {-((crop - side + 1) / 2), crop};
}

}  // namespace

Result<ImageProcessorConfig> parseImageProcessorConfig(std::string_view text, const std::string& src) {
  auto parsed = parseJsonText(text, src);
  if (!parsed) return parsed.error();
  const json& doc = *parsed;
  if (!doc.is_object()) return Error{src + ": expected a JSON object"};
  std::string type;
  for (const char* key : {"image_processor_type", "feature_extractor_type"})
    if (auto it = doc.find(key); type.empty() && it != doc.end() && it->is_string())
      type = it->get<std::string>();
  ImageProcessorConfig c = defaultImageProcessor(type, 224);
  const bool shortestByDefault = c.shortestEdge > 0;
  for (auto [key, flag] : {std::pair{"do_resize", &c.doResize},
                           {"do_center_crop", &c.doCenterCrop},
                           {"do_rescale", &c.doRescale},
                           {"do_normalize", &c.doNormalize}})
    if (auto st = readBool(doc, key, *flag, src); !st) return st.error();
  if (auto it = doc.find("size"); it != doc.end() && it->is_number_integer() && shortestByDefault) {
    // get_size_dict(size, default_to_square=False): an integer is the shortest edge.
    auto e = sideOf(doc, "size", "size", src);
    if (!e) return e.error();
    c.shortestEdge = *e;
  } else {
    if (it != doc.end() && it->is_object() && !it->contains("shortest_edge")) c.shortestEdge = 0;
    if (auto st = readSize(doc, "size", c.height, c.width, &c.shortestEdge, src); !st) return st.error();
  }
  if (auto st = readSize(doc, "crop_size", c.cropHeight, c.cropWidth, nullptr, src); !st) return st.error();
  if (auto st = readResample(doc, c.resample, src); !st) return st.error();
  if (auto it = doc.find("rescale_factor"); it != doc.end() && !it->is_null()) {
    if (!it->is_number() || !std::isfinite(it->get<double>()) || !(it->get<double>() > 0))
      return Error{
          fmt::format("{}: 'rescale_factor' is {}, expected a number above 0", src, jsonExcerpt(*it))};
    c.rescaleFactor = it->get<double>();
  }
  if (auto st = readTriple(doc, "image_mean", c.mean, false, src); !st) return st.error();
  if (auto st = readTriple(doc, "image_std", c.std, true, src); !st) return st.error();
  return c;
}

ImageProcessorConfig defaultImageProcessor(const std::string& type, int imageSize) {
  ImageProcessorConfig c;
  c.height = c.width = imageSize;
  if (type.starts_with("CLIP")) {  // CLIPImageProcessor (and the older CLIPFeatureExtractor)
    c.shortestEdge = imageSize, c.resample = Resampling::Bicubic;
    c.doCenterCrop = true, c.cropHeight = c.cropWidth = imageSize;
    c.mean = {0.48145466f, 0.4578275f, 0.40821073f},
    c.std = {0.26862954f, 0.26130258f, 0.27577711f};  // OPENAI_CLIP
  } else if (type.starts_with("Bit")) {               // BitImageProcessor, DINOv2's
    c.shortestEdge = static_cast<int>(std::lround(imageSize * 256.0 / 224.0)),
    c.resample = Resampling::Bicubic;
    c.doCenterCrop = true, c.cropHeight = c.cropWidth = imageSize;
    c.mean = {0.485f, 0.456f, 0.406f}, c.std = {0.229f, 0.224f, 0.225f};  // IMAGENET_DEFAULT
  }
  return c;
}

std::pair<int, int> resizedSize(const ImageProcessorConfig& c, int h, int w) {
  if (!c.doResize || h <= 0 || w <= 0) return {h, w};
  if (c.shortestEdge <= 0) return {c.height, c.width};
  // get_resize_output_image_size(default_to_square=False): the short side to the size,
  // the long side int(size * long / short).
  const int64_t s = c.shortestEdge;
  if (w <= h) return {static_cast<int>(std::min<int64_t>(s * h / w, kMaxSide)), static_cast<int>(s)};
  return {static_cast<int>(s), static_cast<int>(std::min<int64_t>(s * w / h, kMaxSide))};
}

std::pair<int, int> outputSize(const ImageProcessorConfig& c, int h, int w) {
  if (c.doCenterCrop) return {c.cropHeight, c.cropWidth};
  return resizedSize(c, h, w);
}

Result<PixelTensor> preprocessImage(const ImagePixels& img, const ImageProcessorConfig& c,
                                    const std::string& src) {
  if (auto st = checkImagePixels(img, src); !st) return st.error();
  if (img.channels != 1 && img.channels != 3)
    return Error{fmt::format("{}: {} channels; expected grey or RGB", src, img.channels)};
  auto [rh, rw] = resizedSize(c, img.height, img.width);
  if (!c.doResize && (img.height > kMaxSide || img.width > kMaxSide))
    return Error{fmt::format("{}: {}x{} pixels and no resize: at most {} per side", src, img.width,
                             img.height, kMaxSide)};
  Image8 im = resizePil(toImage8(img), rh, rw, c.resample);
  const CropWindow rows = centerCropWindow(im.height, c.doCenterCrop ? c.cropHeight : im.height);
  const CropWindow cols = centerCropWindow(im.width, c.doCenterCrop ? c.cropWidth : im.width);
  const int oh = rows.size, ow = cols.size;
  for (const auto* v : {&c.mean, &c.std})
    if (c.doNormalize && v->size() != 1 && v->size() != 3)
      return Error{fmt::format("{}: image_mean / image_std have {} values for 3 channels", src, v->size())};
  PixelTensor t;
  t.channels = 3, t.height = oh, t.width = ow;
  t.values.resize(static_cast<size_t>(3) * oh * ow);
  for (int ch = 0; ch < 3; ++ch) {
    const float mean = c.mean.size() == 1 ? c.mean[0] : c.mean[static_cast<size_t>(ch)];
    const float sd = c.std.size() == 1 ? c.std[0] : c.std[static_cast<size_t>(ch)];
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x) {
        const int sy = y + rows.offset, sx = x + cols.offset;
        // Outside the resized image: center_crop's zero padding (still rescaled and normalised).
        const uint8_t u = sy < 0 || sy >= im.height || sx < 0 || sx >= im.width
                              ? uint8_t{0}
                              : im.values[(static_cast<size_t>(sy) * im.width + sx) * 3 + ch];
        // rescale: a float64 product stored as float32; normalise in float32 (transformers'
        // image_transforms).
        float v = c.doRescale ? static_cast<float>(static_cast<double>(u) * c.rescaleFactor)
                              : static_cast<float>(u);
        if (c.doNormalize) v = (v - mean) / sd;
        t.values[(static_cast<size_t>(ch) * oh + y) * ow + x] = v;
      }
  }
  return t;
}

ImagePixels pixelsForDisplay(const PixelTensor& t, const ImageProcessorConfig& c) {
  ImagePixels out;
  out.height = t.height, out.width = t.width, out.channels = 3;
  out.values.assign(static_cast<size_t>(t.height) * t.width * 3, 0.0f);
  if (t.channels <= 0) return out;
  for (int ch = 0; ch < 3; ++ch) {
    const int src = std::min(ch, t.channels - 1);
    const auto pick = [ch](const std::vector<float>& v, float fallback) {
      return v.empty()       ? fallback
             : v.size() == 1 ? v[0]
                             : v[std::min<size_t>(static_cast<size_t>(ch), v.size() - 1)];
    };
    const float mean = pick(c.mean, 0.0f), sd = pick(c.std, 1.0f);
    const double scale = (c.doRescale ? c.rescaleFactor : 1.0) * 255.0;  // 8-bit value u -> u / 255
    for (int y = 0; y < t.height; ++y)
      for (int x = 0; x < t.width; ++x) {
        float v = t.at(src, y, x);
        if (c.doNormalize) v = v * sd + mean;
        const double unit = static_cast<double>(v) / scale;
        out.values[(static_cast<size_t>(y) * t.width + x) * 3 + static_cast<size_t>(ch)] =
            static_cast<float>(std::clamp(unit, 0.0, 1.0));
      }
  }
  return out;
}

}  // namespace attn::vision
