#include "attn/spec.h"

namespace attn {

std::string_view mechanismName(Mechanism m) {
  switch (m) {
    case Mechanism::Dot: return "dot";
    case Mechanism::ScaledDot: return "scaled_dot";
  }
  return "scaled_dot";
}

std::optional<Mechanism> parseMechanism(std::string_view name) {
  if (name == "dot") return Mechanism::Dot;
  if (name == "scaled_dot") return Mechanism::ScaledDot;
  return std::nullopt;
}

std::string_view backendName(BackendKind b) {
  switch (b) {
    case BackendKind::Cpu: return "cpu";
    case BackendKind::Cuda: return "cuda";
    case BackendKind::Auto: return "auto";
  }
  return "cpu";
}

std::optional<BackendKind> parseBackend(std::string_view name) {
  if (name == "cpu") return BackendKind::Cpu;
  if (name == "cuda") return BackendKind::Cuda;
  if (name == "auto") return BackendKind::Auto;
  return std::nullopt;
}

}  // namespace attn
