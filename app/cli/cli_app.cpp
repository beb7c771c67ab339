// The command tree, shared by main() and the option-parser fuzz target.
#include <fmt/format.h>

#include <filesystem>

#include "commands.h"
#include "figures_program.h"

namespace attn::cli {

int fail(const std::string& message) {
  fmt::print(stderr, "attnscope-cli: error: {}\n", message);
  return 1;
}

Status checkOverwrite(const std::string& path, bool force) {
  if (force || !std::filesystem::exists(path)) return okStatus();
  return Error{fmt::format("{}: file exists (use --force to overwrite)", path)};
}

std::vector<Action> addCommands(CLI::App& app, int argc, char** argv) {
  rememberCommandLine(argc, argv);
  app.set_version_flag("--version", ATTNSCOPE_VERSION);
  app.require_subcommand(1);
  return {addRunCommand(app),
          addExportCommand(app, argc, argv),
          addMetricsCommand(app),
          addInfoCommand(app),
          addCorpusCommand(app),
          addImportanceCommand(app),
          addHeadsCommand(app),
          addPatchCommand(app),
          addLensCommand(app),
          addRoutesCommand(app),
          addGradientsCommand(app),
          addTrainCommand(app),
          addGraphCommand(app, argc, argv),
          addGeometryCommand(app, argc, argv),
          addTranslateCommand(app),
          addGenerateCommand(app)};
}

}  // namespace attn::cli
