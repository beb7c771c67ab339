// attnscope-cli: the same core calls and exporters as the GUI, headless.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "commands.h"

namespace attn::cli {

int fail(const std::string& message) {
  fmt::print(stderr, "attnscope-cli: error: {}\n", message);
  return 1;
}

Status checkOverwrite(const std::string& path, bool force) {
  if (force || !std::filesystem::exists(path)) return okStatus();
  return Error{fmt::format("{}: file exists (use --force to overwrite)", path)};
}

}  // namespace attn::cli

int main(int argc, char** argv) {
  using namespace attn::cli;
  CLI::App app{"AttnScope: compute, analyze and export attention, headless", "attnscope-cli"};
  app.set_version_flag("--version", ATTNSCOPE_VERSION);
  app.require_subcommand(1);
  std::vector<Action> actions{addRunCommand(app), addExportCommand(app, argc, argv),
                             addMetricsCommand(app), addInfoCommand(app)};
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
  for (auto& action : actions)
    if (int rc = action(); rc >= 0) return rc;
  return fail("no command given");
}
