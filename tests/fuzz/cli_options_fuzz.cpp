// The CLI option parser: arguments (one per line of the input) go through the
// real command tree (CLI11 + every command's options) and through the shared
// option validation (buildRequest) without running the engine. Property: a
// parse either succeeds or throws CLI11's ParseError family; validation gives
// a request or a one-line error that names the option.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "commands.h"
#include "fuzz_check.h"
#include "options.h"

namespace {

std::vector<std::string> splitArgs(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"attnscope-cli"};
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) args.push_back(cur);
  return args;
}

/// CLI11 takes char**, so keep the strings alive beside the pointers.
struct Argv {
  explicit Argv(std::vector<std::string>& a) {
    for (auto& s : a) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(ptrs.size()) - 1; }
  char** argv() { return ptrs.data(); }
  std::vector<char*> ptrs;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  auto args = splitArgs(data, size);
  {
    Argv av(args);
    CLI::App app{"fuzz", "attnscope-cli"};
    auto actions = attn::cli::addCommands(app, av.argc(), av.argv());
    try {
      app.parse(av.argc(), av.argv());
    } catch (const CLI::ParseError&) {
      // help, version and every rejection: main() turns these into one line
    }
  }
  // The shared options and their validation, as run/metrics/export apply them.
  Argv av(args);
  CLI::App cmd{"fuzz", "run"};
  cmd.allow_extras();
  attn::cli::CommonOptions opts;
  attn::cli::addCommonOptions(cmd, opts);
  try {
    cmd.parse(av.argc(), av.argv());
  } catch (const CLI::ParseError&) {
    return 0;
  }
  // Seeded embeddings cost tokens x d_model floats; keep each run small.
  if (static_cast<int64_t>(opts.text.size() + opts.keyText.size()) * std::max(opts.dModel, 1) > (int64_t{1} << 22))
    return 0;
  auto req = attn::cli::buildRequest(opts);
  if (!req) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(req.error().message, "--"));
    return 0;
  }
  FUZZ_CHECK(req->second.dModel == opts.dModel && req->second.dModel > 0);
  FUZZ_CHECK(req->first.x.rows() == static_cast<Eigen::Index>(req->first.queryTokens.size()));
  return 0;
}
