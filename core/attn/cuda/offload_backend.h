#pragma once
// The GPU backend's host side: packs the heads, runs the kernels of
// flash_block.h on a Device and unpacks the results into HeadResults. What the
// kernels do not cover (additive and the other non-dot mechanisms, the
// approximate paths, masks of more than kMaxMaskTerms terms) and any device
// failure (out of memory, a launch error) run on the CPU with a warning.
#include <memory>
#include <string>

#include "attn/backend.h"
#include "attn/cuda/device.h"

namespace attn::gpu {

/// `name` is what the result reports as the backend used ("cuda").
std::unique_ptr<Backend> makeOffloadBackend(std::shared_ptr<Device> device, std::string name);

/// Device bytes a request needs (inputs, outputs, the weights asked for).
size_t offloadBytes(const AttentionSpec& spec, ExecPath path, int heads, int nq, int nk, int dk, int dv,
                    bool bias);

}  // namespace attn::gpu
