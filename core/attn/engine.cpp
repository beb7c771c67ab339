#include "attn/engine.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/backend.h"
#include "attn/exec_path.h"
#include "attn/init.h"
#include "attn/memory_budget.h"
#include "attn/positions.h"

namespace attn {
namespace {

// `head` >= 0 prefixes the index with the head, as in the file's [H, N, d] layout.
template <class M>
Status checkFinite(const M& m, std::string_view name, int head = -1) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) {
        const std::string at = m.cols() == 1 && M::ColsAtCompileTime == 1 ? fmt::format("{}", i)
                                                                         : fmt::format("{}, {}", i, j);
        return Error{fmt::format("array '{}' has a non-finite value ({}) at [{}{}]", name, m(i, j),
                                 head >= 0 ? fmt::format("{}, ", head) : "", at)};
      }
  return okStatus();
}

/// Loaded weights are inputs too: a NaN in W_Q would otherwise surface as NaN weights.
Status checkLoadedParametersFinite(const AttentionInput& in) {
  for (auto [m, name] : {std::pair{&in.wQ, "w_q"}, {&in.wK, "w_k"}, {&in.wV, "w_v"}, {&in.wO, "w_o"}})
    if (auto st = checkFinite(*m, name); !st) return st;
  for (auto [list, name] : {std::pair{&in.wBilinear, "w_bilinear"}, {&in.wAddQ, "w_add_q"}, {&in.wAddK, "w_add_k"}})
    for (size_t h = 0; h < list->size(); ++h)
      if (auto st = checkFinite((*list)[h], name, static_cast<int>(h)); !st) return st;
  for (size_t h = 0; h < in.vAdd.size(); ++h)
    if (auto st = checkFinite(in.vAdd[h], "v_add", static_cast<int>(h)); !st) return st;
  return okStatus();
}

Status validateSpec(const AttentionSpec& spec) {
  if (spec.heads <= 0) return Error{fmt::format("heads must be at least 1 (got {})", spec.heads)};
  if (spec.dModel <= 0) return Error{fmt::format("d_model must be at least 1 (got {})", spec.dModel)};
  if (spec.dK <= 0 && spec.dModel % spec.heads != 0)
    return Error{fmt::format("d_model {} is not divisible by {} heads", spec.dModel, spec.heads)};
  if (!(spec.temperature > 0.0f) || !std::isfinite(spec.temperature))
    return Error{fmt::format("temperature must be a positive number (got {})", spec.temperature)};
  return okStatus();
}

Mat projection(const Mat& loaded, int rows, int cols, const AttentionSpec& spec,
               std::string_view name) {
  if (loaded.size() > 0) return loaded;
  return initMatrix(rows, cols, spec.init, spec.seed, name);
}

Status checkShape(const Mat& w, Eigen::Index rows, Eigen::Index cols, std::string_view name) {
  if (w.size() == 0 || (w.rows() == rows && w.cols() == cols)) return okStatus();
  return Error{fmt::format("array '{}' has shape [{}, {}] but [{}, {}] is needed", name, w.rows(),
                           w.cols(), rows, cols)};
}

}  // namespace

AttentionInput inputFromTokens(std::vector<std::string> tokens, int dModel, uint64_t seed,
                               std::vector<std::string> keyTokens) {
  AttentionInput in;
  in.x = seededTokenEmbeddings(tokens, dModel, seed);
  if (!keyTokens.empty()) in.xKv = seededTokenEmbeddings(keyTokens, dModel, seed);
  in.queryTokens = std::move(tokens);
  in.keyTokens = std::move(keyTokens);
  return in;
}

Result<AttentionResult> runAttention(const AttentionInput& in, const AttentionSpec& spec) {
  AttentionResult res;
  std::vector<HeadResult>& heads = res.heads;
  if (auto st = checkLoadedParametersFinite(in); !st) return st.error();

  if (in.isProjected()) {
    const size_t h = in.q.size();
    if (in.k.size() != h || in.v.size() != h)
      return Error{fmt::format("arrays 'q', 'k', 'v' have {}, {}, {} heads; they must agree", h,
                               in.k.size(), in.v.size())};
    heads.resize(h);
    for (size_t i = 0; i < h; ++i) {
      const Mat &q = in.q[i], &k = in.k[i], &v = in.v[i];
      if (q.rows() == 0 || k.rows() == 0) return Error{"empty sequence: 'q' or 'k' has no rows"};
      if (q.cols() != k.cols())
        return Error{fmt::format("'q' [{}, {}] and 'k' [{}, {}] need the same last dimension",
                                 q.rows(), q.cols(), k.rows(), k.cols())};
      if (v.rows() != k.rows())
        return Error{fmt::format("'k' [{}, {}] and 'v' [{}, {}] need the same number of rows",
                                 k.rows(), k.cols(), v.rows(), v.cols())};
      for (auto [m, name] : {std::pair{&q, "q"}, {&k, "k"}, {&v, "v"}})
        if (auto st = checkFinite(*m, name, static_cast<int>(i)); !st) return st.error();
      heads[i].q = q;
      heads[i].k = k;
      heads[i].v = v;
    }
  } else {
    if (auto st = validateSpec(spec); !st) return st.error();
    const Mat xq = addPositionsToEmbeddings(in.x, spec);
    const Mat xkv = in.xKv.size() > 0 ? addPositionsToEmbeddings(in.xKv, spec) : xq;
    if (xq.rows() == 0 || xkv.rows() == 0) return Error{"empty sequence: no tokens to attend over"};
    if (in.x.cols() != spec.dModel || (in.xKv.size() > 0 && in.xKv.cols() != spec.dModel))
      return Error{fmt::format("embeddings have {} columns but d_model is {}", in.x.cols(), spec.dModel)};
    if (auto st = checkFinite(xq, "x"); !st) return st.error();
    if (auto st = checkFinite(xkv, "x_kv"); !st) return st.error();
    const int dk = spec.headDim();
    const int hd = dk * spec.heads;
    if (auto st = checkShape(in.wQ, spec.dModel, hd, "w_q"); !st) return st.error();
    if (auto st = checkShape(in.wK, spec.dModel, hd, "w_k"); !st) return st.error();
    if (auto st = checkShape(in.wV, spec.dModel, hd, "w_v"); !st) return st.error();
    const Mat q = xq * projection(in.wQ, spec.dModel, hd, spec, "w_q");
    const Mat k = xkv * projection(in.wK, spec.dModel, hd, spec, "w_k");
    const Mat v = xkv * projection(in.wV, spec.dModel, hd, spec, "w_v");
    heads.resize(static_cast<size_t>(spec.heads));
    for (int i = 0; i < spec.heads; ++i) {
      heads[i].q = q.middleCols(i * dk, dk);
      heads[i].k = k.middleCols(i * dk, dk);
      heads[i].v = v.middleCols(i * dk, dk);
    }
  }

  const int nq = static_cast<int>(heads[0].q.rows());
  const int nk = static_cast<int>(heads[0].k.rows());
  if (auto st = spec.mask.validate(nq, nk); !st) return st.error();
  // Refuse before anything N x N per head is allocated (bias, logits, weights).
  if (auto st = checkAttentionMemory(spec, resolveExecPath(spec, nq, nk), static_cast<int64_t>(heads.size()),
                                     nq, nk); !st)
    return st.error();
  if (!in.queryTokens.empty() && static_cast<int>(in.queryTokens.size()) != nq)
    return Error{fmt::format("{} query tokens for {} query rows", in.queryTokens.size(), nq)};

  for (int i = 0; i < static_cast<int>(heads.size()); ++i) {
    applyPositionsToQK(heads[i].q, heads[i].k, i, spec);
    heads[i].logitBias = positionalLogitBias(i, nq, nk, spec);
  }

  auto backend = selectBackend(spec.backend, res.warnings);
  res.backendUsed = std::string(backend->name());
  const ExecPath path = resolveExecPath(spec, nq, nk);
  res.execUsed = std::string(execPathName(path));
  if (spec.exec != ExecPath::Auto && path != spec.exec)
    res.warnings.push_back(fmt::format("exec '{}' does not cover mechanism '{}'; ran '{}'",
                                       execPathName(spec.exec), mechanismName(spec.mechanism),
                                       res.execUsed));
  if (auto st = backend->computeHeads(spec, path, heads); !st) return st.error();

  // Concatenate head outputs and project with W_O.
  Eigen::Index dvTotal = 0;
  for (const auto& h : heads) dvTotal += h.output.cols();
  res.concatOutput.resize(nq, dvTotal);
  Eigen::Index col = 0;
  for (const auto& h : heads) {
    res.concatOutput.middleCols(col, h.output.cols()) = h.output;
    col += h.output.cols();
  }
  if (in.isProjected() && in.wO.size() == 0) {
    res.output = res.concatOutput;
  } else {
    const int dOut = in.isProjected() ? static_cast<int>(dvTotal) : spec.dModel;
    if (auto st = checkShape(in.wO, dvTotal, dOut, "w_o"); !st) return st.error();
    res.output = res.concatOutput * projection(in.wO, static_cast<int>(dvTotal), dOut, spec, "w_o");
  }

  res.queryTokens = in.queryTokens;
  res.keyTokens = in.keyTokens.empty() ? in.queryTokens : in.keyTokens;
  if (res.queryTokens.empty())
    for (int i = 0; i < nq; ++i) res.queryTokens.push_back(std::to_string(i));
  if (res.keyTokens.empty())
    for (int j = 0; j < nk; ++j) res.keyTokens.push_back(std::to_string(j));
  if (path == ExecPath::Linformer)  // the map's columns are the k projected slots
    res.keyTokens = linformerSlotLabels(static_cast<int>(heads[0].weights.cols()));
  for (const auto& h : heads)
    if (!h.fullyMaskedRows.empty()) {
      res.warnings.push_back(fmt::format("{} query row(s) have every key masked; their weights are 0",
                                         h.fullyMaskedRows.size()));
      break;
    }
  return res;
}

}  // namespace attn
