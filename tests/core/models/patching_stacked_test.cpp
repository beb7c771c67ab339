// Activation patching's stacked runs (patching/stacked_patches.h: only the rows a patch can
// change, many patches per product, attention against the corrupt run's cached keys) against
// the plain way: each patch its own run, every layer after the patched one over every row,
// through the layer hooks. Exact up to float rounding, on GPT-2 and the Llama family
// (grouped-query attention, RoPE), with and without padding in the mask.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "attn/io/npy_reader.h"
#include "attn/models/families/families.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/patching/activation_patching.h"
#include "attn/models/transformer_forward.h"
#include "attn/models/transformer_layers.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

/// One encoding's pass, run from any layer on a given residual stream with hooks.
struct PlainPatchPass {
  PlainPatchPass(const ModelConfig& c, const ModelWeights& w, const Encoding& enc, const RunOptions& opt,
                 const std::vector<std::vector<HeadEdit>>& edits)
      : keep(bitmapOf(c, enc)), f(c, w, enc, opt, keep, edits, display), graph(familyGraph(c)) {
    graph.embed(f, embedded);
  }

  static std::vector<uint8_t> bitmapOf(const ModelConfig& c, const Encoding& enc) {
    auto mask = modelMask(c, enc);
    EXPECT_TRUE(mask.ok());
    return !mask || mask->isNone() ? std::vector<uint8_t>{} : mask->bitmap(enc.size(), enc.size());
  }

  double from(int start, Mat h, ActivationHooks* hooks, const Vec& direction,
              std::vector<Mat>* inputs = nullptr) {
    f.hooks = hooks;
    AttentionResult unused;
    for (int l = start; l < f.config.layers; ++l) {
      if (inputs) inputs->push_back(h);
      graph.layer(f, l, h, false, unused);
    }
    f.hooks = nullptr;
    ModelRun run;
    graph.output(f, h, run);
    return run.finalHidden.row(run.finalHidden.rows() - 1).dot(direction.transpose());
  }

  std::vector<uint8_t> keep;
  std::function<std::string(int)> display;
  ForwardPass f;
  FamilyGraph graph;
  Mat embedded;
};

/// Every patch as its own run from the patched layer on, over all rows.
PatchingResult patchOneAtATime(const ModelConfig& c, const ModelWeights& w, const Encoding& clean,
                               const Encoding& corrupt, int target, int foil) {
  RunOptions opt;
  opt.topK = 0;
  const std::vector<std::vector<HeadEdit>> edits(static_cast<size_t>(c.layers));
  Vec tgt(c.dModel), fl(c.dModel);
  w.lmHead.rowTo(target, tgt.data());
  w.lmHead.rowTo(foil, fl.data());
  const Vec dir = tgt - fl;
  PlainPatchPass cleanPass(c, w, clean, opt, edits), corruptPass(c, w, corrupt, opt, edits);
  std::vector<Mat> cleanIn, cleanHeads, cleanMlp, corruptIn;
  ActivationHooks record;
  record.recordHeads = &cleanHeads;
  record.recordMlp = &cleanMlp;
  PatchingResult out;
  out.cleanDiff = cleanPass.from(0, cleanPass.embedded, &record, dir, &cleanIn);
  out.corruptDiff = corruptPass.from(0, corruptPass.embedded, nullptr, dir, &corruptIn);
  const double lo = out.corruptDiff, span = out.cleanDiff - out.corruptDiff;
  const int L = c.layers, n = clean.size();
  out.residual.resize(L, n);
  out.mlp.resize(L, n);
  out.heads.resize(L, c.heads);
  for (int l = 0; l < L; ++l) {
    for (int p = 0; p < n; ++p) {
      Mat h = corruptIn[static_cast<size_t>(l)];
      h.row(p) = cleanIn[static_cast<size_t>(l)].row(p);
      out.residual(l, p) = static_cast<float>((corruptPass.from(l, h, nullptr, dir) - lo) / span);
      ActivationHooks hk;
      hk.site = ActivationHooks::Site::MlpOutput, hk.layer = l, hk.index = p, hk.source = &cleanMlp[l];
      out.mlp(l, p) = static_cast<float>((corruptPass.from(l, corruptIn[l], &hk, dir) - lo) / span);
    }
    for (int head = 0; head < c.heads; ++head) {
      ActivationHooks hk;
      hk.site = ActivationHooks::Site::HeadOutput, hk.layer = l, hk.index = head, hk.source = &cleanHeads[l];
      out.heads(l, head) = static_cast<float>((corruptPass.from(l, corruptIn[l], &hk, dir) - lo) / span);
    }
  }
  return out;
}

struct StackedCase {
  std::string model;
  int padLeft = 0, padRight = 0;  // attention-mask zeros at the start and the end of both texts
};

class StackedPatching : public ::testing::TestWithParam<StackedCase> {};

TEST_P(StackedPatching, EqualsOnePatchAtATime) {
  const StackedCase& tc = GetParam();
  const std::string dir = attn::test::modelDir(tc.model);
  auto read = readFolderConfig(dir, {});
  ASSERT_TRUE(read.ok()) << read.error().message;
  auto config = parseModelConfig(read->text, read->path);
  ASSERT_TRUE(config.ok()) << config.error().message;
  auto weights = loadModelWeights(read->folder.dir, *config);
  ASSERT_TRUE(weights.ok()) << weights.error().message;
  const auto ref = attn::test::loadNpz(dir + "/reference_patch.npz");
  Encoding clean, corrupt;
  for (float v : ref.at("clean_ids").values.data) clean.ids.push_back(static_cast<int>(v));
  for (float v : ref.at("corrupt_ids").values.data) corrupt.ids.push_back(static_cast<int>(v));
  const int n = clean.size();
  ASSERT_GT(n, tc.padLeft + tc.padRight + 2);
  if (tc.padLeft + tc.padRight > 0)
    for (Encoding* e : {&clean, &corrupt}) {
      e->attention.assign(static_cast<size_t>(n), 1);
      for (int i = 0; i < tc.padLeft; ++i) e->attention[static_cast<size_t>(i)] = 0;
      for (int i = n - tc.padRight; i < n; ++i) e->attention[static_cast<size_t>(i)] = 0;
    }
  const int target = static_cast<int>(ref.at("target").values.data.at(0));
  const int foil = static_cast<int>(ref.at("foil").values.data.at(0));
  auto got = activationPatching(*config, *weights, clean, corrupt, target, foil, PatchingOptions{}, dir);
  ASSERT_TRUE(got.ok()) << got.error().message;
  const PatchingResult want = patchOneAtATime(*config, *weights, clean, corrupt, target, foil);
  // The same full runs, but float32 sums in another order: 1e-6 relative.
  EXPECT_NEAR(got->cleanDiff, want.cleanDiff, 1e-6 * std::max(1.0, std::abs(want.cleanDiff)));
  EXPECT_NEAR(got->corruptDiff, want.corruptDiff, 1e-6 * std::max(1.0, std::abs(want.corruptDiff)));
  for (auto [name, a, b] :
       {std::tuple{"residual", &got->residual, &want.residual}, std::tuple{"heads", &got->heads, &want.heads},
        std::tuple{"mlp", &got->mlp, &want.mlp}}) {
    ASSERT_EQ(a->rows(), b->rows()) << name;
    ASSERT_EQ(a->cols(), b->cols()) << name;
    EXPECT_LE((*a - *b).cwiseAbs().maxCoeff(), 1e-5) << name;
    EXPECT_GT(b->cwiseAbs().maxCoeff(), 0.01) << name << ": a map of zeros would compare nothing";
  }
}

INSTANTIATE_TEST_SUITE_P(CausalFixtures, StackedPatching,
                         ::testing::Values(StackedCase{"gpt2"}, StackedCase{"llama"}, StackedCase{"qwen2"},
                                           StackedCase{"gpt2", 1, 0}, StackedCase{"llama", 1, 0},
                                           StackedCase{"gpt2", 0, 1}, StackedCase{"qwen2", 2, 1}),
                         [](const ::testing::TestParamInfo<StackedCase>& p) {
                           return p.param.model + "_pad" + std::to_string(p.param.padLeft) + "_" +
                                  std::to_string(p.param.padRight);
                         });

}  // namespace
}  // namespace attn::models
