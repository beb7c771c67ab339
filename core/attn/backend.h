#pragma once
// The CPU is just another backend (cf. ggml): one interface, one folder per
// backend; the CUDA one is compiled only when the toolkit is found.
#include <memory>
#include <string_view>

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
};

/// The backend for a request; an absent backend (e.g. cuda without the
/// toolkit) falls back to the CPU with a warning appended to `warnings`.
std::unique_ptr<Backend> selectBackend(BackendKind kind, std::vector<std::string>& warnings);

std::unique_ptr<Backend> makeCpuBackend();

}  // namespace attn
