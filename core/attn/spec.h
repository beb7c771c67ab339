#pragma once
// What to compute: the attention configuration a front end builds from its
// controls or options. Plain data; validated by the engine.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attn/init.h"
#include "attn/mask.h"
#include "attn/positions.h"

namespace attn {

enum class Mechanism {
  Dot,        // Luong et al. 2015: q . k
  ScaledDot,  // Vaswani et al. 2017: q . k / sqrt(d_k)
};

std::string_view mechanismName(Mechanism m);
std::optional<Mechanism> parseMechanism(std::string_view name);

enum class ExecPath { Naive, Tiled, Auto };
enum class BackendKind { Cpu, Cuda, Auto };
std::string_view backendName(BackendKind b);
std::optional<BackendKind> parseBackend(std::string_view name);

struct AttentionSpec {
  Mechanism mechanism = Mechanism::ScaledDot;
  int heads = 4;
  int dModel = 64;
  int dK = 0;  // 0: d_model / heads
  float temperature = 1.0f;
  Mask mask;
  PositionalEncoding positional = PositionalEncoding::None;
  InitScheme init = InitScheme::XavierUniform;
  uint64_t seed = 42;
  ExecPath exec = ExecPath::Auto;
  BackendKind backend = BackendKind::Cpu;

  int headDim() const { return dK > 0 ? dK : (heads > 0 ? dModel / heads : 0); }
};

}  // namespace attn
