#pragma once
// Where run/metrics/export take their sequence from: --text / --text-file
// (with a tokenizer), or --input FILE (tensors in the file contract).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "attn/engine.h"
#include "attn/io/input_file.h"
#include "attn/models/model.h"
#include "attn/vision/image_patches.h"

namespace attn::cli {

struct ModelRequest;

struct InputOptions {
  std::string text, keyText;
  std::string textFile, keyTextFile;
  std::string inputFile;
  std::string tokenizer = "words";
  std::string vocab, merges, tokenizerJson;
  int layer = 0;  // 1-based layer of precomputed `attn` or of --model; 0 = last
  std::string modelDir;  // --model: a Hugging Face model folder (or its cache directory)
  int padTo = 0;         // --pad-to: pad the model's tokens to this length (attention 0)
  int maxTokens = 0;     // --max-tokens: keep the first N tokens of a longer --model input (0: all)
  // metrics --window W [--stride S]: a text past the model's context read through a sliding
  // window (models/streamed/windowed_run.h); 0: no window. stride 0: half the window.
  int window = 0, stride = 0;
  std::string backend = "cpu";     // --backend: cpu, cuda, auto (the engine's, and the --model forward's)
  std::string gpuInputs = "fp32";  // --gpu-inputs: fp32, fp16, bf16 (the engine's Q/K/V; --model: the GEMMs)
  // Set while encoding with --max-tokens: how many tokens the whole text had (0: not cut).
  mutable int untruncatedTokens = 0;
  std::vector<std::string> intervene;  // --intervene SPEC (repeatable): per-head interventions on --model
  bool quantizationEffect = false;     // run --quantization-effect: the GGUF model run both ways, compared
  std::string image;  // --image: attention over the image's patches
  int patch = 16;     // --patch: patch side in pixels
  // Set while building the request with --image: the pixels and the patch grid.
  mutable std::shared_ptr<const vision::ImagePixels> imagePixels;
  mutable std::shared_ptr<const vision::PatchGrid> patchGrid;
  // What a --model run keeps; commands set it before building the request.
  models::RunOptions modelRunOptions;
  // Set while building the request: the file loaded with --input, kept for
  // commands that view its precomputed weights.
  mutable std::shared_ptr<const LoadedInput> loaded;
  // A command that already loaded --input (to see what it holds) hands it over
  // here; building the request then takes it instead of reading the file again.
  mutable std::shared_ptr<LoadedInput> preloaded;
  // Set while building the request with --model: the model and its run.
  mutable std::shared_ptr<const ModelRequest> model;
};

void addInputOptions(CLI::App& cmd, InputOptions& o);

/// Decodes an image file: .ppm/.pgm/.npy/.npz in core, PNG/JPEG/BMP through Qt's reader in
/// builds with the GUI (else handed over to attnscope-cli-figures). Errors name the file.
Result<vision::ImagePixels> readImagePixels(const std::string& path);

/// The one check of --layer (1-based, 0 = the last) against an input of `layers`
/// layers, for every command: the same message whichever command was given.
Status checkLayerOption(int layer, int layers);

/// The engine input the options describe; adapts `spec` sizes to loaded
/// tensors. Errors name the option or the file and the fault.
Result<AttentionInput> buildInput(const InputOptions& o, AttentionSpec& spec);

/// Runs the engine, or, for a file holding only precomputed `attn`, returns
/// the chosen layer's weights and entropy as they are; with --model, the chosen
/// layer (--layer, default the last) of the model's run.
Result<AttentionResult> runRequest(const InputOptions& o, const AttentionInput& input, const AttentionSpec& spec);

}  // namespace attn::cli
