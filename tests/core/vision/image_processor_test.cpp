// Pillow's 8-bit resampling and the Hugging Face image processor steps on cases
// worked by hand (the whole pipeline against the numpy port of Resample.c is in
// models/vit_reference_test.cpp).
#include "attn/vision/preprocessing/image_processor.h"

#include <gtest/gtest.h>

#include "attn/vision/preprocessing/pil_resample.h"

namespace attn::vision {
namespace {

Image8 row(std::vector<uint8_t> v) {
  Image8 im;
  im.height = 1, im.width = static_cast<int>(v.size()), im.channels = 1;
  im.values = std::move(v);
  return im;
}

TEST(PilResample, BoxHalvingIsThePairMeanRoundedHalfUp) {
  // 22-bit fixed point: 0.5 * 2^22 per tap plus the 2^21 rounding term, then >> 22.
  EXPECT_EQ(resizePil(row({0, 10, 20, 31}), 1, 2, Resampling::Box).values, (std::vector<uint8_t>{5, 26}));
}

TEST(PilResample, BilinearDoublingUsesQuarterTaps) {
  // Output centres 0.25, 0.75, 1.25, 1.75 in input pixels: taps (1), (.75, .25), (.25, .75), (1)
  // after clipping the support to the image and renormalising.
  EXPECT_EQ(resizePil(row({0, 100}), 1, 4, Resampling::Bilinear).values,
            (std::vector<uint8_t>{0, 25, 75, 100}));
}

TEST(PilResample, BicubicOvershootIsClippedTo8Bits) {
  // A step 0 -> 255 upsampled: Keys' kernel (a = -0.5) rings past 255 and below 0.
  const Image8 out = resizePil(row({0, 0, 255, 255}), 1, 8, Resampling::Bicubic);
  EXPECT_EQ(out.values.front(), 0);
  EXPECT_EQ(out.values.back(), 255);
  for (size_t i = 1; i < out.values.size(); ++i) EXPECT_GE(out.values[i], out.values[i - 1]);
}

TEST(PilResample, SameSizeIsACopyAndOneAxisOnlyResamplesThatAxis) {
  Image8 im;
  im.height = 2, im.width = 2, im.channels = 1, im.values = {10, 20, 30, 40};
  EXPECT_EQ(resizePil(im, 2, 2, Resampling::Bicubic).values, im.values);
  EXPECT_EQ(resizePil(im, 1, 2, Resampling::Box).values, (std::vector<uint8_t>{20, 30}));
}

TEST(ImageProcessor, RescaleThenNormaliseAsFloat32) {
  ImagePixels img;
  img.height = img.width = 1, img.channels = 3, img.values = {51 / 255.f, 0.f, 1.f};
  ImageProcessorConfig c;
  c.doResize = false;
  auto t = preprocessImage(img, c, "one.ppm");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->values.size(), 3u);
  EXPECT_NEAR(t->values[0], (0.2f - 0.5f) / 0.5f, 1e-7);  // 51 / 255 = 0.2
  EXPECT_FLOAT_EQ(t->values[1], -1.0f);
  EXPECT_FLOAT_EQ(t->values[2], 1.0f);
}

TEST(ImageProcessor, GreyBecomesRgbAndCentreCropTakesTheMiddle) {
  ImagePixels img;
  img.height = 1, img.width = 5, img.channels = 1;
  for (int i = 0; i < 5; ++i) img.values.push_back(static_cast<float>(i * 10) / 255.f);
  ImageProcessorConfig c;
  c.doResize = false, c.doNormalize = false, c.doCenterCrop = true, c.cropHeight = 1, c.cropWidth = 2;
  auto t = preprocessImage(img, c, "g.ppm");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->channels, 3);
  // left = (5 - 2) / 2 = 1: pixels 1 and 2 in every channel.
  for (int ch = 0; ch < 3; ++ch) {
    EXPECT_FLOAT_EQ(t->at(ch, 0, 0), 10 / 255.f);
    EXPECT_FLOAT_EQ(t->at(ch, 0, 1), 20 / 255.f);
  }
}

TEST(ImageProcessor, ShortestEdgeKeepsTheAspect) {
  ImageProcessorConfig c;
  c.shortestEdge = 32;
  EXPECT_EQ(resizedSize(c, 50, 100), (std::pair<int, int>{32, 64}));
  EXPECT_EQ(resizedSize(c, 99, 40), (std::pair<int, int>{79, 32}));  // int(32 * 99 / 40) = 79
}

TEST(ImageProcessor, BadConfigsNameTheFileAndTheFault) {
  auto err = [](const std::string& json) {
    auto r = parseImageProcessorConfig(json, "pre.json");
    return r.ok() ? std::string("(parsed)") : r.error().message;
  };
  EXPECT_EQ(err(R"({"resample": 7})"),
            "pre.json: 'resample' 7 is not a known resampling (1 lanczos, 2 bilinear, 3 bicubic, 4 box, 5 "
            "hamming)");
  EXPECT_EQ(err(R"({"resample": 0})"),
            "pre.json: 'resample' 0 (nearest) is not supported (1 lanczos, 2 bilinear, 3 bicubic, 4 box, 5 "
            "hamming)");
  EXPECT_NE(err(R"({"resample": "bicubic"})").find("expected a PIL resampling number"), std::string::npos);
  EXPECT_EQ(err(R"({"size": {"height": 0, "width": 4}})"),
            "pre.json: 'size.height' is 0, expected 1 to 8192");
  EXPECT_EQ(err(R"({"image_std": [0.5, 0, 0.5]})"),
            "pre.json: 'image_std' holds 0, expected a number above 0");
  EXPECT_EQ(err("[1]"), "pre.json: expected a JSON object");
  auto ok =
      parseImageProcessorConfig(R"({"size": {"shortest_edge": 256}, "crop_size": 224, "do_center_crop": true,
                                          "resample": 3})",
                                "pre.json");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->shortestEdge, 256);
  EXPECT_EQ(ok->cropHeight, 224);
  EXPECT_EQ(ok->resample, Resampling::Bicubic);
}

TEST(ImageProcessor, EmptyImagesAreErrors) {
  ImagePixels empty;
  auto e = preprocessImage(empty, ImageProcessorConfig{}, "e.ppm");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message.rfind("e.ppm: ", 0), 0u) << e.error().message;
}

TEST(ImageProcessor, DisplayPixelsUndoNormaliseAndRescale) {
  // 8-bit values 0, 51, 255 -> rescale 1/255 -> (v - 0.5) / 0.5 = -1, -0.6, 1; back to u / 255.
  ImagePixels img;
  img.height = 1, img.width = 3, img.channels = 1, img.values = {0.0f, 0.2f, 1.0f};
  ImageProcessorConfig c;
  c.doResize = false;
  auto t = preprocessImage(img, c, "g.pgm");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_NEAR(t->at(0, 0, 1), -0.6f, 1e-6f);
  const ImagePixels back = pixelsForDisplay(*t, c);
  ASSERT_EQ(back.channels, 3);
  for (int ch = 0; ch < 3; ++ch) {
    EXPECT_NEAR(back.at(0, 0, ch), 0.0f, 1e-6f);
    EXPECT_NEAR(back.at(0, 1, ch), 0.2f, 1e-6f);
    EXPECT_NEAR(back.at(0, 2, ch), 1.0f, 1e-6f);
  }
  // Neither rescaled nor normalised: the tensor holds 0..255.
  c.doRescale = false, c.doNormalize = false;
  auto raw = preprocessImage(img, c, "g.pgm");
  ASSERT_TRUE(raw.ok());
  EXPECT_NEAR(raw->at(0, 0, 1), 51.0f, 1e-6f);
  EXPECT_NEAR(pixelsForDisplay(*raw, c).at(0, 1, 2), 0.2f, 1e-6f);
}

}  // namespace
}  // namespace attn::vision
