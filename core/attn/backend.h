#pragma once
// The CPU is just another backend (cf. ggml): one interface, one folder per
// backend; the CUDA one is compiled only when the toolkit is found.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attn/engine.h"

namespace attn {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  /// Fills out.rawLogits .. out.fullyMaskedRows from out.q, out.k, out.v.
  virtual Status computeHead(const AttentionSpec& spec, HeadResult& out) const = 0;
  /// Every head on a resolved execution path (never Auto). A backend may run
  /// heads in parallel; the default runs computeHead one head at a time.
  virtual Status computeHeads(const AttentionSpec& spec, ExecPath path,
                              std::vector<HeadResult>& heads) const {
    for (auto& h : heads)
      if (auto st = computeHead(spec, h); !st) return st;
    return okStatus();
  }
  /// Notes of the last computeHeads (e.g. a GPU backend that ran part of the
  /// request on the CPU, and why); cleared by the call.
  virtual std::vector<std::string> takeWarnings() const { return {}; }
};

/// A backend as the front ends list it: found and usable or not, and why.
struct BackendInfo {
  BackendKind kind = BackendKind::Cpu;
  bool available = false;
  std::string label;   // e.g. "CPU", "CUDA: NVIDIA H200, 141 GB"
  std::string reason;  // why it is not available (empty when it is)
};

/// CPU and CUDA, in that order. The CUDA device is looked for once per
/// process (a build without the toolkit says so; a machine without a driver or
/// GPU gives the CUDA runtime's reason).
std::vector<BackendInfo> backendsFound();

/// The backend for a request; an absent backend (cuda without the toolkit, a
/// driver or a GPU) falls back to the CPU with a warning appended to
/// `warnings`. `auto` takes CUDA when a device was found, else the CPU.
std::unique_ptr<Backend> selectBackend(BackendKind kind, std::vector<std::string>& warnings);

std::unique_ptr<Backend> makeCpuBackend();

}  // namespace attn
