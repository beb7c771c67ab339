#include "attn/engine/init.h"

#include <Eigen/QR>
#include <cmath>

#include "attn/engine/random.h"

namespace attn {

std::string_view initSchemeName(InitScheme s) {
  switch (s) {
    case InitScheme::XavierUniform: return "xavier";
    case InitScheme::KaimingNormal: return "kaiming";
    case InitScheme::Orthogonal: return "orthogonal";
  }
  return "xavier";
}

std::optional<InitScheme> parseInitScheme(std::string_view name) {
  if (name == "xavier" || name == "glorot") return InitScheme::XavierUniform;
  if (name == "kaiming" || name == "he") return InitScheme::KaimingNormal;
  if (name == "orthogonal") return InitScheme::Orthogonal;
  return std::nullopt;
}

Mat initMatrix(int rows, int cols, InitScheme scheme, uint64_t seed, std::string_view stream) {
  SeededRng rng(streamSeed(seed, stream));
  Mat w(rows, cols);
  switch (scheme) {
    case InitScheme::XavierUniform: {
      const double a = std::sqrt(6.0 / (rows + cols));
      for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = static_cast<float>(rng.uniform(-a, a));
      break;
    }
    case InitScheme::KaimingNormal: {
      const double sd = std::sqrt(2.0 / rows);
      for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = static_cast<float>(sd * rng.normal());
      break;
    }
    case InitScheme::Orthogonal: {
      const int m = std::max(rows, cols), n = std::min(rows, cols);
      Eigen::MatrixXd g(m, n);
      for (Eigen::Index i = 0; i < g.size(); ++i) g.data()[i] = rng.normal();
      Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
      Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(m, n);
      const Eigen::MatrixXd r = qr.matrixQR().topLeftCorner(n, n);
      for (int j = 0; j < n; ++j)
        if (r(j, j) < 0) q.col(j) *= -1.0;
      w = (rows >= cols ? q : Eigen::MatrixXd(q.transpose())).cast<float>();
      break;
    }
  }
  return w;
}

Vec initBias(int size, int fanIn, uint64_t seed, std::string_view stream) {
  SeededRng rng(streamSeed(seed, stream));
  const double a = 1.0 / std::sqrt(static_cast<double>(std::max(fanIn, 1)));
  Vec b(size);
  for (int i = 0; i < size; ++i) b[i] = static_cast<float>(rng.uniform(-a, a));
  return b;
}

Mat seededTokenEmbeddings(const std::vector<std::string>& tokens, int dModel, uint64_t seed) {
  Mat x(static_cast<Eigen::Index>(tokens.size()), dModel);
  for (size_t t = 0; t < tokens.size(); ++t) {
    SeededRng rng(streamSeed(seed, "token:" + tokens[t]));
    for (int c = 0; c < dModel; ++c) x(static_cast<Eigen::Index>(t), c) = static_cast<float>(rng.normal());
  }
  return x;
}

}  // namespace attn
