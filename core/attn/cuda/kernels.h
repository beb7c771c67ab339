#pragma once
// Launchers of the kernels in kernels.cu (nvcc). No CUDA type appears here, so
// the host side (device_cuda.cpp) compiles with the C++ compiler; the return
// value is a cudaError_t, the stream a cudaStream_t.
#include <cstddef>

#include "attn/cuda/flash_block.h"
#include "attn/cuda/model_block.h"

namespace attn::gpu {

/// Allows the flash kernel up to `bytes` of dynamic shared memory per block.
int setFlashSharedLimit(size_t bytes);
int launchFlash(const FlashParams& p, const TilePlan& plan, void* stream);
int launchWeights(const WeightsParams& p, void* stream);
int launchSoftmaxRows(const SoftmaxParams& p, void* stream);

// A decoder layer's other pieces (model_block.h).
int launchNorm(const NormParams& p, void* stream);
int launchRope(const RopeParams& p, void* stream);
int launchHeadLayout(const HeadLayoutParams& p, void* stream);
int launchActivation(const ActivationParams& p, void* stream);
int launchAdd(const AddParams& p, void* stream);
int launchEmbed(const EmbedParams& p, void* stream);
int launchConvert(const ConvertParams& p, void* stream);

}  // namespace attn::gpu
