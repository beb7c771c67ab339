#include "attn/spec.h"

namespace attn {

std::string_view mechanismName(Mechanism m) {
  switch (m) {
    case Mechanism::Dot: return "dot";
    case Mechanism::ScaledDot: return "scaled_dot";
    case Mechanism::General: return "general";
    case Mechanism::Additive: return "additive";
    case Mechanism::Cosine: return "cosine";
  }
  return "scaled_dot";
}

std::optional<Mechanism> parseMechanism(std::string_view name) {
  for (auto m : {Mechanism::Dot, Mechanism::ScaledDot, Mechanism::General, Mechanism::Additive,
                 Mechanism::Cosine})
    if (name == mechanismName(m)) return m;
  if (name == "bilinear") return Mechanism::General;
  if (name == "bahdanau") return Mechanism::Additive;
  return std::nullopt;
}

std::vector<std::string_view> allMechanisms() {
  return {"dot", "scaled_dot", "general", "additive", "cosine"};
}

bool allowsDifferentQKDims(Mechanism m) {
  return m == Mechanism::General || m == Mechanism::Additive;
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

std::string_view deviceInputsName(DeviceInputs d) {
  switch (d) {
    case DeviceInputs::F32: return "fp32";
    case DeviceInputs::F16: return "fp16";
    case DeviceInputs::BF16: return "bf16";
  }
  return "fp32";
}

std::optional<DeviceInputs> parseDeviceInputs(std::string_view name) {
  if (name == "fp32") return DeviceInputs::F32;
  if (name == "fp16") return DeviceInputs::F16;
  if (name == "bf16") return DeviceInputs::BF16;
  return std::nullopt;
}

}  // namespace attn
