// The key/value cache view (core/attn/variants/kv_cache.h): a hand-made causal
// layer, an encoder refused, and on the GPT-2 and Llama fixtures the row read
// from the full run equal to an incremental decode step computed here from the
// kept q/k (softmax of q_t · k_0..t / sqrt(d_head)), the way a cached decoder does it.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/models/model.h"
#include "attn/variants/kv_cache.h"
#include "model_fixtures.h"

namespace attn::variants {
namespace {

using attn::test::modelDir;

AttentionResult handMadeCausal() {
  AttentionResult r;
  r.queryTokens = r.keyTokens = {"a", "b", "c", "d"};
  Mat w0(4, 4), w1(4, 4);
  w0 << 1, 0, 0, 0,  //
      0.25, 0.75, 0, 0,  //
      0.5, 0.25, 0.25, 0,  //
      0.1, 0.2, 0.3, 0.4;
  w1 << 1, 0, 0, 0,  //
      0.5, 0.5, 0, 0,  //
      0, 0, 1, 0,  //
      0.25, 0.25, 0.25, 0.25;
  for (const Mat* w : {&w0, &w1}) {
    HeadResult h;
    h.weights = *w;
    r.heads.push_back(h);
  }
  return r;
}

TEST(KvCache, TokenTAttendsOverItsCachedKeysAndItsOwn) {
  const AttentionResult layer = handMadeCausal();
  const KvCacheShape shape{12, 4, 64, 2};
  auto v = kvCacheView(layer, 0, 2, shape);
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->maps.size(), 2u);
  const VariantMap& cur = v->maps[0];
  EXPECT_EQ(cur.memoryColumns, 2);
  ASSERT_EQ(cur.values.rows(), 1);
  ASSERT_EQ(cur.values.cols(), 3);
  EXPECT_FLOAT_EQ(cur.values(0, 0), 0.5f);
  EXPECT_FLOAT_EQ(cur.values(0, 1), 0.25f);
  EXPECT_FLOAT_EQ(cur.values(0, 2), 0.25f);
  EXPECT_EQ(cur.rowLabels, (std::vector<std::string>{"c"}));
  EXPECT_EQ(cur.colLabels, (std::vector<std::string>{"a", "b", "c"}));
  // The map so far: rows 0..2 as computed, row 3 not yet generated.
  const VariantMap& sofar = v->maps[1];
  EXPECT_FLOAT_EQ(sofar.values(1, 1), 0.75f);
  EXPECT_EQ(sofar.values.row(3).cwiseAbs().sum(), 0.0f);
  // Weight on cached keys per row, by hand: 0, 0.25, 0.75 (head 1); 0, 0.5, 0 (head 2).
  ASSERT_EQ(v->cachedWeight.size(), 2u);
  EXPECT_NEAR(v->cachedWeight[0][1], 0.25, 1e-7);
  EXPECT_NEAR(v->cachedWeight[0][2], 0.75, 1e-7);
  EXPECT_NEAR(v->cachedWeight[1][2], 0.0, 1e-7);
  EXPECT_EQ(v->cachedWeight[1].size(), 3u);
  // 2 (K and V) x 12 layers x 4 KV heads x 64 x 3 tokens x 2 bytes.
  EXPECT_EQ(v->cacheBytes, 2 * 12 * 4 * 64 * 3 * 2);
}

TEST(KvCache, EncoderAndBadArgumentsAreRefused) {
  AttentionResult layer = handMadeCausal();
  EXPECT_FALSE(kvCacheView(layer, 2, 0, {}).ok());
  EXPECT_FALSE(kvCacheView(layer, 0, 4, {}).ok());
  EXPECT_FALSE(kvCacheView(layer, 0, -1, {}).ok());
  layer.heads[1].weights(0, 3) = 0.5f;  // a later key has weight: not a decoder
  auto v = kvCacheView(layer, 0, 1, {});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("later tokens"), std::string::npos) << v.error().message;
}

TEST(KvCache, RowEqualsAnIncrementalDecodeStepOnRealModels) {
  for (const std::string name : {"gpt2", "llama"}) {
    SCOPED_TRACE(name);
    auto model = models::Model::open(modelDir(name));
    ASSERT_TRUE(model.ok()) << model.error().message;
    auto enc = (*model)->encode("the cat sat on the mat because it was tired", std::nullopt, "test text");
    ASSERT_TRUE(enc.ok()) << enc.error().message;
    models::RunOptions opt;
    opt.keepQkv = true;
    auto run = (*model)->run(*enc, opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const auto& info = (*model)->info();
    const KvCacheShape shape{info.layers, info.kvHeads, info.headDim, 2};
    const AttentionResult& layer = run->layers.back();
    const int n = layer.nq();
    ASSERT_GE(n, 4);
    for (int head : {0, layer.numHeads() - 1})
      for (int t : {0, n / 2, n - 1}) {
        auto v = kvCacheView(layer, head, t, shape);
        ASSERT_TRUE(v.ok()) << v.error().message;
        // One decode step: q_t against the cached k_0..k_{t-1} and k_t, scaled, softmax.
        const HeadResult& h = layer.heads[static_cast<size_t>(head)];
        const double scale = 1.0 / std::sqrt(static_cast<double>(h.q.cols()));
        std::vector<double> e(static_cast<size_t>(t) + 1);
        double mx = -1e300, sum = 0;
        for (int j = 0; j <= t; ++j) {
          e[static_cast<size_t>(j)] = static_cast<double>(h.q.row(t).cast<double>().dot(h.k.row(j).cast<double>())) * scale;
          mx = std::max(mx, e[static_cast<size_t>(j)]);
        }
        for (double& x : e) sum += (x = std::exp(x - mx));
        ASSERT_EQ(v->maps[0].values.cols(), t + 1);
        for (int j = 0; j <= t; ++j)
          EXPECT_NEAR(v->maps[0].values(0, j), e[static_cast<size_t>(j)] / sum, 2e-5) << "t " << t << " key " << j;
        EXPECT_EQ(v->cacheBytes, int64_t{2} * info.layers * info.kvHeads * info.headDim * (t + 1) * 2);
      }
  }
}

}  // namespace
}  // namespace attn::variants
