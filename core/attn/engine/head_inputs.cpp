#include "attn/engine/head_inputs.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/engine/init.h"
#include "attn/engine/parallel_product.h"
#include "attn/engine/positions.h"

namespace attn {
namespace {

std::string shape2(const Mat& m) { return fmt::format("[{}, {}]", m.rows(), m.cols()); }
std::string shape3(size_t h, const Mat& m) { return fmt::format("[{}, {}, {}]", h, m.rows(), m.cols()); }

/// `head` < 0: a single array, indexed [i, j]; otherwise one head of a
/// stacked array, indexed [head, i, j] as NumPy would.
Status checkFinite(const Mat& m, std::string_view name, int head = -1) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) {
        const std::string at = head < 0 ? fmt::format("[{}, {}]", i, j) : fmt::format("[{}, {}, {}]", head, i, j);
        return Error{fmt::format("array '{}' has a non-finite value ({}) at {}", name, m(i, j), at)};
      }
  return okStatus();
}

Status checkFinite(const Vec& v, std::string_view name, int head = -1) {
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) {
      const std::string at = head < 0 ? fmt::format("[{}]", i) : fmt::format("[{}, {}]", head, i);
      return Error{fmt::format("array '{}' has a non-finite value ({}) at {}", name, v[i], at)};
    }
  return okStatus();
}

Status checkTemperature(const AttentionSpec& spec) {
  if (!(spec.temperature > 0.0f) || !std::isfinite(spec.temperature))
    return Error{fmt::format("temperature must be a positive number (got {})", spec.temperature)};
  return okStatus();
}

Status validateSpec(const AttentionSpec& spec) {
  if (spec.heads <= 0) return Error{fmt::format("heads must be at least 1 (got {})", spec.heads)};
  if (spec.dModel <= 0) return Error{fmt::format("d_model must be at least 1 (got {})", spec.dModel)};
  if (spec.dK < 0) return Error{fmt::format("d_k must be at least 1 (got {})", spec.dK)};
  if (spec.dK == 0 && spec.dModel % spec.heads != 0)
    return Error{fmt::format("d_model {} is not divisible by {} heads", spec.dModel, spec.heads)};
  return checkTemperature(spec);
}

/// A loaded matrix must be [rows, cols]; `fits` says what it must fit.
Status checkMatShape(const Mat& w, Eigen::Index rows, Eigen::Index cols, std::string_view name,
                     const std::string& fits) {
  if (w.rows() == rows && w.cols() == cols) return okStatus();
  return Error{fmt::format("array '{}' has shape {} but {} needs [{}, {}]", name, shape2(w), fits, rows, cols)};
}

Status checkVecSize(const Vec& b, Eigen::Index n, std::string_view name, const std::string& fits) {
  if (b.size() == n) return okStatus();
  return Error{fmt::format("array '{}' has shape [{}] but {} needs [{}]", name, b.size(), fits, n)};
}

/// Loaded or seeded [rows, cols] matrix, checked.
Result<Mat> learnedMatrix(const Mat& loaded, int rows, int cols, const AttentionSpec& spec,
                          const std::string& name, const std::string& fits) {
  if (loaded.size() == 0) return initMatrix(rows, cols, spec.init, spec.seed, name);
  if (auto st = checkMatShape(loaded, rows, cols, name, fits); !st) return st.error();
  if (auto st = checkFinite(loaded, name); !st) return st.error();
  return loaded;
}

/// Loaded or seeded bias (empty when no bias applies), checked.
Result<Vec> learnedBias(const Vec& loaded, bool useBias, int size, int fanIn, const AttentionSpec& spec,
                        const std::string& name, const std::string& fits) {
  if (loaded.size() == 0) return useBias ? initBias(size, fanIn, spec.seed, name) : Vec();
  if (auto st = checkVecSize(loaded, size, name, fits); !st) return st.error();
  if (auto st = checkFinite(loaded, name); !st) return st.error();
  return loaded;
}

Mat affine(const Mat& x, const Mat& w, const Vec& b) {
  Mat y = parallelProduct(x, w);
  if (b.size() > 0) y.rowwise() += b.transpose();
  return y;
}

Status prepareFromEmbeddings(const AttentionInput& in, const AttentionSpec& spec, AttentionResult& res) {
  if (auto st = validateSpec(spec); !st) return st;
  if (in.x.rows() == 0) return Error{"empty sequence: array 'x' has no rows (no query tokens)"};
  if (in.x.cols() != spec.dModel)
    return Error{fmt::format("array 'x' has shape {} but d_model is {}", shape2(in.x), spec.dModel)};
  const bool cross = in.xKv.size() > 0;
  if (!cross && in.xKv.cols() > 0) return Error{"empty sequence: array 'x_kv' has no rows (no key tokens)"};
  if (cross && in.xKv.cols() == 0) return Error{"array 'x_kv' has no columns"};
  if (auto st = checkFinite(in.x, "x"); !st) return st;
  if (auto st = checkFinite(in.xKv, "x_kv"); !st) return st;

  const Mat xq = addPositionsToEmbeddings(in.x, spec);
  const Mat xkv = cross ? addPositionsToEmbeddings(in.xKv, spec) : xq;
  const int heads = spec.heads, dModel = spec.dModel, dk = spec.headDim();
  const int dKv = static_cast<int>(xkv.cols());
  const char* kvName = cross ? "x_kv" : "x";
  if (in.wV.size() > 0 && in.wV.cols() % heads != 0)
    return Error{fmt::format("array 'w_v' has shape {}: its {} columns do not split into {} heads",
                             shape2(in.wV), in.wV.cols(), heads)};
  const int dv = in.wV.size() > 0 ? static_cast<int>(in.wV.cols()) / heads : dk;
  const bool bias = spec.projectionBias || in.bQ.size() > 0 || in.bK.size() > 0 || in.bV.size() > 0 ||
                    in.bO.size() > 0;

  const std::string qFits = fmt::format("'x' {} with {} heads of d_k {}", shape2(in.x), heads, dk);
  const std::string kFits = fmt::format("'{}' {} with {} heads of d_k {}", kvName, shape2(xkv), heads, dk);
  const std::string vFits = fmt::format("'{}' {} with {} heads of d_v {}", kvName, shape2(xkv), heads, dv);
  auto wQ = learnedMatrix(in.wQ, dModel, heads * dk, spec, "w_q", qFits);
  if (!wQ) return wQ.error();
  auto wK = learnedMatrix(in.wK, dKv, heads * dk, spec, "w_k", kFits);
  if (!wK) return wK.error();
  auto wV = learnedMatrix(in.wV, dKv, heads * dv, spec, "w_v", vFits);
  if (!wV) return wV.error();
  auto bQ = learnedBias(in.bQ, bias, heads * dk, dModel, spec, "b_q", "'w_q' " + shape2(*wQ));
  if (!bQ) return bQ.error();
  auto bK = learnedBias(in.bK, bias, heads * dk, dKv, spec, "b_k", "'w_k' " + shape2(*wK));
  if (!bK) return bK.error();
  auto bV = learnedBias(in.bV, bias, heads * dv, dKv, spec, "b_v", "'w_v' " + shape2(*wV));
  if (!bV) return bV.error();
  // W_O maps the concatenated heads back to d_model unless a loaded one says otherwise.
  const int dOut = in.wO.size() > 0 ? static_cast<int>(in.wO.cols()) : dModel;
  const std::string oFits = fmt::format("the concatenated output of {} heads of d_v {}", heads, dv);
  auto wO = learnedMatrix(in.wO, heads * dv, dOut, spec, "w_o", oFits);
  if (!wO) return wO.error();
  auto bO = learnedBias(in.bO, bias, dOut, heads * dv, spec, "b_o", "'w_o' " + shape2(*wO));
  if (!bO) return bO.error();

  const Mat q = affine(xq, *wQ, *bQ), k = affine(xkv, *wK, *bK), v = affine(xkv, *wV, *bV);
  res.heads.resize(static_cast<size_t>(heads));
  for (int i = 0; i < heads; ++i) {
    res.heads[i].q = q.middleCols(i * dk, dk);
    res.heads[i].k = k.middleCols(i * dk, dk);
    res.heads[i].v = v.middleCols(i * dv, dv);
  }
  res.wQ = std::move(*wQ), res.wK = std::move(*wK), res.wV = std::move(*wV), res.wO = std::move(*wO);
  res.bQ = std::move(*bQ), res.bK = std::move(*bK), res.bV = std::move(*bV), res.bO = std::move(*bO);
  return okStatus();
}

Status prepareFromProjected(const AttentionInput& in, const AttentionSpec& spec, AttentionResult& res,
                            AttentionInput* take) {
  if (auto st = checkTemperature(spec); !st) return st;
  const size_t h = in.q.size();
  // Values read and checked but not kept (input.valuesDropped()): only their shape is here.
  const bool dropped = in.valuesDropped();
  const size_t vHeads = dropped ? in.droppedV.heads : in.v.size();
  if (in.k.size() != h || vHeads != h)
    return Error{fmt::format("arrays 'q', 'k', 'v' have {}, {}, {} heads; they must agree", h, in.k.size(),
                             vHeads)};
  const Mat &q0 = in.q[0], &k0 = in.k[0];
  const Eigen::Index vRows = dropped ? in.droppedV.rows : in.v[0].rows();
  const Eigen::Index vCols = dropped ? in.droppedV.cols : in.v[0].cols();
  const std::string vShape = fmt::format("[{}, {}, {}]", h, vRows, vCols);
  // Queries read without being kept (input.queriesDropped()): 0-row matrices here.
  if (in.queryRows() == 0)
    return Error{fmt::format("empty sequence: array 'q' {} has no query rows", shape3(h, q0))};
  if (k0.rows() == 0) return Error{fmt::format("empty sequence: array 'k' {} has no key rows", shape3(h, k0))};
  for (auto [m, name] : {std::pair{&q0, "q"}, {&k0, "k"}})
    if (m->cols() == 0) return Error{fmt::format("array '{}' {} has no features", name, shape3(h, *m))};
  if (vCols == 0) return Error{fmt::format("array 'v' {} has no features", vShape)};
  if (vRows != k0.rows())
    return Error{fmt::format("arrays 'k' {} and 'v' {} need the same number of keys", shape3(h, k0), vShape)};
  const std::vector<Mat> none;
  res.heads.resize(h);
  for (size_t i = 0; i < h; ++i) {
    for (auto [arr, name] : {std::pair{&in.q, "q"}, {&in.k, "k"}, {dropped ? &none : &in.v, "v"}}) {
      if (arr->empty()) continue;  // dropped values: their shape and values were checked as they were read
      const Mat& m = (*arr)[i];
      const Mat& first = (*arr)[0];
      if (m.rows() != first.rows() || m.cols() != first.cols())
        return Error{fmt::format("array '{}': head {} is {} but head 0 is {}", name, i, shape2(m), shape2(first))};
      if (auto st = checkFinite(m, name, static_cast<int>(i)); !st) return st;
    }
  }
  if (!take)
    for (size_t i = 0; i < h; ++i) {
      res.heads[i].q = in.q[i];
      res.heads[i].k = in.k[i];
      if (!dropped) res.heads[i].v = in.v[i];
    }
  // Arrays that only the embedding path uses are ignored here; say so.
  for (auto [present, name] : {std::pair{in.x.size() > 0, "x"}, {in.xKv.size() > 0, "x_kv"},
                               {in.wQ.size() > 0, "w_q"}, {in.wK.size() > 0, "w_k"}, {in.wV.size() > 0, "w_v"},
                               {in.bQ.size() > 0, "b_q"}, {in.bK.size() > 0, "b_k"}, {in.bV.size() > 0, "b_v"}})
    if (present) res.warnings.push_back(fmt::format("array '{}' is not used: 'q', 'k', 'v' are given", name));
  // Already projected: W_O (and b_O) apply only when loaded.
  const Eigen::Index dvTotal = static_cast<Eigen::Index>(h) * vCols;
  const std::string oFits = fmt::format("the concatenated output of {} heads of d_v {}", h, vCols);
  if (in.wO.size() > 0) {
    if (in.wO.rows() != dvTotal)
      return Error{fmt::format("array 'w_o' has shape {} but {} needs [{}, d_out]", shape2(in.wO), oFits, dvTotal)};
    if (auto st = checkFinite(in.wO, "w_o"); !st) return st;
    res.wO = in.wO;
  }
  if (in.bO.size() > 0) {
    const Eigen::Index dOut = in.wO.size() > 0 ? in.wO.cols() : dvTotal;
    if (auto st = checkVecSize(in.bO, dOut, "b_o", in.wO.size() > 0 ? "'w_o' " + shape2(in.wO) : oFits); !st)
      return st;
    if (auto st = checkFinite(in.bO, "b_o"); !st) return st;
    res.bO = in.bO;
  }
  if (take)  // last: the checks above read head 0's shapes
    for (size_t i = 0; i < h; ++i) {
      res.heads[i].q = std::move(take->q[i]);
      res.heads[i].k = std::move(take->k[i]);
      if (!dropped) res.heads[i].v = std::move(take->v[i]);
    }
  return okStatus();
}

/// Stacked per-head parameter arrays hold one entry per head (or none: seeded).
Status checkHeadCount(size_t n, size_t heads, std::string_view name) {
  if (n == 0 || n == heads) return okStatus();
  return Error{fmt::format("array '{}' has {} heads but the attention has {}", name, n, heads)};
}

Status prepareScoreParams(const AttentionInput& in, const AttentionSpec& spec, AttentionResult& res) {
  const size_t heads = res.heads.size();
  const Mat &q = res.heads[0].q, &k = res.heads[0].k;
  const int dq = static_cast<int>(q.cols()), dkk = static_cast<int>(k.cols());
  const std::string qk = fmt::format("'q' {} and 'k' {}", shape3(heads, q), shape3(heads, k));
  const auto mech = spec.mechanism;
  const std::string mechName(mechanismName(mech));

  if (!allowsDifferentQKDims(mech) && dq != dkk)
    return Error{fmt::format("arrays {} differ in width ({} vs {}); mechanism '{}' needs equal widths "
                             "(general and additive accept different ones)", qk, dq, dkk, mechName)};
  auto unused = [&](bool present, std::string_view name) {
    if (present) res.warnings.push_back(fmt::format("array '{}' is not used by mechanism '{}'", name, mechName));
  };
  unused(mech != Mechanism::General && !in.wBilinear.empty(), "w_bilinear");
  unused(mech != Mechanism::Additive && !in.wAddQ.empty(), "w_add_q");
  unused(mech != Mechanism::Additive && !in.wAddK.empty(), "w_add_k");
  unused(mech != Mechanism::Additive && !in.vAdd.empty(), "v_add");
  unused(mech != Mechanism::Additive && !in.bAdd.empty(), "b_add");

  if (mech == Mechanism::General) {
    if (auto st = checkHeadCount(in.wBilinear.size(), heads, "w_bilinear"); !st) return st;
    for (size_t h = 0; h < heads; ++h) {
      const Mat& w = in.wBilinear.empty() ? Mat() : in.wBilinear[h];
      if (w.size() > 0 && (w.rows() != dq || w.cols() != dkk))
        return Error{fmt::format("array 'w_bilinear' has shape {} but {} need [{}, {}, {}]", shape3(heads, w),
                                 qk, heads, dq, dkk)};
      if (auto st = checkFinite(w, "w_bilinear", static_cast<int>(h)); !st) return st;
      res.heads[h].scoreParams.wBilinear =
          w.size() > 0 ? w : initMatrix(dq, dkk, spec.init, spec.seed, fmt::format("w_bilinear:{}", h));
    }
  } else if (mech == Mechanism::Additive) {
    for (auto [n, name] : {std::pair{in.wAddQ.size(), "w_add_q"}, {in.wAddK.size(), "w_add_k"},
                           {in.vAdd.size(), "v_add"}, {in.bAdd.size(), "b_add"}})
      if (auto st = checkHeadCount(n, heads, name); !st) return st;
    if (spec.hidden < 0) return Error{fmt::format("hidden size must be at least 1 (got {})", spec.hidden)};
    // The hidden size: from the loaded arrays, else the spec, else the query width.
    int hidden = spec.hidden > 0 ? spec.hidden : dq;
    const char* hiddenFrom = spec.hidden > 0 ? "the hidden size" : nullptr;
    for (auto [size, name] : {std::pair{in.wAddQ.empty() ? -1 : in.wAddQ[0].cols(), "w_add_q"},
                              {in.wAddK.empty() ? -1 : in.wAddK[0].cols(), "w_add_k"},
                              {in.vAdd.empty() ? -1 : in.vAdd[0].size(), "v_add"},
                              {in.bAdd.empty() ? -1 : in.bAdd[0].size(), "b_add"}}) {
      if (size < 0) continue;
      if (hiddenFrom && size != hidden)
        return Error{fmt::format("array '{}' has hidden size {} but {} is {}", name, size, hiddenFrom, hidden)};
      hidden = static_cast<int>(size);
      hiddenFrom = name;
    }
    if (hidden <= 0) return Error{"additive score: hidden size is 0"};
    const std::string fitsQ = fmt::format("'q' {} with hidden size {}", shape3(heads, q), hidden);
    const std::string fitsK = fmt::format("'k' {} with hidden size {}", shape3(heads, k), hidden);
    const std::string fitsH = fmt::format("hidden size {}", hidden);
    for (size_t h = 0; h < heads; ++h) {
      const int hi = static_cast<int>(h);
      auto& p = res.heads[h].scoreParams;
      auto pick = [&](const auto& arr) { return arr.empty() ? std::decay_t<decltype(arr[0])>() : arr[h]; };
      const Mat wq = pick(in.wAddQ), wk = pick(in.wAddK);
      const Vec va = pick(in.vAdd), ba = pick(in.bAdd);
      if (wq.size() > 0 && (wq.rows() != dq || wq.cols() != hidden))
        return Error{fmt::format("array 'w_add_q' has shape {} but {} needs [{}, {}, {}]", shape3(heads, wq), fitsQ,
                                 heads, dq, hidden)};
      if (wk.size() > 0 && (wk.rows() != dkk || wk.cols() != hidden))
        return Error{fmt::format("array 'w_add_k' has shape {} but {} needs [{}, {}, {}]", shape3(heads, wk), fitsK,
                                 heads, dkk, hidden)};
      if (va.size() > 0 && va.size() != hidden)
        return Error{fmt::format("array 'v_add' has shape [{}, {}] but {} needs [{}, {}]", heads, va.size(), fitsH,
                                 heads, hidden)};
      if (ba.size() > 0 && ba.size() != hidden)
        return Error{fmt::format("array 'b_add' has shape [{}, {}] but {} needs [{}, {}]", heads, ba.size(), fitsH,
                                 heads, hidden)};
      for (auto [m, name] : {std::pair{&wq, "w_add_q"}, {&wk, "w_add_k"}})
        if (auto st = checkFinite(*m, name, hi); !st) return st;
      for (auto [m, name] : {std::pair{&va, "v_add"}, {&ba, "b_add"}})
        if (auto st = checkFinite(*m, name, hi); !st) return st;
      p.wAddQ = wq.size() > 0 ? wq : initMatrix(dq, hidden, spec.init, spec.seed, fmt::format("w_add_q:{}", h));
      p.wAddK = wk.size() > 0 ? wk : initMatrix(dkk, hidden, spec.init, spec.seed, fmt::format("w_add_k:{}", h));
      p.vAdd = va.size() > 0 ? va
                             : Vec(initMatrix(hidden, 1, spec.init, spec.seed, fmt::format("v_add:{}", h)).col(0));
      if (ba.size() > 0) p.bAdd = ba;
      else if (spec.projectionBias) p.bAdd = initBias(hidden, dq + dkk, spec.seed, fmt::format("b_add:{}", h));
    }
  }
  return okStatus();
}

}  // namespace

Status prepareHeads(const AttentionInput& in, const AttentionSpec& spec, AttentionResult& res, AttentionInput* take) {
  auto st = in.isProjected() ? prepareFromProjected(in, spec, res, take) : prepareFromEmbeddings(in, spec, res);
  if (!st) return st;
  return prepareScoreParams(in, spec, res);
}

void projectOutput(AttentionResult& res) {
  if (res.wO.size() == 0) {
    res.output = res.concatOutput;
  } else {
    res.output = parallelProduct(res.concatOutput, res.wO);
  }
  if (res.bO.size() > 0) res.output.rowwise() += res.bO.transpose();
}

}  // namespace attn
