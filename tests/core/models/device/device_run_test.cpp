// The model run on a device, end to end without a GPU (models/device/device_run.h): the
// plan for --backend cuda against the emulated device (the kernels' own code run on the
// CPU), the decoder driver through Model::runOnDevice, and the ModelRun it fills, against
// Model::run on the CPU on every decoder fixture (GPT-2 F32; Llama 2, Llama 3 and Qwen2
// BF16 in f32 arithmetic; llama.cpp's GGUF Llama with its interleaved q/k rows): maps within
// 1e-5, head outputs, q/k/v and entropies within 1e-4, tokens and the top-5 identical. What the
// device does not cover (BERT, a quantized GGUF, streamed runs, padding) runs on the CPU
// with one line naming it, and its result is the CPU's exactly.
#include "attn/models/device/device_run.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string_view>
#include <vector>

#include "emulated_device.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

std::shared_ptr<gpu::EmulatedDevice> emulatedGpu() { return std::make_shared<gpu::EmulatedDevice>(); }

const std::string kDeviceRunText = "the cat sat on the mat and the dog ran far away, then the cat sat";

double worstMatDiff(const Mat& a, const Mat& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.size() == 0) return a.size() == b.size() ? 0 : 1e9;
  return static_cast<double>((a - b).cwiseAbs().maxCoeff());
}

// Every kept layer and head of `gpu` against `cpu`: maps, outputs, q/k/v (when kept), entropies.
void expectSameRun(const ModelRun& gpu, const ModelRun& cpu, double tol) {
  EXPECT_EQ(gpu.encoding.tokens, cpu.encoding.tokens);
  EXPECT_EQ(gpu.firstLayer, cpu.firstLayer);
  ASSERT_EQ(gpu.layers.size(), cpu.layers.size());
  double maps = 0, outputs = 0, qkv = 0, entropy = 0, layerOut = 0;
  for (size_t l = 0; l < cpu.layers.size(); ++l) {
    const auto &g = gpu.layers[l], &c = cpu.layers[l];
    EXPECT_EQ(g.queryTokens, c.queryTokens);
    EXPECT_EQ(g.mask.spec(), c.mask.spec());
    EXPECT_EQ(g.backendUsed, "cuda");
    ASSERT_EQ(g.heads.size(), c.heads.size());
    layerOut =
        std::max({layerOut, worstMatDiff(g.output, c.output), worstMatDiff(g.concatOutput, c.concatOutput)});
    for (size_t h = 0; h < c.heads.size(); ++h) {
      maps = std::max(maps, worstMatDiff(g.heads[h].weights, c.heads[h].weights));
      outputs = std::max(outputs, worstMatDiff(g.heads[h].output, c.heads[h].output));
      entropy = std::max(
          entropy, static_cast<double>((g.heads[h].entropy - c.heads[h].entropy).cwiseAbs().maxCoeff()));
      for (auto m : {&HeadResult::q, &HeadResult::k, &HeadResult::v})
        qkv = std::max(qkv, worstMatDiff(g.heads[h].*m, c.heads[h].*m));
    }
  }
  std::cout << "maps within " << maps << ", head outputs " << outputs << ", q/k/v " << qkv << ", entropies "
            << entropy << ", attention outputs " << layerOut << "\n";
  EXPECT_LE(maps, tol);
  EXPECT_LE(outputs, 10 * tol);
  EXPECT_LE(qkv, 10 * tol);
  EXPECT_LE(entropy, 10 * tol);
  EXPECT_LE(layerOut, 10 * tol);
  ASSERT_EQ(gpu.nextTokens.size(), cpu.nextTokens.size());
  for (size_t i = 0; i < cpu.nextTokens.size(); ++i) {
    ASSERT_EQ(gpu.nextTokens[i].size(), cpu.nextTokens[i].size());
    for (size_t k = 0; k < cpu.nextTokens[i].size(); ++k) {
      EXPECT_EQ(gpu.nextTokens[i][k].id, cpu.nextTokens[i][k].id) << "position " << i << " rank " << k;
      EXPECT_EQ(gpu.nextTokens[i][k].token, cpu.nextTokens[i][k].token);
      EXPECT_NEAR(gpu.nextTokens[i][k].prob, cpu.nextTokens[i][k].prob, 1e-5);
    }
  }
}

struct DeviceRunCase {
  std::string path;  // a fixture folder, or a GGUF file under tests/fixtures/gguf/models
};

void PrintTo(const DeviceRunCase& c, std::ostream* os) { *os << c.path; }

std::string deviceRunPath(const DeviceRunCase& c) {
  return c.path.ends_with(".gguf") ? std::string(ATTN_FIXTURE_DIR) + "/gguf/models/" + c.path
                                   : test::modelDir(c.path);
}

class DeviceModelRun : public ::testing::TestWithParam<DeviceRunCase> {};

TEST_P(DeviceModelRun, PlanThenDriverGivesTheCpusRun) {
  auto dev = emulatedGpu();  // outlives the model, whose weights it holds
  auto model = Model::open(deviceRunPath(GetParam()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode(kDeviceRunText, std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  RunOptions o;  // the CLI's run: maps, entropies, q/k/v, top 5, the loss, full logits
  o.nextTokenLoss = true;
  o.keepFullLogits = true;
  const ModelBackend backend = chooseModelBackend(BackendKind::Cuda, (*model)->info(), enc->size(), o, dev);
  ASSERT_TRUE(backend.plan.onDevice) << backend.plan.note;
  EXPECT_TRUE(backend.plan.note.empty());
  std::string note = "stale";
  auto gpu = runModelOn(**model, backend, *enc, o, note);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  EXPECT_EQ(note, "") << "ran on the device, no fallback";
  EXPECT_GT(dev->flashLaunches, 0);
  auto cpu = (*model)->run(*enc, o);
  ASSERT_TRUE(cpu.ok());
  expectSameRun(*gpu, *cpu, 1e-5);
  EXPECT_LE(worstMatDiff(gpu->logits, cpu->logits), 1e-4);
  ASSERT_TRUE(gpu->nextTokenLoss && cpu->nextTokenLoss);
  EXPECT_NEAR(*gpu->nextTokenLoss, *cpu->nextTokenLoss, 1e-5);

  // One layer, no q/k/v, no predictions: only that layer comes back; the weights are not uploaded again.
  const int live = dev->live;
  RunOptions one;
  one.onlyLayer = 1, one.keepQkv = false, one.topK = 0;
  auto g1 = runModelOn(**model, backend, *enc, one, note);
  auto c1 = (*model)->run(*enc, one);
  ASSERT_TRUE(g1.ok() && c1.ok());
  expectSameRun(*g1, *c1, 1e-5);
  EXPECT_EQ(dev->live, live) << "the forward's buffers released, the model's weights kept";
}

INSTANTIATE_TEST_SUITE_P(DecoderFixtures, DeviceModelRun,
                         ::testing::Values(DeviceRunCase{"gpt2"}, DeviceRunCase{"llama"},
                                           DeviceRunCase{"llama3"}, DeviceRunCase{"qwen2"},
                                           DeviceRunCase{"llama-F32.gguf"}),
                         [](const auto& p) {
                           std::string s = p.param.path;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

struct DeviceProgressReport {
  double fraction;
  std::string stage;
};

// The device forward reports as the CPU's does: the upload, one report before each layer at
// l / (layers + 1), the lm_head at layers / (layers + 1), then 1; `stopAt` >= 0 returns false
// on that report (a Cancel pressed while the layer before it ran).
ProgressFn recordProgress(std::vector<DeviceProgressReport>& seen, int stopAt = -1) {
  return [&seen, stopAt](double f, std::string_view stage) {
    seen.push_back({f, std::string(stage)});
    return static_cast<int>(seen.size()) - 1 != stopAt;
  };
}

TEST(DeviceModelRunProgress, OneReportPerLayerAsTheCpuForward) {
  auto dev = emulatedGpu();
  auto model = Model::open(test::modelDir("llama"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode(kDeviceRunText, std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  const int layers = (*model)->info().layers;
  ASSERT_GE(layers, 2);
  const ModelBackend backend = chooseModelBackend(BackendKind::Cuda, (*model)->info(), enc->size(), {}, dev);
  ASSERT_TRUE(backend.plan.onDevice) << backend.plan.note;
  std::vector<DeviceProgressReport> seen;
  std::string note;
  auto run = runModelOn(**model, backend, *enc, {}, note, recordProgress(seen));
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(note, "");
  // The upload, `layers` layer reports, the output head, done.
  ASSERT_EQ(seen.size(), static_cast<size_t>(layers) + 3);
  EXPECT_EQ(seen.front().stage, "uploading the weights to the device");
  for (int l = 0; l < layers; ++l) {
    EXPECT_DOUBLE_EQ(seen[static_cast<size_t>(l) + 1].fraction, static_cast<double>(l) / (layers + 1));
    EXPECT_EQ(seen[static_cast<size_t>(l) + 1].stage, "running layers on the device");
  }
  EXPECT_DOUBLE_EQ(seen[seen.size() - 2].fraction, static_cast<double>(layers) / (layers + 1));
  EXPECT_EQ(seen[seen.size() - 2].stage, "output head");
  EXPECT_EQ(seen.back().fraction, 1.0);
  for (size_t i = 1; i < seen.size(); ++i)
    EXPECT_GE(seen[i].fraction, seen[i - 1].fraction) << "report " << i;
  // The CPU forward's layer reports at the same fractions (the GUI's progress line reads them so).
  std::vector<DeviceProgressReport> cpuSeen;
  ASSERT_TRUE((*model)->run(*enc, {}, recordProgress(cpuSeen)).ok());
  std::vector<double> cpuLayers, gpuLayers;
  for (const auto& r : cpuSeen)
    if (r.stage == "running layers") cpuLayers.push_back(r.fraction);
  for (const auto& r : seen)
    if (r.stage == "running layers on the device") gpuLayers.push_back(r.fraction);
  EXPECT_EQ(gpuLayers, cpuLayers);
}

TEST(DeviceModelRunProgress, CancelStopsBetweenLayersAndKeepsTheWeights) {
  auto dev = emulatedGpu();
  auto model = Model::open(test::modelDir("llama"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode(kDeviceRunText, std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  const int layers = (*model)->info().layers;
  const ModelBackend backend = chooseModelBackend(BackendKind::Cuda, (*model)->info(), enc->size(), {}, dev);
  ASSERT_TRUE(backend.plan.onDevice) << backend.plan.note;
  std::string note;
  std::vector<DeviceProgressReport> warm;
  ASSERT_TRUE(runModelOn(**model, backend, *enc, {}, note, recordProgress(warm)).ok());
  const int live = dev->live;  // the model's uploaded weights alone
  ASSERT_GT(live, 0);
  for (int k = 0; k <= layers; ++k) {  // stopped before layer k (k == layers: before the lm_head)
    dev->flashLaunches = 0;
    std::vector<DeviceProgressReport> seen;
    note = "stale";
    auto run = runModelOn(**model, backend, *enc, {}, note, recordProgress(seen, k + 1));
    ASSERT_FALSE(run.ok()) << "a cancelled run is not a ModelRun, stopped before layer " << k;
    EXPECT_TRUE(run.error().message.ends_with(": cancelled")) << run.error().message;
    EXPECT_EQ(note, "") << "a cancel is not a fallback: the CPU did not run";
    EXPECT_EQ(dev->flashLaunches, k) << "layers 0.." << k - 1 << " ran, no later one";
    EXPECT_EQ(seen.size(), static_cast<size_t>(k) + 2) << "no report after the cancel";
    EXPECT_EQ(dev->live, live) << "the forward's buffers released, the model's weights kept";
  }
  // The kept weights serve the next run without another upload, and it is the CPU's.
  dev->flashLaunches = 0;
  auto again = runModelOn(**model, backend, *enc, {}, note);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(dev->flashLaunches, layers);
  auto cpu = (*model)->run(*enc, {});
  ASSERT_TRUE(cpu.ok());
  expectSameRun(*again, *cpu, 1e-5);
}

// Runs `path` through the dispatch with --backend cuda on the emulated device; the CPU's run must come back.
// `planned`: the plan names the piece; else the plan takes the device and the run falls back
// (the text's last token then padding, attention 0, which the plan cannot see).
void expectModelCpuFallback(const std::string& path, const RunOptions& o, const std::string& wantedNote,
                            bool planned = true) {
  auto dev = emulatedGpu();
  auto model = Model::open(path);
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode("the cat sat on the mat", std::nullopt, "text");
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  if (!planned) {
    enc->attention.assign(static_cast<size_t>(enc->size()), 1);
    enc->attention.back() = 0;
  }
  const ModelBackend backend = chooseModelBackend(BackendKind::Cuda, (*model)->info(), enc->size(), o, dev);
  std::string note;
  auto run = runModelOn(**model, backend, *enc, o, note);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const std::string got = planned ? backend.plan.note : note;
  EXPECT_EQ(got, planned ? wantedNote : wantedNote + std::to_string(enc->size() - 1) + ")");
  EXPECT_EQ(backend.plan.onDevice, !planned);
  EXPECT_EQ(dev->flashLaunches, 0) << "nothing ran on the device";
  auto cpu = (*model)->run(*enc, o);
  ASSERT_TRUE(cpu.ok());
  ASSERT_EQ(run->layers.size(), cpu->layers.size());
  for (size_t l = 0; l < cpu->layers.size(); ++l) {
    EXPECT_EQ(run->layers[l].backendUsed, "cpu");
    for (size_t h = 0; h < cpu->layers[l].heads.size(); ++h)
      EXPECT_EQ(run->layers[l].heads[h].weights, cpu->layers[l].heads[h].weights);
  }
}

TEST(DeviceModelRunFallback, BertNamesItsFamily) {
  expectModelCpuFallback(
      test::modelDir("bert"), {},
      "the model forward runs on the CPU: the CUDA forward does not cover the BERT family");
}

TEST(DeviceModelRunFallback, QuantizedGgufNamesItsWeights) {
  auto model = Model::open(std::string(ATTN_FIXTURE_DIR) + "/gguf/models/llama-Q8_0.gguf");
  ASSERT_TRUE(model.ok());
  expectModelCpuFallback(std::string(ATTN_FIXTURE_DIR) + "/gguf/models/llama-Q8_0.gguf", {},
                         "the model forward runs on the CPU: the CUDA forward does not cover " +
                             (*model)->info().quantization + " weights");
}

TEST(DeviceModelRunFallback, StreamedRunsStayOnTheCpu) {
  RunOptions o;
  o.streamed = true;
  expectModelCpuFallback(
      test::modelDir("llama"), o,
      "the model forward runs on the CPU: the CUDA forward does not cover streamed runs (streamed "
      "runs stay on the CPU)");
}

TEST(DeviceModelRunFallback, PaddedTextFallsBackAfterThePlan) {
  // The plan sees a length, not the padding: the device refuses it and the CPU runs.
  expectModelCpuFallback(
      test::modelDir("llama"), {},
      "the model forward runs on the CPU: the CUDA forward does not take padded text (attention 0 "
      "at position ",
      false);
}

TEST(DeviceModelRunFallback, ADeviceFaultFallsBackWithItsMessage) {
  auto dev = emulatedGpu();
  dev->failFlash = true;
  auto model = Model::open(test::modelDir("gpt2"));
  ASSERT_TRUE(model.ok());
  auto enc = (*model)->encode("the cat sat", std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  const ModelBackend backend = chooseModelBackend(BackendKind::Auto, (*model)->info(), enc->size(), {}, dev);
  ASSERT_TRUE(backend.plan.onDevice);
  std::string note;
  auto run = runModelOn(**model, backend, *enc, {}, note);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(note, "the model forward runs on the CPU: flash attention kernel launch failed (injected)");
  EXPECT_EQ(run->layers.front().backendUsed, "cpu");
  // An input the CPU refuses too is the CPU's error, not a fallback.
  Encoding bad = *enc;
  bad.ids[0] = 1 << 30;
  auto refused = runModelOn(**model, backend, bad, {}, note);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("outside the vocabulary"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace attn::models
