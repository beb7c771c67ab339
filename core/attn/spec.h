#pragma once
// What to compute: the attention configuration a front end builds from its
// controls or options. Plain data; validated by the engine.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/engine/init.h"
#include "attn/masks/mask.h"
#include "attn/engine/positions.h"

namespace attn {

enum class Mechanism {
  Dot,        // Luong et al. 2015, eq. 8 "dot": q . k
  ScaledDot,  // Vaswani et al. 2017, eq. 1: q . k / sqrt(d_k)
  General,    // Luong et al. 2015, eq. 8 "general": q^T W k (bilinear; dk_q may differ from dk_k)
  Additive,   // Bahdanau et al. 2015, eq. 6 / app. A.1.2: v^T tanh(W_q^T q + W_k^T k [+ b])
  Cosine,     // Liu et al. 2022 (Swin v2), eq. 2: cos(q, k), divided by the temperature
};

std::string_view mechanismName(Mechanism m);
std::optional<Mechanism> parseMechanism(std::string_view name);
/// Every mechanism's name, in enum order (for selectors and --help).
std::vector<std::string_view> allMechanisms();
/// Whether the mechanism scores queries and keys of different widths.
bool allowsDifferentQKDims(Mechanism m);

// How softmax attention is executed. Naive/Tiled/Sparse are exact; Performer,
// LinearElu and Linformer approximate it (error reported per head). Names and
// Auto's choice: core/attn/engine/exec_path.h.
enum class ExecPath { Naive, Tiled, Auto, Sparse, Performer, LinearElu, Linformer };
enum class BackendKind { Cpu, Cuda, Auto };
std::string_view backendName(BackendKind b);
std::optional<BackendKind> parseBackend(std::string_view name);

/// How the CUDA backend stores Q, K, V on the GPU: fp32, or fp16 / bf16 with
/// every product and sum still in fp32 (the CPU computes in fp32 regardless).
enum class DeviceInputs { F32, F16, BF16 };
std::string_view deviceInputsName(DeviceInputs d);  // fp32, fp16, bf16
std::optional<DeviceInputs> parseDeviceInputs(std::string_view name);

struct AttentionSpec {
  Mechanism mechanism = Mechanism::ScaledDot;
  int heads = 4;
  int dModel = 64;
  int dK = 0;  // 0: d_model / heads
  int hidden = 0;  // additive score hidden size h; 0: the query head width
  bool projectionBias = false;  // W_Q/W_K/W_V/W_O with bias (x W + b); loaded biases imply it
  float temperature = 1.0f;
  Mask mask;
  PositionalEncoding positional = PositionalEncoding::None;
  InitScheme init = InitScheme::XavierUniform;
  uint64_t seed = 42;
  ExecPath exec = ExecPath::Auto;
  int randomFeatures = 0;  // performer: random features m; 0 = 4 * d_k
  int linformerSlots = 0;  // linformer: sequence slots k; 0 = min(N, 32)
  int weightsHead = -1;    // tiled/sparse: -1 every head's weights; h only head h's; -2 none
  BackendKind backend = BackendKind::Cpu;
  DeviceInputs deviceInputs = DeviceInputs::F32;  // CUDA backend only; see above
  // Bytes the materialized N x N per-head arrays may take; 0 = defaultMemoryBudget()
  // (memory_budget.h). Above it the naive path refuses and points to --exec tiled.
  int64_t memoryBudget = 0;
  // Width in patches of the image grid the positions lie on (image input,
  // core/attn/vision): row-major patch p is at (p / gridCols, p % gridCols).
  // Read by window2d masks and sinusoidal2d positions; 0 = no grid.
  int gridCols = 0;

  int headDim() const { return dK > 0 ? dK : (heads > 0 ? dModel / heads : 0); }
};

}  // namespace attn
