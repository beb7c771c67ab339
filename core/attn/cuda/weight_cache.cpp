#include "attn/cuda/weight_cache.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_set>

#include "attn/cuda/model_block.h"

namespace attn::gpu {
namespace {

constexpr double kCacheGiB = 1024.0 * 1024.0 * 1024.0;

const void* hostKey(const models::WeightTensor& t) {
  return t.bf16 ? static_cast<const void*>(t.bf16) : static_cast<const void*>(t.data);
}

size_t tensorBytes(const models::WeightTensor& t, InputType storage) {
  return static_cast<size_t>(t.rows * t.cols) * (storage == InputType::F32 ? 4 : 2);
}

// The tensor as the device stores it: BF16 patterns copied as they are, f32 decoded a
// block of rows at a time (rowsTo), F16 re-encoded (exact: the f32 came from F16).
std::vector<unsigned char> deviceBytes(const models::WeightTensor& t, InputType storage) {
  std::vector<unsigned char> out(tensorBytes(t, storage));
  if (storage == InputType::BF16 && t.bf16) {
    std::memcpy(out.data(), t.bf16, out.size());
    return out;
  }
  std::vector<float> row(static_cast<size_t>(t.cols));
  for (int64_t r = 0; r < t.rows; ++r) {
    t.rowTo(r, row.data());
    if (storage == InputType::F32) {
      std::memcpy(out.data() + static_cast<size_t>(r * t.cols) * 4, row.data(), row.size() * 4);
      continue;
    }
    auto* bits = reinterpret_cast<uint16_t*>(out.data()) + static_cast<size_t>(r * t.cols);
    for (size_t c = 0; c < row.size(); ++c) bits[c] = floatToBits(row[c], storage);
  }
  return out;
}

void addLinear(const models::LinearWeight& l, std::vector<const models::WeightTensor*>& out) {
  out.push_back(&l.w);
  out.push_back(&l.b);
}

void addNorm(const models::NormWeight& n, std::vector<const models::WeightTensor*>& out) {
  out.push_back(&n.gamma);
  out.push_back(&n.beta);
}

}  // namespace

InputType deviceStorage(const models::WeightTensor& t, const std::string& modelDtype) {
  if (t.rows <= 1) return InputType::F32;  // norms and biases: read as f32 by the kernels
  if (t.bf16 || modelDtype == "BF16") return InputType::BF16;
  if (modelDtype == "F16") return InputType::F16;
  return InputType::F32;
}

std::vector<const models::WeightTensor*> decoderTensors(const models::ModelWeights& w) {
  std::vector<const models::WeightTensor*> all = {&w.tokenEmbedding, &w.positionEmbedding, &w.lmHead};
  addNorm(w.finalNorm, all);
  for (const auto& L : w.layers) {
    for (const auto* l : {&L.qkv, &L.q, &L.k, &L.v, &L.o, &L.up, &L.gate, &L.down}) addLinear(*l, all);
    addNorm(L.attnNorm, all);
    addNorm(L.mlpNorm, all);
  }
  std::vector<const models::WeightTensor*> out;
  std::unordered_set<const void*> seen;
  for (const auto* t : all)
    if (!t->empty() && !t->quant && seen.insert(hostKey(*t)).second) out.push_back(t);
  return out;
}

size_t deviceWeightBytes(const models::ModelWeights& w) {
  size_t total = 0;
  for (const auto* t : decoderTensors(w)) total += tensorBytes(*t, deviceStorage(*t, w.dtype));
  return total;
}

Result<std::unique_ptr<DeviceWeightCache>> DeviceWeightCache::upload(Device& dev,
                                                                     const models::ModelWeights& w,
                                                                     size_t keepFree) {
  const size_t need = deviceWeightBytes(w), free = dev.freeBytes();
  if (need + keepFree > free)
    return Error{
        fmt::format("the weights need {:.2f} GiB on {} and {:.2f} GiB is free ({:.2f} GiB kept for the "
                    "forward's activations)",
                    static_cast<double>(need) / kCacheGiB, dev.description(),
                    static_cast<double>(free) / kCacheGiB, static_cast<double>(keepFree) / kCacheGiB)};
  auto cache = std::unique_ptr<DeviceWeightCache>(new DeviceWeightCache());
  for (const auto* t : decoderTensors(w)) {
    const InputType storage = deviceStorage(*t, w.dtype);
    const auto bytes = deviceBytes(*t, storage);
    auto arr = DeviceArray<unsigned char>::make(dev, bytes.size());
    if (!arr) return arr.error();
    if (auto st = dev.upload(arr->get(), bytes.data(), bytes.size()); !st) return st.error();
    cache->tensors_[hostKey(*t)] = DeviceTensor{storage, arr->get(), t->rows, t->cols};
    cache->bytes_ += bytes.size();
    cache->arrays_.push_back(std::move(arr).value());
  }
  if (auto st = dev.synchronize(); !st) return st.error();  // a failed copy reports here
  return cache;
}

const DeviceTensor* DeviceWeightCache::find(const models::WeightTensor& t) const {
  const auto it = tensors_.find(hostKey(t));
  return it == tensors_.end() ? nullptr : &it->second;
}

Result<const DeviceWeightCache*> ModelDeviceWeights::get(Device& dev, const models::ModelWeights& w,
                                                         size_t keepFree) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cache_ && device_ != &dev) cache_.reset();
  if (!cache_) {
    auto made = DeviceWeightCache::upload(dev, w, keepFree);
    if (!made) return made.error();
    cache_ = std::move(made).value();
    device_ = &dev;
    ++uploads_;
  }
  return cache_.get();
}

}  // namespace attn::gpu
