// attnscope-cli info: what a file holds (names, dtypes, shapes) and which views
// it feeds; for a model folder, its family, sizes, dtype and tokenizer;
// with --system, the build and run-time facts a bug report needs.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "attn/engine/memory_budget.h"
#include "attn/engine/system_info.h"
#include "attn/io/input_file.h"
#include "attn/models/bundled_models.h"
#include "attn/models/gguf/gguf_file.h"
#include "attn/models/gguf/ollama_store.h"
#include "attn/models/model.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "commands.h"
#include "figures_program.h"
#include "model_request.h"

#ifdef ATTNSCOPE_HAVE_UI
#include <QtGlobal>
#endif

namespace attn::cli {
namespace {

// One line per bundled model: its name, language and where it is installed, so
// a user (and the package test) sees which of them this installation has.
int printBundledModels() {
  int missing = 0;
  for (const auto& m : models::bundledModels()) {
    const auto path = models::bundledModelPath(m.name);
    missing += path ? 0 : 1;
    fmt::print("{:<18} {:<3} {}\n", m.name, m.language.empty() ? "-" : m.language,
               path ? *path : std::string("not installed"));
  }
  if (missing > 0) fmt::print("(looked in {})\n", models::bundledModelDirsText());
  return 0;
}

}  // namespace

namespace {

/// `info` on an encoder-decoder folder: its two stacks, tokenizer and generation settings.
int printSeq2SeqInfo(const std::string& dir) {
  auto model = models::Seq2SeqModel::open(dir);
  if (!model) return fail(model.error().message);
  const models::Seq2SeqInfo& i = (*model)->info();
  const models::GenerationSettings& g = i.generation;
  fmt::print("model: {} ({}, encoder-decoder) in {}\n", i.name, i.modelType, i.dir);
  fmt::print(
      "encoder: {} layers x {} heads; decoder: {} layers x {} heads; d_model {}; vocabulary {}; "
      "positions {}\n",
      i.encoderLayers, i.encoderHeads, i.decoderLayers, i.decoderHeads, i.dModel, i.vocabSize,
      i.maxPositions);
  fmt::print("parameters: {} ({})\ntokenizer: {}\n", i.parameters, i.dtype, i.tokenizerKind);
  fmt::print(
      "generation: decoder_start_token_id {}, eos_token_id {}, forced_bos_token_id {}, forced_eos_token_id "
      "{}, max_length {}, num_beams {} (from {})\n",
      g.decoderStartTokenId, g.eosText(), g.forcedBosTokenId, g.forcedEosText(), g.maxLength, g.numBeams,
      g.source);
  fmt::print(
      "views: encoder, decoder and cross-attention with `run --model DIR --text SRC --target-text TGT` "
      "or `translate --model DIR --text SRC`\n");
  return 0;
}

}  // namespace

Action addInfoCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "List the arrays in a tensor file and the views they can feed, "
                                         "or describe a model folder; --system: version, kernel level, "
                                         "threads, backends and library versions");
  auto file = std::make_shared<std::string>();
  auto system = std::make_shared<bool>(false);
  auto bundled = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file,
                  ".npz, .npy, .safetensors or .csv, a Hugging Face model folder or a GGUF model file");
  cmd->add_flag("--system", *system,
                "Print the version, the kernel level chosen (ATTNSCOPE_CPU forces one), the thread count, "
                "the backends found and the Qt/Eigen versions");
  cmd->add_flag("--bundled", *bundled,
                "List the models the project ships (austen-gpt2, ...) and the folder each is installed in");
  return [cmd, file, system, bundled]() -> int {
    if (!cmd->parsed()) return -1;
    if (*bundled) return printBundledModels();
    if (*system) {
#ifndef ATTNSCOPE_HAVE_UI
      // Qt's version is attnscope-cli-figures' to tell (this program never loads Qt).
      if (figuresProgramFound()) return handOverToFigures("info --system");
#endif
      std::vector<std::pair<std::string, std::string>> extra{{"AttnScope", ATTNSCOPE_VERSION}};
#ifdef ATTNSCOPE_HAVE_UI
      extra.emplace_back("Qt", fmt::format("{} (built with {})", qVersion(), QT_VERSION_STR));
#else
      extra.emplace_back("Qt", "not in this build");
#endif
      fmt::print("{}", describeSystem(systemInfo(), extra));
      if (file->empty()) return 0;
      fmt::print("\n");
    }
    if (file->empty()) return fail("info: give a FILE (or --system, or --bundled)");
    std::error_code ec;
    // A folder, a GGUF file (or ollama:NAME), or the name of a bundled model (austen-gpt2) where
    // no such file is here.
    if (std::filesystem::is_directory(*file, ec) || models::gguf::looksLikeGguf(*file) ||
        file->ends_with(".gguf") || file->starts_with(models::gguf::kOllamaPrefix) ||
        (!std::filesystem::exists(*file, ec) && models::findBundledModel(*file))) {
      if (models::isEncoderDecoderFolder(*file)) return printSeq2SeqInfo(*file);
      auto model = models::Model::open(*file);
      if (!model) return fail(model.error().message);
      const auto& info = (*model)->info();
      fmt::print("{}", describeModel(info));
      if (!info.vision) {  // what a streamed run (run --model with --head/--rows/--pool) keeps to recompute
                           // maps
        const int n = info.maxPositions > 0 ? info.maxPositions : 8192;
        fmt::print(
            "streamed q/k store: {} per 1,024 tokens, {} at {} tokens (f16; bf16 the same, f32 twice)\n",
            formatBytes(models::QkStore::bytesFor(info.layers, 1024, info.heads, info.kvHeads, info.headDim,
                                                  models::QkPrecision::F16)),
            formatBytes(models::QkStore::bytesFor(info.layers, n, info.heads, info.kvHeads, info.headDim,
                                                  models::QkPrecision::F16)),
            n);
      }
      return 0;
    }
    auto in = loadInputFile(*file);
    if (!in) return fail(in.error().message);
    fmt::print("{}", describeInput(*in));
    return 0;
  };
}

}  // namespace attn::cli
