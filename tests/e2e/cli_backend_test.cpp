// End-to-end: `--backend` and `--gpu-inputs` from the command line. Without a
// usable CUDA device, asking for it gives one warning with the reason and the
// CPU's file, byte for byte; unknown names are refused with the accepted ones.
#include <gtest/gtest.h>

#include "attn/backend.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

std::vector<std::string> backendRun(const std::string& out, const std::string& backend) {
  return {"run", "--text", "the cat sat on the mat", "--heads", "2", "--d-model", "16", "--mask", "causal",
          "--backend", backend, "--out", out, "--force"};
}

TEST(CliBackend, CudaWithoutADeviceWarnsOnceAndWritesTheCpusFile) {
  const BackendInfo cuda = backendsFound()[1];
  if (cuda.available) GTEST_SKIP() << "a CUDA device is present (" << cuda.label << "): nothing falls back";
  const auto dir = scratchDir("cli_backend");
  const auto cpuFile = (dir / "cpu.npz").string(), cudaFile = (dir / "cuda.npz").string();
  const auto a = runCli(backendRun(cpuFile, "cpu"));
  const auto b = runCli(backendRun(cudaFile, "cuda"));
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(b.err, "warning: backend 'cuda' is not available (" + cuda.reason + "); using cpu\n");
  EXPECT_TRUE(a.err.empty()) << a.err;
  EXPECT_EQ(readFile(cpuFile), readFile(cudaFile));
}

TEST(CliBackend, UnknownBackendAndInputFormatAreRefusedWithTheAcceptedNames) {
  const auto dir = scratchDir("cli_backend_bad");
  const auto out = (dir / "r.npz").string();
  const auto a = runCli(backendRun(out, "tpu"));
  EXPECT_NE(a.status, 0);
  EXPECT_NE(a.err.find("--backend: unknown backend 'tpu'"), std::string::npos) << a.err;
  auto args = backendRun(out, "cpu");
  args.insert(args.end(), {"--gpu-inputs", "fp8"});
  const auto b = runCli(args);
  EXPECT_NE(b.status, 0);
  EXPECT_NE(b.err.find("--gpu-inputs: unknown format 'fp8' (expected fp32, fp16 or bf16)"), std::string::npos) << b.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing is written for a refused request";
}

}  // namespace
}  // namespace attn::test
