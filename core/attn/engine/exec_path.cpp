#include "attn/engine/exec_path.h"

namespace attn {

std::string_view execPathName(ExecPath p) {
  switch (p) {
    case ExecPath::Naive: return "naive";
    case ExecPath::Tiled: return "tiled";
    case ExecPath::Auto: return "auto";
    case ExecPath::Sparse: return "sparse";
    case ExecPath::Performer: return "performer";
    case ExecPath::LinearElu: return "linear_elu";
    case ExecPath::Linformer: return "linformer";
  }
  return "auto";
}

std::vector<std::string_view> allExecPaths() {
  return {"naive", "tiled", "auto", "sparse", "performer", "linear_elu", "linformer"};
}

std::optional<ExecPath> parseExecPath(std::string_view name) {
  for (auto p : {ExecPath::Naive, ExecPath::Tiled, ExecPath::Auto, ExecPath::Sparse,
                 ExecPath::Performer, ExecPath::LinearElu, ExecPath::Linformer})
    if (name == execPathName(p)) return p;
  if (name == "flash") return ExecPath::Tiled;
  if (name == "favor+" || name == "favor") return ExecPath::Performer;
  return std::nullopt;
}

bool isApproximate(ExecPath p) {
  return p == ExecPath::Performer || p == ExecPath::LinearElu || p == ExecPath::Linformer;
}

bool tiledSupports(Mechanism m) {
  // general is a dot product of (q W) with k, cosine one of unit rows; additive
  // (tanh of a sum) is not a dot product and stays on the naive path.
  return m == Mechanism::Dot || m == Mechanism::ScaledDot || m == Mechanism::General ||
         m == Mechanism::Cosine;
}

ExecPath resolveExecPath(const AttentionSpec& spec, int nq, int nk) {
  if (spec.exec == ExecPath::Tiled || spec.exec == ExecPath::Sparse)
    return tiledSupports(spec.mechanism) ? spec.exec : ExecPath::Naive;
  if (spec.exec != ExecPath::Auto) return spec.exec;
  if (!tiledSupports(spec.mechanism)) return ExecPath::Naive;
  return static_cast<long long>(nq) * nk <= kAutoNaiveMaxCells ? ExecPath::Naive : ExecPath::Tiled;
}

std::vector<std::string> linformerSlotLabels(int k) {
  std::vector<std::string> labels;
  labels.reserve(static_cast<size_t>(k));
  for (int s = 0; s < k; ++s) labels.push_back("slot " + std::to_string(s));
  return labels;
}

}  // namespace attn
