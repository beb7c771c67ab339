// attnscope-cli is built without Qt; a command that draws hands its command
// line to attnscope-cli-figures by exec (app/cli/figures_program.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "cli_runner.h"

namespace attn::test {
namespace {

namespace fs = std::filesystem;

size_t lineCount(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// What the dynamic loader maps for the program, without running it
// (LD_TRACE_LOADED_OBJECTS: what ldd prints).
TEST(CliFiguresProgram, TheCliLoadsNoQt) {
  const auto r = runCliUnder("export LD_TRACE_LOADED_OBJECTS=1", {"--version"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("libc.so.6"), std::string::npos) << r.out;  // the loader listed its libraries
  EXPECT_EQ(r.out.find("libQt6"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("qcustomplot"), std::string::npos) << r.out;
}

TEST(CliFiguresProgram, FigureCommandsHandOverTheirWholeCommandLine) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const auto dir = scratchDir("handover");
  const auto stub = dir / "figures-stub.sh";
  {
    std::ofstream f(stub);
    f << "#!/bin/sh\nprintf '%s\\n' \"$@\"\nexit 7\n";
  }
  fs::permissions(stub, fs::perms::owner_all);
  const std::string env = "export ATTNSCOPE_CLI_FIGURES=" + shellQuote(stub.string());
  const auto out = (dir / "f.png").string();
  const auto r = runCliUnder(env, {"export", "--text", "two words", "--head", "1", "--out", out});
  EXPECT_EQ(r.status, 7) << r.err;  // the figures program's exit status is the command's
  EXPECT_EQ(r.out, "export\n--text\ntwo words\n--head\n1\n--out\n" + out + "\n");
  // geometry and graph figures too, and an image only Qt decodes; data stays here.
  EXPECT_EQ(runCliUnder(env, {"geometry", "--text", "a b c", "--out", (dir / "g.svg").string()}).status, 7);
  EXPECT_EQ(runCliUnder(env, {"graph", "--out", (dir / "n.pdf").string()}).status, 7);
  EXPECT_EQ(runCliUnder(env, {"run", "--image", (dir / "photo.png").string(), "--out", (dir / "r.npz").string()}).status, 7);
  const auto data = runCliUnder(env, {"export", "--text", "two words", "--out", (dir / "w.npz").string()});
  EXPECT_EQ(data.status, 0) << data.err;
  EXPECT_TRUE(fs::exists(dir / "w.npz"));
}

TEST(CliFiguresProgram, AMissingFiguresProgramIsOneLineAndNoFile) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const auto dir = scratchDir("handover_missing");
  const std::string env = "export ATTNSCOPE_CLI_FIGURES=" + shellQuote((dir / "gone").string());
  const auto out = (dir / "f.png").string();
  const auto r = runCliUnder(env, {"export", "--text", "two words", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lineCount(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("export: this build has no figure renderer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((dir / "gone").string()), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // A program that cannot draw either (attnscope-cli itself): one line, no loop.
  const auto self = runCliUnder("export ATTNSCOPE_CLI_FIGURES=" + shellQuote(ATTN_CLI),
                                {"export", "--text", "two words", "--out", out});
  EXPECT_EQ(self.status, 1);
  EXPECT_EQ(lineCount(self.err), 1u) << self.err;
  EXPECT_NE(self.err.find("cannot draw either"), std::string::npos) << self.err;
  EXPECT_FALSE(fs::exists(out));
  // Commands that draw nothing never look for it.
  const auto m = runCliUnder(env, {"metrics", "--text", "a b c"});
  EXPECT_EQ(m.status, 0) << m.err;
}

}  // namespace
}  // namespace attn::test
