// Where a model's forward runs for --backend cpu|cuda|auto (models/device/forward_plan.h):
// every branch of the decision on a described device, and the device-memory estimate
// against sums worked out by hand.
#include "attn/models/device/forward_plan.h"

#include <gtest/gtest.h>

namespace attn::models {
namespace {

// A Llama-shaped model small enough to sum by hand: d 64, 4 heads of 16, 2 KV heads, MLP 128.
ModelInfo planLlama(const std::string& dtype = "BF16") {
  ModelInfo m;
  m.name = "tiny-llama";
  m.family = Family::Llama;
  m.causal = true;
  m.layers = 2, m.heads = 4, m.kvHeads = 2, m.dModel = 64, m.headDim = 16, m.intermediate = 128;
  m.vocabSize = 1000, m.parameters = 1'000'000, m.dtype = dtype;
  return m;
}

DeviceFacts planGpu(size_t freeBytes) {
  DeviceFacts d;
  d.found = true, d.name = "NVIDIA H200, 141 GB", d.freeBytes = freeBytes, d.forwardBuilt = true;
  return d;
}

DeviceFacts planNoGpu() {
  DeviceFacts d;
  d.why = "no CUDA device was found";
  return d;
}

constexpr size_t kPlanGiB = size_t{1} << 30;

TEST(ForwardPlan, MemoryEstimateMatchesTheHandSum) {
  RunOptions o;  // maps kept, top-5 predictions
  const auto b = deviceForwardBytes(planLlama(), 100, o);
  EXPECT_EQ(b.weights, 2'000'000u);  // BF16 kept as 2 bytes
  // F32 columns 4*64 + (4 + 2*2)*16 + 2*128 = 640; 16-bit copy of max(64, 128) columns.
  EXPECT_EQ(b.activations, 100u * 640 * 4 + 100u * 128 * 2);
  EXPECT_EQ(b.maps, 4u * 100 * 100 * 4);  // one layer's heads at a time
  EXPECT_EQ(b.logits, 100u * 1000 * 4);   // fewer rows than the 256-row lm_head block
  EXPECT_EQ(b.widened, 1000u * 64 * 4);   // f32 arithmetic: the [vocab, d] lm_head widened to f32
  EXPECT_EQ(b.reserve,
            (size_t{256} << 20) + (b.weights + b.activations + b.maps + b.logits + b.widened) / 20);
  EXPECT_EQ(b.total(), b.weights + b.activations + b.maps + b.logits + b.widened + b.reserve);
  o.deviceF32 = false;  // the GEMMs read the BF16 weights as stored
  EXPECT_EQ(deviceForwardBytes(planLlama(), 100, o).widened, 0u);

  o.streamed = true, o.topK = 0;
  const auto s = deviceForwardBytes(planLlama("F32"), 1000, o);
  EXPECT_EQ(s.weights, 4'000'000u);
  EXPECT_EQ(s.maps, 4u * 1000 * 3 * 4);  // row max, normalizer, entropy: nothing N x N
  EXPECT_EQ(s.logits, 0u);
  EXPECT_EQ(s.widened, 0u);  // F32 weights are read as stored
}

TEST(ForwardPlan, CpuNeverTouchesTheDeviceAndSaysNothing) {
  const auto p = planModelForward(BackendKind::Cpu, planLlama(), 10, {}, planGpu(100 * kPlanGiB));
  EXPECT_FALSE(p.onDevice);
  EXPECT_TRUE(p.note.empty());
}

TEST(ForwardPlan, WithoutADeviceCudaSaysWhyAndAutoIsSilent) {
  const auto cuda = planModelForward(BackendKind::Cuda, planLlama(), 10, {}, planNoGpu());
  EXPECT_FALSE(cuda.onDevice);
  EXPECT_EQ(cuda.note,
            "backend 'cuda' is not available (no CUDA device was found); the model forward runs on the CPU");
  const auto autoPick = planModelForward(BackendKind::Auto, planLlama(), 10, {}, planNoGpu());
  EXPECT_FALSE(autoPick.onDevice);
  EXPECT_TRUE(autoPick.note.empty());
}

TEST(ForwardPlan, ASupportedModelThatFitsRunsOnTheDeviceForCudaAndAuto) {
  for (auto kind : {BackendKind::Cuda, BackendKind::Auto}) {
    const auto p = planModelForward(kind, planLlama(), 100, {}, planGpu(kPlanGiB));
    EXPECT_TRUE(p.onDevice);
    EXPECT_TRUE(p.note.empty()) << p.note;
  }
  ModelInfo gpt2 = planLlama("F32");
  gpt2.family = Family::Gpt2, gpt2.kvHeads = 4;
  EXPECT_TRUE(planModelForward(BackendKind::Cuda, gpt2, 100, {}, planGpu(kPlanGiB)).onDevice);
}

TEST(ForwardPlan, UnsupportedPiecesAreNamedInOneLine) {
  ModelInfo bert = planLlama("F32");
  bert.family = Family::Bert, bert.causal = false;
  RunOptions o;
  o.interventions.resize(1);
  o.logitLens = true;
  const auto p = planModelForward(BackendKind::Cuda, bert, 10, o, planGpu(100 * kPlanGiB));
  EXPECT_FALSE(p.onDevice);
  EXPECT_EQ(p.note,
            "the model forward runs on the CPU: the CUDA forward does not cover the BERT family, head "
            "interventions "
            "and the logit lens");
  RunOptions streamed;
  streamed.streamed = true;
  EXPECT_EQ(planModelForward(BackendKind::Cuda, planLlama(), 10, streamed, planGpu(100 * kPlanGiB)).note,
            "the model forward runs on the CPU: the CUDA forward does not cover streamed runs (streamed runs "
            "stay on the CPU)");
  ModelInfo gguf = planLlama("mixed");
  gguf.quantization = "Q4_K_M, 4.8 bits/weight";
  EXPECT_EQ(
      planModelForward(BackendKind::Auto, gguf, 10, {}, planGpu(100 * kPlanGiB)).note,
      "the model forward runs on the CPU: the CUDA forward does not cover Q4_K_M, 4.8 bits/weight weights");
}

TEST(ForwardPlan, AModelLargerThanTheFreeMemoryFallsBackWithTheFigures) {
  ModelInfo big = planLlama();
  big.parameters = 8'000'000'000;  // 14.9 GiB in BF16
  const auto p = planModelForward(BackendKind::Cuda, big, 100, {}, planGpu(8 * kPlanGiB));
  EXPECT_FALSE(p.onDevice);
  EXPECT_EQ(p.note.rfind("the model forward runs on the CPU: it needs 15.", 0), 0u) << p.note;
  EXPECT_NE(p.note.find(
                "on NVIDIA H200, 141 GB (weights 14.90, activations 0.00, attention maps 0.00) and 8.00 GiB "
                "is free"),
            std::string::npos)
      << p.note;
  // The same model fits once the device has the room: the estimate, not the model, decided.
  EXPECT_TRUE(planModelForward(BackendKind::Cuda, big, 100, {}, planGpu(20 * kPlanGiB)).onDevice);
}

TEST(ForwardPlan, ABuildWithoutTheDeviceForwardSaysSo) {
  DeviceFacts d = planGpu(100 * kPlanGiB);
  d.forwardBuilt = false;
  const auto p = planModelForward(BackendKind::Cuda, planLlama(), 10, {}, d);
  EXPECT_FALSE(p.onDevice);
  EXPECT_EQ(p.note,
            "the model forward runs on the CPU: this build runs the attention kernels on NVIDIA H200, 141 GB "
            "but not "
            "yet a whole model's forward");
}

TEST(ForwardPlan, ThisMachinesProbeAgreesWithTheBackendList) {
  const DeviceFacts d = probeDevice();
  // A CUDA build runs the decoder forward on the device (models/device/device_run.h).
  const bool cudaBuilt = d.why.find("not in this build") == std::string::npos;
  EXPECT_EQ(d.forwardBuilt, cudaBuilt) << d.why;
  if (!d.found) {
    EXPECT_FALSE(d.why.empty());
    EXPECT_EQ(d.freeBytes, 0u);
  } else {
    EXPECT_GT(d.freeBytes, 0u);
  }
}

}  // namespace
}  // namespace attn::models
