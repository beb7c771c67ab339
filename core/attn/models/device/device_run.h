#pragma once
// A model run where its plan (forward_plan.h) puts it: on a gpu::Device through the
// decoder driver (cuda/decoder_forward.h), its result turned into the ModelRun the CPU
// forward gives (tokens, every kept layer's maps, entropies, head outputs, q/k/v, the
// next-token predictions, logits and loss), or on the CPU. The device is an interface
// (cuda/device.h): the CUDA device in the programs, the CPU emulation of the kernels in
// the tests, so the whole path (plan, driver, ModelRun) is tested without a GPU.
#include <functional>
#include <memory>
#include <string>

#include "attn/models/device/forward_plan.h"
#include "attn/models/model.h"

namespace attn::gpu {
class Device;
class ModelDeviceWeights;
}  // namespace attn::gpu

namespace attn::models {

struct ModelConfig;
struct ModelWeights;

/// Where a model request runs: the plan and, when it says the device, the device.
struct ModelBackend {
  ForwardPlan plan;
  std::shared_ptr<gpu::Device> device;  // set when plan.onDevice
};

/// What planModelForward needs to know of a device the caller holds (the tests' emulation).
DeviceFacts deviceFacts(const gpu::Device& device);

/// Plans `requested` for this model and request: against this process's CUDA device
/// (probeDevice; opened when the plan takes it), or against `device` when one is given.
ModelBackend chooseModelBackend(BackendKind requested, const ModelInfo& info, int tokens,
                                const RunOptions& options, std::shared_ptr<gpu::Device> device = nullptr);

/// Model::run where `backend` puts it. On the device, what the plan could not see (a
/// padded encoding, a sliding window shorter than the text, a head size no flash tile
/// holds, a device failure) runs on the CPU instead, with `note` set to one line naming it;
/// `note` is left empty otherwise. An input the CPU refuses too is the CPU's error.
Result<ModelRun> runModelOn(const Model& model, const ModelBackend& backend, const Encoding& encoding,
                            const RunOptions& options, std::string& note, const ProgressFn& progress = {});

/// Behind Model::runOnDevice: the decoder driver on `dev` with the model's cached device
/// weights (uploaded on the first call, keeping the forward's own estimate free), the
/// result as a ModelRun. Errors name the piece it does not cover or the device's fault.
Result<ModelRun> deviceModelRun(gpu::Device& dev, gpu::ModelDeviceWeights& cache, const ModelInfo& info,
                                const ModelConfig& config, const ModelWeights& weights,
                                const Encoding& encoding, const RunOptions& options,
                                const std::function<std::string(int)>& display,
                                const ProgressFn& progress = {});

}  // namespace attn::models
