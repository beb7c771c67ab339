#include "attn/cuda/decoder_forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "attn/models/nn_ops.h"

namespace attn::gpu {
namespace {

using models::Family;

constexpr int kLogitRows = 256;  // lm_head rows per GEMM: [256, vocab] f32 at a time

DeviceActivation deviceActivation(models::Activation a) {
  return static_cast<DeviceActivation>(static_cast<int>(a));
}

// One forward over n tokens: the device buffers of one layer, reused by every layer.
class DecoderRun {
 public:
  DecoderRun(Device& dev, const models::ModelConfig& c, const models::ModelWeights& w,
             const DeviceWeightCache& cache, const DecoderForwardOptions& o, int n)
      : dev_(dev), c_(c), w_(w), cache_(cache), opt_(o), n_(n) {}

  Status prepare(const std::vector<int>& ids);
  Status layer(int l, DecoderForwardResult& out);
  Status finish(DecoderForwardResult& out);

 private:
  Result<const DeviceTensor*> tensor(const models::WeightTensor& t) const {
    const DeviceTensor* d = cache_.find(t);
    if (!d) return Error{"a weight tensor is not in the device cache"};
    return d;
  }
  const float* vec(const models::WeightTensor& t) const {
    const DeviceTensor* d = t.empty() ? nullptr : cache_.find(t);
    return d ? static_cast<const float*>(d->data) : nullptr;
  }
  // The GEMMs' A operand: the f32 activations, or their 16-bit copy in x16.
  const void* gemmInput(const float* f32) const {
    return gemmType() == InputType::F32 ? static_cast<const void*>(f32)
                                        : static_cast<const void*>(x16_.get());
  }
  // The GEMMs' operand type: the weights' storage, or f32 when they are widened first.
  InputType gemmType() const { return opt_.f32Compute ? InputType::F32 : type_; }
  // The weight as the GEMM reads it: as stored, or widened into wide_ (f32Compute).
  Result<const void*> gemmWeight(const DeviceTensor& W) {
    if (gemmType() == W.type) return W.data;
    const size_t count = static_cast<size_t>(W.rows * W.cols);
    if (wide_.size() < count) {
      auto made = DeviceArray<float>::make(dev_, count);
      if (!made) return made.error();
      wide_ = std::move(made).value();
    }
    ConvertParams p{count, W.type, static_cast<const uint16_t*>(W.data), nullptr, wide_.get(), nullptr};
    if (auto st = dev_.convert(p); !st) return st.error();
    return static_cast<const void*>(wide_.get());
  }
  Status toGemmInput(const float* f32, size_t count) {
    if (gemmType() == InputType::F32) return okStatus();
    return dev_.convert(ConvertParams{count, type_, nullptr, f32, nullptr, x16_.get()});
  }
  Status project(const models::LinearWeight& l, const void* in, float* y);
  Status normRows(const models::NormWeight& nw, const float* x, float* y);
  Status residual();  // h += o
  Status attention(int l, DecoderForwardResult& out);
  Status downloadHeads(const float* src, int count, std::vector<Mat>& heads);
  Status downloadRows(const float* src, int cols, Mat& m);
  Status keepLayerOutputs(int l, DecoderForwardResult& out);
  Status mlp(const models::LayerWeights& L);

  Device& dev_;
  const models::ModelConfig& c_;
  const models::ModelWeights& w_;
  const DeviceWeightCache& cache_;
  const DecoderForwardOptions& opt_;
  int n_;
  InputType type_ = InputType::F32;
  TilePlan plan_;
  DeviceArray<float> wide_;  // f32Compute: the weight of the current GEMM, widened
  DeviceArray<float> h_, a_, o_buf_, qkv_, qh_, kh_, vh_, outH_, concat_, gate_, up_, ent_, mx_, sum_, maps_,
      cos_, sin_;
  DeviceArray<uint16_t> x16_;
  DeviceArray<int32_t> ids_;
};

Status DecoderRun::project(const models::LinearWeight& l, const void* in, float* y) {
  auto W = tensor(l.w);
  if (!W) return W.error();
  if ((*W)->type != type_) return Error{"the device forward needs every matrix in one storage type"};
  auto b16 = gemmWeight(**W);
  if (!b16) return b16.error();
  Device::MixedGemm g;
  g.m = n_, g.n = static_cast<int>(l.out()), g.k = static_cast<int>(l.in());
  g.type = gemmType(), g.a = in, g.b = *b16, g.transB = !l.inOut, g.c = y;
  if (auto st = dev_.gemmMixed(g); !st) return st;
  if (l.b.empty()) return okStatus();
  AddParams b;
  b.rows = n_, b.cols = g.n, b.y = y, b.bias = vec(l.b);
  return dev_.add(b);
}

// pre-norm of the block: LayerNorm (GPT-2) or RMSNorm (Llama), with the GEMMs' 16-bit copy.
Status DecoderRun::normRows(const models::NormWeight& nw, const float* x, float* y) {
  NormParams p;
  p.rows = n_, p.cols = c_.dModel, p.rms = c_.family == Family::Llama, p.eps = static_cast<float>(c_.normEps);
  p.x = x, p.gamma = vec(nw.gamma), p.beta = vec(nw.beta), p.y = y;
  if (gemmType() != InputType::F32) p.y16 = x16_.get(), p.y16Type = type_;
  return dev_.norm(p);
}

Status DecoderRun::residual() {
  AddParams p;
  p.rows = n_, p.cols = c_.dModel, p.y = o_buf_.get(), p.residual = h_.get();
  if (auto st = dev_.add(p); !st) return st;
  std::swap(h_, o_buf_);
  return okStatus();
}

Status DecoderRun::prepare(const std::vector<int>& idList) {
  const size_t n = static_cast<size_t>(n_), d = static_cast<size_t>(c_.dModel),
               hd = static_cast<size_t>(c_.headDim);
  const size_t H = static_cast<size_t>(c_.heads), KV = static_cast<size_t>(c_.kvHeads);
  const size_t inner = static_cast<size_t>(c_.intermediate);
  const auto& firstMatrix = c_.family == Family::Gpt2 ? w_.layers[0].qkv.w : w_.layers[0].q.w;
  auto first = tensor(firstMatrix);
  if (!first) return first.error();
  type_ = (*first)->type;
  plan_ = chooseFlashTile(c_.headDim, c_.headDim, dev_.maxSharedBytes());
  if (!plan_.ok)
    return Error{fmt::format("no flash tile fits head size {} in the device's shared memory", hd)};
  const size_t qkvCols = c_.family == Family::Gpt2 ? 3 * d : (H + 2 * KV) * hd;
  const std::pair<DeviceArray<float>*, size_t> sizes[] = {
      {&h_, n * d},         {&a_, n * d},         {&o_buf_, n * d},
      {&qkv_, n * qkvCols}, {&qh_, H * n * hd},   {&kh_, KV * n * hd},
      {&vh_, KV * n * hd},  {&outH_, H * n * hd}, {&concat_, n * H * hd},
      {&gate_, n * inner},  {&up_, n * inner},    {&ent_, H * n},
      {&mx_, H * n},        {&sum_, H * n},       {&maps_, opt_.keepMaps ? H * n * n : 0},
      {&cos_, n * hd},      {&sin_, n * hd}};
  for (const auto& [arr, count] : sizes) {
    auto made = DeviceArray<float>::make(dev_, count);
    if (!made) return made.error();
    *arr = std::move(made).value();
  }
  auto x16 = DeviceArray<uint16_t>::make(dev_, n * std::max({d, inner, H * hd}));
  auto ids = DeviceArray<int32_t>::make(dev_, n);
  if (!x16) return x16.error();
  if (!ids) return ids.error();
  x16_ = std::move(x16).value(), ids_ = std::move(ids).value();
  const std::vector<int32_t> ids32(idList.begin(), idList.end());
  if (auto st = dev_.upload(ids_.get(), ids32.data(), n * sizeof(int32_t)); !st) return st;
  if (c_.family == Family::Llama) {  // the CPU's own table: the same cos/sin to the bit
    const models::RopeTable t = models::ropeTable(n_, c_.headDim, c_.ropeTheta, c_.ropeScaling);
    if (auto st = dev_.upload(cos_.get(), t.cos.data(), n * hd * sizeof(float)); !st) return st;
    if (auto st = dev_.upload(sin_.get(), t.sin.data(), n * hd * sizeof(float)); !st) return st;
  }
  auto tok = tensor(w_.tokenEmbedding);
  if (!tok) return tok.error();
  EmbedParams e;
  e.rows = n_, e.cols = c_.dModel, e.ids = ids_.get(), e.type = (*tok)->type, e.y = h_.get();
  if (e.type == InputType::F32)
    e.tok32 = static_cast<const float*>((*tok)->data);
  else
    e.tok16 = static_cast<const uint16_t*>((*tok)->data);
  if (c_.family == Family::Gpt2) {
    auto pos = tensor(w_.positionEmbedding);
    if (!pos) return pos.error();
    if ((*pos)->type != e.type) return Error{"the device forward needs both embeddings in one storage type"};
    if (e.type == InputType::F32)
      e.pos32 = static_cast<const float*>((*pos)->data);
    else
      e.pos16 = static_cast<const uint16_t*>((*pos)->data);
  }
  return dev_.embed(e);
}

// q, k, v into the flash kernel's head-major layout (RoPE on q and k for Llama), the causal
// GQA pass, the maps of every head when kept, then W_O into o.
Status DecoderRun::attention(int l, DecoderForwardResult& out) {
  const models::LayerWeights& L = w_.layers[static_cast<size_t>(l)];
  const int H = c_.heads, KV = c_.kvHeads, hd = c_.headDim, d = c_.dModel;
  float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  if (c_.family == Family::Gpt2) {
    if (c_.scaleByInverseLayer) scale /= static_cast<float>(l + 1);
    if (auto st = project(L.qkv, gemmInput(a_.get()), qkv_.get()); !st) return st;
    float* const heads[] = {qh_.get(), kh_.get(), vh_.get()};
    for (int part = 0; part < 3; ++part) {
      HeadLayoutParams p{n_, H, hd, true, qkv_.get() + static_cast<size_t>(part) * d, heads[part], 3 * d};
      if (auto st = dev_.headLayout(p); !st) return st;
    }
  } else {
    float* q = qkv_.get();
    float* k = q + static_cast<size_t>(n_) * H * hd;
    float* v = k + static_cast<size_t>(n_) * KV * hd;
    const void* in = gemmInput(a_.get());
    for (auto [lw, y] : {std::pair{&L.q, q}, std::pair{&L.k, k}, std::pair{&L.v, v}})
      if (auto st = project(*lw, in, y); !st) return st;
    for (auto [x, y, heads] : {std::tuple{q, qh_.get(), H}, std::tuple{k, kh_.get(), KV}}) {
      RopeParams r;
      r.rows = n_, r.heads = heads, r.headDim = hd, r.interleaved = c_.qkRowsInterleaved, r.headMajor = true;
      r.x = x, r.cos = cos_.get(), r.sin = sin_.get(), r.y = y;
      if (auto st = dev_.rope(r); !st) return st;
    }
    if (auto st = dev_.headLayout(HeadLayoutParams{n_, KV, hd, true, v, vh_.get(), 0}); !st) return st;
  }
  FlashParams f;
  f.heads = H, f.nq = n_, f.nk = n_, f.dk = hd, f.dv = hd, f.scale = scale;
  f.q = qh_.get(), f.k = kh_.get(), f.v = vh_.get(), f.br = plan_.br, f.bc = plan_.bc;
  f.group = H / KV, f.causal = true;
  f.out = outH_.get(), f.entropy = ent_.get(), f.rowMax = mx_.get(), f.rowSum = sum_.get();
  if (auto st = dev_.flash(f, plan_); !st) return st;
  const size_t n = static_cast<size_t>(n_);
  if (opt_.keepLayer(l)) {
    std::vector<float> ent(static_cast<size_t>(H) * n);
    if (auto st = dev_.download(ent.data(), ent_.get(), ent.size() * sizeof(float)); !st) return st;
    out.entropy.emplace_back();
    for (int h = 0; h < H; ++h) out.entropy.back().push_back(Eigen::Map<const Vec>(ent.data() + h * n, n_));
  }
  if (opt_.keepMaps && opt_.keepLayer(l)) {
    WeightsParams wp;
    wp.f = f, wp.weights = maps_.get();
    if (auto st = dev_.weights(wp); !st) return st;
    std::vector<float> maps(static_cast<size_t>(H) * n * n);
    if (auto st = dev_.download(maps.data(), maps_.get(), maps.size() * sizeof(float)); !st) return st;
    out.weights.emplace_back();
    for (int h = 0; h < H; ++h)
      out.weights.back().push_back(Eigen::Map<const Mat>(maps.data() + h * n * n, n_, n_));
  }
  if (auto st = dev_.headLayout(HeadLayoutParams{n_, H, hd, false, outH_.get(), concat_.get(), 0}); !st)
    return st;
  if (auto st = toGemmInput(concat_.get(), n * H * hd); !st) return st;
  if (auto st = project(L.o, gemmInput(concat_.get()), o_buf_.get()); !st) return st;
  return keepLayerOutputs(l, out);
}

// `count` head-major [n, hd] blocks from the device, one Mat each.
Status DecoderRun::downloadHeads(const float* src, int count, std::vector<Mat>& heads) {
  const size_t block = static_cast<size_t>(n_) * c_.headDim;
  std::vector<float> host(block * static_cast<size_t>(count));
  if (auto st = dev_.download(host.data(), src, host.size() * sizeof(float)); !st) return st;
  heads.clear();
  for (int h = 0; h < count; ++h)
    heads.push_back(Eigen::Map<const Mat>(host.data() + h * block, n_, c_.headDim));
  return okStatus();
}

Status DecoderRun::downloadRows(const float* src, int cols, Mat& m) {
  m.resize(n_, cols);
  return dev_.download(m.data(), src, m.size() * sizeof(float));
}

// What ModelRun keeps of a layer besides its maps: the heads' outputs, their concatenation and
// W_O's output (the attention block's, before the residual), q and k after RoPE, v.
Status DecoderRun::keepLayerOutputs(int l, DecoderForwardResult& out) {
  if (!opt_.keepLayer(l) || (!opt_.keepOutputs && !opt_.keepQkv)) return okStatus();
  DecoderLayerOutputs& kept = out.layers.emplace_back();
  const int H = c_.heads, group = c_.heads / c_.kvHeads;
  if (opt_.keepOutputs) {
    if (auto st = downloadHeads(outH_.get(), H, kept.headOutput); !st) return st;
    if (auto st = downloadRows(concat_.get(), H * c_.headDim, kept.concat); !st) return st;
    if (auto st = downloadRows(o_buf_.get(), c_.dModel, kept.output); !st) return st;
  }
  if (!opt_.keepQkv) return okStatus();
  std::vector<Mat> k, v;
  if (auto st = downloadHeads(qh_.get(), H, kept.q); !st) return st;
  if (auto st = downloadHeads(kh_.get(), c_.kvHeads, k); !st) return st;
  if (auto st = downloadHeads(vh_.get(), c_.kvHeads, v); !st) return st;
  for (int h = 0; h < H; ++h) {  // the CPU's repeat_kv: each query head gets its K/V head
    kept.k.push_back(k[static_cast<size_t>(h / group)]);
    kept.v.push_back(v[static_cast<size_t>(h / group)]);
  }
  return okStatus();
}

// GPT-2: down(act(up x)); Llama: down(act(gate x) * up x), SwiGLU.
Status DecoderRun::mlp(const models::LayerWeights& L) {
  const void* in = gemmInput(a_.get());
  ActivationParams p;
  p.count = static_cast<size_t>(n_) * c_.intermediate, p.act = deviceActivation(c_.activation);
  if (gemmType() != InputType::F32) p.out16 = x16_.get(), p.out16Type = type_;
  if (auto st = project(L.up, in, up_.get()); !st) return st;
  if (c_.family == Family::Llama) {
    if (auto st = project(L.gate, in, gate_.get()); !st) return st;
    p.x = gate_.get(), p.up = up_.get();
  } else {
    p.x = up_.get();
  }
  if (auto st = dev_.activation(p); !st) return st;
  return project(L.down, gemmInput(up_.get()), o_buf_.get());
}

Status DecoderRun::layer(int l, DecoderForwardResult& out) {
  const models::LayerWeights& L = w_.layers[static_cast<size_t>(l)];
  if (auto st = normRows(L.attnNorm, h_.get(), a_.get()); !st) return st;
  if (auto st = attention(l, out); !st) return st;
  if (auto st = residual(); !st) return st;
  if (auto st = normRows(L.mlpNorm, h_.get(), a_.get()); !st) return st;
  if (auto st = mlp(L); !st) return st;
  return residual();
}

// The final norm, downloaded, and the lm_head's top k, kLogitRows rows per GEMM.
Status DecoderRun::finish(DecoderForwardResult& out) {
  if (auto st = normRows(w_.finalNorm, h_.get(), a_.get()); !st) return st;
  out.finalHidden.resize(n_, c_.dModel);
  if (auto st = dev_.download(out.finalHidden.data(), a_.get(), out.finalHidden.size() * sizeof(float)); !st)
    return st;
  if (opt_.topK <= 0 && !opt_.keepFullLogits) return dev_.synchronize();
  auto head = tensor(w_.lmHead);
  if (!head) return head.error();
  if ((*head)->type != type_)
    return Error{"the device forward needs the lm_head in the matrices' storage type"};
  const int V = static_cast<int>((*head)->rows), rows = std::min(n_, kLogitRows);
  auto logits = DeviceArray<float>::make(dev_, static_cast<size_t>(rows) * V);
  if (!logits) return logits.error();
  std::vector<float> host(static_cast<size_t>(rows) * V);
  const size_t inBytes = gemmType() == InputType::F32 ? 4 : 2;
  auto lmHead = gemmWeight(**head);
  if (!lmHead) return lmHead.error();
  if (opt_.keepFullLogits) out.logits.resize(n_, V);
  for (int r0 = 0; r0 < n_; r0 += rows) {
    Device::MixedGemm g;
    g.m = std::min(rows, n_ - r0), g.n = V, g.k = c_.dModel, g.type = gemmType();
    g.a = static_cast<const unsigned char*>(gemmInput(a_.get())) +
          static_cast<size_t>(r0) * c_.dModel * inBytes;
    g.b = *lmHead, g.transB = true, g.c = logits->get();
    if (auto st = dev_.gemmMixed(g); !st) return st;
    if (auto st = dev_.download(host.data(), logits->get(), static_cast<size_t>(g.m) * V * sizeof(float));
        !st)
      return st;
    if (opt_.keepFullLogits) out.logits.middleRows(r0, g.m) = Eigen::Map<const Mat>(host.data(), g.m, V);
    for (int i = 0; i < g.m && opt_.topK > 0; ++i)
      out.nextTokens.push_back(models::softmaxTopK(host.data() + static_cast<size_t>(i) * V, V, opt_.topK));
  }
  return okStatus();
}

}  // namespace

Result<DecoderForwardResult> decoderForward(Device& dev, const models::ModelConfig& c,
                                            const models::ModelWeights& w, const DeviceWeightCache& cache,
                                            const std::vector<int>& ids, const DecoderForwardOptions& o) {
  if (c.family != Family::Gpt2 && c.family != Family::Llama)
    return Error{fmt::format("the {} family has no device forward", models::familyName(c.family))};
  const int n = static_cast<int>(ids.size());
  if (n == 0) return Error{"the device forward needs at least one token"};
  if (c.slidingWindow > 0 && n > c.slidingWindow)
    return Error{
        fmt::format("the device forward has no sliding window ({} tokens, window {})", n, c.slidingWindow)};
  if (c.kvHeads <= 0 || c.heads % c.kvHeads != 0 || w.layers.size() != static_cast<size_t>(c.layers))
    return Error{"the model's head counts do not divide into K/V groups"};
  DecoderRun run(dev, c, w, cache, o, n);
  DecoderForwardResult out;
  if (auto st = run.prepare(ids); !st) return st.error();
  const auto goOn = [&o](int l) { return !o.beforeLayer || o.beforeLayer(l); };
  for (int l = 0; l < c.layers; ++l) {
    if (!goOn(l)) return Error{"cancelled"};
    if (auto st = run.layer(l, out); !st) return st.error();
  }
  if (!goOn(c.layers)) return Error{"cancelled"};
  if (auto st = run.finish(out); !st) return st.error();
  return out;
}

}  // namespace attn::gpu
