#pragma once
// The CUDA device behind the "cuda" backend (builds with the toolkit only).
#include <memory>

#include "attn/cuda/device.h"

namespace attn::gpu {

/// Device 0, opened once per process: the CUDA runtime (linked statically)
/// loads the driver at run time, so without a driver or a GPU this returns the
/// runtime's reason instead of failing to start.
Result<std::shared_ptr<Device>> openCudaDevice();

}  // namespace attn::gpu
