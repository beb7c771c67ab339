// The engine against PyTorch: every fixture written by
// tests/scripts/gen_torch_fixtures.py (torch.nn.MultiheadAttention for the
// multi-head scaled-dot cases, explicit torch formulas for the others) must be
// reproduced within 1e-5 relative, fp32.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "attn/attn.h"
#include "attn/io/npy_reader.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

namespace fs = std::filesystem;
constexpr double kTol = 1e-5;

fs::path fixtureDir() { return fs::path(ATTN_FIXTURE_DIR) / "torch"; }

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  if (fs::is_directory(fixtureDir()))
    for (const auto& e : fs::directory_iterator(fixtureDir()))
      if (e.path().extension() == ".npz") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

using Arrays = std::map<std::string, NpyArray>;

/// Per-head matrices of a [H, R, C] array (a 2-D array is one head).
std::vector<Mat> perHead(const NpyArray& a) {
  std::vector<Mat> out;
  const int64_t h = a.shape.size() == 3 ? a.shape[0] : 1;
  for (int64_t i = 0; i < h; ++i) out.emplace_back(a.values.slice2d(i));
  return out;
}

/// Per-head vectors: the rows of an [H, n] array.
std::vector<Vec> perHeadVec(const NpyArray& a) {
  std::vector<Vec> out;
  const Mat m = a.values.slice2d(0);
  for (Eigen::Index i = 0; i < m.rows(); ++i) out.emplace_back(m.row(i).transpose());
  return out;
}

Mat mat(const NpyArray& a) { return a.values.slice2d(0); }
Vec vec(const NpyArray& a) { return Eigen::Map<const Vec>(a.values.data.data(), a.values.size()); }

class TorchFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto arrays = readNpzFile((fixtureDir() / (GetParam() + ".npz")).string());
    ASSERT_TRUE(arrays.ok()) << arrays.error().message;
    for (auto& a : *arrays) arrays_[a.name] = std::move(a);
  }
  bool has(const std::string& n) const { return arrays_.count(n) > 0; }
  const NpyArray& at(const std::string& n) const { return arrays_.at(n); }

  Arrays arrays_;
};

TEST_P(TorchFixture, EngineMatchesPyTorch) {
  AttentionSpec spec;
  auto mech = parseMechanism(at("mechanism").strings.at(0));
  ASSERT_TRUE(mech.has_value());
  spec.mechanism = *mech;
  spec.heads = static_cast<int>(at("heads").values.data.at(0));
  spec.temperature = at("temperature").values.data.at(0);
  if (at("causal").values.data.at(0) != 0.0f) spec.mask = Mask::causal();

  AttentionInput in;
  if (has("x")) {
    in.x = mat(at("x"));
    spec.dModel = static_cast<int>(in.x.cols());
    if (has("x_kv")) in.xKv = mat(at("x_kv"));
    for (auto [name, dst] : {std::pair{"w_q", &in.wQ}, {"w_k", &in.wK}, {"w_v", &in.wV}, {"w_o", &in.wO}})
      *dst = mat(at(name));
    for (auto [name, dst] : {std::pair{"b_q", &in.bQ}, {"b_k", &in.bK}, {"b_v", &in.bV}, {"b_o", &in.bO}})
      if (has(name)) *dst = vec(at(name));
  } else {
    in.q = perHead(at("q"));
    in.k = perHead(at("k"));
    in.v = perHead(at("v"));
  }
  if (has("w_bilinear")) in.wBilinear = perHead(at("w_bilinear"));
  if (has("w_add_q")) in.wAddQ = perHead(at("w_add_q"));
  if (has("w_add_k")) in.wAddK = perHead(at("w_add_k"));
  if (has("v_add")) in.vAdd = perHeadVec(at("v_add"));
  if (has("b_add")) in.bAdd = perHeadVec(at("b_add"));

  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_TRUE(res->warnings.empty()) << res->warnings.front();
  const auto scores = perHead(at("scores")), weights = perHead(at("weights")), output = perHead(at("output"));
  ASSERT_EQ(res->numHeads(), static_cast<int>(weights.size()));

  // The fixture's mask is PyTorch's tril convention; the engine's causal mask must agree.
  const Mat keep = mat(at("mask"));
  for (Eigen::Index i = 0; i < keep.rows(); ++i)
    for (Eigen::Index j = 0; j < keep.cols(); ++j)
      ASSERT_EQ(spec.mask.allowed(int(i), int(j)), keep(i, j) != 0.0f) << "mask cell " << i << ", " << j;

  for (size_t h = 0; h < weights.size(); ++h) {
    SCOPED_TRACE("head " + std::to_string(h));
    const auto& hr = res->heads[h];
    EXPECT_MATRIX_NEAR(hr.scaledLogits, scores[h], kTol);
    EXPECT_MATRIX_NEAR(hr.weights, weights[h], kTol);
    EXPECT_MATRIX_NEAR(hr.output, output[h], kTol);
    for (Eigen::Index i = 0; i < keep.rows(); ++i)
      for (Eigen::Index j = 0; j < keep.cols(); ++j)
        if (keep(i, j) == 0.0f) {
          EXPECT_EQ(hr.weights(i, j), 0.0f);
        }
  }
  if (has("final")) {
    EXPECT_MATRIX_NEAR(res->output, mat(at("final")), kTol);
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, TorchFixture, ::testing::ValuesIn(fixtureNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(TorchFixtures, EveryMechanismIsCovered) {
  const auto names = fixtureNames();
  EXPECT_GE(names.size(), 40u) << "run tests/scripts/gen_torch_fixtures.py";
  for (auto m : allMechanisms()) {
    const auto n = std::count_if(names.begin(), names.end(), [&](const std::string& s) {
      return s.rfind(std::string(m) + "_", 0) == 0 && (m != "dot" || s.rfind("dot_", 0) == 0);
    });
    EXPECT_GE(n, 7) << m;
  }
}

}  // namespace
}  // namespace attn
