#pragma once
// Launchers of the kernels in kernels.cu (nvcc). No CUDA type appears here, so
// the host side (device_cuda.cpp) compiles with the C++ compiler; the return
// value is a cudaError_t, the stream a cudaStream_t.
#include <cstddef>

#include "attn/cuda/flash_block.h"

namespace attn::gpu {

/// Allows the flash kernel up to `bytes` of dynamic shared memory per block.
int setFlashSharedLimit(size_t bytes);
int launchFlash(const FlashParams& p, const TilePlan& plan, void* stream);
int launchWeights(const WeightsParams& p, void* stream);
int launchSoftmaxRows(const SoftmaxParams& p, void* stream);

}  // namespace attn::gpu
