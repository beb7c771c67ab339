// corpus on the device (models/device/device_corpus.h), without a GPU: each sentence through
// the plan, Model::runOnDevice on the emulated device and measureSentence, against the CPU's
// measureSentences on the same sentences (gpt2 F32, llama BF16 in f32 arithmetic): every
// head's eight measures within the device_run tests' map tolerance carried through the
// means (1e-5). A sentence the device cannot take (padding) runs on the CPU with the
// note, a family it does not cover keeps the whole batch on the CPU's threads.
#include "attn/models/device/device_corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "emulated_device.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

const std::vector<std::string> kCorpusSentences = {
    "the cat sat on the mat.", "a dog ran far away, then it came back home",
    "when the rain stopped the children went outside and played in the wet grass until dark", "yes"};

struct CorpusSide {
  std::shared_ptr<const Model> model;
  std::vector<Encoding> encodings;
};

CorpusSide openCorpusSide(const std::string& dir) {
  CorpusSide s;
  auto model = Model::open(dir);
  EXPECT_TRUE(model.ok()) << model.error().message;
  if (!model) return s;
  s.model = *model;
  for (const auto& text : kCorpusSentences) {
    auto enc = s.model->encode(text, std::nullopt, "corpus");
    EXPECT_TRUE(enc.ok());
    if (enc) s.encodings.push_back(*enc);
  }
  return s;
}

double worstMeasureDiff(const std::vector<MeasuredSentence>& a, const std::vector<MeasuredSentence>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    EXPECT_EQ(a[k].error, b[k].error);
    EXPECT_EQ(a[k].measures.layers, b[k].measures.layers);
    EXPECT_EQ(a[k].measures.heads, b[k].measures.heads);
    EXPECT_EQ(a[k].measures.tokens, b[k].measures.tokens);
    EXPECT_EQ(a[k].measures.values.size(), b[k].measures.values.size());
    for (size_t h = 0; h < std::min(a[k].measures.values.size(), b[k].measures.values.size()); ++h)
      for (int m = 0; m < kCorpusMeasureCount; ++m)
        worst = std::max(worst, std::abs(a[k].measures.values[h][static_cast<size_t>(m)] -
                                         b[k].measures.values[h][static_cast<size_t>(m)]));
  }
  return worst;
}

class DeviceCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceCorpus, EverySentenceOnTheDeviceGivesTheCpusMeasures) {
  // First, so that it outlives the model: the weights uploaded to it are freed with the model.
  auto dev = std::make_shared<gpu::EmulatedDevice>();
  auto side = openCorpusSide(test::modelDir(GetParam()));
  ASSERT_TRUE(side.model);
  const ModelBackend backend =
      chooseModelBackend(BackendKind::Cuda, side.model->info(), 64, corpusRunOptions(), dev);
  ASSERT_TRUE(backend.plan.onDevice) << backend.plan.note;
  const DeviceCorpusBatch gpu = measureSentencesOn(*side.model, backend, side.encodings);
  EXPECT_EQ(gpu.onDevice, static_cast<int>(kCorpusSentences.size()));
  EXPECT_EQ(gpu.note, "");
  EXPECT_EQ(dev->flashLaunches, static_cast<int>(kCorpusSentences.size()) * side.model->info().layers);
  const auto cpu = measureSentences(*side.model, side.encodings);
  for (const auto& s : gpu.sentences) ASSERT_EQ(s.error, "");
  const double worst = worstMeasureDiff(gpu.sentences, cpu);
  std::cout << GetParam() << ": measures within " << worst << " of the CPU's\n";
  EXPECT_LE(worst, 1e-5);
  EXPECT_GT(cpu.front().measures.values.front()[0], 0.0) << "a real entropy, not an empty run";
}

INSTANTIATE_TEST_SUITE_P(DecoderFixtures, DeviceCorpus, ::testing::Values("gpt2", "llama"));

TEST(DeviceCorpusFallback, APaddedSentenceRunsOnTheCpuWithTheNote) {
  // First, so that it outlives the model: the weights uploaded to it are freed with the model.
  auto dev = std::make_shared<gpu::EmulatedDevice>();
  auto side = openCorpusSide(test::modelDir("gpt2"));
  ASSERT_TRUE(side.model);
  Encoding& padded = side.encodings[1];
  padded.attention.assign(static_cast<size_t>(padded.size()), 1);
  padded.attention.back() = 0;
  const ModelBackend backend =
      chooseModelBackend(BackendKind::Cuda, side.model->info(), 64, corpusRunOptions(), dev);
  ASSERT_TRUE(backend.plan.onDevice);
  const DeviceCorpusBatch gpu = measureSentencesOn(*side.model, backend, side.encodings);
  EXPECT_EQ(gpu.onDevice, static_cast<int>(kCorpusSentences.size()) - 1);
  EXPECT_EQ(
      gpu.note.rfind("the model forward runs on the CPU: the CUDA forward does not take padded text", 0), 0u)
      << gpu.note;
  const auto cpu = measureSentences(*side.model, side.encodings);
  EXPECT_EQ(worstMeasureDiff({gpu.sentences[1]}, {cpu[1]}), 0.0) << "the CPU's own run";
  EXPECT_LE(worstMeasureDiff(gpu.sentences, cpu), 1e-5);
}

TEST(DeviceCorpusFallback, AFamilyWithoutADeviceForwardStaysOnTheCpu) {
  // First, so that it outlives the model: the weights uploaded to it are freed with the model.
  auto dev = std::make_shared<gpu::EmulatedDevice>();
  auto side = openCorpusSide(test::modelDir("bert"));
  ASSERT_TRUE(side.model);
  const ModelBackend backend =
      chooseModelBackend(BackendKind::Cuda, side.model->info(), 64, corpusRunOptions(), dev);
  EXPECT_FALSE(backend.plan.onDevice);
  EXPECT_EQ(backend.plan.note,
            "the model forward runs on the CPU: the CUDA forward does not cover the BERT family");
  const DeviceCorpusBatch batch = measureSentencesOn(*side.model, backend, side.encodings);
  EXPECT_EQ(batch.onDevice, 0);
  EXPECT_EQ(dev->flashLaunches, 0);
  EXPECT_EQ(worstMeasureDiff(batch.sentences, measureSentences(*side.model, side.encodings)), 0.0);
}

}  // namespace
}  // namespace attn::models
