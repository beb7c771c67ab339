// Hostile model folders and inputs through the CLI: deep JSON, FIFOs, a huge
// --pad-to and out-of-range --layer each end in one line on stderr naming the
// file or option, exit status 1, within a time limit (no hang, no crash).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

namespace fs = std::filesystem;

size_t hostileLines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::string deepArrays(int n) {
  return std::string(static_cast<size_t>(n), '[') + std::string(static_cast<size_t>(n), ']');
}

fs::path copyHostileModel(const std::string& name, const std::string& as) {
  const fs::path dir = scratchDir(as) / name;
  fs::copy(modelDir(name), dir, fs::copy_options::recursive);
  return dir;
}

void expectOneLineFailure(const CliResult& r, const std::string& mention) {
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(hostileLines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
}

TEST(CliHostileFolder, DeeplyNestedConfigIsOneLine) {
  const fs::path dir = copyHostileModel("gpt2", "deep_config");
  std::ofstream(dir / "config.json", std::ios::trunc)
      << "{\"model_type\": \"gpt2\", \"n_head\": " << deepArrays(100000) << "}";
  expectOneLineFailure(runCliWithin(60, {"info", dir.string()}),
                       (dir / "config.json").string() + ": JSON nested");
  expectOneLineFailure(runCliWithin(60, {"run", "--model", dir.string(), "--text", "hello", "--out",
                                         (dir.parent_path() / "r.npz").string()}),
                       (dir / "config.json").string());
}

TEST(CliHostileFolder, DeeplyNestedSessionIsOneLine) {
  const fs::path p = scratchDir("deep_session") / "s.json";
  std::ofstream(p) << R"({"format": "attnscope-session", "version": 1, "config": {"mask": )"
                   << deepArrays(100000) << "}}";
  expectOneLineFailure(
      runCliWithin(60, {"run", "--input", p.string(), "--out", (p.parent_path() / "r.npz").string()}),
      p.string() + ": JSON nested deeper");
}

TEST(CliHostileFolder, FifoInPlaceOfTheWeightsDoesNotHang) {
  const fs::path dir = copyHostileModel("gpt2", "fifo_weights");
  fs::remove(dir / "model.safetensors");
  ASSERT_EQ(::mkfifo((dir / "model.safetensors").c_str(), 0600), 0);
  const auto r = runCliWithin(30, {"info", dir.string()});
  ASSERT_NE(r.status, 124) << "attnscope-cli info blocked on a FIFO";
  expectOneLineFailure(r, (dir / "model.safetensors").string() + ": is a FIFO");
}

TEST(CliHostileFolder, HugePadToIsRefusedBeforeAllocating) {
  const auto r = runCliWithin(30, {"run", "--model", modelDir("bert"), "--text", "hello", "--pad-to",
                                   "2000000000", "--out", (scratchDir("pad") / "r.npz").string()});
  expectOneLineFailure(r, "cannot pad to 2000000000 tokens");
}

}  // namespace
}  // namespace attn::test
