#include "attn/train/tiny_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/engine/init.h"
#include "attn/engine/random.h"

namespace attn::train {

// ---------------------------------------------------------------- parameters

template <class S>
void ModelParams<S>::forEach(const std::function<void(const std::string&, MatT<S>&)>& f) {
  f("token_embedding", tokenEmbedding);
  f("pos_embedding", posEmbedding);
  if (queryPosEmbedding.size() > 0) f("query_pos_embedding", queryPosEmbedding);
  for (size_t l = 0; l < layers.size(); ++l) {
    LayerParams<S>& L = layers[l];
    for (size_t h = 0; h < L.wQ.size(); ++h) {
      const std::string p = fmt::format("layer{}.head{}.", l, h);
      f(p + "w_q", L.wQ[h]);
      f(p + "w_k", L.wK[h]);
      f(p + "w_v", L.wV[h]);
      if (!L.wBilinear.empty()) f(p + "w_bilinear", L.wBilinear[h]);
      if (!L.wAddQ.empty()) {
        f(p + "w_add_q", L.wAddQ[h]);
        f(p + "w_add_k", L.wAddK[h]);
        f(p + "v_add", L.vAdd[h]);
      }
    }
    f(fmt::format("layer{}.w_o", l), L.wO);
    if (L.mlpW1.size() > 0) {
      f(fmt::format("layer{}.mlp.w_in", l), L.mlpW1);
      f(fmt::format("layer{}.mlp.b_in", l), L.mlpB1);
      f(fmt::format("layer{}.mlp.w_out", l), L.mlpW2);
      f(fmt::format("layer{}.mlp.b_out", l), L.mlpB2);
    }
  }
  f("w_out", wOut);
  f("b_out", bOut);
}

template <class S>
void ModelParams<S>::forEach(const std::function<void(const std::string&, const MatT<S>&)>& f) const {
  const_cast<ModelParams<S>*>(this)->forEach(
      [&](const std::string& name, MatT<S>& m) { f(name, static_cast<const MatT<S>&>(m)); });
}

template <class S>
ModelParams<S> ModelParams<S>::zerosLike() const {
  ModelParams<S> z = *this;
  z.forEach([](const std::string&, MatT<S>& m) { m.setZero(); });
  return z;
}

template <class S>
template <class T>
ModelParams<T> ModelParams<S>::cast() const {
  ModelParams<T> out;
  auto c = [](const MatT<S>& m) { return MatT<T>(m.template cast<T>()); };
  auto cv = [&](const std::vector<MatT<S>>& v) {
    std::vector<MatT<T>> r;
    for (const auto& m : v) r.push_back(c(m));
    return r;
  };
  out.tokenEmbedding = c(tokenEmbedding);
  out.posEmbedding = c(posEmbedding);
  out.queryPosEmbedding = c(queryPosEmbedding);
  for (const auto& L : layers) {
    LayerParams<T> o;
    o.wQ = cv(L.wQ);
    o.wK = cv(L.wK);
    o.wV = cv(L.wV);
    o.wO = c(L.wO);
    o.wBilinear = cv(L.wBilinear);
    o.wAddQ = cv(L.wAddQ);
    o.wAddK = cv(L.wAddK);
    o.vAdd = cv(L.vAdd);
    o.mlpW1 = c(L.mlpW1);
    o.mlpB1 = c(L.mlpB1);
    o.mlpW2 = c(L.mlpW2);
    o.mlpB2 = c(L.mlpB2);
    out.layers.push_back(std::move(o));
  }
  out.wOut = c(wOut);
  out.bOut = c(bOut);
  return out;
}

namespace {

InitScheme schemeOf(TrainInit i) {
  switch (i) {
    case TrainInit::Kaiming: return InitScheme::KaimingNormal;
    case TrainInit::Orthogonal: return InitScheme::Orthogonal;
    default: return InitScheme::XavierUniform;
  }
}

MatT<float> normalMatrix(int rows, int cols, double stddev, uint64_t seed, std::string_view stream) {
  SeededRng rng(streamSeed(seed, stream));
  MatT<float> m(rows, cols);
  for (int i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(stddev * rng.normal());
  return m;
}

}  // namespace

ModelParams<float> initModelParams(const TrainConfig& c, uint64_t seed) {
  const InitScheme scheme = schemeOf(c.init);
  const bool bad = c.init == TrainInit::Bad;
  const int d = c.dModel, dk = c.dK, n = c.seqLen;
  ModelParams<float> p;
  p.tokenEmbedding = normalMatrix(inputVocabulary(c), d, 1.0, seed, "token_embedding");
  p.posEmbedding = normalMatrix(n, d, 1.0, seed, "pos_embedding");
  if (isCrossAttention(c.task)) p.queryPosEmbedding = normalMatrix(n, d, 1.0, seed, "query_pos_embedding");
  auto mat = [&](int r, int cols, const std::string& name, bool zero) -> MatT<float> {
    if (zero) return MatT<float>::Zero(r, cols);
    return initMatrix(r, cols, scheme, seed, name);
  };
  for (int l = 0; l < c.layers; ++l) {
    LayerParams<float> L;
    for (int h = 0; h < c.heads; ++h) {
      const std::string pre = fmt::format("layer{}.head{}.", l, h);
      L.wQ.push_back(mat(d, dk, pre + "w_q", bad));
      L.wK.push_back(mat(d, dk, pre + "w_k", bad));
      L.wV.push_back(mat(d, dk, pre + "w_v", false));
      if (c.mechanism == TrainMechanism::General) L.wBilinear.push_back(mat(dk, dk, pre + "w_bilinear", bad));
      if (c.mechanism == TrainMechanism::Additive) {
        L.wAddQ.push_back(mat(dk, c.additiveHidden, pre + "w_add_q", false));
        L.wAddK.push_back(mat(dk, c.additiveHidden, pre + "w_add_k", false));
        L.vAdd.push_back(mat(1, c.additiveHidden, pre + "v_add", bad));
      }
    }
    L.wO = mat(c.heads * dk, d, fmt::format("layer{}.w_o", l), false);
    if (c.mlpHidden > 0) {
      L.mlpW1 = mat(d, c.mlpHidden, fmt::format("layer{}.mlp.w_in", l), false);
      L.mlpB1 = MatT<float>::Zero(1, c.mlpHidden);
      L.mlpW2 = mat(c.mlpHidden, d, fmt::format("layer{}.mlp.w_out", l), false);
      L.mlpB2 = MatT<float>::Zero(1, d);
    }
    p.layers.push_back(std::move(L));
  }
  p.wOut = mat(d, outputVocabulary(c), "w_out", false);
  p.bOut = MatT<float>::Zero(1, outputVocabulary(c));
  return p;
}

// ---------------------------------------------------------------- the pass

namespace {

template <class S>
struct HeadCache {
  MatT<S> q, k, v;  // [B*N, dk]
  MatT<S> a;        // [B*N, N] attention weights, item b in rows b*N..
  MatT<S> qb;       // General: Q Wb, [B*N, dk]
  std::vector<MatT<S>> t;  // Additive: per item [N*N, hidden] tanh values
};

template <class S>
struct LayerCache {
  MatT<S> xq, xkv;  // inputs [B*N, D]
  std::vector<HeadCache<S>> heads;
  MatT<S> concat;  // [B*N, H*dk]
  MatT<S> mlpIn, mlpHidden;  // MLP: its input u_l [B*N, D] and ReLU output [B*N, hidden]
};

// Every buffer of a pass; kept by a ModelWorkspace between steps.
template <class S>
struct Buffers {
  MatT<S> h0, hOut, logits, probs, xq;
  std::vector<LayerCache<S>> layers;
  // backward
  MatT<S> dLogits, dX, dH0, dXq, dXkv, dConcat, dA, dS, dQ, dK, dV, dQb, dAq, dAk, aq, ak, s, dHidden;
};

template <class S>
class Pass {
 public:
  Pass(const TrainConfig& c, const ModelParams<S>& p, const TaskBatch& b, Buffers<S>& w)
      : c_(c), p_(p), b_(b), w_(w) {
    B_ = b.batch();
    N_ = b.seqLen();
    scale_ = c.mechanism == TrainMechanism::Dot ? S(1) : S(1) / std::sqrt(static_cast<S>(c.dK));
    invT_ = static_cast<S>(1.0 / c.temperature);
    cross_ = isCrossAttention(c.task);
    causal_ = isCausal(c);
  }

  PassResult<S> forward(bool wantMaps) {
    PassResult<S> r;
    const int D = c_.dModel, rows = B_ * N_;
    MatT<S>& h0 = w_.h0;
    h0.resize(rows, D);
    for (int bi = 0; bi < B_; ++bi)
      for (int i = 0; i < N_; ++i)
        h0.row(bi * N_ + i) = p_.tokenEmbedding.row(b_.inputs(bi, i)) + p_.posEmbedding.row(i);
    MatT<S>& xq = w_.xq;
    if (cross_) {
      xq.resize(rows, D);
      for (int bi = 0; bi < B_; ++bi) xq.middleRows(bi * N_, N_) = p_.queryPosEmbedding.topRows(N_);
    } else {
      xq = h0;
    }
    w_.layers.resize(p_.layers.size());
    r.headEntropy.assign(p_.layers.size() * c_.heads, S(0));
    S entropySum = 0;
    if (wantMaps) r.maps.resize(p_.layers.size());
    for (size_t l = 0; l < p_.layers.size(); ++l) {
      LayerCache<S>& lc = w_.layers[l];
      lc.xq = xq;
      lc.xkv = cross_ ? h0 : xq;
      layerForward(p_.layers[l], lc, xq);
      if (c_.residual) xq += lc.xq;
      if (p_.layers[l].mlpW1.size() > 0) mlpForward(p_.layers[l], lc, xq);
      for (int h = 0; h < c_.heads; ++h) {
        const MatT<S>& a = lc.heads[h].a;
        S e = 0;
        for (int i = 0; i < a.size(); ++i) {
          const S wgt = a.data()[i];
          if (wgt > S(0)) e -= wgt * std::log(wgt);
        }
        r.headEntropy[l * c_.heads + h] = e / rows;
        entropySum += e;
        if (wantMaps) r.maps[l].push_back(a.topRows(N_));
      }
    }
    w_.hOut = xq;
    // Output projection and cross-entropy, mean over batch and positions.
    MatT<S>& logits = w_.logits;
    logits.noalias() = w_.hOut * p_.wOut;
    logits.rowwise() += p_.bOut.row(0);
    MatT<S>& probs = w_.probs;
    probs.resizeLike(logits);
    S ce = 0;
    int scored = 0;
    for (int i = 0; i < rows; ++i) {
      auto row = logits.row(i);
      const int y = b_.targets(i / N_, i % N_);
      if (y == kIgnoredTarget) {
        probs.row(i).setZero();
        continue;
      }
      Eigen::Index arg = 0;
      const S m = row.maxCoeff(&arg);
      S z = 0;
      for (int j = 0; j < row.size(); ++j) {
        probs(i, j) = std::exp(row(j) - m);
        z += probs(i, j);
      }
      ce -= row(y) - m - std::log(z);
      probs.row(i) /= z;
      if (arg == y) ++r.correct;
      ++scored;
    }
    r.total = scored;
    r.crossEntropy = ce / std::max(1, scored);
    const int maps = static_cast<int>(p_.layers.size()) * c_.heads;
    r.meanEntropy = entropySum / (static_cast<S>(rows) * maps);
    r.loss = r.crossEntropy + static_cast<S>(c_.entropyWeight) * r.meanEntropy;
    return r;
  }

  void backward(ModelParams<S>& g) {
    const int rows = B_ * N_;
    if (!sameShapes(g)) g = p_.zerosLike();
    else g.forEach([](const std::string&, MatT<S>& m) { m.setZero(); });
    MatT<S>& dLogits = w_.dLogits;
    dLogits = w_.probs;  // ignored rows are zero
    int scored = 0;
    for (int i = 0; i < rows; ++i) {
      const int y = b_.targets(i / N_, i % N_);
      if (y == kIgnoredTarget) continue;
      dLogits(i, y) -= S(1);
      ++scored;
    }
    dLogits /= static_cast<S>(std::max(1, scored));
    g.wOut.noalias() = w_.hOut.transpose() * dLogits;
    g.bOut = dLogits.colwise().sum();
    MatT<S>& dX = w_.dX;
    dX.noalias() = dLogits * p_.wOut.transpose();
    MatT<S>& dH0 = w_.dH0;
    dH0.setZero(rows, c_.dModel);
    const S entCoef = static_cast<S>(c_.entropyWeight) /
                      (static_cast<S>(rows) * static_cast<S>(p_.layers.size() * c_.heads));
    for (int l = static_cast<int>(p_.layers.size()) - 1; l >= 0; --l) {
      if (p_.layers[l].mlpW1.size() > 0) mlpBackward(p_.layers[l], w_.layers[l], g.layers[l], dX);
      layerBackward(p_.layers[l], w_.layers[l], g.layers[l], dX, entCoef);
      // The stream below receives the attention's input gradients, plus dX itself
      // through the residual connection (d(x + attn(x))/dx = I + d attn/dx).
      if (cross_) {
        dH0 += w_.dXkv;
        if (c_.residual)
          dX += w_.dXq;
        else
          dX.swap(w_.dXq);  // to the decoder stream below (or the query positions)
      } else if (c_.residual) {
        dX += w_.dXq + w_.dXkv;
      } else {
        dX = w_.dXq + w_.dXkv;
      }
    }
    if (cross_) {
      for (int bi = 0; bi < B_; ++bi) g.queryPosEmbedding += dX.middleRows(bi * N_, N_);
    } else {
      dH0 += dX;
    }
    for (int bi = 0; bi < B_; ++bi)
      for (int i = 0; i < N_; ++i) {
        g.tokenEmbedding.row(b_.inputs(bi, i)) += dH0.row(bi * N_ + i);
        g.posEmbedding.row(i) += dH0.row(bi * N_ + i);
      }
  }

 private:
  bool masked(int i, int j) const { return causal_ && j > i; }

  // x += ReLU(x W_1 + b_1) W_2 + b_2 (the MLP's residual branch); caches its input and hidden layer.
  void mlpForward(const LayerParams<S>& L, LayerCache<S>& lc, MatT<S>& x) {
    lc.mlpIn = x;
    lc.mlpHidden.noalias() = x * L.mlpW1;
    lc.mlpHidden.rowwise() += L.mlpB1.row(0);
    lc.mlpHidden = lc.mlpHidden.cwiseMax(S(0));
    x.noalias() += lc.mlpHidden * L.mlpW2;
    x.rowwise() += L.mlpB2.row(0);
  }

  // dX: the gradient w.r.t. the MLP's output on entry, w.r.t. its input u_l on exit
  // (the identity path plus the branch).
  void mlpBackward(const LayerParams<S>& L, const LayerCache<S>& lc, LayerParams<S>& g, MatT<S>& dX) {
    g.mlpW2.noalias() = lc.mlpHidden.transpose() * dX;
    g.mlpB2 = dX.colwise().sum();
    MatT<S>& dH = w_.dHidden;
    dH.noalias() = dX * L.mlpW2.transpose();
    dH.array() *= (lc.mlpHidden.array() > S(0)).template cast<S>();  // ReLU'(z) = [z > 0]
    g.mlpW1.noalias() = lc.mlpIn.transpose() * dH;
    g.mlpB1 = dH.colwise().sum();
    dX.noalias() += dH * L.mlpW1.transpose();
  }

  bool sameShapes(ModelParams<S>& g) const {
    std::vector<std::pair<Eigen::Index, Eigen::Index>> shapes;
    p_.forEach([&](const std::string&, const MatT<S>& m) { shapes.emplace_back(m.rows(), m.cols()); });
    size_t i = 0;
    bool same = true;
    g.forEach([&](const std::string&, MatT<S>& m) {
      same = same && i < shapes.size() && shapes[i].first == m.rows() && shapes[i].second == m.cols();
      ++i;
    });
    return same && i == shapes.size();
  }

  void layerForward(const LayerParams<S>& L, LayerCache<S>& lc, MatT<S>& out) {
    const int rows = B_ * N_, dk = c_.dK;
    lc.heads.resize(c_.heads);
    lc.concat.resize(rows, c_.heads * dk);
    MatT<S>& s = w_.s;
    s.resize(N_, N_);
    for (int h = 0; h < c_.heads; ++h) {
      HeadCache<S>& hc = lc.heads[h];
      hc.q.noalias() = lc.xq * L.wQ[h];
      hc.k.noalias() = lc.xkv * L.wK[h];
      hc.v.noalias() = lc.xkv * L.wV[h];
      hc.a.resize(rows, N_);
      if (c_.mechanism == TrainMechanism::General) hc.qb.noalias() = hc.q * L.wBilinear[h];
      if (c_.mechanism == TrainMechanism::Additive) hc.t.resize(B_);
      for (int bi = 0; bi < B_; ++bi) {
        const auto q = hc.q.middleRows(bi * N_, N_);
        const auto k = hc.k.middleRows(bi * N_, N_);
        switch (c_.mechanism) {
          case TrainMechanism::Dot:
          case TrainMechanism::ScaledDot: s.noalias() = (q * k.transpose()) * (scale_ * invT_); break;
          case TrainMechanism::General:
            s.noalias() = (hc.qb.middleRows(bi * N_, N_) * k.transpose()) * (scale_ * invT_);
            break;
          case TrainMechanism::Additive: {
            w_.aq.noalias() = q * L.wAddQ[h];
            w_.ak.noalias() = k * L.wAddK[h];
            MatT<S>& t = hc.t[bi];
            t.resize(N_ * N_, c_.additiveHidden);
            for (int i = 0; i < N_; ++i)
              for (int j = 0; j < N_; ++j) {
                t.row(i * N_ + j) = (w_.aq.row(i) + w_.ak.row(j)).array().tanh();
                s(i, j) = t.row(i * N_ + j).dot(L.vAdd[h].row(0)) * invT_;
              }
            break;
          }
        }
        // Row softmax over unmasked keys; masked weights exactly 0.
        for (int i = 0; i < N_; ++i) {
          S m = -std::numeric_limits<S>::infinity();
          for (int j = 0; j < N_; ++j)
            if (!masked(i, j)) m = std::max(m, s(i, j));
          S z = 0;
          auto arow = hc.a.row(bi * N_ + i);
          for (int j = 0; j < N_; ++j) {
            const S e = masked(i, j) ? S(0) : std::exp(s(i, j) - m);
            arow(j) = e;
            z += e;
          }
          arow /= z;
        }
        lc.concat.block(bi * N_, h * dk, N_, dk).noalias() =
            hc.a.middleRows(bi * N_, N_) * hc.v.middleRows(bi * N_, N_);
      }
    }
    out.noalias() = lc.concat * L.wO;
  }

  void layerBackward(const LayerParams<S>& L, const LayerCache<S>& lc, LayerParams<S>& g, const MatT<S>& dOut,
                     S entCoef) {
    const int rows = B_ * N_, dk = c_.dK;
    g.wO.noalias() = lc.concat.transpose() * dOut;
    MatT<S>& dConcat = w_.dConcat;
    dConcat.noalias() = dOut * L.wO.transpose();
    MatT<S>& dXq = w_.dXq;
    MatT<S>& dXkv = w_.dXkv;
    dXq.setZero(rows, c_.dModel);
    dXkv.setZero(rows, c_.dModel);
    MatT<S>& dA = w_.dA;
    MatT<S>& dS = w_.dS;
    dA.resize(N_, N_);
    dS.resize(N_, N_);
    MatT<S>& dQ = w_.dQ;
    MatT<S>& dK = w_.dK;
    MatT<S>& dV = w_.dV;
    MatT<S>& dQb = w_.dQb;
    MatT<S>& dAq = w_.dAq;
    MatT<S>& dAk = w_.dAk;
    dQ.resize(rows, dk);
    dK.resize(rows, dk);
    dV.resize(rows, dk);
    if (c_.mechanism == TrainMechanism::General) dQb.resize(rows, dk);
    if (c_.mechanism == TrainMechanism::Additive) {
      dAq.resize(rows, c_.additiveHidden);
      dAk.resize(rows, c_.additiveHidden);
    }
    for (int h = 0; h < c_.heads; ++h) {
      const HeadCache<S>& hc = lc.heads[h];
      for (int bi = 0; bi < B_; ++bi) {
        const auto a = hc.a.middleRows(bi * N_, N_);
        const auto dO = dConcat.block(bi * N_, h * dk, N_, dk);
        dA.noalias() = dO * hc.v.middleRows(bi * N_, N_).transpose();
        dV.middleRows(bi * N_, N_).noalias() = a.transpose() * dO;
        // d(-sum a log a)/da = -(log a + 1), for unmasked (a > 0) cells.
        if (entCoef != S(0))
          for (int i = 0; i < N_; ++i)
            for (int j = 0; j < N_; ++j)
              if (a(i, j) > S(0)) dA(i, j) -= entCoef * (std::log(a(i, j)) + S(1));
        // Softmax backward: dS = A ∘ (dA - rowsum(A ∘ dA)).
        for (int i = 0; i < N_; ++i) {
          const S dot = a.row(i).dot(dA.row(i));
          dS.row(i) = (a.row(i).array() * (dA.row(i).array() - dot)).matrix() * invT_;
        }
        const auto q = hc.q.middleRows(bi * N_, N_);
        const auto k = hc.k.middleRows(bi * N_, N_);
        switch (c_.mechanism) {
          case TrainMechanism::Dot:
          case TrainMechanism::ScaledDot:
            dQ.middleRows(bi * N_, N_).noalias() = (dS * k) * scale_;
            dK.middleRows(bi * N_, N_).noalias() = (dS.transpose() * q) * scale_;
            break;
          case TrainMechanism::General:
            dQb.middleRows(bi * N_, N_).noalias() = (dS * k) * scale_;
            dK.middleRows(bi * N_, N_).noalias() = (dS.transpose() * hc.qb.middleRows(bi * N_, N_)) * scale_;
            break;
          case TrainMechanism::Additive: {
            const MatT<S>& t = hc.t[bi];
            auto dAqB = dAq.middleRows(bi * N_, N_);
            auto dAkB = dAk.middleRows(bi * N_, N_);
            dAqB.setZero();
            dAkB.setZero();
            const auto v = L.vAdd[h].row(0);
            for (int i = 0; i < N_; ++i)
              for (int j = 0; j < N_; ++j) {
                const S ds = dS(i, j);
                if (ds == S(0)) continue;
                const auto tr = t.row(i * N_ + j);
                g.vAdd[h].row(0) += ds * tr;
                const auto dPre = (ds * v.array() * (S(1) - tr.array().square())).matrix();
                dAqB.row(i) += dPre;
                dAkB.row(j) += dPre;
              }
            break;
          }
        }
      }
      if (c_.mechanism == TrainMechanism::General) {
        g.wBilinear[h].noalias() = hc.q.transpose() * dQb;
        dQ.noalias() = dQb * L.wBilinear[h].transpose();
      }
      if (c_.mechanism == TrainMechanism::Additive) {
        g.wAddQ[h].noalias() = hc.q.transpose() * dAq;
        g.wAddK[h].noalias() = hc.k.transpose() * dAk;
        dQ.noalias() = dAq * L.wAddQ[h].transpose();
        dK.noalias() = dAk * L.wAddK[h].transpose();
      }
      g.wQ[h].noalias() = lc.xq.transpose() * dQ;
      g.wK[h].noalias() = lc.xkv.transpose() * dK;
      g.wV[h].noalias() = lc.xkv.transpose() * dV;
      dXq.noalias() += dQ * L.wQ[h].transpose();
      dXkv.noalias() += dK * L.wK[h].transpose();
      dXkv.noalias() += dV * L.wV[h].transpose();
    }
  }

  const TrainConfig& c_;
  const ModelParams<S>& p_;
  const TaskBatch& b_;
  Buffers<S>& w_;
  int B_ = 0, N_ = 0;
  S scale_ = 1, invT_ = 1;
  bool cross_ = false, causal_ = false;
};

}  // namespace

template <class S>
struct ModelWorkspace<S>::Impl {
  Buffers<S> buffers;
};
template <class S>
ModelWorkspace<S>::ModelWorkspace() : impl(std::make_unique<Impl>()) {}
template <class S>
ModelWorkspace<S>::~ModelWorkspace() = default;

template <class S>
PassResult<S> forward(const TrainConfig& c, const ModelParams<S>& p, const TaskBatch& b, bool wantMaps,
                      ModelWorkspace<S>* workspace) {
  Buffers<S> local;
  Pass<S> pass(c, p, b, workspace ? workspace->impl->buffers : local);
  return pass.forward(wantMaps);
}

template <class S>
PassResult<S> forwardBackward(const TrainConfig& c, const ModelParams<S>& p, const TaskBatch& b,
                              ModelParams<S>& grads, bool wantMaps, ModelWorkspace<S>* workspace) {
  Buffers<S> local;
  Pass<S> pass(c, p, b, workspace ? workspace->impl->buffers : local);
  PassResult<S> r = pass.forward(wantMaps);
  pass.backward(grads);
  return r;
}

template struct ModelParams<float>;
template struct ModelParams<double>;
template class ModelWorkspace<float>;
template class ModelWorkspace<double>;
template ModelParams<double> ModelParams<float>::cast<double>() const;
template ModelParams<float> ModelParams<double>::cast<float>() const;
template ModelParams<float> ModelParams<float>::cast<float>() const;
template ModelParams<double> ModelParams<double>::cast<double>() const;
template PassResult<float> forward(const TrainConfig&, const ModelParams<float>&, const TaskBatch&, bool,
                                   ModelWorkspace<float>*);
template PassResult<double> forward(const TrainConfig&, const ModelParams<double>&, const TaskBatch&, bool,
                                    ModelWorkspace<double>*);
template PassResult<float> forwardBackward(const TrainConfig&, const ModelParams<float>&, const TaskBatch&,
                                           ModelParams<float>&, bool, ModelWorkspace<float>*);
template PassResult<double> forwardBackward(const TrainConfig&, const ModelParams<double>&, const TaskBatch&,
                                            ModelParams<double>&, bool, ModelWorkspace<double>*);

}  // namespace attn::train
