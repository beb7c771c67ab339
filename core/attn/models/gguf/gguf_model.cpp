#include "attn/models/gguf/gguf_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <map>
#include <set>

#include "attn/io/quote.h"
#include "attn/models/finite_scan.h"
#include "attn/models/gguf/dequantize.h"
#include "attn/models/gguf/ggml_types.h"
#include "attn/models/gguf/kquant_dot.h"
#include "attn/models/gguf/quantized_dot.h"

namespace attn::models::gguf {
namespace {

constexpr int64_t kGgufMaxDim = int64_t{1} << 24;  // layers, widths, heads: far above any model's

Error ggufError(const GgufFile& f, const std::string& what) {
  return Error{fmt::format("{}: {}", f.path(), what)};
}

/// The RoPE scaling keys: none, linear (positions / factor), or a rope_freqs tensor
/// (Llama 3.1+: one divisor per frequency, as llama.cpp's converter writes llama3 scaling).
Status readGgufRopeScaling(const GgufFile& f, const std::string& a, ModelConfig& c) {
  auto type = f.string(a + ".rope.scaling.type", std::string("none"));
  if (!type) return type.error();
  if (*type == "linear") {
    auto factor = f.number(a + ".rope.scaling.factor", 1.0, 1e-6, 1e6);
    if (!factor) return factor.error();
    c.ropeScaling.type = "linear";
    c.ropeScaling.factor = *factor;
  } else if (*type != "none") {
    return Error{fmt::format("{}: {}.rope.scaling.type is {}; AttnScope runs none and linear", f.path(), a,
                             quoteForMessage(*type))};
  }
  return okStatus();
}

/// Llama 3.1+ files: rope_freqs.weight [head_dim / 2], one divisor per RoPE frequency.
Status readGgufRopeFreqs(const GgufFile& f, ModelConfig& c) {
  const TensorInfo* t = f.tensor("rope_freqs.weight");
  if (!t) return okStatus();
  if (t->dims != std::vector<int64_t>{c.headDim / 2} || t->type != static_cast<uint32_t>(GgmlType::F32))
    return Error{fmt::format("{}: tensor 'rope_freqs.weight' must be F32 [{}] (head size {} / 2)", f.path(),
                             c.headDim / 2, c.headDim)};
  std::vector<float> v(static_cast<size_t>(c.headDim / 2));
  std::memcpy(v.data(), f.data(*t).data(), v.size() * sizeof(float));
  for (float x : v)
    if (!(x > 0.0f) || !(x < 1e30f))
      return Error{
          fmt::format("{}: tensor 'rope_freqs.weight' holds {}, not a positive divisor", f.path(), x)};
  c.ropeScaling.freqFactors = std::move(v);
  return okStatus();
}

}  // namespace

Result<ModelConfig> ggufModelConfig(const GgufFile& f) {
  auto arch = f.string("general.architecture", std::nullopt);
  if (!arch) return arch.error();
  const std::string& a = *arch;
  ModelConfig c;
  c.modelType = a;
  if (a == "llama" || a == "qwen2") {
    c.family = Family::Llama;
    c.activation = Activation::Silu;
    c.attentionBias = a == "qwen2";  // Qwen2: q/k/v biases, none on o_proj
    c.qkRowsInterleaved = a == "llama";
  } else if (a == "gpt2") {
    c.family = Family::Gpt2;
    c.activation = Activation::GeluNew;
    c.attentionBias = c.outputBias = c.mlpBias = true;
  } else {
    return Error{
        fmt::format("{}: general.architecture is {}; AttnScope runs llama, qwen2 and gpt2 GGUF files",
                    f.path(), quoteForMessage(a))};
  }
  auto geti = [&](const std::string& key, std::optional<int64_t> fallback, int64_t lo) {
    return f.integer(a + "." + key, fallback, lo, kGgufMaxDim);
  };
  auto layers = geti("block_count", std::nullopt, 1);
  if (!layers) return layers.error();
  auto d = geti("embedding_length", std::nullopt, 1);
  if (!d) return d.error();
  auto ff = geti("feed_forward_length", std::nullopt, 1);
  if (!ff) return ff.error();
  auto heads = geti("attention.head_count", std::nullopt, 1);
  if (!heads) return heads.error();
  auto kv = geti("attention.head_count_kv", *heads, 1);
  if (!kv) return kv.error();
  auto ctx = geti("context_length", std::nullopt, 1);
  if (!ctx) return ctx.error();
  c.layers = static_cast<int>(*layers), c.dModel = static_cast<int>(*d),
  c.intermediate = static_cast<int>(*ff);
  c.heads = static_cast<int>(*heads), c.kvHeads = static_cast<int>(*kv),
  c.maxPositions = static_cast<int>(*ctx);
  if (c.heads % c.kvHeads != 0)
    return ggufError(f, fmt::format("{}.attention.head_count {} is not a multiple of head_count_kv {}", a,
                                    c.heads, c.kvHeads));
  auto keyLength = geti("attention.key_length", c.dModel / c.heads, 1);
  if (!keyLength) return keyLength.error();
  c.headDim = static_cast<int>(*keyLength);
  if (c.family == Family::Gpt2 && c.headDim * c.heads != c.dModel)
    return ggufError(
        f, fmt::format("{}.embedding_length {} is not {} heads of {}", a, c.dModel, c.heads, c.headDim));
  auto vlen = geti("attention.value_length", c.headDim, 1);
  if (!vlen) return vlen.error();
  if (*vlen != c.headDim)
    return ggufError(
        f, fmt::format("{}.attention.value_length {} differs from key_length {}", a, *vlen, c.headDim));
  if (c.family == Family::Llama) {
    if (c.headDim % 2 != 0)
      return ggufError(f, fmt::format("head size {} is odd: RoPE needs pairs", c.headDim));
    auto ropeDims = geti("rope.dimension_count", c.headDim, 1);
    if (!ropeDims) return ropeDims.error();
    if (*ropeDims != c.headDim)
      return ggufError(f, fmt::format("{}.rope.dimension_count {} rotates part of a head of {}; AttnScope "
                                      "rotates whole heads",
                                      a, *ropeDims, c.headDim));
    auto theta = f.number(a + ".rope.freq_base", 10000.0, 1e-3, 1e12);
    if (!theta) return theta.error();
    c.ropeTheta = *theta;
    auto eps = f.number(a + ".attention.layer_norm_rms_epsilon", std::nullopt, 0.0, 1.0);
    if (!eps) return eps.error();
    c.normEps = *eps;
    if (auto st = readGgufRopeScaling(f, a, c); !st) return st.error();
    if (auto st = readGgufRopeFreqs(f, c); !st) return st.error();
  } else {
    auto eps = f.number(a + ".attention.layer_norm_epsilon", std::nullopt, 0.0, 1.0);
    if (!eps) return eps.error();
    c.normEps = *eps;
  }
  // The vocabulary is the token embedding's rows ({d, vocab} in ggml order).
  const TensorInfo* embd = f.tensor("token_embd.weight");
  if (!embd || embd->dims.size() != 2)
    return ggufError(f, "no 2-D tensor 'token_embd.weight' (the token embedding)");
  if (embd->dims[1] < 1 || embd->dims[1] > kGgufMaxDim)
    return ggufError(f, fmt::format("token_embd.weight has {} rows", embd->dims[1]));
  c.vocabSize = static_cast<int>(embd->dims[1]);
  c.tieWordEmbeddings = f.tensor("output.weight") == nullptr;
  return c;
}

namespace {

class GgufLoader {
 public:
  GgufLoader(const GgufFile& f, ModelWeights& w) : f_(f), w_(w) {}

  const TensorInfo* find(const std::string& name) const { return f_.tensor(name); }

  /// `name` with the shape of a Hugging Face [rows, cols] tensor (ggml dims {cols, rows}); a
  /// vector has rows 0. Matrices stay in the mapping (`packed`), the rest is decoded to f32.
  Status need(WeightTensor& dest, const std::string& name, int64_t rows, int64_t cols, bool packed) {
    const TensorInfo* t = f_.tensor(name);
    if (!t) return Error{fmt::format("{}: tensor {} is missing", f_.path(), quoteForMessage(name))};
    const std::vector<int64_t> want =
        rows > 0 ? std::vector<int64_t>{cols, rows} : std::vector<int64_t>{cols};
    if (t->dims != want)
      return Error{fmt::format("{}: tensor {} has ggml shape [{}] but the metadata needs [{}]", f_.path(),
                               quoteForMessage(name), fmt::join(t->dims, ", "), fmt::join(want, ", "))};
    if (!canDequantize(t->type))
      return Error{fmt::format("{}: tensor {} has type {}; AttnScope decodes {}", f_.path(),
                               quoteForMessage(name), ggmlTypeName(t->type), dequantizableTypes())};
    dest.rows = rows > 0 ? rows : 1;
    dest.cols = cols;
    const std::string_view bytes = f_.data(*t);
    const bool aligned = reinterpret_cast<uintptr_t>(bytes.data()) % alignof(float) == 0;
    w_.parameters += t->elements;
    if (packed) ++typeCounts_[t->type];  // the matrices' types name the file's (norms stay F32)
    if (t->type == static_cast<uint32_t>(GgmlType::F32) && aligned) {
      dest.data = reinterpret_cast<const float*>(bytes.data());
      scanLater(name, *t, FiniteSpan{dest.data, nullptr, nullptr, t->elements});
    } else if (packed && t->type == static_cast<uint32_t>(GgmlType::BF16)) {
      dest.bf16 = bytes.data();
      scanLater(name, *t, FiniteSpan{nullptr, dest.bf16, nullptr, t->elements});
    } else if (packed) {
      if (t->type == static_cast<uint32_t>(GgmlType::F16))
        scanLater(name, *t, FiniteSpan{nullptr, nullptr, bytes.data(), t->elements});
      dest.quant = bytes.data();
      dest.quantType = t->type;
      dest.quantRowBytes = static_cast<int64_t>(t->bytes) / dest.rows;
    } else {
      FloatBuffer buf = allocateWeightBuffer(t->elements);
      if (!buf)
        return Error{
            fmt::format("{}: tensor {}: out of memory decoding it", f_.path(), quoteForMessage(name))};
      dequantize(t->type, bytes.data(), buf.get(), t->elements);
      if (nonFiniteCounts({FiniteSpan{buf.get(), nullptr, nullptr, t->elements}})[0] > 0)
        return Error{fmt::format("{}: tensor {} has non-finite values (NaN or Inf)", f_.path(),
                                 quoteForMessage(name))};
      dest.data = buf.get();
      w_.converted.push_back(std::move(buf));
    }
    return okStatus();
  }
  Status linear(LinearWeight& l, const std::string& name, int64_t in, int64_t out, bool bias) {
    l.inOut = false;  // llama.cpp's converter stores GPT-2's Conv1D weights transposed, as [out, in]
    if (auto st = need(l.w, name + ".weight", out, in, true); !st) return st;
    return bias ? need(l.b, name + ".bias", 0, out, false) : okStatus();
  }
  Status norm(NormWeight& n, const std::string& name, int64_t d, bool bias) {
    if (auto st = need(n.gamma, name + ".weight", 0, d, false); !st) return st;
    return bias ? need(n.beta, name + ".bias", 0, d, false) : okStatus();
  }
  /// The tensors left in the mapping (F32, F16, BF16; a quantized block's scales are not
  /// checked) scanned for NaN and Inf at once, unless this unchanged file's same tensors were
  /// found finite before (verified_weights.h).
  Status checkFinite() const {
    WeightsIdentity id;
    if (f_.stamp()) id.files.push_back(*f_.stamp());
    id.tensors = digest_;
    const auto bad = firstNonFinite(spans_, id, bytes_);
    if (!bad) return okStatus();
    return Error{fmt::format("{}: tensor {} has {} non-finite values (NaN or Inf) among its {}", f_.path(),
                             quoteForMessage(names_[bad->span]), bad->count, spans_[bad->span].n)};
  }

  /// "Q4_K" when every matrix has that type, else "mixed".
  std::string dtype() const {
    return typeCounts_.size() == 1 ? ggmlTypeName(typeCounts_.begin()->first) : "mixed";
  }

 private:
  void scanLater(const std::string& name, const TensorInfo& t, FiniteSpan span) {
    spans_.push_back(span);
    names_.push_back(name);
    const uint64_t range[3] = {t.type, t.offset, t.bytes};
    digest_ = digestStep(digest_, name.data(), name.size() + 1);
    digest_ = digestStep(digest_, range, sizeof range);
    bytes_ += static_cast<int64_t>(t.bytes);
  }

  const GgufFile& f_;
  ModelWeights& w_;
  std::map<uint32_t, int> typeCounts_;
  std::vector<FiniteSpan> spans_;
  std::vector<std::string> names_;
  uint64_t digest_ = kDigestStart;
  int64_t bytes_ = 0;
};

Status loadGgufLlamaLayers(GgufLoader& g, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel, qd = int64_t{c.heads} * c.headDim, kvd = int64_t{c.kvHeads} * c.headDim;
  for (int i = 0; i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("blk.{}.", i);
    Status st = g.norm(L.attnNorm, p + "attn_norm", d, false);
    if (st) st = g.linear(L.q, p + "attn_q", d, qd, c.attentionBias);
    if (st) st = g.linear(L.k, p + "attn_k", d, kvd, c.attentionBias);
    if (st) st = g.linear(L.v, p + "attn_v", d, kvd, c.attentionBias);
    if (st) st = g.linear(L.o, p + "attn_output", qd, d, c.outputBias);
    if (st) st = g.norm(L.mlpNorm, p + "ffn_norm", d, false);
    if (st) st = g.linear(L.gate, p + "ffn_gate", d, c.intermediate, c.mlpBias);
    if (st) st = g.linear(L.up, p + "ffn_up", d, c.intermediate, c.mlpBias);
    if (st) st = g.linear(L.down, p + "ffn_down", c.intermediate, d, c.mlpBias);
    if (!st) return st;
  }
  return okStatus();
}

Status loadGgufGpt2Layers(GgufLoader& g, const ModelConfig& c, ModelWeights& w) {
  const int64_t d = c.dModel;
  if (auto st = g.need(w.positionEmbedding, "position_embd.weight", c.maxPositions, d, false); !st) return st;
  for (int i = 0; i < c.layers; ++i) {
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("blk.{}.", i);
    Status st = g.norm(L.attnNorm, p + "attn_norm", d, true);
    if (st) st = g.linear(L.qkv, p + "attn_qkv", d, 3 * d, true);
    if (st) st = g.linear(L.o, p + "attn_output", d, d, true);
    if (st) st = g.norm(L.mlpNorm, p + "ffn_norm", d, true);
    if (st) st = g.linear(L.up, p + "ffn_up", d, c.intermediate, true);
    if (st) st = g.linear(L.down, p + "ffn_down", c.intermediate, d, true);
    if (!st) return st;
  }
  return okStatus();
}

}  // namespace

Result<ModelWeights> loadGgufWeights(const std::shared_ptr<const GgufFile>& file, const ModelConfig& config) {
  const GgufFile& f = *file;
  ModelWeights w;
  w.layers.resize(static_cast<size_t>(config.layers));
  GgufLoader g(f, w);
  const int64_t d = config.dModel;
  Status st = g.need(w.tokenEmbedding, "token_embd.weight", config.vocabSize, d, true);
  if (st)
    st = config.family == Family::Gpt2 ? loadGgufGpt2Layers(g, config, w) : loadGgufLlamaLayers(g, config, w);
  if (st) st = g.norm(w.finalNorm, "output_norm", d, config.family == Family::Gpt2);
  if (st && !config.tieWordEmbeddings) st = g.need(w.lmHead, "output.weight", config.vocabSize, d, true);
  if (!st) return st.error();
  f.mapAllPages();  // before the scan: mapped in the kernel at once rather than a fault at a time
  if (st = g.checkFinite(); !st) return st.error();
  if (config.tieWordEmbeddings) w.lmHead = w.tokenEmbedding;
  w.dtype = g.dtype();
  w.files.push_back(f.path());
  w.keepAlive = file;
  return w;
}

namespace {

/// llama.cpp's llama_ftype, as its file-type names print (llama_model_ftype_name).
const char* ggufFileTypeName(int64_t t) {
  switch (t) {
    case 0:
      return "F32";
    case 1:
      return "F16";
    case 2:
      return "Q4_0";
    case 3:
      return "Q4_1";
    case 7:
      return "Q8_0";
    case 8:
      return "Q5_0";
    case 9:
      return "Q5_1";
    case 10:
      return "Q2_K";
    case 11:
      return "Q3_K_S";
    case 12:
      return "Q3_K_M";
    case 13:
      return "Q3_K_L";
    case 14:
      return "Q4_K_S";
    case 15:
      return "Q4_K_M";
    case 16:
      return "Q5_K_S";
    case 17:
      return "Q5_K_M";
    case 18:
      return "Q6_K";
    case 21:
      return "Q2_K_S";
    case 32:
      return "BF16";
    default:
      return nullptr;
  }
}

}  // namespace

std::string ggufWeightSummary(const GgufFile& f) {
  std::map<uint32_t, int64_t> byType;
  int64_t elements = 0;
  uint64_t bytes = 0;
  for (const auto& t : f.tensors()) {
    elements += t.elements;
    bytes += t.bytes;
    if (t.dims.size() == 2) byType[t.type] += t.elements;
  }
  std::string name;
  if (auto ft = f.integer("general.file_type", -1, -1, 1 << 20); ft && ggufFileTypeName(*ft))
    name = ggufFileTypeName(*ft);
  if (name.empty()) {
    uint32_t most = 0;
    int64_t best = -1;
    for (const auto& [type, n] : byType)
      if (n > best) best = n, most = type;
    name = best >= 0 ? ggmlTypeName(most) : "no matrices";
  }
  const double bits = elements > 0 ? 8.0 * static_cast<double>(bytes) / static_cast<double>(elements) : 0.0;
  return fmt::format("{}, {:.1f} bits/weight", name, bits);
}

std::vector<std::string> quantizedProductTypes(const ModelWeights& w) {
  std::set<uint32_t> types;
  const auto note = [&types](const LinearWeight& l) {
    if (!l.w.quant || l.inOut || !canQuantizedDot(l.w.quantType)) return;
    const int64_t block = canKQuantDot(l.w.quantType) ? kSuperBlock : 32;  // Q8_0: 32-value blocks
    if (l.w.cols % block == 0) types.insert(l.w.quantType);
  };
  for (const auto& L : w.layers)
    for (const LinearWeight* l : {&L.qkv, &L.q, &L.k, &L.v, &L.o, &L.up, &L.gate, &L.down}) note(*l);
  note(LinearWeight{w.lmHead, {}, false});
  std::vector<std::string> names;
  for (uint32_t t : types) names.emplace_back(ggmlTypeName(t));
  return names;
}

}  // namespace attn::models::gguf
