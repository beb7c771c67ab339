#pragma once
// A Hugging Face image processor (ViTImageProcessor, DeiTImageProcessor and the
// others of that shape) as preprocessor_config.json describes it: resize with
// the named PIL resampling, centre crop, rescale, normalise with the given mean
// and std, channels first. Done in core so the CLI and the window hand a model
// the same tensor; images arrive as decoded pixels (image_pixels.h).
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"
#include "attn/vision/image_pixels.h"
#include "attn/vision/preprocessing/pil_resample.h"

namespace attn::vision {

struct ImageProcessorConfig {
  bool doResize = true;
  int height = 224, width = 224;  // size {"height", "width"}
  int shortestEdge = 0;           // size {"shortest_edge"} instead: the short side to this, aspect kept
  Resampling resample = Resampling::Bilinear;
  bool doCenterCrop = false;
  int cropHeight = 224, cropWidth = 224;
  bool doRescale = true;
  double rescaleFactor = 1.0 / 255.0;
  bool doNormalize = true;
  std::vector<float> mean{0.5f, 0.5f, 0.5f}, std{0.5f, 0.5f, 0.5f};  // IMAGENET_STANDARD_MEAN / _STD
};

/// A processor's defaults for `image_size` (what transformers uses for a key a file leaves out):
/// ViTImageProcessor (resize to image_size, bilinear, mean/std 0.5), CLIPImageProcessor
/// (shortest edge and centre crop image_size, bicubic, CLIP's mean/std) and BitImageProcessor
/// (DINOv2: shortest edge 256 and crop 224 at image_size 224, bicubic, ImageNet's mean/std);
/// `type` is image_processor_type (or feature_extractor_type), the ViT defaults for any other.
ImageProcessorConfig defaultImageProcessor(const std::string& type, int imageSize);

/// Parses preprocessor_config.json text (`source` names it in errors): an unknown or
/// unsupported resampling, a size of 0 or past 8192, mean/std of the wrong length or a
/// std of 0 are errors. Missing keys keep the defaults of its image_processor_type (at 224); a
/// bare integer `size` is the shortest edge for CLIP / Bit processors, a square for the others.
Result<ImageProcessorConfig> parseImageProcessorConfig(std::string_view json, const std::string& source);

/// Pixels as a model reads them: [channels, height, width], row-major.
struct PixelTensor {
  int channels = 0, height = 0, width = 0;
  std::vector<float> values;

  float at(int c, int y, int x) const { return values[(static_cast<size_t>(c) * height + y) * width + x]; }
};

/// The (height, width) the processor resizes an h x w image to.
std::pair<int, int> resizedSize(const ImageProcessorConfig& cfg, int h, int w);
/// The (height, width) of the tensor it produces from an h x w image.
std::pair<int, int> outputSize(const ImageProcessorConfig& cfg, int h, int w);

/// Preprocesses `img` (grey is repeated to RGB, as PIL's convert("RGB") does; values are
/// taken back to the 8 bits PIL resizes). A crop larger than the resized image is padded with
/// zeros around it, as transformers' center_crop does. Errors name `source`: an empty image,
/// mean/std lengths that do not match the channels.
Result<PixelTensor> preprocessImage(const ImagePixels& img, const ImageProcessorConfig& cfg,
                                    const std::string& source);

/// The tensor back as displayable pixels in [0, 1] (height x width x 3): normalisation and
/// rescaling undone, so the window draws the very crop the model read, to float rounding.
ImagePixels pixelsForDisplay(const PixelTensor& t, const ImageProcessorConfig& cfg);

}  // namespace attn::vision
