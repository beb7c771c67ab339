// The device weight cache (core/attn/cuda/weight_cache.h) on the emulated device with the
// GPT-2 (F32) and Llama (BF16) fixtures: every decoder tensor uploaded once in its storage
// (BF16 bit for bit, F32 as F32, vectors as f32), a tied lm_head not twice, nothing
// allocated when the weights do not fit, and the mixed GEMM over the uploaded BF16 weights
// equal to the CPU's f32 product over the same decoded values.
#include "attn/cuda/weight_cache.h"

#include <gtest/gtest.h>

#include <cstring>

#include "attn/models/model_config.h"
#include "emulated_device.h"
#include "model_fixtures.h"

namespace attn::gpu {
namespace {

models::ModelWeights cacheFixtureWeights(const std::string& name) {
  auto read = models::readFolderConfig(test::modelDir(name), {});
  EXPECT_TRUE(read.ok()) << (read ? "" : read.error().message);
  auto cfg = models::parseModelConfig(read->text, read->path);
  EXPECT_TRUE(cfg.ok());
  auto w = models::loadModelWeights(read->folder.dir, *cfg);
  EXPECT_TRUE(w.ok()) << (w ? "" : w.error().message);
  return std::move(w).value();
}

TEST(DeviceWeightCache, EveryTensorIsUploadedOnceInItsStoredDtype) {
  for (const std::string name : {"gpt2", "llama"}) {
    SCOPED_TRACE(name);
    const models::ModelWeights w = cacheFixtureWeights(name);
    const auto tensors = decoderTensors(w);
    size_t want = 0;
    for (const auto* t : tensors)
      want += static_cast<size_t>(t->rows * t->cols) * (deviceStorage(*t, w.dtype) == InputType::F32 ? 4 : 2);
    EXPECT_EQ(deviceWeightBytes(w), want);
    EmulatedDevice dev;
    ModelDeviceWeights owned;
    auto first = owned.get(dev, w, 0);
    ASSERT_TRUE(first.ok()) << first.error().message;
    const int allocations = dev.live;
    EXPECT_EQ(allocations, static_cast<int>(tensors.size()));
    auto second = owned.get(dev, w, 0);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(*first, *second);
    EXPECT_EQ(dev.live, allocations) << "a second run uploads nothing";
    EXPECT_EQ((*first)->bytes(), want);
    for (const auto* t : tensors) {
      const DeviceTensor* d = (*first)->find(*t);
      ASSERT_NE(d, nullptr);
      EXPECT_EQ(d->rows, t->rows);
      std::vector<float> host(static_cast<size_t>(t->cols));
      t->rowTo(t->rows - 1, host.data());  // the last row: offsets right through the tensor
      const size_t at = static_cast<size_t>((t->rows - 1) * t->cols);
      for (size_t c = 0; c < host.size(); ++c) {
        const float dev32 = d->type == InputType::F32
                                ? static_cast<const float*>(d->data)[at + c]
                                : bf16ToFloat(static_cast<const uint16_t*>(d->data)[at + c]);
        ASSERT_EQ(dev32, host[c]) << "column " << c;
      }
      if (t->isBf16()) {
        EXPECT_EQ(std::memcmp(d->data, t->bf16, static_cast<size_t>(t->rows * t->cols) * 2), 0)
            << "BF16 as mapped";
      }
      if (t->rows == 1) {
        EXPECT_EQ(d->type, InputType::F32) << "vectors are read as f32";
      }
    }
    EXPECT_EQ(w.dtype == "BF16", (*first)->find(w.layers[0].down.w)->type == InputType::BF16);
  }
}

TEST(DeviceWeightCache, AnotherDeviceGetsItsOwnCopyAndTheFirstIsReleased) {
  const models::ModelWeights w = cacheFixtureWeights("llama");
  EmulatedDevice first, second;
  ModelDeviceWeights owned;
  ASSERT_TRUE(owned.get(first, w, 0).ok());
  ASSERT_TRUE(owned.get(first, w, 0).ok());
  EXPECT_EQ(owned.uploads(), 1);
  const int tensors = first.live;
  auto moved = owned.get(second, w, 0);
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(owned.uploads(), 2);
  EXPECT_EQ(first.live, 0) << "the first device's copy released";
  EXPECT_EQ(second.live, tensors);
}

TEST(DeviceWeightCache, AModelThatDoesNotFitAllocatesNothingAndSaysWhy) {
  const models::ModelWeights w = cacheFixtureWeights("llama");
  EmulatedDevice dev;
  dev.freeLimit = deviceWeightBytes(w) + 1000;
  auto refused = DeviceWeightCache::upload(dev, w, 4096);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(dev.live, 0);
  EXPECT_NE(refused.error().message.find("GiB kept for the forward's activations"), std::string::npos)
      << refused.error().message;
  EXPECT_TRUE(DeviceWeightCache::upload(dev, w, 1000).ok()) << "exactly enough fits";
}

// x W^T for a BF16 projection on the device (activations rounded to BF16, f32 sums) against
// the CPU product of the same rounded activations and the decoded weight.
TEST(DeviceWeightCache, MixedGemmOverCachedBf16WeightsEqualsTheF32Product) {
  const models::ModelWeights w = cacheFixtureWeights("llama");
  EmulatedDevice dev;
  auto cache = DeviceWeightCache::upload(dev, w, 0);
  ASSERT_TRUE(cache.ok());
  const models::WeightTensor& up = w.layers[0].up.w;  // [intermediate, d]
  const DeviceTensor* d = (*cache)->find(up);
  ASSERT_EQ(d->type, InputType::BF16);
  const int m = 5, k = static_cast<int>(up.cols), n = static_cast<int>(up.rows);
  Mat x(m, k), wf(n, k);
  std::vector<uint16_t> x16(static_cast<size_t>(m) * k);
  for (int i = 0; i < m; ++i)
    for (int c = 0; c < k; ++c) {
      x16[static_cast<size_t>(i) * k + c] =
          toBf16Bits(0.1f * static_cast<float>((i * 7 + c * 3) % 11) - 0.5f);
      x(i, c) = bf16ToFloat(x16[static_cast<size_t>(i) * k + c]);
    }
  for (int r = 0; r < n; ++r) up.rowTo(r, &wf(r, 0));
  const Mat want = x * wf.transpose();
  std::vector<float> c(static_cast<size_t>(m) * n, -7.0f);
  Device::MixedGemm g;
  g.m = m, g.n = n, g.k = k, g.type = InputType::BF16, g.a = x16.data(), g.b = d->data, g.transB = true,
  g.c = c.data();
  ASSERT_TRUE(dev.gemmMixed(g).ok());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      ASSERT_NEAR(c[static_cast<size_t>(i) * n + j], want(i, j), 1e-5 * (1 + std::abs(want(i, j))));
}

}  // namespace
}  // namespace attn::gpu
