// attnscope-cli: the same core calls and exporters as the GUI, headless.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <exception>
#include <new>

#include "attn/engine/large_pages.h"
#include "commands.h"
#include "openmp_wait.h"

int main(int argc, char** argv) {
  using namespace attn::cli;
  passiveOpenMpUnderLoad(argv);
  attn::preferLargePages();
  // Over a file-size limit (ulimit -f), write(2) then fails with EFBIG and the
  // atomic writer reports it and removes its temporary, instead of the default
  // SIGXFSZ killing the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"AttnScope: compute, analyze and export attention, headless", "attnscope-cli"};
  std::vector<Action> actions = addCommands(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, not the whole help text.
    return fail(fmt::format("{} (see attnscope-cli --help)", e.what()));
  }
  // The engine refuses work over its memory budget; this is the last line for
  // anything else that runs out (a huge figure, a loader limit set too high).
  try {
    for (auto& action : actions)
      if (int rc = action(); rc >= 0) return rc;
  } catch (const std::bad_alloc&) {
    return fail("out of memory: the request needs more memory than is available "
                "(try fewer tokens or heads, or --exec tiled for metrics)");
  } catch (const std::exception& e) {
    return fail(fmt::format("internal error: {}", e.what()));
  }
  return fail("no command given");
}
