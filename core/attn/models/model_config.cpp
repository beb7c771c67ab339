#include "attn/models/model_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "attn/io/json_document.h"
#include "attn/io/json_fields.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/models/bundled_models.h"
#include "attn/models/model_paths.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/models/vision_config.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Bounds no real checkpoint comes near; they keep every size product far from
// overflow before a tensor shape is ever compared.
constexpr int64_t kMaxLayers = 1024, kMaxWidth = int64_t{1} << 17, kMaxVocab = int64_t{1} << 24,
                  kMaxPositions = int64_t{1} << 24;

using Reader = JsonFields;

#define ATTN_TRY(var, expr)              \
  auto var##_r = (expr);                 \
  if (!var##_r) return var##_r.error();  \
  auto var = std::move(*var##_r)

Result<Activation> activationFrom(const std::string& name, const std::string& key, const std::string& src) {
  // transformers.activations.ACT2FN names.
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::GeluNew;
  if (name == "gelu") return Activation::GeluErf;
  if (name == "relu") return Activation::Relu;
  if (name == "silu" || name == "swish") return Activation::Silu;
  if (name == "quick_gelu") return Activation::QuickGelu;  // CLIP: x * sigmoid(1.702 x)
  return Error{
      fmt::format("{}: {} {} is not supported (gelu, gelu_new, gelu_pytorch_tanh, relu, silu, quick_gelu)",
                  src, key, quoteForMessage(name))};
}

Status readGpt2(const Reader& r, ModelConfig& c) {
  ATTN_TRY(layers, r.integer("n_layer", std::nullopt, 1, kMaxLayers));
  ATTN_TRY(heads, r.integer("n_head", std::nullopt, 1, kMaxWidth));
  ATTN_TRY(d, r.integer("n_embd", std::nullopt, 1, kMaxWidth));
  ATTN_TRY(ctx, r.integer("n_ctx", 1024, 1, kMaxPositions));
  ATTN_TRY(pos, r.integer("n_positions", ctx, 1, kMaxPositions));
  ATTN_TRY(vocab, r.integer("vocab_size", std::nullopt, 1, kMaxVocab));
  ATTN_TRY(inner, r.integer("n_inner", int64_t{4} * d, 0, 4 * kMaxWidth));  // 0: attention-only blocks
  ATTN_TRY(eps, r.number("layer_norm_epsilon", 1e-5, 0, 1));
  ATTN_TRY(act, r.string("activation_function", "gelu_new"));
  ATTN_TRY(a, activationFrom(act, "activation_function", r.src));
  ATTN_TRY(inv, r.boolean("scale_attn_by_inverse_layer_idx", false));
  ATTN_TRY(tie, r.boolean("tie_word_embeddings", true));  // false: GPT2LMHeadModel's own lm_head.weight
  c.family = Family::Gpt2;
  c.layers = layers, c.heads = heads, c.kvHeads = heads, c.dModel = d, c.intermediate = inner;
  c.maxPositions = pos, c.vocabSize = vocab, c.normEps = eps, c.activation = a, c.scaleByInverseLayer = inv;
  if (d % heads != 0) return Error{fmt::format("{}: n_embd {} is not a multiple of n_head {}", r.src, d, heads)};
  c.headDim = d / heads;
  c.attentionBias = c.outputBias = c.mlpBias = true;
  c.tieWordEmbeddings = tie;
  return okStatus();
}

Status readBert(const Reader& r, ModelConfig& c, bool roberta) {
  ATTN_TRY(layers, r.integer("num_hidden_layers", std::nullopt, 1, kMaxLayers));
  ATTN_TRY(heads, r.integer("num_attention_heads", std::nullopt, 1, kMaxWidth));
  ATTN_TRY(d, r.integer("hidden_size", std::nullopt, 1, kMaxWidth));
  ATTN_TRY(inter, r.integer("intermediate_size", std::nullopt, 1, 4 * kMaxWidth));
  ATTN_TRY(pos, r.integer("max_position_embeddings", 512, 1, kMaxPositions));
  ATTN_TRY(types, r.integer("type_vocab_size", 2, 0, 1024));
  ATTN_TRY(vocab, r.integer("vocab_size", std::nullopt, 1, kMaxVocab));
  ATTN_TRY(eps, r.number("layer_norm_eps", 1e-12, 0, 1));
  ATTN_TRY(act, r.string("hidden_act", "gelu"));
  ATTN_TRY(a, activationFrom(act, "hidden_act", r.src));
  ATTN_TRY(pad, r.integer("pad_token_id", roberta ? 1 : 0, 0, kMaxVocab));
  ATTN_TRY(posType, r.string("position_embedding_type", "absolute"));
  ATTN_TRY(tie, r.boolean("tie_word_embeddings", true));  // the masked-LM decoder (PretrainedConfig default)
  if (posType != "absolute")
    return Error{fmt::format("{}: position_embedding_type {} is not supported (only 'absolute')", r.src,
                             quoteForMessage(posType))};
  if (d % heads != 0)
    return Error{fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {}", r.src, d, heads)};
  c.family = Family::Bert;
  c.layers = layers, c.heads = heads, c.kvHeads = heads, c.dModel = d, c.headDim = d / heads;
  c.intermediate = inter, c.maxPositions = pos, c.typeVocabSize = types, c.vocabSize = vocab;
  c.normEps = eps, c.activation = a, c.padTokenId = pad, c.tieWordEmbeddings = tie;
  // RoBERTa numbers positions from padding_idx + 1 (create_position_ids_from_input_ids).
  c.positionOffset = roberta ? pad + 1 : 0;
  if (c.positionOffset >= pos)
    return Error{fmt::format("{}: max_position_embeddings {} leaves no position after pad_token_id {}", r.src, pos,
                             pad)};
  c.attentionBias = c.outputBias = c.mlpBias = true;
  return okStatus();
}

/// DistilBERT (Sanh et al. 2019): BERT's post-LayerNorm blocks without token types, under
/// transformers' DistilBertConfig names; its LayerNorms all use eps 1e-12 (modeling_distilbert.py).
Status readDistilBert(const Reader& r, ModelConfig& c) {
  ATTN_TRY(d, r.integer("dim", std::nullopt, 1, kMaxWidth));
  ATTN_TRY(layers, r.integer("n_layers", std::nullopt, 1, kMaxLayers));
  ATTN_TRY(heads, r.integer("n_heads", std::nullopt, 1, kMaxWidth));
  ATTN_TRY(inter, r.integer("hidden_dim", 3072, 1, 4 * kMaxWidth));  // DistilBertConfig's default
  ATTN_TRY(pos, r.integer("max_position_embeddings", 512, 1, kMaxPositions));
  ATTN_TRY(vocab, r.integer("vocab_size", std::nullopt, 1, kMaxVocab));
  ATTN_TRY(act, r.string("activation", "gelu"));
  ATTN_TRY(a, activationFrom(act, "activation", r.src));
  ATTN_TRY(sinusoidal, r.boolean("sinusoidal_pos_embds", false));
  ATTN_TRY(pad, r.integer("pad_token_id", 0, 0, kMaxVocab));
  ATTN_TRY(tie, r.boolean("tie_word_embeddings", true));  // vocab_projector is the word embedding
  if (d % heads != 0)
    return Error{fmt::format("{}: dim {} is not a multiple of n_heads {}", r.src, d, heads)};
  c.family = Family::Bert;
  c.layers = layers, c.heads = heads, c.kvHeads = heads, c.dModel = d, c.headDim = d / heads;
  c.intermediate = inter, c.maxPositions = pos, c.typeVocabSize = 0, c.vocabSize = vocab;
  c.normEps = 1e-12, c.activation = a, c.padTokenId = pad, c.tieWordEmbeddings = tie;
  c.positionOffset = 0, c.sinusoidalPositions = sinusoidal;
  c.attentionBias = c.outputBias = c.mlpBias = true;
  return okStatus();
}

Status readLlama(const Reader& r, ModelConfig& c) {
  ATTN_TRY(layers, r.integer("num_hidden_layers", std::nullopt, 1, kMaxLayers));
  ATTN_TRY(heads, r.integer("num_attention_heads", std::nullopt, 1, kMaxWidth));
  ATTN_TRY(kv, r.integer("num_key_value_heads", heads, 1, kMaxWidth));
  ATTN_TRY(d, r.integer("hidden_size", std::nullopt, 1, kMaxWidth));
  if (!r.find("head_dim") && d % heads != 0)
    return Error{fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {}", r.src, d, heads)};
  ATTN_TRY(hd, r.integer("head_dim", d / heads, 2, kMaxWidth));
  ATTN_TRY(inter, r.integer("intermediate_size", std::nullopt, 1, 8 * kMaxWidth));
  ATTN_TRY(pos, r.integer("max_position_embeddings", 2048, 1, kMaxPositions));
  ATTN_TRY(vocab, r.integer("vocab_size", std::nullopt, 1, kMaxVocab));
  ATTN_TRY(eps, r.number("rms_norm_eps", 1e-6, 0, 1));
  ATTN_TRY(theta, r.number("rope_theta", 10000.0, 1e-3, 1e12));
  ATTN_TRY(tie, r.boolean("tie_word_embeddings", false));
  ATTN_TRY(bias, r.boolean("attention_bias", false));
  ATTN_TRY(mlpBias, r.boolean("mlp_bias", false));
  ATTN_TRY(act, r.string("hidden_act", "silu"));
  ATTN_TRY(a, activationFrom(act, "hidden_act", r.src));
  if (heads % kv != 0)
    return Error{fmt::format("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}", r.src, heads,
                             kv)};
  if (hd % 2 != 0) return Error{fmt::format("{}: head_dim {} must be even for RoPE", r.src, hd)};
  c.family = Family::Llama;
  c.layers = layers, c.heads = heads, c.kvHeads = kv, c.dModel = d, c.headDim = hd, c.intermediate = inter;
  c.maxPositions = pos, c.vocabSize = vocab, c.normEps = eps, c.ropeTheta = theta, c.activation = a;
  c.tieWordEmbeddings = tie, c.mlpBias = mlpBias;
  if (c.modelType == "qwen2") {
    c.attentionBias = true;  // Qwen2Attention: q/k/v always biased, o_proj never
    ATTN_TRY(sliding, r.boolean("use_sliding_window", false));
    if (sliding) return Error{r.src + ": use_sliding_window true is not supported for qwen2"};
  } else {
    c.attentionBias = c.outputBias = bias;
  }
  if (c.modelType == "mistral") {
    ATTN_TRY(window, r.integer("sliding_window", 0, 0, kMaxPositions));
    c.slidingWindow = window;
  }
  if (const json* rs = r.find("rope_scaling")) {
    if (!rs->is_object()) return Error{r.src + ": 'rope_scaling' must be an object or null"};
    const Reader s{*rs, r.src};
    ATTN_TRY(type0, s.string("type", ""));
    ATTN_TRY(type, s.string("rope_type", type0));
    if (type == "llama3" || type == "linear") {
      c.ropeScaling.type = type;
      ATTN_TRY(factor, s.number("factor", 1.0, 1e-6, 1e6));
      c.ropeScaling.factor = factor;
      if (type == "llama3") {
        ATTN_TRY(lo, s.number("low_freq_factor", 1.0, 1e-6, 1e6));
        ATTN_TRY(hi, s.number("high_freq_factor", 4.0, 1e-6, 1e6));
        ATTN_TRY(orig, s.number("original_max_position_embeddings", 8192, 1, 1e9));
        if (!(hi > lo)) return Error{r.src + ": rope_scaling high_freq_factor must exceed low_freq_factor"};
        c.ropeScaling.lowFreqFactor = lo, c.ropeScaling.highFreqFactor = hi, c.ropeScaling.originalMaxPositions = orig;
      }
    } else if (type != "default" && !type.empty()) {
      return Error{fmt::format("{}: rope_scaling type {} is not supported (default, linear, llama3)", r.src,
                               quoteForMessage(type))};
    }
  }
  return okStatus();
}

/// id2label {"0": "tabby cat", ...}: labels by id; every key a number below kMaxLabels.
Status readLabels(const Reader& r, ModelConfig& c) {
  constexpr int64_t kMaxLabels = int64_t{1} << 20;
  const json* m = r.find("id2label");
  if (!m) {  // PretrainedConfig's default: num_labels 2
    c.labels = {"LABEL_0", "LABEL_1"};
    return okStatus();
  }
  if (!m->is_object()) return Error{r.src + ": 'id2label' must be an object"};
  if (static_cast<int64_t>(m->size()) > kMaxLabels)
    return Error{fmt::format("{}: 'id2label' has {} entries, at most {}", r.src, m->size(), kMaxLabels)};
  int64_t top = -1;
  for (const auto& [key, value] : m->items()) {
    char* end = nullptr;
    const long long id = std::strtoll(key.c_str(), &end, 10);
    if (key.empty() || *end != '\0' || id < 0 || id >= static_cast<long long>(m->size()) ||
        !value.is_string())
      return Error{fmt::format("{}: 'id2label' entry {} must map an id 0 to {} to a string", r.src,
                               quoteForMessage(key), m->size() - 1)};
    top = std::max<int64_t>(top, id);
  }
  c.labels.assign(static_cast<size_t>(top + 1), std::string());
  for (const auto& [key, value] : m->items()) c.labels[std::stoul(key)] = value.get<std::string>();
  return okStatus();
}

/// ViT (Dosovitskiy et al. 2021) and DeiT (Touvron et al. 2021, with the distillation token):
/// transformers' ViTConfig / DeiTConfig.
Status readVit(const Reader& r, ModelConfig& c) {
  ATTN_TRY(layers, r.integer("num_hidden_layers", 12, 1, kMaxLayers));
  ATTN_TRY(heads, r.integer("num_attention_heads", 12, 1, kMaxWidth));
  ATTN_TRY(d, r.integer("hidden_size", 768, 1, kMaxWidth));
  ATTN_TRY(inter, r.integer("intermediate_size", 3072, 1, 4 * kMaxWidth));
  ATTN_TRY(eps, r.number("layer_norm_eps", 1e-12, 0, 1));
  ATTN_TRY(act, r.string("hidden_act", "gelu"));
  ATTN_TRY(a, activationFrom(act, "hidden_act", r.src));
  ATTN_TRY(image, r.integer("image_size", 224, 1, 8192));
  ATTN_TRY(patch, r.integer("patch_size", 16, 1, 8192));
  ATTN_TRY(channels, r.integer("num_channels", 3, 1, 3));
  ATTN_TRY(qkvBias, r.boolean("qkv_bias", true));
  if (auto st = checkVisionGrid(r.src, d, heads, image, patch, channels); !st) return st;
  const int64_t grid = image / patch;
  c.family = Family::Vit;
  c.layers = layers, c.heads = heads, c.kvHeads = heads, c.dModel = d, c.headDim = d / heads,
  c.intermediate = inter;
  c.normEps = eps, c.activation = a, c.imageSize = image, c.patchSize = patch, c.numChannels = channels;
  c.prefixTokens = c.modelType == "deit" ? 2 : 1;
  c.maxPositions = static_cast<int>(grid * grid) + c.prefixTokens;  // rows of position_embeddings
  c.attentionBias = qkvBias, c.outputBias = c.mlpBias = true;
  c.vocabSize = 0, c.typeVocabSize = 0;
  return readLabels(r, c);
}

}  // namespace

Result<Activation> parseActivation(const std::string& name, const std::string& key, const std::string& src) {
  return activationFrom(name, key, src);
}

namespace {

/// The snapshot hash in a cache's refs/main: "" when there is no such file
/// (the newest snapshot is used instead); a FIFO, a device or an oversized
/// file in its place is an error.
Result<std::string> readRefsMain(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(p, ec))) return std::string();
  auto ref = readRegularFile(p.string(), file_limit::kRefsMain, /*allowEmpty=*/true);
  if (!ref) return ref.error();
  return ref->substr(0, ref->find_first_of(" \r\n"));
}

}  // namespace

Result<ModelConfig> parseModelConfig(std::string_view text, const std::string& src) {
  auto parsed = parseJsonText(text, src);
  if (!parsed) return parsed.error();
  const json& doc = *parsed;
  if (!doc.is_object()) return Error{src + ": expected a JSON object"};
  const Reader r{doc, src};
  ModelConfig c;
  auto type = r.string("model_type", "");
  if (!type) return type.error();
  c.modelType = *type;
  if (c.modelType.empty()) return Error{src + ": missing 'model_type'"};
  Status st = okStatus();
  if (c.modelType == "gpt2") st = readGpt2(r, c);
  else if (c.modelType == "bert" || c.modelType == "roberta" || c.modelType == "xlm-roberta")
    st = readBert(r, c, c.modelType != "bert");  // XLM-R: RoBERTa's architecture (Conneau et al. 2020)
  else if (c.modelType == "distilbert")
    st = readDistilBert(r, c);
  else if (c.modelType == "llama" || c.modelType == "mistral" || c.modelType == "qwen2") st = readLlama(r, c);
  else if (c.modelType == "vit" || c.modelType == "deit")
    st = readVit(r, c);
  else if (c.modelType == "dinov2" || c.modelType == "dinov2_with_registers")
    st = readDinov2Config(r, c);
  else if (c.modelType == "clip_vision_model" || c.modelType == "clip")
    st = readClipVisionConfig(r, c);
  else if (isEncoderDecoderType(c.modelType))
    return Error{
        fmt::format("{}: model_type {} is an encoder-decoder (translation) model: open it with "
                    "`attnscope-cli translate` or `run --target-text`, not here",
                    src, quoteForMessage(c.modelType))};
  else
    return Error{fmt::format(
        "{}: model_type {} is not supported (gpt2, bert, roberta, xlm-roberta, distilbert, llama, mistral, "
        "qwen2, vit, deit, dinov2, dinov2_with_registers, clip_vision_model, clip (its vision tower); "
        "encoder-decoder: bart)",
        src, quoteForMessage(c.modelType))};
  if (!st) return st.error();
  // Only padding (Model::encode's padTo) reads it outside BERT: a missing or odd value is no fault.
  if (c.family != Family::Bert && c.family != Family::Vit)
    if (const json* pad = r.find("pad_token_id"); pad && pad->is_number_integer() && pad->get<int64_t>() >= 0 &&
                                                  pad->get<int64_t>() < c.vocabSize)
      c.padTokenId = static_cast<int>(pad->get<int64_t>());
  return c;
}

// A bundled model's name (austen-gpt2) where no folder of that name exists here.
static Result<ModelFolder> resolveBundledFolder(const std::string& name) {
  if (auto dir = bundledModelPath(name)) return ModelFolder{*dir, name};
  return Error{
      fmt::format("{}: no such folder, and the bundled model of that name is not installed (looked in {})",
                  name, bundledModelDirsText())};
}

Result<ModelFolder> resolveModelFolder(const std::string& path) {
  std::error_code ec;
  fs::path p(path);
  if (path.empty()) return Error{"model folder: no path given"};
  if (!fs::exists(p, ec)) {
    if (findBundledModel(path)) return resolveBundledFolder(path);
    return Error{path + ": no such folder"};
  }
  if (!fs::is_directory(p, ec)) return Error{path + ": not a folder (expected a model folder with config.json)"};
  p = p.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  auto cacheName = [](const std::string& base) {
    std::string n;  // after "models--", each "--" back to "/"
    for (size_t i = 8; i < base.size(); ++i) {
      if (base.compare(i, 2, "--") == 0) {
        n += '/';
        ++i;
      } else {
        n += base[i];
      }
    }
    return n;
  };
  // Present in any form (a FIFO too): reading it then says what is wrong with it.
  if (fs::exists(fs::symlink_status(p / "config.json", ec))) {
    std::string name = p.filename().string();
    // models--org--name/snapshots/<hash>
    const fs::path snaps = p.parent_path(), cache = snaps.parent_path();
    if (snaps.filename() == "snapshots" && cache.filename().string().starts_with("models--"))
      name = cacheName(cache.filename().string());
    return ModelFolder{p.string(), name};
  }
  if (fs::is_directory(p / "snapshots", ec)) {
    fs::path snap;
    if (auto st = checkModelFilePath(p.string(), (p / "refs" / "main").string()); !st) return st.error();
    auto ref = readRefsMain(p / "refs" / "main");
    if (!ref) return ref.error();
    const std::string& hash = *ref;
    if (!hash.empty() && hash.find('/') == std::string::npos && hash != ".." &&
        fs::is_regular_file(p / "snapshots" / hash / "config.json", ec)) {
      snap = p / "snapshots" / hash;
    } else {
      fs::file_time_type newest{};
      for (const auto& e : fs::directory_iterator(p / "snapshots", ec)) {
        if (!fs::is_regular_file(e.path() / "config.json", ec)) continue;
        const auto t = fs::last_write_time(e.path(), ec);
        if (snap.empty() || t > newest) snap = e.path(), newest = t;
      }
    }
    if (snap.empty()) return Error{(p / "snapshots").string() + ": no snapshot holds a config.json"};
    const std::string base = p.filename().string();
    return ModelFolder{snap.string(), base.starts_with("models--") ? cacheName(base) : base};
  }
  return Error{(p / "config.json").string() + ": no such file (not a Hugging Face model folder)"};
}

Result<FolderConfig> readFolderConfig(const std::string& path, const ProgressFn& progress) {
  auto folder = resolveModelFolder(path);
  if (!folder) return folder.error();
  FolderConfig out{std::move(*folder), {}, {}};
  out.path = (std::filesystem::path(out.folder.dir) / "config.json").string();
  if (progress && !progress(0.0, "reading config.json")) return Error{out.path + ": cancelled"};
  if (auto st = checkModelFilePath(out.folder.dir, out.path); !st) return st.error();
  auto text = readUtf8TextFile(out.path, file_limit::kModelConfig);
  if (!text) return text.error();
  out.text = std::move(*text);
  return out;
}

}  // namespace attn::models
