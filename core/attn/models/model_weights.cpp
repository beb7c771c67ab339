#include "attn/models/model_weights.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "attn/io/float_convert.h"
#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/models/gguf/panel_decode.h"
#include "attn/models/model_paths.h"
#include "attn/models/staged_reads.h"
#include "attn/models/vision_weights.h"
#include "attn/models/weight_loader.h"

#if defined(__F16C__) || defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <sys/mman.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace attn::models {
namespace {

Status queueGpt2(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel;
  if (auto st = l.choosePrefix("wte.weight", {"", "transformer."}); !st) return st;
  if (auto st = l.need(w.tokenEmbedding, "wte.weight", {c.vocabSize, d}); !st) return st;
  if (auto st = l.need(w.positionEmbedding, "wpe.weight", {c.maxPositions, d}); !st) return st;
  for (int i = 0; i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("h.{}.", i);
    Status st = l.needNorm(L.attnNorm, p + "ln_1", true);
    if (st) st = l.needLinear(L.qkv, p + "attn.c_attn", d, 3 * d, true, true);
    if (st) st = l.needLinear(L.o, p + "attn.c_proj", d, d, true, true);
    if (st) st = l.needNorm(L.mlpNorm, p + "ln_2", true);
    if (st) st = l.needLinear(L.up, p + "mlp.c_fc", d, c.intermediate, true, true);
    if (st) st = l.needLinear(L.down, p + "mlp.c_proj", c.intermediate, d, true, true);
    if (!st) return st;
  }
  if (auto st = l.needNorm(w.finalNorm, "ln_f", true); !st) return st;
  if (c.tieWordEmbeddings) {
    w.lmHead = w.tokenEmbedding;  // GPT2LMHeadModel ties lm_head to wte by default
    return okStatus();
  }
  return l.need(w.lmHead, "lm_head.weight", {c.vocabSize, d}, /*bare=*/true);
}

/// DistilBertForMaskedLM: vocab_transform, activation, vocab_layer_norm, vocab_projector (its
/// weight the word embedding unless tie_word_embeddings is false), when the checkpoint has them.
Status queueDistilMaskedLmHead(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel;
  if (!l.has("vocab_transform.weight")) return okStatus();  // DistilBertModel: no head
  MaskedLmHead& m = w.mlmHead;
  m.activation = c.activation;
  Status st = l.need(m.transform.w, "vocab_transform.weight", {d, d}, /*bare=*/true);
  if (st) st = l.need(m.transform.b, "vocab_transform.bias", {d}, true);
  if (st) st = l.need(m.norm.gamma, "vocab_layer_norm.weight", {d}, true);
  if (st) st = l.need(m.norm.beta, "vocab_layer_norm.bias", {d}, true);
  if (st) st = l.need(m.bias, "vocab_projector.bias", {c.vocabSize}, true);
  if (st && !c.tieWordEmbeddings) st = l.need(m.decoder, "vocab_projector.weight", {c.vocabSize, d}, true);
  return st;
}

/// DistilBertModel (bare, or under "distilbert." in the task checkpoints): BERT's blocks under
/// other names (modeling_distilbert.py: TransformerBlock), no token types. A sinusoidal model
/// without a stored position table gets it in loadModelWeights.
Status queueDistilBert(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel;
  if (auto st = l.choosePrefix("embeddings.word_embeddings.weight", {"", "distilbert."}); !st) return st;
  Status st = l.need(w.tokenEmbedding, "embeddings.word_embeddings.weight", {c.vocabSize, d});
  const bool stored = l.has("embeddings.position_embeddings.weight") ||
                      l.has("distilbert.embeddings.position_embeddings.weight");
  if (st && (stored || !c.sinusoidalPositions))
    st = l.need(w.positionEmbedding, "embeddings.position_embeddings.weight", {c.maxPositions, d});
  if (st) st = l.needNorm(w.embeddingNorm, "embeddings.LayerNorm", true);
  for (int i = 0; st && i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("transformer.layer.{}.", i);
    st = l.needLinear(L.q, p + "attention.q_lin", d, d, true, false);
    if (st) st = l.needLinear(L.k, p + "attention.k_lin", d, d, true, false);
    if (st) st = l.needLinear(L.v, p + "attention.v_lin", d, d, true, false);
    if (st) st = l.needLinear(L.o, p + "attention.out_lin", d, d, true, false);
    if (st) st = l.needNorm(L.attnNorm, p + "sa_layer_norm", true);
    if (st) st = l.needLinear(L.up, p + "ffn.lin1", d, c.intermediate, true, false);
    if (st) st = l.needLinear(L.down, p + "ffn.lin2", c.intermediate, d, true, false);
    if (st) st = l.needNorm(L.mlpNorm, p + "output_layer_norm", true);
  }
  if (!st) return st;
  return queueDistilMaskedLmHead(l, c, w);
}

/// transformers' create_sinusoidal_embeddings: row p, column j is sin (j even) or cos (j odd) of
/// p / 10000^(2 floor(j/2) / dim), computed in float64 (numpy) and stored as float32.
Status fillSinusoidalPositions(const ModelConfig& c, ModelWeights& w) {
  const int64_t n = c.maxPositions, d = c.dModel;
  FloatBuffer table = allocateWeightBuffer(n * d);
  if (!table) return Error{fmt::format("{} positions: out of memory for the sinusoidal table", c.modelType)};
  for (int64_t p = 0; p < n; ++p)
    for (int64_t j = 0; j < d; ++j) {
      const double angle = static_cast<double>(p) / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / d);
      table.get()[p * d + j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  w.positionEmbedding.data = table.get();
  w.positionEmbedding.rows = n, w.positionEmbedding.cols = d;
  w.converted.push_back(std::move(table));
  return okStatus();
}

/// BertForMaskedLM's cls.predictions (BertLMPredictionHead: transform.dense, hidden_act,
/// transform.LayerNorm, decoder + bias) or RobertaForMaskedLM's lm_head (dense, gelu,
/// layer_norm, decoder + bias), when the checkpoint has one. The decoder is the word
/// embedding unless config.json sets tie_word_embeddings false (then the stored decoder).
Status queueMaskedLmHead(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel;
  const bool bert = l.has("cls.predictions.transform.dense.weight");
  if (!bert && !l.has("lm_head.dense.weight")) return okStatus();  // a bare encoder: no head
  const std::string p = bert ? "cls.predictions." : "lm_head.";
  MaskedLmHead& m = w.mlmHead;
  m.activation = bert ? c.activation : Activation::GeluErf;  // RobertaLMHead: gelu
  const std::string dense = p + (bert ? "transform.dense" : "dense"), norm = p + (bert ? "transform.LayerNorm" : "layer_norm");
  Status st = l.need(m.transform.w, dense + ".weight", {d, d}, /*bare=*/true);  // nn.Linear [out, in]
  if (st) st = l.need(m.transform.b, dense + ".bias", {d}, true);
  if (st) st = l.need(m.norm.gamma, norm + ".weight", {d}, true);
  if (st) st = l.need(m.norm.beta, norm + ".bias", {d}, true);
  // The head's bias (decoder.bias is the same Parameter; older checkpoints store only one of them).
  const std::string bias = l.has(p + "bias") ? p + "bias" : p + "decoder.bias";
  if (st) st = l.need(m.bias, bias, {c.vocabSize}, /*bare=*/true);
  if (st && !c.tieWordEmbeddings) st = l.need(m.decoder, p + "decoder.weight", {c.vocabSize, d}, /*bare=*/true);
  return st;
}

Status queueBert(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  if (c.modelType == "distilbert") return queueDistilBert(l, c, w);
  const int64_t d = c.dModel;
  // BertForMaskedLM "bert.", RobertaForMaskedLM "roberta.", XLMRobertaForMaskedLM "roberta." too.
  const std::string own = c.modelType == "xlm-roberta" ? std::string("roberta.") : c.modelType + ".";
  if (auto st = l.choosePrefix("embeddings.word_embeddings.weight", {"", own}); !st) return st;
  Status st = l.need(w.tokenEmbedding, "embeddings.word_embeddings.weight", {c.vocabSize, d});
  if (st) st = l.need(w.positionEmbedding, "embeddings.position_embeddings.weight", {c.maxPositions, d});
  if (st && c.typeVocabSize > 0)
    st = l.need(w.typeEmbedding, "embeddings.token_type_embeddings.weight", {c.typeVocabSize, d});
  if (st) st = l.needNorm(w.embeddingNorm, "embeddings.LayerNorm", true);
  if (!st) return st;
  for (int i = 0; i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("encoder.layer.{}.", i);
    st = l.needLinear(L.q, p + "attention.self.query", d, d, true, false);
    if (st) st = l.needLinear(L.k, p + "attention.self.key", d, d, true, false);
    if (st) st = l.needLinear(L.v, p + "attention.self.value", d, d, true, false);
    if (st) st = l.needLinear(L.o, p + "attention.output.dense", d, d, true, false);
    if (st) st = l.needNorm(L.attnNorm, p + "attention.output.LayerNorm", true);
    if (st) st = l.needLinear(L.up, p + "intermediate.dense", d, c.intermediate, true, false);
    if (st) st = l.needLinear(L.down, p + "output.dense", c.intermediate, d, true, false);
    if (st) st = l.needNorm(L.mlpNorm, p + "output.LayerNorm", true);
    if (!st) return st;
  }
  return queueMaskedLmHead(l, c, w);
}

Status queueLlama(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel, qd = int64_t{c.heads} * c.headDim, kvd = int64_t{c.kvHeads} * c.headDim;
  if (auto st = l.choosePrefix("embed_tokens.weight", {"model.", ""}); !st) return st;
  // Kept BF16: rows are looked up one at a time, and as the tied lm_head linear() converts panels.
  if (auto st = l.need(w.tokenEmbedding, "embed_tokens.weight", {c.vocabSize, d}, false, true); !st) return st;
  for (int i = 0; i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("layers.{}.", i);
    Status st = l.needNorm(L.attnNorm, p + "input_layernorm", false);
    if (st) st = l.needLinear(L.q, p + "self_attn.q_proj", d, qd, c.attentionBias, false);
    if (st) st = l.needLinear(L.k, p + "self_attn.k_proj", d, kvd, c.attentionBias, false);
    if (st) st = l.needLinear(L.v, p + "self_attn.v_proj", d, kvd, c.attentionBias, false);
    if (st) st = l.needLinear(L.o, p + "self_attn.o_proj", qd, d, c.outputBias, false);
    if (st) st = l.needNorm(L.mlpNorm, p + "post_attention_layernorm", false);
    if (st) st = l.needLinear(L.gate, p + "mlp.gate_proj", d, c.intermediate, c.mlpBias, false);
    if (st) st = l.needLinear(L.up, p + "mlp.up_proj", d, c.intermediate, c.mlpBias, false);
    if (st) st = l.needLinear(L.down, p + "mlp.down_proj", c.intermediate, d, c.mlpBias, false);
    if (!st) return st;
  }
  if (auto st = l.needNorm(w.finalNorm, "norm", false); !st) return st;
  if (c.tieWordEmbeddings) {
    w.lmHead = w.tokenEmbedding;
    return okStatus();
  }
  return l.need(w.lmHead, "lm_head.weight", {c.vocabSize, d}, /*bare=*/true, /*keepBf16=*/true);
}

/// ViTModel / DeiTModel (bare, or under "vit." / "deit." in the classification checkpoints) and
/// the classifier: ViTForImageClassification's classifier, DeiTForImageClassificationWithTeacher's
/// cls_classifier + distillation_classifier. A checkpoint without a head has no labels.
Status queueVit(WeightLoader& l, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel, P = c.patchSize;
  if (auto st = l.choosePrefix("embeddings.cls_token", {"", c.modelType + "."}); !st) return st;
  Status st = l.need(w.clsToken, "embeddings.cls_token", {1, 1, d});
  if (st && c.prefixTokens > 1) st = l.need(w.distillationToken, "embeddings.distillation_token", {1, 1, d});
  if (st) st = l.need(w.positionEmbedding, "embeddings.position_embeddings", {1, c.maxPositions, d});
  if (st)
    st =
        l.need(w.patchEmbedding.w, "embeddings.patch_embeddings.projection.weight", {d, c.numChannels, P, P});
  if (st) st = l.need(w.patchEmbedding.b, "embeddings.patch_embeddings.projection.bias", {d});
  if (!st) return st;
  w.positionEmbedding.rows = c.maxPositions, w.positionEmbedding.cols = d;
  for (int i = 0; i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("encoder.layer.{}.", i);
    st = l.needNorm(L.attnNorm, p + "layernorm_before", true);
    if (st) st = l.needLinear(L.q, p + "attention.attention.query", d, d, c.attentionBias, false);
    if (st) st = l.needLinear(L.k, p + "attention.attention.key", d, d, c.attentionBias, false);
    if (st) st = l.needLinear(L.v, p + "attention.attention.value", d, d, c.attentionBias, false);
    if (st) st = l.needLinear(L.o, p + "attention.output.dense", d, d, true, false);
    if (st) st = l.needNorm(L.mlpNorm, p + "layernorm_after", true);
    if (st) st = l.needLinear(L.up, p + "intermediate.dense", d, c.intermediate, true, false);
    if (st) st = l.needLinear(L.down, p + "output.dense", c.intermediate, d, true, false);
    if (!st) return st;
  }
  if (auto s2 = l.needNorm(w.finalNorm, "layernorm", true); !s2) return s2;
  const int64_t labels = static_cast<int64_t>(c.labels.size());
  auto head = [&](LinearWeight& lw, const std::string& name) -> Status {
    lw.inOut = false;
    if (auto s3 = l.need(lw.w, name + ".weight", {labels, d}, /*bare=*/true); !s3) return s3;
    return l.need(lw.b, name + ".bias", {labels}, /*bare=*/true);
  };
  if (l.has("cls_classifier.weight")) {
    if (auto s3 = head(w.classifier, "cls_classifier"); !s3) return s3;
    return head(w.distillationClassifier, "distillation_classifier");
  }
  if (l.has("classifier.weight")) return head(w.classifier, "classifier");
  return okStatus();
}

}  // namespace

void bf16ToFloat(const char* src, float* dst, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i));
    _mm512_storeu_ps(dst + i, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
  }
#elif defined(__AVX2__)
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
  }
#endif
  for (; i < n; ++i) {
    uint16_t b = 0;
    std::memcpy(&b, src + 2 * i, 2);
    const uint32_t bits = static_cast<uint32_t>(b) << 16;  // bfloat16 is the upper half of an f32
    std::memcpy(dst + i, &bits, 4);
  }
}

void WeightTensor::rowsTo(int64_t r0, int64_t m, float* dst) const {
  thread_local std::vector<char> staged;  // the rows read with pread where that is cheaper (staged_reads.h)
  if (bf16) {
    bf16ToFloat(stagedBytes(bf16 + 2 * r0 * cols, static_cast<size_t>(2 * m * cols), staged), dst, m * cols);
  } else if (quant) {
    // Rows are whole blocks (checked when the file was read), so m rows decode as one run.
    const char* rows =
        stagedBytes(quant + r0 * quantRowBytes, static_cast<size_t>(m * quantRowBytes), staged);
    gguf::decodePanel(quantType, rows, dst, m * cols);
  } else {
    std::memcpy(dst, data + r0 * cols, static_cast<size_t>(m * cols) * sizeof(float));
  }
}

void FreeDeleter::operator()(float* p) const noexcept { std::free(p); }

FloatBuffer allocateWeightBuffer(int64_t elements) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t bytes = static_cast<size_t>(std::max<int64_t>(elements, 1)) * sizeof(float);
  void* p = nullptr;
  if (bytes >= kHuge) {
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    p = std::aligned_alloc(kHuge, rounded);
    if (p) ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without THP it is ignored
  } else {
    p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  }
  return FloatBuffer(static_cast<float*>(p));
}

Result<std::vector<std::string>> parseSafetensorsIndex(std::string_view text, const std::string& src) {
  auto parsed = parseJsonText(text, src);
  if (!parsed) return parsed.error();
  nlohmann::json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("weight_map") || !doc["weight_map"].is_object())
    return Error{src + ": expected an object with a 'weight_map' object"};
  std::vector<std::string> shards;
  std::set<std::string> seen;
  for (const auto& [tensor, file] : doc["weight_map"].items()) {
    if (!file.is_string())
      return Error{fmt::format("{}: weight_map entry {} must name a file", src, quoteForMessage(tensor))};
    const std::string f = file.get<std::string>();
    // Shards live beside the index: no paths, so an index cannot reach elsewhere.
    if (f.empty() || f == "." || f == ".." || f.find('/') != std::string::npos ||
        f.find('\\') != std::string::npos || f.find('\0') != std::string::npos)
      return Error{fmt::format("{}: weight_map entry {} names {}, not a file beside the index", src,
                               quoteForMessage(tensor), quoteForMessage(f))};
    if (seen.insert(f).second) shards.push_back(f);
  }
  if (shards.empty()) return Error{src + ": weight_map is empty"};
  return shards;
}

Result<ModelWeights> loadModelWeights(const std::string& dir, const ModelConfig& cfg, const ProgressFn& progress) {
  auto opened = openWeightFiles(dir, cfg, progress);
  if (!opened) return opened.error();
  WeightLoader& l = **opened;
  ModelWeights& w = l.out();
  w.layers.resize(static_cast<size_t>(cfg.layers));  // sized once: queued tensors point into it
  const bool vit = cfg.family == Family::Vit;
  Status st = cfg.family == Family::Gpt2                        ? queueGpt2(l, cfg, w)
              : cfg.family == Family::Bert                      ? queueBert(l, cfg, w)
              : vit && cfg.visionArch == VisionArch::Dinov2     ? queueDinov2(l, cfg, w)
              : vit && cfg.visionArch == VisionArch::ClipVision ? queueClipVision(l, cfg, w)
              : vit                                             ? queueVit(l, cfg, w)
                                                                : queueLlama(l, cfg, w);
  if (!st) return st.error();
  if (auto m = l.materialize(progress); !m) return m.error();
  splitSwigluWeights(cfg, w);
  if (cfg.sinusoidalPositions && w.positionEmbedding.empty())
    if (auto s = fillSinusoidalPositions(cfg, w); !s) return s.error();
  // Tied heads point at the embedding, which materialize() has filled in since.
  if (cfg.family != Family::Bert && cfg.family != Family::Vit && cfg.tieWordEmbeddings)
    w.lmHead = w.tokenEmbedding;
  if (w.mlmHead.present() && cfg.tieWordEmbeddings) w.mlmHead.decoder = w.tokenEmbedding;
  return std::move(w);
}

}  // namespace attn::models
