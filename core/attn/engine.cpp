#include "attn/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attn/backend.h"
#include "attn/engine/exec_path.h"
#include "attn/engine/head_inputs.h"
#include "attn/engine/init.h"
#include "attn/engine/memory_budget.h"
#include "attn/engine/positions.h"

namespace attn {

namespace {

Status checkFiniteMat(const Mat& m, std::string_view name, int head) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) {
        const std::string at = m.cols() == 1 ? fmt::format("{}", i) : fmt::format("{}, {}", i, j);
        return Error{fmt::format("array '{}' has a non-finite value ({}) at [{}{}]", name, m(i, j),
                                 head >= 0 ? fmt::format("{}, ", head) : "", at)};
      }
  return okStatus();
}

/// Loaded weights are inputs too, used or not: a NaN in any of them is reported.
Status checkLoadedParametersFinite(const AttentionInput& in) {
  for (auto [m, name] : {std::pair{&in.wQ, "w_q"}, {&in.wK, "w_k"}, {&in.wV, "w_v"}, {&in.wO, "w_o"}})
    if (auto st = checkFiniteMat(*m, name, -1); !st) return st;
  for (auto [list, name] : {std::pair{&in.wBilinear, "w_bilinear"}, {&in.wAddQ, "w_add_q"}, {&in.wAddK, "w_add_k"}})
    for (size_t h = 0; h < list->size(); ++h)
      if (auto st = checkFiniteMat((*list)[h], name, static_cast<int>(h)); !st) return st;
  for (size_t h = 0; h < in.vAdd.size(); ++h)
    if (auto st = checkFiniteMat(Mat(in.vAdd[h]), "v_add", static_cast<int>(h)); !st) return st;
  return okStatus();
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

namespace {

Status setUpHeadsFrom(const AttentionInput& in, AttentionInput* take, AttentionSpec& spec, AttentionResult& res) {
  if (spec.gridCols <= 0) spec.gridCols = in.gridCols;  // an image input's patch grid
  if (auto st = checkLoadedParametersFinite(in); !st) return st;
  if (auto st = prepareHeads(in, spec, res, take); !st) return st;
  std::vector<HeadResult>& heads = res.heads;

  // Queries not kept (read again by the streamed analysis): their shape says nq.
  const int nq = static_cast<int>(in.queriesDropped() ? in.droppedQ.rows : heads[0].q.rows());
  const int nk = static_cast<int>(heads[0].k.rows());
  if (in.queriesDropped() && spec.positional == PositionalEncoding::Rope)
    return Error{"the queries 'q' were read without being kept; RoPE rotates them (read them with the input)"};
  {
    // Without an image grid a sequence is one row of patches: window2d:R is then window:R.
    if (spec.mask.needsGridColumns())
      spec.mask = spec.mask.withGridColumns(spec.gridCols > 0 ? spec.gridCols : std::max(nq, nk));
    auto bound = spec.mask.bind(nq, nk, in.keyTokens.empty() ? in.queryTokens : in.keyTokens);
    if (!bound) return bound.error();
    spec.mask = std::move(bound).value();
  }
  // Refuse before anything N x N per head is allocated (bias, logits, weights).
  if (auto st = checkAttentionMemory(spec, resolveExecPath(spec, nq, nk), static_cast<int64_t>(heads.size()),
                                     nq, nk); !st)
    return st;
  if (!in.queryTokens.empty() && static_cast<int>(in.queryTokens.size()) != nq)
    return Error{fmt::format("{} query tokens for {} query rows", in.queryTokens.size(), nq)};
  if (!in.keyTokens.empty() && static_cast<int>(in.keyTokens.size()) != nk)
    return Error{fmt::format("{} key tokens for {} key rows", in.keyTokens.size(), nk)};

  for (int i = 0; i < static_cast<int>(heads.size()); ++i) {
    applyPositionsToQK(heads[i].q, heads[i].k, i, spec);
    heads[i].logitBias = positionalLogitBias(i, static_cast<int>(heads.size()), nq, nk, spec);
  }
  return okStatus();
}

}  // namespace

Status setUpHeads(const AttentionInput& in, AttentionSpec& spec, AttentionResult& res) {
  return setUpHeadsFrom(in, nullptr, spec, res);
}

Status setUpHeads(AttentionInput&& in, AttentionSpec& spec, AttentionResult& res) {
  return setUpHeadsFrom(in, &in, spec, res);
}

Result<AttentionResult> runAttention(const AttentionInput& in, const AttentionSpec& specIn) {
  if (in.valuesDropped())  // a caller's mistake, said as such rather than outputs from nothing
    return Error{"the values 'v' were read without being kept (only the streamed analysis runs on such an input)"};
  if (in.queriesDropped())
    return Error{"the queries 'q' were read without being kept (only the streamed analysis runs on such an input)"};
  AttentionSpec spec = specIn;  // its mask is replaced by the one bound to the tokens below
  AttentionResult res;
  if (auto st = setUpHeads(in, spec, res); !st) return st.error();
  std::vector<HeadResult>& heads = res.heads;
  const int nq = static_cast<int>(heads[0].q.rows());
  const int nk = static_cast<int>(heads[0].k.rows());

  auto backend = selectBackend(spec.backend, res.warnings);
  res.backendUsed = std::string(backend->name());
  const ExecPath path = resolveExecPath(spec, nq, nk);
  res.execUsed = std::string(execPathName(path));
  if (spec.exec != ExecPath::Auto && path != spec.exec)
    res.warnings.push_back(fmt::format("exec '{}' does not cover mechanism '{}'; ran '{}'",
                                       execPathName(spec.exec), mechanismName(spec.mechanism),
                                       res.execUsed));
  if (auto st = backend->computeHeads(spec, path, heads); !st) return st.error();
  for (auto& w : backend->takeWarnings()) res.warnings.push_back(std::move(w));
  if (spec.deviceInputs != DeviceInputs::F32 && res.backendUsed == "cpu")
    res.warnings.push_back(fmt::format("{} inputs apply to the CUDA backend only; the CPU computed in fp32",
                                       deviceInputsName(spec.deviceInputs)));

  // Concatenate head outputs and project with W_O.
  Eigen::Index dvTotal = 0;
  for (const auto& h : heads) dvTotal += h.output.cols();
  res.concatOutput.resize(nq, dvTotal);
  Eigen::Index col = 0;
  for (const auto& h : heads) {
    res.concatOutput.middleCols(col, h.output.cols()) = h.output;
    col += h.output.cols();
  }
  projectOutput(res);
  if (!res.output.allFinite())
    return Error{"the output overflowed float32 (non-finite values): the inputs are too large"};

  res.mask = spec.mask;
  res.queryTokens = in.queryTokens;
  res.keyTokens = in.keyTokens;
  if (res.keyTokens.empty() && !in.isCross() && nk == nq) res.keyTokens = in.queryTokens;
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
