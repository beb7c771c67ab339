// attnscope-cli info: what a file holds (names, dtypes, shapes) and which views it feeds.
#include <fmt/format.h>

#include <memory>

#include "attn/input_file.h"
#include "commands.h"

namespace attn::cli {

Action addInfoCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "List the arrays in a tensor file and the views they can feed");
  auto file = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, ".npz, .npy, .safetensors or .csv")->required();
  return [cmd, file]() -> int {
    if (!cmd->parsed()) return -1;
    auto in = loadInputFile(*file);
    if (!in) return fail(in.error().message);
    fmt::print("{}", describeInput(*in));
    return 0;
  };
}

}  // namespace attn::cli
