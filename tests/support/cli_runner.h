#pragma once
// Runs attnscope-cli as a subprocess and captures exit status, stdout, stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// 1 when the CLI under test draws figures, 0 in a build configured with
// ATTNSCOPE_BUILD_GUI=OFF (the sanitizer build), whose CLI refuses them by design.
#ifndef ATTN_CLI_DRAWS
#define ATTN_CLI_DRAWS 1
#endif

/// First statement of a test about figures: skips it, saying why, where the CLI cannot draw.
#define ATTN_SKIP_WITHOUT_FIGURES()                                                   \
  if (!ATTN_CLI_DRAWS)                                                               \
  GTEST_SKIP() << "this build's CLI has no figure renderer (ATTNSCOPE_BUILD_GUI=OFF)"

namespace attn::test {

struct CliResult {
  int status = -1;
  std::string out, err;
};

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Runs the CLI after a bash prefix (ulimit, an exported variable) that runCli
/// cannot express; with an empty prefix, as runCli does.
inline CliResult runCliUnder(const std::string& prefix, const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("attn_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string cmd = shellQuote(ATTN_CLI);
  for (const auto& a : args) cmd += " " + shellQuote(a);
  cmd += " >" + shellQuote((dir / "out").string()) + " 2>" + shellQuote((dir / "err").string()) + " </dev/null";
  if (!prefix.empty()) cmd = "bash -c " + shellQuote(prefix + "; exec " + cmd);
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = readFile(dir / "out");
  r.err = readFile(dir / "err");
  return r;
}

inline CliResult runCli(const std::vector<std::string>& args) { return runCliUnder("", args); }

/// runCli that fails instead of hanging: the CLI is killed after `seconds`
/// (status 124, as timeout(1) reports it).
inline CliResult runCliWithin(int seconds, const std::vector<std::string>& args) {
  std::vector<std::string> wrapped{"-k", "5", std::to_string(seconds), ATTN_CLI};
  wrapped.insert(wrapped.end(), args.begin(), args.end());
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("attn_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string cmd = "timeout";
  for (const auto& a : wrapped) cmd += " " + shellQuote(a);
  cmd +=
      " >" + shellQuote((dir / "out").string()) + " 2>" + shellQuote((dir / "err").string()) + " </dev/null";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = readFile(dir / "out");
  r.err = readFile(dir / "err");
  return r;
}

/// A fresh empty folder for one test's outputs.
inline std::filesystem::path scratchDir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("attn_e2e_" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace attn::test
