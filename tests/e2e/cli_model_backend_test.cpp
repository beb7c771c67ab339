// End-to-end: `--backend` with `--model` on run, metrics, export, importance and corpus.
// Without a usable CUDA device (or without the device forward in this build), asking for
// it prints one line saying which piece runs on the CPU and why, and the output is the
// CPU's, byte for byte; auto without a device is silent; an unknown name is refused.
#include <gtest/gtest.h>

#include <fstream>

#include "attn/backend.h"
#include "attn/models/device/forward_plan.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

std::vector<std::string> modelBackendRun(const std::string& model, const std::string& out,
                                         const std::string& backend) {
  return {"run",       "--model", modelDir(model), "--text", "the cat sat on the mat",
          "--backend", backend,   "--out",         out,      "--force"};
}

// The one line a --backend cuda request on this machine prints: none when the device runs a
// decoder (a CUDA build on a GPU), else why the CPU runs it.
std::string expectedFallback(const std::string& family) {
  const models::DeviceFacts dev = models::probeDevice();
  if (!dev.found)
    return "warning: backend 'cuda' is not available (" + dev.why + "); the model forward runs on the CPU\n";
  if (!family.empty())
    return "warning: the model forward runs on the CPU: the CUDA forward does not cover the " + family +
           " family\n";
  return "";
}

TEST(CliModelBackend, CudaOnAModelSaysWhatFallsBackAndWritesTheCpusFile) {
  const auto dir = scratchDir("cli_model_backend");
  for (const std::string model : {"gpt2", "llama"}) {
    const auto cpuFile = (dir / (model + "_cpu.npz")).string(),
               cudaFile = (dir / (model + "_cuda.npz")).string();
    const auto a = runCli(modelBackendRun(model, cpuFile, "cpu"));
    const auto b = runCli(modelBackendRun(model, cudaFile, "cuda"));
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_TRUE(a.err.empty()) << a.err;
    EXPECT_EQ(b.err, expectedFallback("")) << model;
    // On a GPU the files agree within tolerances (scripts/gpu-check.sh's model agreement suite).
    if (!models::probeDevice().found) EXPECT_EQ(readFile(cpuFile), readFile(cudaFile)) << model;
  }
}

TEST(CliModelBackend, AutoWithoutADeviceIsSilentAndBertNamesItsFamily) {
  const auto dir = scratchDir("cli_model_backend_auto");
  const auto out = (dir / "r.npz").string();
  const auto a = runCli(modelBackendRun("gpt2", out, "auto"));
  ASSERT_EQ(a.status, 0) << a.err;
  if (!models::probeDevice().found) {
    EXPECT_TRUE(a.err.empty()) << a.err;
  }
  const auto m =
      runCli({"metrics", "--model", modelDir("bert"), "--text", "the cat sat", "--backend", "cuda"});
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(m.err, expectedFallback("BERT"));
}

TEST(CliModelBackend, ImportanceAndCorpusTakeTheOptionToo) {
  const auto dir = scratchDir("cli_model_backend_more");
  const auto imp = runCli({"importance", "--model", modelDir("gpt2"), "--text", "the cat sat on the mat",
                           "--steps", "0", "--backend", "cuda"});
  ASSERT_EQ(imp.status, 0) << imp.err;
  const models::DeviceFacts dev = models::probeDevice();
  EXPECT_EQ(imp.err, dev.found
                         ? "warning: the model forward runs on the CPU: the CUDA forward does not cover head "
                           "interventions\n"
                         : expectedFallback(""));
  const auto text = dir / "corpus.txt";
  std::ofstream(text) << "the cat sat\non the mat\n";
  const auto c = runCli({"corpus", "--model", modelDir("gpt2"), "--text-file", text.string(), "--out",
                         (dir / "c.jsonl").string(), "--force", "--backend", "cuda"});
  ASSERT_EQ(c.status, 0) << c.err;
  // With a device each sentence runs there and the summary says so; without one, the fallback line.
  if (dev.found) {
    EXPECT_EQ(c.err.find("warning:"), std::string::npos) << c.err;
    EXPECT_NE(c.err.find("2 of the 2 sentences run in this session ran on "), std::string::npos) << c.err;
  } else {
    EXPECT_EQ(c.err.rfind(expectedFallback(""), 0), 0u) << c.err;
    EXPECT_EQ(c.err.find("sentences run in this session ran on"), std::string::npos) << c.err;
  }
}

TEST(CliModelBackend, AnUnknownBackendIsRefusedBeforeAnythingIsWritten) {
  const auto dir = scratchDir("cli_model_backend_bad");
  const auto out = (dir / "r.npz").string();
  const auto a = runCli(modelBackendRun("gpt2", out, "tpu"));
  EXPECT_NE(a.status, 0);
  EXPECT_NE(a.err.find("--backend: unknown backend 'tpu' (expected cpu, cuda or auto)"), std::string::npos)
      << a.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  auto args = modelBackendRun("gpt2", out, "cuda");
  args.insert(args.end(), {"--gpu-inputs", "fp8"});
  const auto g = runCli(args);
  EXPECT_NE(g.status, 0);
  EXPECT_NE(g.err.find("--gpu-inputs: unknown format 'fp8' (expected fp32, fp16 or bf16)"), std::string::npos)
      << g.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace attn::test
