#include "input_options.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "attn/masks/input_mask.h"
#include "attn/io/text_file.h"
#include "attn/io/session.h"
#include "attn/tokenizers/text_tokenizer.h"
#include "figures_program.h"
#include "model_request.h"

#ifdef ATTNSCOPE_HAVE_UI
#include "attn_ui/spatial/image_loader.h"
#endif

namespace attn::cli {

void addInputOptions(CLI::App& cmd, InputOptions& o) {
  auto* text = cmd.add_option("--text", o.text, "Query text (self-attention over its tokens)");
  auto* textFile = cmd.add_option("--text-file", o.textFile, "Query text from a UTF-8 .txt file");
  auto* input = cmd.add_option("--input", o.inputFile,
                               "Tensor file (.npz, .npy, .safetensors, .csv; see `attnscope-cli info FILE`) or a .json session");
  text->excludes(textFile)->excludes(input);
  textFile->excludes(input);
  auto* keyText = cmd.add_option("--key-text", o.keyText, "Key/value text for cross-attention");
  auto* keyFile = cmd.add_option("--key-text-file", o.keyTextFile, "Key/value text from a UTF-8 .txt file");
  keyText->excludes(keyFile)->excludes(input);
  keyFile->excludes(input);
  cmd.add_option("--tokenizer", o.tokenizer, "Tokenizer: words, chars (CJK per character), wordpiece, bpe")
      ->capture_default_str();
  cmd.add_option("--vocab", o.vocab, "WordPiece vocab.txt, or BPE vocab.json");
  cmd.add_option("--merges", o.merges, "BPE merges.txt");
  cmd.add_option("--tokenizer-json", o.tokenizerJson, "Hugging Face tokenizer.json (WordPiece or byte-level BPE)");
  cmd.add_option("--layer", o.layer, "Layer of precomputed 'attn' or of --model to view, 1-based (default: the last)");
  auto* model =
      cmd.add_option("--model", o.modelDir,
                     "Hugging Face model folder (config.json, *.safetensors, tokenizer files) or its cache "
                     "directory models--org--name, or a bundled model's name (austen-gpt2); runs the model "
                     "on --text (--key-text: "
                     "BERT's second segment; a bundled model without --text: its first example sentence)");
  model->excludes(input);
  for (const char* name : {"--tokenizer", "--vocab", "--merges", "--tokenizer-json"})
    model->excludes(cmd.get_option(name));
  cmd.add_option("--pad-to", o.padTo, "With --model: pad the tokens to this length (padding keys are masked)")
      ->needs(model);
  cmd.add_option("--max-tokens", o.maxTokens,
                 "With --model: keep the first N tokens of a longer text (a BERT's [CLS]/[SEP] stay), "
                 "for a model whose context is shorter than the text; the output says how many were cut")
      ->needs(model);
  cmd.add_option("--quantized-dot", o.modelRunOptions.quantizedDot,
                 "With a GGUF --model whose matrices are Q8_0, Q4_K or Q6_K: on (default) multiplies "
                 "8-bit-quantized activations by the "
                 "quantized weights as llama.cpp does; off: the dequantized weights against f32 activations")
      ->needs(model);
  cmd.add_option(
         "--intervene", o.intervene,
         "With --model, repeatable: ablate:L.H, uniform:L.H, temperature:L.H=T or mask:L.H=SPEC "
         "(layer and head from 1); the views show the intervened model. An encoder-decoder model "
         "(run --target-text) names the stack first: encoder:, decoder: or cross:, e.g. cross:ablate:2.3")
      ->needs(model);
  auto* image =
      cmd.add_option("--image", o.image,
                     "Image: self-attention over its --patch squares (row-major tokens r0c0, r0c1, ...); "
                     "with --model (a ViT / DeiT folder): the model's attention over the image, "
                     "preprocessed as its preprocessor_config.json says; "
                     "reads .ppm/.pgm/.npy/.npz, and PNG/JPEG in builds with the GUI");
  for (auto* other : {text, textFile, input, keyText, keyFile}) image->excludes(other);
  cmd.add_option("--patch", o.patch, "With --image (no --model): patch side in pixels")
      ->capture_default_str()
      ->needs(image);
}

Status checkLayerOption(int layer, int layers) {
  if (layer < 0 || layer > layers)
    return Error{fmt::format("--layer: {} is out of range (1..{})", layer, layers)};
  return okStatus();
}

Result<vision::ImagePixels> readImagePixels(const std::string& path) {
#ifdef ATTNSCOPE_HAVE_UI
  return ui::loadImagePixels(QString::fromStdString(path));
#else
  // PNG, JPEG and the rest are decoded by Qt: attnscope-cli-figures runs the
  // command (before any work: inputs are read first).
  if (!vision::coreReadsImage(path) && figuresProgramFound()) std::exit(handOverToFigures("--image"));
  return vision::readImageFile(path);
#endif
}

namespace {

Result<std::vector<std::string>> tokensOf(const TextTokenizer& tok, const std::string& text, const std::string& file,
                                          const char* option) {
  if (file.empty()) return tok.tokenize(text, option);
  auto content = readUtf8TextFile(file);
  if (!content) return content.error();
  return tok.tokenize(*content, file);
}

}  // namespace

Result<AttentionInput> buildInput(const InputOptions& o, AttentionSpec& spec) {
  if (o.inputFile.ends_with(".json")) {
    // A saved session brings its own input and configuration.
    auto session = loadSession(o.inputFile);
    if (!session) return session.error();
    spec = session->spec;
    InputOptions fromSession;
    fromSession.text = session->input.text;
    fromSession.keyText = session->input.keyText;
    fromSession.tokenizer = session->input.tokenizer;
    fromSession.layer = o.layer;
    if (!session->input.file.empty()) {
      namespace fs = std::filesystem;
      const fs::path f(session->input.file);
      fromSession.inputFile = f.is_absolute() ? f.string() : (fs::path(o.inputFile).parent_path() / f).string();
      if (fromSession.inputFile.ends_with(".json"))
        return Error{o.inputFile + ": input.file: a session cannot load another session"};
    } else if (fromSession.text.empty()) {
      return Error{o.inputFile + ": input: the session has neither text nor a file"};
    }
    auto in = buildInput(fromSession, spec);
    o.loaded = fromSession.loaded;
    return in;
  }
  if (!o.modelDir.empty()) {
    auto req = runModelRequest(o, o.modelRunOptions);
    if (!req) return req.error();
    spec = modelSpec(req->model->info(), req->run.encoding);
    AttentionInput in;
    in.queryTokens = req->run.encoding.tokens;
    o.model = std::make_shared<const ModelRequest>(std::move(req).value());
    return in;
  }
  if (!o.image.empty()) {
    auto pixels = readImagePixels(o.image);
    if (!pixels) return pixels.error();
    auto grid = vision::cutPatches(*pixels, o.patch, o.image);
    if (!grid) return grid.error();
    vision::fitSpecToGrid(*grid, spec);
    AttentionInput in = vision::patchInput(*grid);
    o.imagePixels = std::make_shared<const vision::ImagePixels>(std::move(pixels).value());
    o.patchGrid = std::make_shared<const vision::PatchGrid>(std::move(grid).value());
    return in;
  }
  if (!o.inputFile.empty()) {
    Result<LoadedInput> loaded = o.preloaded && o.preloaded->path == o.inputFile
                                     ? Result<LoadedInput>(std::move(*o.preloaded))
                                     : loadInputFile(o.inputFile);
    o.preloaded.reset();
    if (!loaded) return loaded.error();
    if (auto st = fitSpecToInput(loaded->input, spec); !st) return Error{o.inputFile + ": " + st.error().message};
    if (loaded->hasAttention()) {
      if (auto st = checkLayerOption(o.layer, loaded->attention.numLayers()); !st) return st.error();
    }
    // The file's 'mask' is the custom term of the mask (added when --mask names none).
    auto mask = maskWithFileMask(spec.mask, *loaded);
    if (!mask) return mask.error();
    spec.mask = std::move(mask).value();
    AttentionInput in;
    if (loaded->input.isProjected()) {
      // q/k/v move to the request (no second copy); the kept file holds empty
      // heads, so hasEngineInput() still says what the file held.
      std::swap(in, loaded->input);
      loaded->input.queryTokens = in.queryTokens;
      loaded->input.keyTokens = in.keyTokens;
      loaded->input.q.resize(in.q.size());
    } else {
      in = loaded->input;
    }
    o.loaded = std::make_shared<const LoadedInput>(std::move(loaded).value());
    return in;
  }
  if (o.text.empty() && o.textFile.empty())
    return Error{"give the input: --text, --text-file, --input FILE or --image FILE"};
  auto kind = parseTokenizerKind(o.tokenizer);
  if (!kind) return Error{fmt::format("--tokenizer: unknown tokenizer '{}' (words, chars, wordpiece, bpe)", o.tokenizer)};
  auto tok = TextTokenizer::create({*kind, o.vocab, o.merges, o.tokenizerJson});
  if (!tok) return tok.error();
  auto tokens = tokensOf(*tok, o.text, o.textFile, "--text");
  if (!tokens) return tokens.error();
  std::vector<std::string> keyTokens;
  if (!o.keyText.empty() || !o.keyTextFile.empty()) {
    auto k = tokensOf(*tok, o.keyText, o.keyTextFile, "--key-text");
    if (!k) return k.error();
    keyTokens = std::move(k).value();
  }
  if (spec.dModel <= 0) return Error{fmt::format("--d-model must be at least 1 (got {})", spec.dModel)};
  if (spec.dModel > 65536) return Error{fmt::format("--d-model {} is too large (at most 65536)", spec.dModel)};
  return inputFromTokens(std::move(tokens).value(), spec.dModel, spec.seed, std::move(keyTokens));
}

Result<AttentionResult> runRequest(const InputOptions& o, const AttentionInput& input, const AttentionSpec& spec) {
  if (o.model) {
    auto layer = modelLayerIndex(*o.model, o.layer);
    if (!layer) return layer.error();
    return o.model->run.layers[static_cast<size_t>(*layer)];
  }
  if (o.loaded)
    for (const auto& w : o.loaded->warnings) fmt::print(stderr, "warning: {}: {}\n", o.inputFile, w);
  if (o.loaded && !o.loaded->hasEngineInput()) {
    const auto& attn = o.loaded->attention;
    const int layer = o.layer == 0 ? attn.numLayers() - 1 : o.layer - 1;
    return resultFromPrecomputed(attn, layer, o.loaded->input.queryTokens, o.loaded->input.keyTokens);
  }
  return runAttention(input, spec);
}

}  // namespace attn::cli
