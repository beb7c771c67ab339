// Image input for vision models: a binary PPM/PGM (part 1) and a
// preprocessor_config.json (part 2). Any bytes give pixels that pass the core's
// own check (sizes, finite values in [0, 1]) or a one-line error naming the
// file; a config gives a processor or a one-line error; both together give a
// tensor of the size the processor promises with finite values. Never a crash
// or an allocation the header alone asked for.
#include <cmath>
#include <cstdint>
#include <string>

#include "attn/vision/image_pixels.h"
#include "attn/vision/preprocessing/image_processor.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = attn::fuzz::splitParts(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  auto image = attn::vision::parsePnm(std::string(parts[0]), "fuzz.ppm");
  if (!image) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(image.error().message, "fuzz.ppm"));
  } else {
    FUZZ_CHECK(attn::vision::checkImagePixels(*image, "fuzz.ppm").ok());
    FUZZ_CHECK(image->values.size() ==
               static_cast<size_t>(image->height) * static_cast<size_t>(image->width) * image->channels);
  }
  auto config = attn::vision::parseImageProcessorConfig(parts[1], "preprocessor_config.json");
  if (!config) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(config.error().message, "preprocessor_config.json"));
    return 0;
  }
  if (!image) return 0;
  // Keep each run small: the processor's sizes may reach 8192 x 8192 by design.
  const auto [rh, rw] = attn::vision::resizedSize(*config, image->height, image->width);
  const auto [oh, ow] = attn::vision::outputSize(*config, image->height, image->width);
  if (static_cast<int64_t>(rh) * rw > (1 << 16) || static_cast<int64_t>(oh) * ow > (1 << 16) ||
      static_cast<int64_t>(image->height) * image->width > (1 << 16))
    return 0;
  auto tensor = attn::vision::preprocessImage(*image, *config, "fuzz.ppm");
  if (!tensor) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(tensor.error().message, "fuzz.ppm"));
    return 0;
  }
  FUZZ_CHECK(tensor->height == oh && tensor->width == ow && tensor->channels == 3);
  FUZZ_CHECK(tensor->values.size() == static_cast<size_t>(oh) * static_cast<size_t>(ow) * 3);
  for (float v : tensor->values) FUZZ_CHECK(std::isfinite(v));
  return 0;
}
