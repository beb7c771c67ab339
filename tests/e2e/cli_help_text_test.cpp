// The help every command prints (and so the man pages generated from it) is for
// users: it names no tracker issue and carries no dated measurement.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace attn::test {
namespace {

const std::vector<std::string> kCommands = {"run",   "export",     "metrics", "info",
                                            "train", "importance", "corpus",  "corpus-merge",
                                            "graph", "geometry",   "lens",    "translate"};

TEST(CliHelpText, NoCommandsHelpNamesAnIssue) {
  const std::regex issue(R"((^|[^A-Za-z])[Ii]ssues? ?#?[0-9]+)");
  std::vector<std::vector<std::string>> calls = {{"--help"}};
  for (const auto& c : kCommands) calls.push_back({c, "--help"});
  for (const auto& args : calls) {
    const CliResult r = runCli(args);
    ASSERT_EQ(r.status, 0) << args.front() << ": " << r.err;
    const std::string text = r.out + r.err;
    EXPECT_GT(text.size(), 100u) << args.front() << " printed almost no help";
    EXPECT_FALSE(std::regex_search(text, issue)) << args.front() << " --help names an issue:\n" << text;
  }
}

}  // namespace
}  // namespace attn::test
