// A centre crop larger than the resized image: transformers' image_transforms.center_crop pads
// the image with zeros (ceil of half the difference before it) instead of refusing, so the
// tensor still has the crop's size. Checked against gen_vision_fixtures_dino_clip.py's numpy
// port of BitImageProcessor on the committed scene (36 x 44, resized to 20 x 24).
#include <gtest/gtest.h>

#include "attn/vision/image_pixels.h"
#include "attn/vision/preprocessing/image_processor.h"
#include "model_fixtures.h"

namespace attn::vision {
namespace {

ImageProcessorConfig bitProcessor(int shortest, int cropH, int cropW) {
  ImageProcessorConfig c = defaultImageProcessor("BitImageProcessor", 224);
  c.shortestEdge = shortest, c.cropHeight = cropH, c.cropWidth = cropW;
  return c;
}

TEST(CenterCrop, PadsWithZerosLikeTransformersWhenTheCropIsLarger) {
  const auto z = attn::test::loadNpz(std::string(ATTN_FIXTURE_DIR) + "/vision/center_crop.npz");
  auto img = readImageFile(std::string(ATTN_FIXTURE_DIR) + "/vision/scene.ppm");
  ASSERT_TRUE(img.ok()) << img.error().message;
  for (auto [name, cropH, cropW] : {std::tuple{"both", 24, 40}, {"mixed", 15, 31}}) {
    const auto t = preprocessImage(*img, bitProcessor(20, cropH, cropW), "scene.ppm");
    ASSERT_TRUE(t.ok()) << t.error().message;
    const NpyArray& want = z.at(name);
    ASSERT_EQ(want.shape, (std::vector<int64_t>{3, cropH, cropW}));
    ASSERT_EQ(t->height, cropH);
    ASSERT_EQ(t->width, cropW);
    EXPECT_LE(attn::test::maxAbsDiff(t->values.data(), want.values.data, 0, t->values.size()), 1e-5) << name;
  }
}

TEST(CenterCrop, PaddingIsNormalisedZeroAndSitsCeilHalfBefore) {
  // A 2 x 2 mid-grey image cropped to 5 x 4 without resizing: 3 rows of padding, 2 before
  // (ceil 1.5) and 1 after; 2 columns, 1 each side. Padding is u = 0: (0 - 0.5) / 0.5 = -1.
  ImagePixels img;
  img.height = 2, img.width = 2, img.channels = 3, img.values.assign(12, 1.0f);
  ImageProcessorConfig c;
  c.doResize = false, c.doCenterCrop = true, c.cropHeight = 5, c.cropWidth = 4;
  c.mean = {0.5f}, c.std = {0.5f};
  auto t = preprocessImage(img, c, "s.ppm");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->height, 5);
  ASSERT_EQ(t->width, 4);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 4; ++x) {
      const bool inside = y >= 2 && y < 4 && x >= 1 && x < 3;
      EXPECT_FLOAT_EQ(t->at(0, y, x), inside ? 1.0f : -1.0f) << y << "," << x;
    }
}

}  // namespace
}  // namespace attn::vision
