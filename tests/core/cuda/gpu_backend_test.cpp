// The GPU backend against the CPU backend: every GPU-covered mechanism, mask
// family and execution path, with and without a positional logit bias.
//  - GpuBackendEmulated: the backend's host side on the CPU emulation of the
//    device (tests/support/emulated_device.h): runs everywhere.
//  - CudaAgreement: the same cases through the real CUDA backend; without a
//    GPU (or in a build without CUDA) each case is skipped with the reason.
#include <gtest/gtest.h>

#include <thread>

#include "attn/attn.h"
#include "attn/backend.h"
#include "attn/cuda/offload_backend.h"
#include "attn/engine/exec_path.h"
#include "attn/engine/head_inputs.h"
#include "attn/variants/precision.h"
#include "emulated_device.h"

namespace attn {
namespace {

struct GpuCase {
  Mechanism mechanism;
  std::string mask;
  ExecPath exec;
  PositionalEncoding positional;
  int tokens;
};

std::string gpuCaseName(const ::testing::TestParamInfo<GpuCase>& info) {
  std::string m = info.param.mask;
  for (char& c : m)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::string(mechanismName(info.param.mechanism)) + "_" + m + "_" +
         std::string(execPathName(info.param.exec)) + "_" + std::string(positionalName(info.param.positional)) +
         "_" + std::to_string(info.param.tokens);
}

void PrintTo(const GpuCase& c, std::ostream* os) {
  *os << mechanismName(c.mechanism) << ", mask " << c.mask << ", exec " << execPathName(c.exec) << ", "
      << positionalName(c.positional) << ", " << c.tokens << " tokens";
}

std::vector<GpuCase> gpuCases() {
  std::vector<GpuCase> cases;
  for (Mechanism mech : {Mechanism::Dot, Mechanism::ScaledDot, Mechanism::General, Mechanism::Cosine})
    for (const char* mask : {"none", "causal", "window:2+global:0", "random:0.5,3+padding"})
      for (ExecPath exec : {ExecPath::Naive, ExecPath::Tiled, ExecPath::Sparse})
        cases.push_back({mech, mask, exec, PositionalEncoding::None, 23});
  for (ExecPath exec : {ExecPath::Naive, ExecPath::Tiled}) {
    cases.push_back({Mechanism::ScaledDot, "causal", exec, PositionalEncoding::Alibi, 23});
    cases.push_back({Mechanism::ScaledDot, "none", exec, PositionalEncoding::T5, 23});
    cases.push_back({Mechanism::ScaledDot, "causal", exec, PositionalEncoding::Rope, 23});
    cases.push_back({Mechanism::ScaledDot, "causal+window:9", exec, PositionalEncoding::Alibi, 140});
  }
  return cases;
}

AttentionInput gpuInput(int n) {
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back(i >= n - 2 ? "[PAD]" : "t" + std::to_string(i % 11));
  return inputFromTokens(tokens, 24, 17);
}

AttentionSpec gpuSpec(const GpuCase& c) {
  AttentionSpec s;
  s.mechanism = c.mechanism;
  s.heads = 3;
  s.dModel = 24;
  s.temperature = 0.8f;
  s.exec = c.exec;
  s.positional = c.positional;
  if (c.mask != "none") s.mask = *Mask::parse(c.mask);
  return s;
}

void expectHeadsAgree(const std::vector<HeadResult>& gpu, const std::vector<HeadResult>& cpu, bool naive) {
  ASSERT_EQ(gpu.size(), cpu.size());
  auto near = [](const auto& a, const auto& b, const char* what, size_t h) {
    ASSERT_EQ(a.rows(), b.rows()) << what << " head " << h;
    ASSERT_EQ(a.cols(), b.cols()) << what << " head " << h;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      const float x = a.data()[i], y = b.data()[i];
      if (std::isinf(y)) {
        ASSERT_EQ(x, y) << what << " head " << h << " cell " << i;
        continue;
      }
      ASSERT_NEAR(x, y, 1e-5f * (1.0f + std::abs(y))) << what << " head " << h << " cell " << i;
    }
  };
  for (size_t h = 0; h < gpu.size(); ++h) {
    near(gpu[h].weights, cpu[h].weights, "weights", h);
    near(gpu[h].output, cpu[h].output, "output", h);
    near(gpu[h].entropy, cpu[h].entropy, "entropy", h);
    near(gpu[h].scaledLogits, cpu[h].scaledLogits, "scaled logits", h);
    if (naive) {
      near(gpu[h].rawLogits, cpu[h].rawLogits, "raw logits", h);
      near(gpu[h].maskedLogits, cpu[h].maskedLogits, "masked logits", h);
    } else {
      near(gpu[h].rowMax, cpu[h].rowMax, "row max", h);
    }
    EXPECT_EQ(gpu[h].fullyMaskedRows, cpu[h].fullyMaskedRows) << "head " << h;
    for (Eigen::Index c = 0; c < gpu[h].weights.size(); ++c)
      if (cpu[h].weights.data()[c] == 0.0f) {
        ASSERT_EQ(gpu[h].weights.data()[c], 0.0f) << "masked weight";
      }
  }
}

// Heads set up as runAttention does (mask bound, positions applied, bias).
struct PreparedHeads {
  AttentionSpec spec;
  std::vector<HeadResult> heads;
};

PreparedHeads prepareGpuHeads(const GpuCase& c) {
  PreparedHeads p;
  p.spec = gpuSpec(c);
  AttentionResult res;
  const Status st = setUpHeads(gpuInput(c.tokens), p.spec, res);
  EXPECT_TRUE(st.ok()) << (st ? "" : st.error().message);
  p.heads = std::move(res.heads);
  return p;
}

class GpuBackendEmulated : public ::testing::TestWithParam<GpuCase> {};

TEST_P(GpuBackendEmulated, AgreesWithTheCpuBackend) {
  const GpuCase& c = GetParam();
  PreparedHeads cpu = prepareGpuHeads(c), gpu = prepareGpuHeads(c);
  const ExecPath path = resolveExecPath(cpu.spec, c.tokens, c.tokens);
  ASSERT_EQ(path, c.exec);
  ASSERT_TRUE(makeCpuBackend()->computeHeads(cpu.spec, path, cpu.heads).ok());
  auto dev = std::make_shared<gpu::EmulatedDevice>();
  dev->sharedLimit = 16 * 1024;  // small tiles: several per row at these sizes
  auto backend = gpu::makeOffloadBackend(dev, "cuda");
  const Status st = backend->computeHeads(gpu.spec, path, gpu.heads);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(backend->takeWarnings().empty()) << "the case fell back to the CPU";
  if (path == ExecPath::Naive) EXPECT_EQ(dev->gemms, 2);
  else EXPECT_EQ(dev->flashLaunches, 1);
  EXPECT_EQ(dev->live, 0) << "device memory leaked";
  expectHeadsAgree(gpu.heads, cpu.heads, path == ExecPath::Naive);
}

INSTANTIATE_TEST_SUITE_P(Cases, GpuBackendEmulated, ::testing::ValuesIn(gpuCases()), gpuCaseName);

GpuCase fallbackCase() { return {Mechanism::ScaledDot, "causal", ExecPath::Tiled, PositionalEncoding::None, 30}; }

void expectCpuFallback(gpu::EmulatedDevice& dev, const GpuCase& c, const std::string& why) {
  PreparedHeads cpu = prepareGpuHeads(c), gpu = prepareGpuHeads(c);
  const ExecPath path = resolveExecPath(cpu.spec, c.tokens, c.tokens);
  ASSERT_TRUE(makeCpuBackend()->computeHeads(cpu.spec, path, cpu.heads).ok());
  auto backend = gpu::makeOffloadBackend(std::shared_ptr<gpu::Device>(&dev, [](gpu::Device*) {}), "cuda");
  ASSERT_TRUE(backend->computeHeads(gpu.spec, path, gpu.heads).ok());
  const auto warnings = backend->takeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(why), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("computed on the CPU"), std::string::npos) << warnings[0];
  EXPECT_TRUE(backend->takeWarnings().empty()) << "warnings are taken once";
  EXPECT_EQ(dev.live, 0) << "device memory leaked on the failure path";
  for (size_t h = 0; h < cpu.heads.size(); ++h) {
    EXPECT_EQ(gpu.heads[h].output, cpu.heads[h].output) << "the CPU's result, exactly";
    EXPECT_EQ(gpu.heads[h].weights, cpu.heads[h].weights);
  }
}

TEST(GpuBackendFallback, AMechanismWithoutAKernelRunsOnTheCpuWithAWarning) {
  gpu::EmulatedDevice dev;
  expectCpuFallback(dev, {Mechanism::Additive, "causal", ExecPath::Naive, PositionalEncoding::None, 12},
                    "mechanism 'additive' has no GPU kernel");
  EXPECT_EQ(dev.gemms + dev.flashLaunches, 0);
}

TEST(GpuBackendFallback, AFailedKernelLaunchRunsOnTheCpuWithTheReason) {
  gpu::EmulatedDevice dev;
  dev.failFlash = true;
  expectCpuFallback(dev, fallbackCase(), "flash attention kernel launch failed");
}

TEST(GpuBackendFallback, ARequestLargerThanTheFreeMemoryIsNotStarted) {
  gpu::EmulatedDevice dev;
  dev.freeLimit = 1000;
  expectCpuFallback(dev, fallbackCase(), "MiB of GPU memory");
  EXPECT_EQ(dev.flashLaunches, 0);
}

TEST(GpuBackendFallback, AFailedAllocationReleasesWhatWasAllocated) {
  gpu::EmulatedDevice dev;
  dev.failAllocationsAbove = 2000;  // q/k/v fit, the score-sized arrays do not
  expectCpuFallback(dev, {Mechanism::ScaledDot, "causal", ExecPath::Naive, PositionalEncoding::None, 30},
                    "cannot allocate");
}

TEST(GpuBackendFallback, HeadDimensionsTooLargeForSharedMemoryFallBack) {
  gpu::EmulatedDevice dev;
  dev.sharedLimit = 2048;
  expectCpuFallback(dev, fallbackCase(), "shared memory");
}

TEST(GpuBackendEmulatedWeights, OnlyTheHeadAskedForIsMaterialized) {
  const GpuCase c{Mechanism::ScaledDot, "causal", ExecPath::Tiled, PositionalEncoding::None, 40};
  for (int asked : {-2, 1}) {
    PreparedHeads cpu = prepareGpuHeads(c), gpu = prepareGpuHeads(c);
    cpu.spec.weightsHead = gpu.spec.weightsHead = asked;
    ASSERT_TRUE(makeCpuBackend()->computeHeads(cpu.spec, ExecPath::Tiled, cpu.heads).ok());
    auto backend = gpu::makeOffloadBackend(std::make_shared<gpu::EmulatedDevice>(), "cuda");
    ASSERT_TRUE(backend->computeHeads(gpu.spec, ExecPath::Tiled, gpu.heads).ok());
    for (int h = 0; h < 3; ++h)
      EXPECT_EQ(gpu.heads[h].weights.size() > 0, h == asked) << "head " << h << ", asked " << asked;
    expectHeadsAgree(gpu.heads, cpu.heads, false);
  }
}

// Front ends run requests on several threads; each backend object shares the
// one device (its stream and cuBLAS handle), which serves one request at a time.
TEST(GpuBackendEmulatedThreads, ConcurrentRequestsOnOneDeviceEachGetTheirOwnResult) {
  auto dev = std::make_shared<gpu::EmulatedDevice>();
  const GpuCase cases[2] = {{Mechanism::ScaledDot, "causal", ExecPath::Tiled, PositionalEncoding::None, 60},
                            {Mechanism::General, "window:2+global:0", ExecPath::Naive, PositionalEncoding::Alibi, 30}};
  PreparedHeads gpu[2] = {prepareGpuHeads(cases[0]), prepareGpuHeads(cases[1])};
  Status st[2] = {okStatus(), okStatus()};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 5 && st[t]; ++r)
        st[t] = gpu::makeOffloadBackend(dev, "cuda")->computeHeads(gpu[t].spec, cases[t].exec, gpu[t].heads);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 2; ++t) {
    ASSERT_TRUE(st[t].ok()) << st[t].error().message;
    PreparedHeads cpu = prepareGpuHeads(cases[t]);
    ASSERT_TRUE(makeCpuBackend()->computeHeads(cpu.spec, cases[t].exec, cpu.heads).ok());
    expectHeadsAgree(gpu[t].heads, cpu.heads, cases[t].exec == ExecPath::Naive);
  }
  EXPECT_EQ(dev->live, 0);
}

// fp16/bf16 inputs: the result equals the CPU's on inputs rounded to the
// format, and a note gives the difference from fp32 inputs.
TEST(GpuBackendEmulatedPrecision, SixteenBitInputsMatchRoundedInputsAndReportTheirDifference) {
  for (ExecPath path : {ExecPath::Naive, ExecPath::Tiled})
    for (DeviceInputs inputs : {DeviceInputs::F16, DeviceInputs::BF16}) {
      const GpuCase c{Mechanism::ScaledDot, "causal", path, PositionalEncoding::Alibi, 40};
      PreparedHeads cpu = prepareGpuHeads(c), gpu = prepareGpuHeads(c);
      for (HeadResult& h : cpu.heads)
        for (Mat* m : {&h.q, &h.k, &h.v})
          *m = m->unaryExpr([&](float x) {
            return inputs == DeviceInputs::F16 ? variants::roundToHalf(x) : variants::roundToBf16(x);
          });
      ASSERT_TRUE(makeCpuBackend()->computeHeads(cpu.spec, path, cpu.heads).ok());
      gpu.spec.deviceInputs = inputs;
      auto backend = gpu::makeOffloadBackend(std::make_shared<gpu::EmulatedDevice>(), "cuda");
      ASSERT_TRUE(backend->computeHeads(gpu.spec, path, gpu.heads).ok());
      const auto notes = backend->takeWarnings();
      ASSERT_EQ(notes.size(), 1u);
      EXPECT_NE(notes[0].find(std::string(deviceInputsName(inputs)) + " inputs on the GPU (fp32 arithmetic): "
                              "largest difference from fp32 inputs: output "),
                std::string::npos)
          << notes[0];
      EXPECT_EQ(notes[0].find("output 0.00e+00"), std::string::npos) << "rounding should show: " << notes[0];
      expectHeadsAgree(gpu.heads, cpu.heads, false);
    }
}

TEST(GpuBackendEmulatedPrecision, TheCpuSaysItIgnoresSixteenBitInputs) {
  AttentionSpec spec = gpuSpec({Mechanism::ScaledDot, "causal", ExecPath::Naive, PositionalEncoding::None, 9});
  spec.deviceInputs = DeviceInputs::BF16;
  auto r = runAttention(gpuInput(9), spec);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0], "bf16 inputs apply to the CUDA backend only; the CPU computed in fp32");
}

// --- the real CUDA backend -------------------------------------------------

std::string cudaUnavailable() {
  for (const BackendInfo& b : backendsFound())
    if (b.kind == BackendKind::Cuda) return b.available ? std::string() : b.reason;
  return "no CUDA entry";
}

class CudaAgreement : public ::testing::TestWithParam<GpuCase> {};

TEST_P(CudaAgreement, TheCudaBackendAgreesWithTheCpu) {
  if (const std::string why = cudaUnavailable(); !why.empty()) GTEST_SKIP() << "CUDA backend unavailable: " << why;
  const GpuCase& c = GetParam();
  AttentionSpec spec = gpuSpec(c);
  auto cpu = runAttention(gpuInput(c.tokens), spec);
  spec.backend = BackendKind::Cuda;
  auto cuda = runAttention(gpuInput(c.tokens), spec);
  ASSERT_TRUE(cpu.ok() && cuda.ok());
  EXPECT_EQ(cuda->backendUsed, "cuda");
  EXPECT_TRUE(cuda->warnings.empty()) << cuda->warnings.front();
  expectHeadsAgree(cuda->heads, cpu->heads, c.exec == ExecPath::Naive);
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaAgreement, ::testing::ValuesIn(gpuCases()), gpuCaseName);

TEST(CudaBackendSelection, AskingForCudaWithoutItGivesTheCpuResultAndOneWarning) {
  if (cudaUnavailable().empty()) GTEST_SKIP() << "a CUDA device is present: nothing falls back";
  AttentionSpec spec = gpuSpec({Mechanism::ScaledDot, "causal", ExecPath::Naive, PositionalEncoding::None, 9});
  auto cpu = runAttention(gpuInput(9), spec);
  spec.backend = BackendKind::Cuda;
  auto r = runAttention(gpuInput(9), spec);
  ASSERT_TRUE(r.ok() && cpu.ok());
  EXPECT_EQ(r->backendUsed, "cpu");
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("backend 'cuda' is not available ("), std::string::npos) << r->warnings[0];
  EXPECT_EQ(r->heads[0].weights, cpu->heads[0].weights);
  spec.backend = BackendKind::Auto;  // auto: the CPU, silently
  auto a = runAttention(gpuInput(9), spec);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->backendUsed, "cpu");
  EXPECT_TRUE(a->warnings.empty());
}

TEST(CudaBackendSelection, TheBackendListNamesTheCpuAndSaysWhyCudaIsMissing) {
  const auto found = backendsFound();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_TRUE(found[0].available);
  EXPECT_EQ(found[1].kind, BackendKind::Cuda);
  if (found[1].available) EXPECT_EQ(found[1].label.rfind("CUDA: ", 0), 0u) << found[1].label;
  else EXPECT_FALSE(found[1].reason.empty());
}

}  // namespace
}  // namespace attn
