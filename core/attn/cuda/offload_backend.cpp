#include "attn/cuda/offload_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include "attn/cpu/efficient_exec.h"
#include "attn/cpu/mask_cells.h"
#include "attn/cuda/mask_view.h"
#include "attn/engine/exec_path.h"
#include "attn/engine/scores.h"
#include "attn/variants/precision.h"

namespace attn::gpu {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

bool weightsWanted(const AttentionSpec& spec, int head) {
  return spec.weightsHead == -1 || spec.weightsHead == head;
}

// Every head's q', k' (as the tiled kernels see them), v and bias, packed;
// q/k/v as fp32, or (fp16/bf16 inputs on the tiled path) as 16-bit patterns.
struct Packed {
  int heads = 0, nq = 0, nk = 0, dk = 0, dv = 0;
  float scale = 1.0f;
  InputType inputs = InputType::F32;
  std::vector<float> q, k, v, bias;
  std::vector<uint16_t> q16, k16, v16;
};

void append(std::vector<float>& dst, const Mat& m) { dst.insert(dst.end(), m.data(), m.data() + m.size()); }

// fp16/bf16 inputs: the tiled kernels read 16-bit patterns; the naive path's
// cuBLAS GEMMs read fp32 arrays holding the rounded values (the same numbers).
void lowerInputs(Packed& p, DeviceInputs to, ExecPath path) {
  if (to == DeviceInputs::F32) return;
  const bool half = to == DeviceInputs::F16;
  if (path == ExecPath::Naive) {
    for (auto* a : {&p.q, &p.k, &p.v})
      for (float& x : *a) x = half ? variants::roundToHalf(x) : variants::roundToBf16(x);
    return;
  }
  p.inputs = half ? InputType::F16 : InputType::BF16;
  for (auto [from, bits] : {std::pair{&p.q, &p.q16}, std::pair{&p.k, &p.k16}, std::pair{&p.v, &p.v16}}) {
    bits->resize(from->size());
    for (size_t c = 0; c < from->size(); ++c) (*bits)[c] = half ? toHalfBits((*from)[c]) : toBf16Bits((*from)[c]);
    std::vector<float>().swap(*from);
  }
}

Result<Packed> pack(const AttentionSpec& spec, const std::vector<HeadResult>& heads) {
  Packed p;
  p.heads = static_cast<int>(heads.size());
  const HeadResult& h0 = heads.front();
  p.nq = static_cast<int>(h0.q.rows());
  p.nk = static_cast<int>(h0.k.rows());
  p.dv = static_cast<int>(h0.v.cols());
  const bool anyBias = std::any_of(heads.begin(), heads.end(), [](const HeadResult& h) { return h.logitBias.size() > 0; });
  for (const HeadResult& h : heads) {
    Mat qBuf, kBuf;
    const HeadView in = tiledHeadView(spec, h, qBuf, kBuf);
    if (p.dk == 0) p.dk = static_cast<int>(in.q->cols()), p.scale = in.scale;
    if (in.q->rows() != p.nq || in.k->rows() != p.nk || in.q->cols() != p.dk || in.k->cols() != p.dk ||
        in.v->rows() != p.nk || in.v->cols() != p.dv || in.scale != p.scale)
      return Error{"the heads differ in shape; the GPU kernels take heads of one shape"};
    append(p.q, *in.q);
    append(p.k, *in.k);
    append(p.v, *in.v);
    if (anyBias) {
      if (in.bias) append(p.bias, *in.bias);
      else p.bias.resize(p.bias.size() + static_cast<size_t>(p.nq) * p.nk, 0.0f);
    }
  }
  return p;
}

template <class T>
Result<DeviceArray<T>> uploaded(Device& dev, const std::vector<T>& host) {
  auto a = DeviceArray<T>::make(dev, host.size());
  if (!a) return a.error();
  if (!host.empty())
    if (auto st = dev.upload(a->get(), host.data(), host.size() * sizeof(T)); !st) return st.error();
  return a;
}

template <class T>
Status downloaded(Device& dev, std::vector<T>& host, const DeviceArray<T>& a) {
  host.resize(a.size());
  return host.empty() ? okStatus() : dev.download(host.data(), a.get(), host.size() * sizeof(T));
}

// The mask's arrays in device memory, alive as long as this.
struct DeviceMask {
  std::vector<DeviceArray<uint8_t>> arrays;
  MaskView view;
};

Result<DeviceMask> uploadMask(Device& dev, const Mask& mask) {
  DeviceMask dm;
  auto view = maskViewFor(mask, [&](const void* data, size_t bytes) -> Result<const void*> {
    auto a = DeviceArray<uint8_t>::make(dev, bytes);
    if (!a) return a.error();
    if (auto st = dev.upload(a->get(), data, bytes); !st) return st.error();
    const void* at = a->get();
    dm.arrays.push_back(std::move(a).value());
    return at;
  });
  if (!view) return view.error();
  dm.view = *view;
  return dm;
}

// The first failed allocation's error, if any.
template <class... R>
Status firstError(const R&... r) {
  Status st = okStatus();
  ((st = (st && !r) ? Status(r.error()) : st), ...);
  return st;
}

Mat toMat(const std::vector<float>& v, size_t offset, int rows, int cols) {
  Mat m(rows, cols);
  std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(offset), m.size(), m.data());
  return m;
}

Vec toVec(const std::vector<float>& v, size_t offset, int n) {
  Vec x(n);
  std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(offset), n, x.data());
  return x;
}

std::vector<int> fullyMasked(const std::vector<float>& rowSum, size_t offset, int n) {
  std::vector<int> rows;
  for (int i = 0; i < n; ++i)
    if (rowSum[offset + static_cast<size_t>(i)] == 0.0f) rows.push_back(i);
  return rows;
}

Status checkFits(const Device& dev, size_t need) {
  const size_t free = dev.freeBytes();
  if (need > free)
    return Error{fmt::format("the request needs {:.0f} MiB of GPU memory and {:.0f} MiB are free",
                             static_cast<double>(need) / kMiB, static_cast<double>(free) / kMiB)};
  return okStatus();
}

// Naive path: raw = q' k'^T (GEMM), the fused masked softmax, O = W V (GEMM);
// the display intermediates (scaled, masked logits) are derived on the host.
Status runNaive(Device& dev, const AttentionSpec& spec, const Packed& p, std::vector<HeadResult>& heads) {
  const size_t cells = static_cast<size_t>(p.heads) * p.nq * p.nk, rows = static_cast<size_t>(p.heads) * p.nq;
  auto q = uploaded(dev, p.q);
  if (!q) return q.error();
  auto k = uploaded(dev, p.k);
  if (!k) return k.error();
  auto v = uploaded(dev, p.v);
  if (!v) return v.error();
  auto bias = uploaded(dev, p.bias);
  if (!bias) return bias.error();
  auto mask = uploadMask(dev, spec.mask);
  if (!mask) return mask.error();
  auto raw = DeviceArray<float>::make(dev, cells);
  auto w = DeviceArray<float>::make(dev, cells);
  auto out = DeviceArray<float>::make(dev, rows * p.dv);
  auto ent = DeviceArray<float>::make(dev, rows);
  auto mx = DeviceArray<float>::make(dev, rows);
  auto sum = DeviceArray<float>::make(dev, rows);
  if (auto st = firstError(raw, w, out, ent, mx, sum); !st) return st;

  const size_t qs = static_cast<size_t>(p.nq) * p.dk, ks = static_cast<size_t>(p.nk) * p.dk;
  const size_t vs = static_cast<size_t>(p.nk) * p.dv, ss = static_cast<size_t>(p.nq) * p.nk;
  if (auto st = dev.gemm(p.heads, p.nq, p.nk, p.dk, q->get(), qs, k->get(), ks, true, raw->get(), ss); !st)
    return st;
  SoftmaxParams sp;
  sp.heads = p.heads;
  sp.nq = p.nq;
  sp.nk = p.nk;
  sp.scale = p.scale;
  sp.raw = raw->get();
  sp.bias = p.bias.empty() ? nullptr : bias->get();
  sp.mask = mask->view;
  sp.weights = w->get();
  sp.entropy = ent->get();
  sp.rowMax = mx->get();
  sp.rowSum = sum->get();
  if (auto st = dev.softmaxRows(sp); !st) return st;
  if (auto st = dev.gemm(p.heads, p.nq, p.dv, p.nk, w->get(), ss, v->get(), vs, false, out->get(),
                         static_cast<size_t>(p.nq) * p.dv); !st)
    return st;
  if (auto st = dev.synchronize(); !st) return st;

  std::vector<float> hRaw, hW, hOut, hEnt, hSum;
  if (auto st = firstError(downloaded(dev, hRaw, *raw), downloaded(dev, hW, *w), downloaded(dev, hOut, *out),
                           downloaded(dev, hEnt, *ent), downloaded(dev, hSum, *sum)); !st)
    return st;

  for (int i = 0; i < p.heads; ++i) {
    HeadResult& h = heads[static_cast<size_t>(i)];
    const size_t at = static_cast<size_t>(i) * ss, row = static_cast<size_t>(i) * p.nq;
    Mat scaled = toMat(hRaw, at, p.nq, p.nk) * p.scale;
    if (!scaled.allFinite())
      return Error{"an attention logit overflowed float32 on the GPU"};  // the CPU rerun names the cell
    h.rawLogits = toMat(hRaw, at, p.nq, p.nk);
    h.scaledLogits = std::move(scaled);
    h.maskedLogits = h.scaledLogits;
    if (h.logitBias.size() > 0) h.maskedLogits += h.logitBias;
    if (!spec.mask.isNone()) maskCells(spec.mask, h.maskedLogits, -std::numeric_limits<float>::infinity());
    h.weights = toMat(hW, at, p.nq, p.nk);
    h.output = toMat(hOut, row * p.dv, p.nq, p.dv);
    h.entropy = toVec(hEnt, row, p.nq);
    h.fullyMaskedRows = fullyMasked(hSum, row, p.nq);
  }
  return okStatus();
}

// Tiled/sparse path: the flash kernel (no N x N array), then the weights of
// the heads whose map is asked for.
Status runTiled(Device& dev, const AttentionSpec& spec, const Packed& p, std::vector<HeadResult>& heads) {
  const TilePlan plan = chooseFlashTile(p.dk, p.dv, dev.maxSharedBytes());
  if (!plan.ok)
    return Error{fmt::format("head dimensions d_k = {}, d_v = {} need more shared memory than the GPU has "
                             "({} bytes per block)", p.dk, p.dv, dev.maxSharedBytes())};
  const size_t rows = static_cast<size_t>(p.heads) * p.nq, ss = static_cast<size_t>(p.nq) * p.nk;
  auto q = uploaded(dev, p.q);
  auto k = uploaded(dev, p.k);
  auto v = uploaded(dev, p.v);
  auto q16 = uploaded(dev, p.q16);
  auto k16 = uploaded(dev, p.k16);
  auto v16 = uploaded(dev, p.v16);
  auto bias = uploaded(dev, p.bias);
  if (auto st = firstError(q, k, v, q16, k16, v16, bias); !st) return st;
  auto mask = uploadMask(dev, spec.mask);
  if (!mask) return mask.error();
  auto tiles = uploaded(dev, tileKinds(spec.mask, p.nq, p.nk, plan.br, plan.bc));
  if (!tiles) return tiles.error();
  auto out = DeviceArray<float>::make(dev, rows * p.dv);
  auto ent = DeviceArray<float>::make(dev, rows);
  auto mx = DeviceArray<float>::make(dev, rows);
  auto sum = DeviceArray<float>::make(dev, rows);
  if (auto st = firstError(out, ent, mx, sum); !st) return st;

  FlashParams fp;
  fp.heads = p.heads;
  fp.nq = p.nq;
  fp.nk = p.nk;
  fp.dk = p.dk;
  fp.dv = p.dv;
  fp.scale = p.scale;
  fp.q = q->get();
  fp.k = k->get();
  fp.v = v->get();
  fp.inputs = p.inputs;
  fp.q16 = q16->get();
  fp.k16 = k16->get();
  fp.v16 = v16->get();
  fp.bias = p.bias.empty() ? nullptr : bias->get();
  fp.mask = mask->view;
  fp.tiles = tiles->size() ? tiles->get() : nullptr;
  fp.br = plan.br;
  fp.bc = plan.bc;
  fp.out = out->get();
  fp.entropy = ent->get();
  fp.rowMax = mx->get();
  fp.rowSum = sum->get();
  if (auto st = dev.flash(fp, plan); !st) return st;

  // One head's weights at a time (only those asked for), from its slice.
  std::vector<std::vector<float>> hW(heads.size()), hScaled(heads.size());
  for (int i = 0; i < p.heads; ++i) {
    if (!weightsWanted(spec, i)) continue;
    auto w = DeviceArray<float>::make(dev, ss);
    if (!w) return w.error();
    auto sl = DeviceArray<float>::make(dev, ss);
    if (!sl) return sl.error();
    WeightsParams wp;
    wp.f = fp;
    wp.f.heads = 1;
    const size_t qAt = static_cast<size_t>(i) * p.nq * p.dk, kAt = static_cast<size_t>(i) * p.nk * p.dk;
    const bool low = p.inputs != InputType::F32;  // which arrays hold the inputs
    wp.f.q = low ? nullptr : fp.q + qAt;
    wp.f.k = low ? nullptr : fp.k + kAt;
    wp.f.v = nullptr;  // the weights kernel reads q and k only
    wp.f.q16 = low ? fp.q16 + qAt : nullptr;
    wp.f.k16 = low ? fp.k16 + kAt : nullptr;
    wp.f.v16 = nullptr;
    wp.f.bias = fp.bias ? fp.bias + static_cast<size_t>(i) * ss : nullptr;
    wp.f.rowMax = fp.rowMax + static_cast<size_t>(i) * p.nq;
    wp.f.rowSum = fp.rowSum + static_cast<size_t>(i) * p.nq;
    wp.weights = w->get();
    wp.scaledLogits = sl->get();
    if (auto st = dev.weights(wp); !st) return st;
    if (auto st = dev.synchronize(); !st) return st;
    if (auto st = downloaded(dev, hW[static_cast<size_t>(i)], *w); !st) return st;
    if (auto st = downloaded(dev, hScaled[static_cast<size_t>(i)], *sl); !st) return st;
  }
  if (auto st = dev.synchronize(); !st) return st;
  std::vector<float> hOut, hEnt, hMax, hSum;
  if (auto st = firstError(downloaded(dev, hOut, *out), downloaded(dev, hEnt, *ent), downloaded(dev, hMax, *mx),
                           downloaded(dev, hSum, *sum)); !st)
    return st;

  for (int i = 0; i < p.heads; ++i) {
    HeadResult& h = heads[static_cast<size_t>(i)];
    const size_t row = static_cast<size_t>(i) * p.nq;
    h.rawLogits.resize(0, 0);
    h.maskedLogits.resize(0, 0);
    if (weightsWanted(spec, i)) {
      h.weights = toMat(hW[static_cast<size_t>(i)], 0, p.nq, p.nk);
      h.scaledLogits = toMat(hScaled[static_cast<size_t>(i)], 0, p.nq, p.nk);
    } else {
      h.weights.resize(0, 0);
      h.scaledLogits.resize(0, 0);
    }
    h.output = toMat(hOut, row * p.dv, p.nq, p.dv);
    h.entropy = toVec(hEnt, row, p.nq);
    h.rowMax = toVec(hMax, row, p.nq);
    h.fullyMaskedRows = fullyMasked(hSum, row, p.nq);
  }
  return okStatus();
}

class OffloadBackend final : public Backend {
 public:
  OffloadBackend(std::shared_ptr<Device> dev, std::string name)
      : dev_(std::move(dev)), name_(std::move(name)), cpu_(makeCpuBackend()) {}

  std::string_view name() const override { return name_; }

  Status computeHead(const AttentionSpec& spec, HeadResult& out) const override {
    std::vector<HeadResult> one(1);
    one[0] = std::move(out);
    auto st = computeHeads(spec, ExecPath::Naive, one);
    out = std::move(one[0]);
    return st;
  }

  Status computeHeads(const AttentionSpec& spec, ExecPath path, std::vector<HeadResult>& heads) const override {
    if (heads.empty()) return okStatus();
    std::string why = unsupported(spec, path);
    if (why.empty()) {
      Status st = run(spec, path, heads);
      if (st) return st;
      why = st.error().message;
    }
    note(fmt::format("{}: {}; computed on the CPU", name_, why));
    return cpu_->computeHeads(spec, path, heads);
  }

  std::vector<std::string> takeWarnings() const override {
    std::lock_guard lock(mutex_);
    return std::exchange(warnings_, {});
  }

 private:
  static std::string unsupported(const AttentionSpec& spec, ExecPath path) {
    if (!tiledSupports(spec.mechanism))
      return fmt::format("mechanism '{}' has no GPU kernel (dot, scaled_dot, general and cosine do)",
                         mechanismName(spec.mechanism));
    if (path != ExecPath::Naive && path != ExecPath::Tiled && path != ExecPath::Sparse)
      return fmt::format("exec '{}' has no GPU kernel (naive, tiled and sparse do)", execPathName(path));
    if (spec.mask.terms().size() > static_cast<size_t>(kMaxMaskTerms))
      return fmt::format("the mask has more than {} terms", kMaxMaskTerms);
    return {};
  }

  // fp16/bf16 inputs: the low-precision result, and how far it is from the
  // same run with fp32 inputs (a note: the seeds' mixed-precision question).
  Status run(const AttentionSpec& spec, ExecPath path, std::vector<HeadResult>& heads) const {
    if (spec.deviceInputs == DeviceInputs::F32) return runOnce(spec, path, heads);
    std::vector<HeadResult> fp32 = heads;
    if (auto st = runOnce(spec, path, heads); !st) return st;
    AttentionSpec s32 = spec;
    s32.deviceInputs = DeviceInputs::F32;
    if (auto st = runOnce(s32, path, fp32); !st) {
      note(fmt::format("{} inputs: the fp32 run for comparison failed ({})", deviceInputsName(spec.deviceInputs),
                       st.error().message));
      return okStatus();
    }
    double out = 0, ent = 0, w = 0;
    for (size_t h = 0; h < heads.size(); ++h) {
      out = std::max(out, static_cast<double>((heads[h].output - fp32[h].output).cwiseAbs().maxCoeff()));
      ent = std::max(ent, static_cast<double>((heads[h].entropy - fp32[h].entropy).cwiseAbs().maxCoeff()));
      if (heads[h].weights.size() > 0)
        w = std::max(w, static_cast<double>((heads[h].weights - fp32[h].weights).cwiseAbs().maxCoeff()));
    }
    note(fmt::format("{} inputs on the GPU (fp32 arithmetic): largest difference from fp32 inputs: output {:.2e}, "
                     "entropy {:.2e} nats, weights {:.2e}",
                     deviceInputsName(spec.deviceInputs), out, ent, w));
    return okStatus();
  }

  Status runOnce(const AttentionSpec& spec, ExecPath path, std::vector<HeadResult>& heads) const {
    auto packed = pack(spec, heads);
    if (!packed) return packed.error();
    Packed& p = *packed;
    lowerInputs(p, spec.deviceInputs, path);
    if (auto st = checkFits(*dev_, offloadBytes(spec, path, p.heads, p.nq, p.nk, p.dk, p.dv, !p.bias.empty()));
        !st)
      return st;
    try {
      std::lock_guard lock(dev_->requestMutex);
      return path == ExecPath::Naive ? runNaive(*dev_, spec, p, heads) : runTiled(*dev_, spec, p, heads);
    } catch (const std::bad_alloc&) {
      return Error{"out of host memory while unpacking the GPU's results"};
    }
  }

  void note(std::string w) const {
    std::lock_guard lock(mutex_);
    warnings_.push_back(std::move(w));
  }

  std::shared_ptr<Device> dev_;
  std::string name_;
  std::unique_ptr<Backend> cpu_;
  mutable std::mutex mutex_;
  mutable std::vector<std::string> warnings_;
};

}  // namespace

size_t offloadBytes(const AttentionSpec& spec, ExecPath path, int heads, int nq, int nk, int dk, int dv,
                    bool bias) {
  const size_t h = static_cast<size_t>(heads), cells = static_cast<size_t>(nq) * nk;
  size_t floats = h * (static_cast<size_t>(nq) * dk + static_cast<size_t>(nk) * dk + static_cast<size_t>(nk) * dv +
                       static_cast<size_t>(nq) * dv + 3 * static_cast<size_t>(nq));
  if (bias) floats += h * cells;
  if (path == ExecPath::Naive) {
    floats += 2 * h * cells;  // raw scores and weights
  } else {
    const size_t wanted = spec.weightsHead == -1 ? h : (spec.weightsHead >= 0 ? 1 : 0);
    floats += wanted > 0 ? 2 * cells : 0;  // one head's weights and scaled logits at a time
  }
  size_t bytes = floats * sizeof(float) + cells / (16 * 16) + 1;  // + tile kinds (16 x 16 tiles at most)
  for (const MaskTerm& t : spec.mask.terms())
    bytes += t.indices.size() * sizeof(int64_t) + (t.keep ? t.keep->size() : 0);
  return bytes;
}

std::unique_ptr<Backend> makeOffloadBackend(std::shared_ptr<Device> device, std::string name) {
  return std::make_unique<OffloadBackend>(std::move(device), std::move(name));
}

}  // namespace attn::gpu
