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
/// Runs a shell command line with stdin from /dev/null, its stdout and stderr
/// captured through files in a per-process temporary folder.
inline CliResult runCaptured(std::string cmd) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("attn_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  cmd +=
      " >" + shellQuote((dir / "out").string()) + " 2>" + shellQuote((dir / "err").string()) + " </dev/null";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = readFile(dir / "out");
  r.err = readFile(dir / "err");
  return r;
}

inline std::string cliCommandLine(const std::vector<std::string>& args) {
  std::string cmd = shellQuote(ATTN_CLI);
  for (const auto& a : args) cmd += " " + shellQuote(a);
  return cmd;
}

inline CliResult runCliUnder(const std::string& prefix, const std::vector<std::string>& args) {
  const std::string cmd = cliCommandLine(args);
  if (prefix.empty()) return runCaptured(cmd);
  // The redirections apply to bash; exec hands them to the CLI.
  return runCaptured("bash -c " + shellQuote(prefix + "; exec " + cmd));
}

inline CliResult runCli(const std::vector<std::string>& args) { return runCliUnder("", args); }

/// runCli that fails instead of hanging: the CLI is killed after `seconds`
/// (status 124, as timeout(1) reports it).
inline CliResult runCliWithin(int seconds, const std::vector<std::string>& args) {
  return runCaptured("timeout -k 5 " + std::to_string(seconds) + " " + cliCommandLine(args));
}

/// A fresh empty folder for one test's outputs.
inline std::filesystem::path scratchDir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("attn_e2e_" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace attn::test
