#pragma once
// Builds the GPU's plain-data view of a bound Mask (mask_device.h). `place`
// puts each term's array where the kernels read it (device memory on the GPU;
// the identity in the CPU emulation, where the view points into the Mask).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "attn/cuda/flash_block.h"
#include "attn/cuda/mask_device.h"
#include "attn/masks/mask.h"
#include "attn/status.h"

namespace attn::gpu {

using PlaceFn = std::function<Result<const void*>(const void* data, size_t bytes)>;

Result<MaskView> maskViewFor(const Mask& mask, const PlaceFn& place);

/// The view pointing at the Mask's own arrays (valid while `mask` lives).
Result<MaskView> hostMaskView(const Mask& mask);

/// TileKind of every br x bc tile of an nq x nk map, row-major by query block
/// (Mask::blockState; empty for a mask that allows everything).
std::vector<uint8_t> tileKinds(const Mask& mask, int nq, int nk, int br, int bc);

}  // namespace attn::gpu
