#include "attn/models/device/forward_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "attn/backend.h"

#ifdef ATTNSCOPE_HAVE_CUDA
#include "attn/cuda/device_cuda.h"
#endif

namespace attn::models {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr size_t kDeviceReserve = size_t{256} << 20;  // cuBLAS workspace, context, allocator slack

size_t weightElementBytes(const std::string& dtype) { return dtype == "F16" || dtype == "BF16" ? 2 : 4; }

std::string joinPieces(const std::vector<std::string>& pieces) {
  std::string s;
  for (size_t i = 0; i < pieces.size(); ++i)
    s += (i == 0 ? "" : i + 1 == pieces.size() ? " and " : ", ") + pieces[i];
  return s;
}

}  // namespace

DeviceFacts probeDevice() {
  DeviceFacts d;
  const BackendInfo cuda = backendsFound()[1];
  d.found = cuda.available;
  d.why = cuda.reason;
  d.name = cuda.label;
#ifdef ATTNSCOPE_HAVE_CUDA
  d.forwardBuilt = true;  // models/device/device_run.h runs the decoder driver
  if (d.found)
    if (auto dev = gpu::openCudaDevice()) d.freeBytes = (*dev)->freeBytes();
#endif
  return d;
}

DeviceForwardBytes deviceForwardBytes(const ModelInfo& info, int tokens, const RunOptions& o) {
  DeviceForwardBytes b;
  const size_t n = static_cast<size_t>(std::max(tokens, 0));
  const size_t d = static_cast<size_t>(info.dModel), inner = static_cast<size_t>(info.intermediate);
  const size_t heads = static_cast<size_t>(info.heads), hd = static_cast<size_t>(info.headDim);
  const size_t kv = static_cast<size_t>(info.kvHeads > 0 ? info.kvHeads : info.heads);
  b.weights = static_cast<size_t>(std::max<int64_t>(info.parameters, 0)) * weightElementBytes(info.dtype);
  // F32: h, the norm's output, the attention output and the head outputs [n, d]; q, k, v;
  // the MLP's gate and up products [n, inner]. 16-bit copies of the GEMMs' widest input.
  const size_t f32Cols = 4 * d + (heads + 2 * kv) * hd + 2 * inner;
  b.activations = n * f32Cols * 4 + n * std::max(d, inner) * 2;
  if (o.streamed)
    b.maps = heads * n * 3 * 4;  // row max, normalizer, entropy per head
  else if (o.keepAttention)
    b.maps = heads * n * n * 4;
  const size_t vocab = static_cast<size_t>(std::max(info.vocabSize, 0));
  if (o.keepFullLogits)
    b.logits = n * vocab * 4;
  else if (info.causal && (o.topK > 0 || o.nextTokenLoss))
    b.logits = std::min<size_t>(n, 256) * vocab * 4;
  // f32 arithmetic widens each 16-bit matrix just before its GEMM: the largest one, the
  // lm_head / embedding [vocab, d] or an MLP matrix [inner, d], is one more f32 buffer.
  if (o.deviceF32 && weightElementBytes(info.dtype) == 2) b.widened = std::max(vocab, inner) * d * 4;
  b.reserve = kDeviceReserve + (b.weights + b.activations + b.maps + b.logits + b.widened) / 20;
  return b;
}

std::vector<std::string> deviceUnsupported(const ModelInfo& info, const RunOptions& o) {
  std::vector<std::string> out;
  if (info.vision || (info.family != Family::Gpt2 && info.family != Family::Llama))
    out.push_back(fmt::format("the {} family", familyName(info.family)));
  // A GGUF file names its type even when it is a float one ("F32, 32.0 bits/weight"): the
  // dtype says whether the matrices are quantized.
  if (info.dtype != "F32" && info.dtype != "F16" && info.dtype != "BF16")
    out.push_back(fmt::format("{} weights", info.quantization.empty() ? info.dtype : info.quantization));
  for (auto& piece : deviceUnsupportedOptions(o)) out.push_back(std::move(piece));
  return out;
}

std::vector<std::string> deviceUnsupportedOptions(const RunOptions& o) {
  std::vector<std::string> out;
  if (o.streamed) out.push_back("streamed runs");
  if (!o.interventions.empty()) out.push_back("head interventions");
  if (o.contributions) out.push_back("attention-norm contributions");
  if (o.logitLens) out.push_back("the logit lens");
  if (o.keepHiddenStates) out.push_back("hidden states");
  if (o.keepLogits) out.push_back("per-head logits");
  if (o.cache) out.push_back("the prefix cache");
  return out;
}

ForwardPlan planModelForward(BackendKind requested, const ModelInfo& info, int tokens, const RunOptions& o,
                             const DeviceFacts& dev) {
  ForwardPlan plan;
  plan.bytes = deviceForwardBytes(info, tokens, o);
  if (requested == BackendKind::Cpu) return plan;
  if (!dev.found) {
    if (requested == BackendKind::Cuda)
      plan.note =
          fmt::format("backend 'cuda' is not available ({}); the model forward runs on the CPU", dev.why);
    return plan;
  }
  const std::string cpu = "the model forward runs on the CPU";
  if (const auto pieces = deviceUnsupported(info, o); !pieces.empty()) {
    plan.note = fmt::format("{}: the CUDA forward does not cover {}", cpu, joinPieces(pieces));
    // The device keeps no q/k store and computes whole maps: a long prompt's streamed
    // analysis (models/streamed) has no device path yet.
    if (o.streamed) plan.note += " (streamed runs stay on the CPU)";
    return plan;
  }
  if (plan.bytes.total() > dev.freeBytes) {
    plan.note = fmt::format(
        "{}: it needs {:.2f} GiB on {} (weights {:.2f}, activations {:.2f}, attention maps {:.2f}) and "
        "{:.2f} GiB "
        "is free",
        cpu, static_cast<double>(plan.bytes.total()) / kGiB, dev.name,
        static_cast<double>(plan.bytes.weights) / kGiB, static_cast<double>(plan.bytes.activations) / kGiB,
        static_cast<double>(plan.bytes.maps) / kGiB, static_cast<double>(dev.freeBytes) / kGiB);
    return plan;
  }
  if (!dev.forwardBuilt) {
    plan.note = fmt::format(
        "{}: this build runs the attention kernels on {} but not yet a whole model's forward", cpu, dev.name);
    return plan;
  }
  plan.onDevice = true;
  return plan;
}

}  // namespace attn::models
