#pragma once
// Where a model's forward pass runs when the CUDA backend is asked for
// (`--backend cuda|auto` with --model): the decision and the device-memory
// estimate behind it, as plain C++ so that every branch is tested on machines
// without a GPU. The request falls back to the CPU, with one line saying which
// piece could not run on the device and why, when there is no device, the
// family or an option has no device path, or the model does not fit.
#include <cstddef>
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/spec.h"

namespace attn::models {

/// What the machine offers, as found when the request is planned.
struct DeviceFacts {
  bool found = false;         // a usable CUDA device
  std::string why;            // why there is none (found false)
  std::string name;           // e.g. "NVIDIA H200, 141 GB"
  size_t freeBytes = 0;       // free device memory (cudaMemGetInfo)
  bool forwardBuilt = false;  // this build has the device forward of the decoder families (CUDA builds)
};

/// The CUDA device of this process, looked for once (backendsFound), and its free memory now.
DeviceFacts probeDevice();

/// Device bytes of a forward pass that keeps the weights resident and runs one layer at a time.
struct DeviceForwardBytes {
  size_t weights = 0;      // every tensor, in its dtype on disk (BF16/F16 kept as 2 bytes)
  size_t activations = 0;  // hidden state, norm output, q/k/v, the MLP's two products, head outputs
  size_t maps = 0;         // one layer's heads' N x N weights, or their per-row measures when streamed
  size_t logits = 0;       // the lm_head on a block of rows, or [N, vocab] when kept
  size_t widened = 0;      // 16-bit weights in f32 arithmetic (deviceF32): the largest matrix as f32
  size_t reserve = 0;      // cuBLAS workspace and the context's own allocations
  size_t total() const { return weights + activations + maps + logits + widened + reserve; }
};
DeviceForwardBytes deviceForwardBytes(const ModelInfo& info, int tokens, const RunOptions& options);

/// The pieces of this request the device forward does not compute (the family, a quantized
/// dtype, an option such as interventions), each as a short phrase; empty when it covers all.
std::vector<std::string> deviceUnsupported(const ModelInfo& info, const RunOptions& options);
/// The run options among them (streamed runs, interventions, ...).
std::vector<std::string> deviceUnsupportedOptions(const RunOptions& options);

struct ForwardPlan {
  bool onDevice = false;
  /// One line when the request named the GPU (cuda, or auto with a device found) and the
  /// forward runs on the CPU: which piece falls back and why. Empty otherwise.
  std::string note;
  DeviceForwardBytes bytes;
};

/// cpu: the CPU, silently. cuda: the device when found, the model's pieces supported and
/// its estimate within the free memory; else the CPU with a note. auto: as cuda when a
/// device is found, else the CPU silently.
ForwardPlan planModelForward(BackendKind requested, const ModelInfo& info, int tokens,
                             const RunOptions& options, const DeviceFacts& device);

}  // namespace attn::models
