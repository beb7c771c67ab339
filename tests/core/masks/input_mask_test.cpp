// A file's 'mask' array applied as the custom term of the configured mask.
#include <gtest/gtest.h>

#include "attn/io/input_file.h"
#include "attn/masks/input_mask.h"

namespace attn {
namespace {

LoadedInput projected(int nq, int nk, std::vector<uint8_t> keep, int rows, int cols) {
  LoadedInput f;
  f.path = "/data/heads.npz";
  f.input.q = {Mat::Zero(nq, 2)};
  f.input.k = {Mat::Zero(nk, 2)};
  f.input.v = {Mat::Zero(nk, 2)};
  f.maskKeep = std::move(keep);
  f.maskRows = rows;
  f.maskCols = cols;
  return f;
}

TEST(InputMask, FileMaskBecomesTheCustomTermAndComposes) {
  // 2 queries x 3 keys; keep (0,2) and (1,0).
  const auto f = projected(2, 3, {0, 0, 1, 1, 0, 0}, 2, 3);
  auto alone = maskWithFileMask(Mask(), f);
  ASSERT_TRUE(alone.ok()) << alone.error().message;
  EXPECT_EQ(alone->spec(), "custom");
  EXPECT_EQ(alone->bitmap(2, 3), (std::vector<uint8_t>{0, 0, 1, 1, 0, 0}));
  // causal restricts it: (0,2) is in the future of query 0.
  auto causal = maskWithFileMask(Mask::causal(), f);
  ASSERT_TRUE(causal.ok());
  EXPECT_EQ(causal->spec(), "causal+custom");
  EXPECT_EQ(causal->bitmap(2, 3), (std::vector<uint8_t>{0, 0, 0, 1, 0, 0}));
  // window:0 is invalid, so use block:1 (the diagonal) as a pattern: union with the file's cells.
  auto block = maskWithFileMask(Mask::parse("block:1").value(), f);
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->bitmap(2, 3), (std::vector<uint8_t>{1, 0, 1, 1, 1, 0}));
  // A spec that names "custom" gets the bitmap in place (no second term).
  auto named = maskWithFileMask(Mask::parse("custom+causal").value(), f);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->spec(), "custom+causal");
  EXPECT_FALSE(named->needsCustomData());
}

TEST(InputMask, NoMaskOrNoEngineInputLeavesTheSpec) {
  auto none = maskWithFileMask(Mask::causal(), projected(2, 2, {}, 0, 0));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->spec(), "causal");
  LoadedInput attnOnly;
  attnOnly.maskKeep = {1, 1, 1, 1};
  attnOnly.maskRows = attnOnly.maskCols = 2;
  EXPECT_EQ(maskWithFileMask(Mask(), attnOnly)->spec(), "none");
}

TEST(InputMask, ShapeMismatchNamesTheFile) {
  auto bad = maskWithFileMask(Mask(), projected(2, 3, {1, 1, 1, 1}, 2, 2));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "/data/heads.npz: 'mask' is [2, 2] but the attention is [2, 3] (queries x keys)");
  LoadedInput x;
  x.path = "emb.npz";
  x.input.x = Mat::Zero(4, 3);
  x.maskKeep.assign(9, 1);
  x.maskRows = x.maskCols = 3;
  auto bx = maskWithFileMask(Mask(), x);
  ASSERT_FALSE(bx.ok());
  EXPECT_NE(bx.error().message.find("emb.npz: 'mask' is [3, 3] but the attention is [4, 4]"), std::string::npos);
}

}  // namespace
}  // namespace attn
