// Every command with --model checks --layer the same way (metrics analyses
// all layers, but a layer that does not exist is still refused, as run does).
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

size_t optionErrLines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(CliOptionValidation, LayerOutOfRangeIsRefusedByEveryModelCommand) {
  for (const char* command : {"metrics", "run"})
    for (const char* layer : {"--layer=99", "--layer=-5"}) {
      std::vector<std::string> args{command, "--model", modelDir("bert"), "--text", "a b", layer};
      if (std::string(command) == "run")
        args.insert(args.end(), {"--out", (scratchDir("layer") / "r.npz").string()});
      const auto r = runCliWithin(60, args);
      EXPECT_EQ(r.status, 1) << command << " " << layer << ": " << r.err;
      EXPECT_EQ(optionErrLines(r.err), 1u) << r.err;
      EXPECT_NE(r.err.find(std::string("--layer: ") + (layer + 8) + " is out of range (1..2)"),
                std::string::npos)
          << command << " " << layer << ": " << r.err;
    }
  const auto ok = runCliWithin(60, {"metrics", "--model", modelDir("bert"), "--text", "a b", "--layer", "2"});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

}  // namespace
}  // namespace attn::test
