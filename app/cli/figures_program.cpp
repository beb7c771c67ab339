#include "figures_program.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "attn/models/bundled_models.h"
#include "commands.h"

namespace attn::cli {
namespace {

// Set in the environment of the program handed over to.
constexpr const char* kHandedOver = "ATTNSCOPE_CLI_HANDED_OVER";

int gArgc = 0;
char** gArgv = nullptr;

// attnscope-cli-figures: ATTNSCOPE_CLI_FIGURES, else the first of
// ATTNSCOPE_FIGURES_DIRS (relative to this program's directory) that holds it.
std::string findFiguresProgram() {
  if (const char* env = std::getenv("ATTNSCOPE_CLI_FIGURES"); env && *env) return env;
#ifdef ATTNSCOPE_FIGURES_PROGRAM
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  std::stringstream dirs(ATTNSCOPE_FIGURES_DIRS);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const auto candidate = (self.parent_path() / dir / ATTNSCOPE_FIGURES_PROGRAM).lexically_normal();
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
#endif
  return {};
}

}  // namespace

void rememberCommandLine(int argc, char** argv) {
  gArgc = argc;
  gArgv = argv;
}

bool figuresProgramFound() { return !findFiguresProgram().empty(); }

int handOverToFigures(const std::string& command, const std::string& hint) {
  const std::string program = findFiguresProgram();
  std::string why = "configured with ATTNSCOPE_BUILD_GUI=OFF";
  if (const char* mark = std::getenv(kHandedOver); mark && *mark) {
    // Handed over already, to a program that cannot draw either (say,
    // ATTNSCOPE_CLI_FIGURES naming attnscope-cli): stop rather than loop.
    why = fmt::format("{} cannot draw either", mark);
  } else if (!program.empty() && gArgv != nullptr && gArgc > 0) {
    std::fflush(stdout);
    std::fflush(stderr);
    ::setenv(kHandedOver, program.c_str(), 1);
    // The renderer lives beside the engine libraries, not in bin/: it looks for
    // bundled models (--model austen-gpt2) where this program does.
    if (const auto dirs = models::bundledModelDirs(); !dirs.empty())
      ::setenv("ATTNSCOPE_MODELS_DIR", dirs.front().c_str(), 0);
    // argv[0] stays what the user typed: messages and --help read the same.
    ::execv(program.c_str(), gArgv);
    why = fmt::format("{}: {}", program, std::strerror(errno));
    ::unsetenv(kHandedOver);
  }
#ifdef ATTNSCOPE_FIGURES_PROGRAM
  else if (program.empty()) {
    why = "attnscope-cli-figures is not installed next to the engine";
  }
#endif
  return fail(fmt::format("{}: this build has no figure renderer ({}){}", command, why, hint));
}

}  // namespace attn::cli
