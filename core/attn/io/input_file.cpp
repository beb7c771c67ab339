#include "attn/io/input_file.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "attn/io/csv_reader.h"
#include "attn/io/safetensors_reader.h"

namespace attn {
namespace {

// Highest rank each contract name takes; a leading batch axis of 1 above it is dropped.
const std::map<std::string, int> kMaxRank{
    {"q", 3},        {"k", 3},       {"v", 3},       {"x", 2},        {"x_kv", 2},     {"w_q", 2},
    {"w_k", 2},      {"w_v", 2},     {"w_o", 2},     {"w_bilinear", 3}, {"w_add_q", 3}, {"w_add_k", 3},
    {"v_add", 2},    {"attn", 4},    {"mask", 2},    {"tokens", 1},   {"key_tokens", 1},
    // What `attnscope-cli run` writes: its weights can be viewed again.
    {"b_q", 1},      {"b_k", 1},     {"b_v", 1},     {"b_o", 1},      {"b_add", 2},
    {"weights", 4},  {"scores", 3},  {"output", 3},  {"entropy", 2}};

std::string shapeOf(const NpyArray& a) { return a.shapeString(); }

// Whether every value is finite, as a vectorized sum of x * 0 (0 for finite x,
// NaN otherwise), several times faster than Eigen's allFinite(), which showed in
// `metrics` at long N. Callers search for the first bad value only when false.
bool finiteEverywhere(const Mat& m) {
  const Eigen::Map<const Eigen::ArrayXf> a(m.data(), m.size());
  return std::isfinite((a * 0.0f).sum());
}

// The first non-finite value of an array the reader did not keep (PlaneDrop),
// found as its planes went by; flat index in C order, as checkNumeric reports it.
struct DroppedValuesScan {
  bool nonFinite = false;
  float value = 0;
  size_t flatIndex = 0;
  size_t seen = 0;  // elements so far
};

class Mapper {
 public:
  Mapper(std::vector<NpyArray> arrays, const std::string& src,
         const std::map<std::string, DroppedValuesScan>* dropScans = nullptr)
      : arrays_(std::move(arrays)), src_(src), dropScans_(dropScans) {}

  Result<LoadedInput> run();

 private:
  NpyArray* find(const std::string& name) {
    for (auto& a : arrays_)
      if (a.name == name) return &a;
    return nullptr;
  }
  void setRole(const std::string& name, std::string role) {
    const std::string shown = (name == "attn" && weightsAsAttn_) ? std::string("weights") : name;
    for (auto& i : out_.arrays)
      if (i.name == shown) i.role = std::move(role);
  }
  std::string ref(const NpyArray& a) const { return fmt::format("'{}' {}", a.name, shapeOf(a)); }
  Error err(const std::string& what) const { return Error{src_ + ": " + what}; }
  Error disagree(const NpyArray& a, const NpyArray& b, const std::string& why) const {
    return err(fmt::format("{} and {} disagree: {}", ref(a), ref(b), why));
  }
  Status checkNumeric(const NpyArray& a, int minRank, int maxRank) const;
  Result<std::vector<Mat>> perHead(NpyArray& a) const;
  Status mapProjected();
  Status mapEmbeddings();
  Status mapScoreParams();
  Status mapAttention();
  Status mapMask();
  Status mapTokens();

  std::vector<NpyArray> arrays_;
  std::string src_;
  LoadedInput out_;
  int nq_ = -1, nk_ = -1;
  const NpyArray* nqFrom_ = nullptr;  // the array that fixed Nq / Nk, for messages
  const NpyArray* nkFrom_ = nullptr;
  bool weightsAsAttn_ = false;  // a run result's 'weights' stands in for 'attn'
  const std::map<std::string, DroppedValuesScan>* dropScans_ = nullptr;  // what the reader saw of dropped arrays
};

Status Mapper::checkNumeric(const NpyArray& a, int minRank, int maxRank) const {
  if (a.isText) return err(fmt::format("array '{}' holds text; numbers are needed", a.name));
  const int r = static_cast<int>(a.shape.size());
  if (r < minRank || r > maxRank)
    return err(fmt::format("array '{}' has shape {} but {} dimensions are needed", a.name, shapeOf(a),
                           minRank == maxRank ? std::to_string(minRank) : fmt::format("{} to {}", minRank, maxRank)));
  for (auto s : a.shape)
    if (s == 0) return err(fmt::format("array '{}' of shape {} is empty", a.name, shapeOf(a)));
  auto nonFinite = [&](float value, size_t index) {
    return err(fmt::format("array '{}' has a non-finite value ({}) at flat index {}", a.name, value, index));
  };
  for (size_t i = 0; i < a.values.data.size(); ++i)
    if (!std::isfinite(a.values.data[i])) return nonFinite(a.values.data[i], i);
  size_t planeStart = 0;
  for (const Mat& p : a.planes) {
    if (!finiteEverywhere(p))
      for (Eigen::Index i = 0; i < p.size(); ++i)
        if (!std::isfinite(p.data()[i])) return nonFinite(p.data()[i], planeStart + static_cast<size_t>(i));
    planeStart += static_cast<size_t>(p.size());
  }
  if (a.dropped && dropScans_)
    if (auto it = dropScans_->find(a.name); it != dropScans_->end() && it->second.nonFinite)
      return nonFinite(it->second.value, it->second.flatIndex);
  return okStatus();
}

// [H, R, C] -> H matrices; [R, C] -> one head. Planes the reader decoded move
// over as they are (no second copy of q/k/v).
Result<std::vector<Mat>> Mapper::perHead(NpyArray& a) const {
  if (auto st = checkNumeric(a, 2, 3); !st) return st.error();
  if (a.dropped) return std::vector<Mat>{};  // checked, not kept: its shape says the rest
  if (!a.planes.empty()) return std::move(a.planes);
  std::vector<Mat> heads;
  const int64_t h = a.shape.size() == 3 ? a.shape[0] : 1;
  for (int64_t i = 0; i < h; ++i) heads.emplace_back(a.values.slice2d(i));
  return heads;
}

Status Mapper::mapProjected() {
  NpyArray *q = find("q"), *k = find("k"), *v = find("v");
  if (!q && !k && !v) return okStatus();
  for (auto [p, name] : {std::pair{q, "q"}, {k, "k"}, {v, "v"}})
    if (!p) return err(fmt::format("'q', 'k' and 'v' go together, but '{}' is missing", name));
  auto qs = perHead(*q), ks = perHead(*k), vs = perHead(*v);
  for (auto* r : {&qs, &ks, &vs})
    if (!*r) return r->error();
  // A 'q' read without being kept (LoadOptions::keepQueries = false): 0-row
  // matrices of its width per head, its rows read again from the file.
  const auto qRows = static_cast<Eigen::Index>(q->dropped ? q->shape[q->shape.size() - 2] : (*qs)[0].rows());
  if (q->dropped)
    for (int64_t h = 0; h < (q->shape.size() == 3 ? q->shape[0] : 1); ++h)
      qs->emplace_back(0, static_cast<Eigen::Index>(q->shape.back()));
  // A 'v' read without being kept (LoadOptions::keepValues = false) has only its shape.
  const auto vHeads = v->dropped ? static_cast<size_t>(v->shape.size() == 3 ? v->shape[0] : 1) : vs->size();
  const auto vRows = static_cast<Eigen::Index>(v->dropped ? v->shape[v->shape.size() - 2] : (*vs)[0].rows());
  const auto vCols = static_cast<Eigen::Index>(v->dropped ? v->shape.back() : (*vs)[0].cols());
  if (qs->size() != ks->size()) return disagree(*q, *k, "different numbers of heads");
  if (ks->size() != vHeads) return disagree(*k, *v, "different numbers of heads");
  const Mat &q0 = (*qs)[0], &k0 = (*ks)[0];
  if (k0.rows() != vRows) return disagree(*k, *v, "they need the same number of keys");
  if (q0.cols() != k0.cols() && !find("w_add_q") && !find("w_bilinear"))
    return disagree(*q, *k, "they need the same width d_k (only general or additive attention, with "
                            "'w_bilinear' or 'w_add_q'/'w_add_k', allow different widths)");
  nq_ = static_cast<int>(qRows);
  nk_ = static_cast<int>(k0.rows());
  nqFrom_ = q;
  nkFrom_ = k;
  const auto heads = qs->size();
  setRole("q", fmt::format("projected queries: {} head(s), {} x {}", heads, qRows, q0.cols()));
  setRole("k", fmt::format("projected keys: {} head(s), {} x {}", heads, k0.rows(), k0.cols()));
  setRole("v", fmt::format("projected values: {} head(s), {} x {}", heads, vRows, vCols));
  out_.input.q = std::move(qs).value();
  out_.input.k = std::move(ks).value();
  if (q->dropped) {
    out_.input.droppedQ = {heads, qRows, q0.cols()};
    out_.input.queryFile.offset = q->rereadOffset;
  }
  if (v->dropped)
    out_.input.droppedV = {vHeads, vRows, vCols};
  else
    out_.input.v = std::move(vs).value();
  return okStatus();
}

Status Mapper::mapEmbeddings() {
  NpyArray *x = find("x"), *xkv = find("x_kv");
  if (xkv && !x) return err("'x_kv' (keys for cross-attention) needs 'x' (the queries)");
  if (x) {
    if (auto st = checkNumeric(*x, 2, 2); !st) return st;
    if (xkv) {
      if (auto st = checkNumeric(*xkv, 2, 2); !st) return st;
    }
    if (out_.input.isProjected()) {
      out_.warnings.push_back("'x' is not used: the projected 'q', 'k', 'v' are scored directly");
      setRole("x", "not used ('q', 'k', 'v' take precedence)");
      if (xkv) setRole("x_kv", "not used ('q', 'k', 'v' take precedence)");
    } else {
      out_.input.x = x->values.slice2d(0);
      nq_ = static_cast<int>(x->shape[0]);
      nqFrom_ = nkFrom_ = x;
      nk_ = nq_;
      setRole("x", fmt::format("embeddings: {} tokens x d_model {}", x->shape[0], x->shape[1]));
      if (xkv) {
        out_.input.xKv = xkv->values.slice2d(0);
        nk_ = static_cast<int>(xkv->shape[0]);
        nkFrom_ = xkv;
        setRole("x_kv", fmt::format("key/value embeddings for cross-attention: {} tokens", xkv->shape[0]));
      }
    }
  }
  // Projections [d_in, d_out]: rows must match the embedding width they multiply.
  const NpyArray* wq = find("w_q");
  for (const char* name : {"w_q", "w_k", "w_v", "w_o"}) {
    NpyArray* w = find(name);
    if (!w) continue;
    if (auto st = checkNumeric(*w, 2, 2); !st) return st;
    const std::string n = name;
    if (n != "w_o" && x && !out_.input.isProjected()) {
      const NpyArray* src = (n == "w_q" || !xkv) ? x : xkv;
      if (w->shape[0] != src->shape[1])
        return disagree(*src, *w, fmt::format("'{}' needs {} rows (d_model)", name, src->shape[1]));
    }
    if ((n == "w_k") && wq && w->shape[1] != wq->shape[1])
      return disagree(*wq, *w, "queries and keys need the same projected width");
    if (n == "w_o") {
      if (const NpyArray* wv = find("w_v"); wv && w->shape[0] != wv->shape[1])
        return disagree(*wv, *w, "'w_o' needs as many rows as 'w_v' has columns");
      out_.input.wO = w->values.slice2d(0);
    }
    if (n == "w_q") out_.input.wQ = w->values.slice2d(0);
    if (n == "w_k") out_.input.wK = w->values.slice2d(0);
    if (n == "w_v") out_.input.wV = w->values.slice2d(0);
    setRole(n, fmt::format("{} projection [{} -> {}]", n == "w_o" ? "output" : n.substr(2), w->shape[0],
                           w->shape[1]));
  }
  // Biases [d_out] of the projections (x W + b); their lengths follow the weights'.
  for (auto [bn, wn, dst] : {std::tuple{"b_q", "w_q", &out_.input.bQ}, {"b_k", "w_k", &out_.input.bK},
                             {"b_v", "w_v", &out_.input.bV}, {"b_o", "w_o", &out_.input.bO}}) {
    NpyArray* b = find(bn);
    if (!b) continue;
    if (auto st = checkNumeric(*b, 1, 1); !st) return st;
    if (const NpyArray* w = find(wn); w && b->shape[0] != w->shape[1])
      return disagree(*w, *b, fmt::format("'{}' needs one entry per column of '{}'", bn, wn));
    *dst = Eigen::Map<const Vec>(b->values.data.data(), static_cast<Eigen::Index>(b->shape[0]));
    setRole(bn, fmt::format("{} projection bias [{}]", std::string(bn).substr(2), b->shape[0]));
  }
  return okStatus();
}

Status Mapper::mapScoreParams() {
  if (NpyArray* wb = find("w_bilinear")) {
    auto heads = perHead(*wb);
    if (!heads) return heads.error();
    if (out_.input.isProjected()) {
      const NpyArray* q = find("q");
      if (heads->size() != out_.input.q.size()) return disagree(*q, *wb, "different numbers of heads");
      if ((*heads)[0].rows() != out_.input.q[0].cols() || (*heads)[0].cols() != out_.input.k[0].cols())
        return disagree(*q, *wb, fmt::format("'w_bilinear' must be [H, {}, {}] (d_k of q, d_k of k)",
                                             out_.input.q[0].cols(), out_.input.k[0].cols()));
    }
    setRole("w_bilinear", fmt::format("general (bilinear) score weights, {} head(s)", heads->size()));
    out_.input.wBilinear = std::move(heads).value();
  }
  NpyArray *aq = find("w_add_q"), *ak = find("w_add_k"), *va = find("v_add");
  if (!aq && !ak && !va) return okStatus();
  for (auto [p, name] : {std::pair{aq, "w_add_q"}, {ak, "w_add_k"}, {va, "v_add"}})
    if (!p) return err(fmt::format("'w_add_q', 'w_add_k' and 'v_add' go together, but '{}' is missing", name));
  auto hq = perHead(*aq), hk = perHead(*ak);
  if (!hq) return hq.error();
  if (!hk) return hk.error();
  if (auto st = checkNumeric(*va, 1, 2); !st) return st;
  const size_t heads = hq->size();
  const int64_t vHeads = va->shape.size() == 2 ? va->shape[0] : 1;
  if (hk->size() != heads) return disagree(*aq, *ak, "different numbers of heads");
  if (static_cast<size_t>(vHeads) != heads) return disagree(*aq, *va, "different numbers of heads");
  const auto hidden = (*hq)[0].cols();
  if ((*hk)[0].cols() != hidden) return disagree(*aq, *ak, "they need the same hidden width");
  if (va->shape.back() != hidden) return disagree(*aq, *va, "'v_add' needs the hidden width of 'w_add_q'");
  if (out_.input.isProjected()) {
    if (heads != out_.input.q.size()) return disagree(*find("q"), *aq, "different numbers of heads");
    if ((*hq)[0].rows() != out_.input.q[0].cols())
      return disagree(*find("q"), *aq, "'w_add_q' needs d_k of 'q' rows");
    if ((*hk)[0].rows() != out_.input.k[0].cols())
      return disagree(*find("k"), *ak, "'w_add_k' needs d_k of 'k' rows");
  }
  for (int64_t h = 0; h < vHeads; ++h)
    out_.input.vAdd.emplace_back(Eigen::Map<const Vec>(va->values.data.data() + h * hidden, hidden));
  if (NpyArray* ba = find("b_add")) {
    if (auto st = checkNumeric(*ba, 1, 2); !st) return st;
    const int64_t bHeads = ba->shape.size() == 2 ? ba->shape[0] : 1;
    if (static_cast<size_t>(bHeads) != heads || ba->shape.back() != hidden)
      return disagree(*va, *ba, fmt::format("'b_add' must be [{}, {}] (heads, hidden)", heads, hidden));
    for (int64_t h = 0; h < bHeads; ++h)
      out_.input.bAdd.emplace_back(Eigen::Map<const Vec>(ba->values.data.data() + h * hidden, hidden));
    setRole("b_add", fmt::format("additive score bias, {} head(s), hidden {}", heads, hidden));
  }
  out_.input.wAddQ = std::move(hq).value();
  out_.input.wAddK = std::move(hk).value();
  const std::string role = fmt::format("additive score parameters, {} head(s), hidden {}", heads, hidden);
  for (const char* n : {"w_add_q", "w_add_k", "v_add"}) setRole(n, role);
  return okStatus();
}

Status Mapper::mapAttention() {
  NpyArray* a = find("attn");
  if (!a) return okStatus();
  if (auto st = checkNumeric(*a, 2, 4); !st) return st;
  const int rows = static_cast<int>(a->shape[a->shape.size() - 2]);
  const int cols = static_cast<int>(a->shape.back());
  if (nq_ >= 0 && rows != nq_) return disagree(*nqFrom_, *a, fmt::format("{} query rows vs {}", nq_, rows));
  if (nk_ >= 0 && cols != nk_) return disagree(*nkFrom_, *a, fmt::format("{} keys vs {}", nk_, cols));
  if (nq_ < 0) {
    nq_ = rows;
    nk_ = cols;
    nqFrom_ = nkFrom_ = a;
  }
  out_.attention = PrecomputedAttention::fromTensor(a->values);
  const float lo = *std::min_element(a->values.data.begin(), a->values.data.end());
  if (lo < 0) out_.warnings.push_back(fmt::format("'attn' has negative values (min {}); are these logits?", lo));
  setRole("attn", fmt::format("precomputed weights: {} layer(s) x {} head(s), {} x {}", out_.attention.numLayers(),
                              out_.attention.numHeads(), rows, cols));
  return okStatus();
}

Status Mapper::mapMask() {
  NpyArray* m = find("mask");
  if (!m) return okStatus();
  if (auto st = checkNumeric(*m, 2, 2); !st) return st;
  if (nq_ >= 0 && (m->shape[0] != nq_ || m->shape[1] != nk_))
    return disagree(*nqFrom_, *m, fmt::format("the mask must be [{}, {}] (queries x keys)", nq_, nk_));
  out_.maskRows = static_cast<int>(m->shape[0]);
  out_.maskCols = static_cast<int>(m->shape[1]);
  out_.maskKeep.resize(m->values.data.size());
  for (size_t i = 0; i < m->values.data.size(); ++i) out_.maskKeep[i] = m->values.data[i] != 0.0f ? 1 : 0;
  setRole("mask", fmt::format("custom mask, 1 = keep ({} x {})", out_.maskRows, out_.maskCols));
  return okStatus();
}

Status Mapper::mapTokens() {
  for (const char* name : {"tokens", "key_tokens"}) {
    NpyArray* t = find(name);
    if (!t) continue;
    if (t->shape.size() != 1)
      return err(fmt::format("array '{}' has shape {} but a 1-D list of tokens is needed", name, shapeOf(*t)));
    std::vector<std::string> tokens = t->strings;
    if (!t->isText)  // token ids, e.g. a model's input_ids: shown as numbers
      for (float id : t->values.data) tokens.push_back(fmt::format("{}", static_cast<int64_t>(id)));
    const bool isKey = std::string(name) == "key_tokens";
    const int n = isKey ? nk_ : nq_;
    const NpyArray* from = isKey ? nkFrom_ : nqFrom_;
    if (from && static_cast<int>(tokens.size()) != n)
      return err(fmt::format("'{}' has {} tokens but {} has {} {}", name, tokens.size(), ref(*from), n,
                             isKey ? "keys" : "query rows"));
    setRole(name, fmt::format("{} labels ({}){}", isKey ? "key token" : "token", tokens.size(),
                              t->isText ? "" : ", token ids"));
    (isKey ? out_.input.keyTokens : out_.input.queryTokens) = std::move(tokens);
  }
  return okStatus();
}

Result<LoadedInput> Mapper::run() {
  std::set<std::string> seen;
  for (auto& a : arrays_) {
    if (!seen.insert(a.name).second) return err(fmt::format("array '{}' appears twice", a.name));
    ArrayInfo info{a.name, a.descr, a.shape, ""};
    auto it = kMaxRank.find(a.name);
    if (it == kMaxRank.end()) {
      info.role = "not used (not a name AttnScope knows)";
    } else {
      // A leading batch axis of 1 (as models write it) is dropped.
      while (static_cast<int>(a.shape.size()) > it->second && a.shape[0] == 1) {
        a.shape.erase(a.shape.begin());
        a.values.shape = a.shape;
      }
    }
    out_.arrays.push_back(std::move(info));
  }
  if (!find("attn"))
    if (NpyArray* w = find("weights")) {
      w->name = "attn";
      weightsAsAttn_ = true;
    }
  for (const char* n : {"scores", "output", "entropy"}) setRole(n, "from a run result (not an input)");
  for (auto step : {&Mapper::mapProjected, &Mapper::mapEmbeddings, &Mapper::mapScoreParams, &Mapper::mapAttention,
                    &Mapper::mapMask, &Mapper::mapTokens})
    if (auto st = (this->*step)(); !st) return st.error();
  // Self-attention with labelled keys only makes sense if they match the queries in count.
  if (!out_.hasEngineInput() && !out_.hasAttention()) {
    std::string names;
    for (const auto& a : arrays_) names += (names.empty() ? "" : ", ") + a.name;
    return err(fmt::format("nothing to attend over: found {}; expected 'q'/'k'/'v', 'x' or 'attn'",
                           names.empty() ? "no arrays" : names));
  }
  if (!out_.input.keyTokens.empty() && !out_.input.isCross() && nq_ != nk_)
    return err("'key_tokens' given but queries and keys differ in count");
  for (const auto& i : out_.arrays)
    if (i.role.starts_with("not used (not a name"))
      out_.warnings.push_back(fmt::format("array '{}' {} is not used (not a name AttnScope knows)", i.name,
                                          Tensor{i.shape, {}}.shapeString()));
  return std::move(out_);
}

// A lone matrix (.npy or .csv) without a contract name: probability rows are
// attention weights, anything else is embeddings.
std::string guessName(const Tensor& t) {
  if (t.rank() >= 3) return "attn";
  if (t.rank() != 2) return "x";
  const ConstMatMap m = t.slice2d(0);
  if ((m.array() < 0).any()) return "x";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const float s = m.row(i).sum();
    if (std::abs(s - 1.0f) > 1e-3f && s != 0.0f) return "x";
  }
  return "attn";
}

Result<std::vector<NpyArray>> readCsvAsArrays(const std::string& path) {
  auto csv = readCsvMatrixFile(path);
  if (!csv) return csv.error();
  NpyArray a;
  a.descr = "csv";
  a.values = Tensor::fromMat(csv->values);
  a.shape = a.values.shape;
  a.name = guessName(a.values);
  std::vector<NpyArray> out{a};
  auto addTokens = [&](const char* name, std::vector<std::string> tokens) {
    NpyArray t;
    t.name = name;
    t.descr = "csv text";
    t.isText = true;
    t.shape = {static_cast<int64_t>(tokens.size())};
    t.strings = std::move(tokens);
    out.push_back(std::move(t));
  };
  if (!csv->rowTokens.empty()) addTokens("tokens", csv->rowTokens);
  // The header names keys for weights; for embeddings it names dimensions, not tokens.
  if (!csv->columnTokens.empty() && a.name == "attn") addTokens("key_tokens", csv->columnTokens);
  return out;
}

}  // namespace

std::vector<std::string> LoadedInput::views() const {
  std::vector<std::string> v;
  if (hasEngineInput() || hasAttention()) {
    v = {"heatmap", "head grid", "entropy chart", "token lines", "metrics"};
  }
  if (hasEngineInput()) {
    v.push_back("step-through (scores, softmax, output)");
    if (!input.isProjected()) v.push_back("mechanism / mask / positional-encoding switches (x is projected)");
  }
  if (!input.wBilinear.empty()) v.push_back("loaded score weights for --mechanism general");
  if (!input.wAddQ.empty()) v.push_back("loaded score weights for --mechanism additive");
  if (hasAttention() && attention.numLayers() > 1)
    v.push_back(fmt::format("rollout and flow over {} layers", attention.numLayers()));
  if (!maskKeep.empty()) v.push_back("custom mask");
  return v;
}

Result<LoadedInput> inputFromArrays(std::vector<NpyArray> arrays, const std::string& source) {
  return Mapper(std::move(arrays), source).run();
}

Result<LoadedInput> loadInputFile(const std::string& path, const LoadOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return Error{path + ": is a folder; model folders are not supported yet (give an .npz, .npy, .safetensors "
                        "or .csv file)"};
  if (!fs::exists(path, ec)) return Error{path + ": no such file"};
  std::string ext = fs::path(path).extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Result<std::vector<NpyArray>> arrays = Error{""};
  std::string format;
  std::map<std::string, DroppedValuesScan> scans;
  if (ext == ".npz") {
    format = "npz";
    std::vector<PlaneDrop> drops;
    auto scanInto = [&scans](const std::string& name) {
      return [&scan = scans[name]](int64_t, const Mat& plane) {
        if (!scan.nonFinite && !finiteEverywhere(plane))
          for (Eigen::Index i = 0; i < plane.size(); ++i)
            if (!std::isfinite(plane.data()[i])) {
              scan = {true, plane.data()[i], scan.seen + static_cast<size_t>(i), scan.seen};
              break;
            }
        scan.seen += static_cast<size_t>(plane.size());
      };
    };
    if (!options.keepValues) drops.push_back({"v", scanInto("v")});
    if (!options.keepQueries) drops.push_back({"q", scanInto("q"), true});
    arrays = readNpzFile(path, {}, {"q", "k", "v"}, drops);
  } else if (ext == ".npy") {
    format = "npy";
    auto a = readNpyFile(path);
    if (!a) return a.error();
    const std::string stem = fs::path(path).stem().string();
    a->name = kMaxRank.count(stem) ? stem : (a->isText ? "tokens" : guessName(a->values));
    arrays = std::vector<NpyArray>{std::move(a).value()};
  } else if (ext == ".safetensors") {
    format = "safetensors";
    arrays = readSafetensorsFile(path);
  } else if (ext == ".csv") {
    format = "csv";
    arrays = readCsvAsArrays(path);
  } else {
    return Error{fmt::format("{}: unknown file type '{}' (open .npz, .npy, .safetensors or .csv)", path, ext)};
  }
  if (!arrays) return arrays.error();
  auto in = Mapper(std::move(arrays).value(), path, &scans).run();
  if (in && in->input.queriesDropped()) in->input.queryFile.path = path;
  if (!in) return in.error();
  in->path = path;
  in->format = format;
  return in;
}

std::string describeInput(const LoadedInput& in) {
  std::string s = fmt::format("{} ({})\n", in.path, in.format);
  size_t w = 4, dw = 5, sw = 5;
  for (const auto& a : in.arrays) {
    w = std::max(w, a.name.size());
    dw = std::max(dw, a.dtype.size());
    sw = std::max(sw, Tensor{a.shape, {}}.shapeString().size());
  }
  s += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {}\n", "name", w, "dtype", dw, "shape", sw, "used as");
  for (const auto& a : in.arrays)
    s += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {}\n", a.name, w, a.dtype, dw, Tensor{a.shape, {}}.shapeString(), sw,
                     a.role);
  s += "feeds:";
  for (const auto& v : in.views()) s += "\n  - " + v;
  s += "\n";
  for (const auto& wmsg : in.warnings) s += "warning: " + wmsg + "\n";
  return s;
}

Status fitSpecToInput(const AttentionInput& in, AttentionSpec& spec) {
  if (!in.wAddQ.empty()) spec.hidden = static_cast<int>(in.wAddQ[0].cols());
  if (in.bQ.size() > 0 || in.bK.size() > 0 || in.bV.size() > 0 || in.bO.size() > 0) spec.projectionBias = true;
  if (in.isProjected()) {
    spec.heads = static_cast<int>(in.q.size());
    spec.dK = static_cast<int>(in.q[0].cols());
    return okStatus();
  }
  if (in.x.size() == 0) return okStatus();
  spec.dModel = static_cast<int>(in.x.cols());
  if (in.wQ.size() > 0) {
    if (in.wQ.cols() % spec.heads != 0)
      return Error{fmt::format("'w_q' has {} columns, which {} heads (--heads) do not divide", in.wQ.cols(),
                               spec.heads)};
    spec.dK = static_cast<int>(in.wQ.cols()) / spec.heads;
  } else if (spec.dK <= 0 && spec.dModel % spec.heads != 0) {
    return Error{fmt::format("'x' has width {}, which {} heads (--heads) do not divide; set --d-k", spec.dModel,
                             spec.heads)};
  }
  return okStatus();
}

}  // namespace attn
