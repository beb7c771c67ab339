// attnscope-cli info: what a file holds (names, dtypes, shapes) and which views
// it feeds; for a model folder, its family, sizes, dtype and tokenizer.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "attn/input_file.h"
#include "attn/models/model.h"
#include "commands.h"
#include "model_request.h"

namespace attn::cli {

Action addInfoCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "List the arrays in a tensor file and the views they can feed, "
                                         "or describe a model folder");
  auto file = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, ".npz, .npy, .safetensors or .csv, or a Hugging Face model folder")->required();
  return [cmd, file]() -> int {
    if (!cmd->parsed()) return -1;
    std::error_code ec;
    if (std::filesystem::is_directory(*file, ec)) {
      auto model = models::Model::open(*file);
      if (!model) return fail(model.error().message);
      fmt::print("{}", describeModel((*model)->info()));
      return 0;
    }
    auto in = loadInputFile(*file);
    if (!in) return fail(in.error().message);
    fmt::print("{}", describeInput(*in));
    return 0;
  };
}

}  // namespace attn::cli
