// 2-D attention over an image: the window2d mask family, the 2-D
// sinusoidal table, the PNM/NumPy pixel readers, patch cutting, and the whole
// path against PyTorch's nn.MultiheadAttention
// (tests/scripts/gen_spatial_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "attn/attn.h"
#include "attn/io/npy_reader.h"
#include "attn/vision/image_patches.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

using vision::ImagePixels;

TEST(Window2dMask, ThreeByThreeGridByHand) {
  auto m = Mask::parse("window2d:1,3");
  ASSERT_TRUE(m.ok()) << m.error().message;
  // Patch 4 is the centre of a 3 x 3 grid: it sees all 9; corner 0 sees 0, 1, 3, 4.
  for (int j = 0; j < 9; ++j) EXPECT_TRUE(m->allowed(4, j)) << j;
  std::vector<int> seen;
  for (int j = 0; j < 9; ++j)
    if (m->allowed(0, j)) seen.push_back(j);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 3, 4}));
  // Patch 2 (row 0, col 2) and patch 3 (row 1, col 0) are adjacent in index but
  // two columns apart on the grid: a 1-D window would keep them, window2d does not.
  EXPECT_FALSE(m->allowed(2, 3));
  EXPECT_TRUE(Mask::parse("window:1")->allowed(2, 3));
  EXPECT_EQ(m->spec(), "window2d:1,3");
  auto r0 = Mask::parse("window2d:0,5");
  ASSERT_TRUE(r0.ok());
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) EXPECT_EQ(r0->allowed(i, j), i == j);
}

TEST(Window2dMask, ParseErrorsAndGridBinding) {
  for (const char* bad : {"window2d", "window2d:", "window2d:-1", "window2d:1,0", "window2d:1,2,3", "window2d:x"}) {
    auto m = Mask::parse(bad);
    EXPECT_FALSE(m.ok()) << bad;
    if (!m.ok()) {
      EXPECT_NE(m.error().message.find("window2d"), std::string::npos) << m.error().message;
    }
  }
  auto m = Mask::parse("causal+window2d:2");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->needsGridColumns());
  auto unbound = m->validate(12, 12);
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.error().message.find("--image"), std::string::npos) << unbound.error().message;
  const Mask bound = m->withGridColumns(4);
  EXPECT_FALSE(bound.needsGridColumns());
  EXPECT_TRUE(bound.validate(12, 12).ok());
  EXPECT_EQ(bound.spec(), "causal+window2d:2,4");
  // An explicit width is kept.
  EXPECT_EQ(Mask::parse("window2d:1,7")->withGridColumns(4).spec(), "window2d:1,7");
  const auto fam = maskFamilies();
  EXPECT_TRUE(std::any_of(fam.begin(), fam.end(), [](const MaskFamilyInfo& f) { return f.name == "window2d"; }));
}

TEST(Window2dMask, BlockStatesNeverContradictTheCells) {
  for (const char* s : {"window2d:1,5", "window2d:2,7", "window2d:0,4", "window2d:3,6+causal"}) {
    const Mask m = *Mask::parse(s);
    int decided = 0;
    for (int i0 = 0; i0 < 40; i0 += 3)
      for (int i1 = i0 + 1; i1 <= 40; i1 += 5)
        for (int j0 = 0; j0 < 40; j0 += 4)
          for (int j1 = j0 + 1; j1 <= 40; j1 += 6) {
            const BlockState st = m.blockState(i0, i1, j0, j1);
            if (st == BlockState::Mixed) continue;
            ++decided;
            for (int i = i0; i < i1; ++i)
              for (int j = j0; j < j1; ++j)
                ASSERT_EQ(m.allowed(i, j), st == BlockState::AllAllowed) << s << " " << i << "," << j;
          }
    EXPECT_GT(decided, 0) << s;  // the bounding-box test does decide blocks
  }
}

TEST(Window2dMask, TiledAndNaiveAgreeOnAGrid) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  spec.mask = *Mask::parse("window2d:1");
  spec.gridCols = 6;
  std::vector<std::string> tokens;
  for (int i = 0; i < 36; ++i) tokens.push_back("p" + std::to_string(i));
  const AttentionInput in = inputFromTokens(tokens, spec.dModel, 9);
  spec.exec = ExecPath::Naive;
  auto naive = runAttention(in, spec);
  ASSERT_TRUE(naive.ok()) << naive.error().message;
  EXPECT_EQ(naive->mask.spec(), "window2d:1,6");
  spec.exec = ExecPath::Tiled;
  auto tiled = runAttention(in, spec);
  ASSERT_TRUE(tiled.ok()) << tiled.error().message;
  for (int h = 0; h < 2; ++h) {
    EXPECT_MATRIX_NEAR(tiled->heads[h].weights, naive->heads[h].weights, 1e-5);
    for (int i = 0; i < 36; ++i)
      for (int j = 0; j < 36; ++j) {
        const bool near = std::abs(i / 6 - j / 6) <= 1 && std::abs(i % 6 - j % 6) <= 1;
        if (!near) {
          ASSERT_EQ(naive->heads[h].weights(i, j), 0.0f);
        }
      }
  }
  // Without a grid a sequence is one row of patches: window2d:1 is window:1.
  spec.gridCols = 0;
  spec.exec = ExecPath::Naive;
  auto row = runAttention(in, spec);
  ASSERT_TRUE(row.ok()) << row.error().message;
  EXPECT_EQ(row->mask.spec(), "window2d:1,36");
  spec.mask = *Mask::parse("window:1");
  auto window = runAttention(in, spec);
  ASSERT_TRUE(window.ok());
  EXPECT_MATRIX_NEAR(row->heads[1].weights, window->heads[1].weights, 0.0);
}

TEST(Sinusoidal2d, HalvesAreTheOneDimensionalTableOfRowAndColumn) {
  const Mat pe = sinusoidal2dTable(12, 8, 4);  // a 3 x 4 grid, 4 dims per axis
  const Mat t = sinusoidalTable(4, 4);
  // Patch 6 is row 1, column 2: sin(1), cos(1), sin(1/100), cos(1/100) | sin(2), cos(2), ...
  EXPECT_NEAR(pe(6, 0), std::sin(1.0), 1e-6);
  EXPECT_NEAR(pe(6, 1), std::cos(1.0), 1e-6);
  EXPECT_NEAR(pe(6, 2), std::sin(0.01), 1e-6);
  EXPECT_NEAR(pe(6, 3), std::cos(0.01), 1e-6);
  EXPECT_NEAR(pe(6, 4), std::sin(2.0), 1e-6);
  EXPECT_NEAR(pe(6, 7), std::cos(0.02), 1e-6);
  for (int p = 0; p < 12; ++p) {
    EXPECT_MATRIX_NEAR(pe.row(p).head(4), t.row(p / 4), 1e-6);
    EXPECT_MATRIX_NEAR(pe.row(p).tail(4), t.row(p % 4), 1e-6);
  }
  // A sequence without a grid is one row: row half sin(0), cos(0); column half the 1-D table.
  AttentionSpec spec;
  spec.positional = PositionalEncoding::Sinusoidal2d;
  spec.dModel = 8;
  const Mat x = Mat::Zero(3, 8);
  const Mat withPos = addPositionsToEmbeddings(x, spec);
  EXPECT_MATRIX_NEAR(withPos.col(0), Mat::Zero(3, 1), 0.0);
  EXPECT_MATRIX_NEAR(withPos.col(1), Mat::Ones(3, 1), 0.0);
  EXPECT_MATRIX_NEAR(withPos.rightCols(4), sinusoidalTable(3, 4), 1e-6);
  EXPECT_TRUE(parsePositional("sinusoidal2d") == PositionalEncoding::Sinusoidal2d);
}

TEST(ImagePixels, ReadsBinaryPpmAndPgmByHand) {
  // 2 x 1 P6 with a comment, maxval 255.
  const std::string ppm = std::string("P6\n# two pixels\n2 1\n255\n") + std::string("\xff\x00\x80\x00\x33\xff", 6);
  auto img = vision::parsePnm(ppm, "t.ppm");
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_EQ(img->width, 2);
  EXPECT_EQ(img->height, 1);
  EXPECT_EQ(img->channels, 3);
  EXPECT_FLOAT_EQ(img->at(0, 0, 0), 1.0f);
  EXPECT_FLOAT_EQ(img->at(0, 0, 2), 128.0f / 255.0f);
  EXPECT_FLOAT_EQ(img->at(0, 1, 1), 51.0f / 255.0f);
  // 16-bit PGM: big-endian samples.
  const std::string pgm = std::string("P5 1 2 1000\n") + std::string("\x03\xe8\x01\xf4", 4);
  auto g = vision::parsePnm(pgm, "t.pgm");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->channels, 1);
  EXPECT_FLOAT_EQ(g->at(1, 0, 0), 0.5f);
  for (auto [bytes, what] : {std::pair{std::string("P3\n1 1\n255\n0 0 0"), "P5"},
                             {std::string("P6\n2 2\n255\n\x01\x02"), "truncated"},
                             {std::string("P5\n1 1\n0\n\x00", 10), "maxval"},
                             {std::string("P5\n99999 99999 255\n"), "too large"},
                             {std::string("P5\n1 1 100\n\xff", 12), "above maxval"}}) {
    auto bad = vision::parsePnm(bytes, "bad.ppm");
    ASSERT_FALSE(bad.ok()) << what;
    EXPECT_NE(bad.error().message.find("bad.ppm"), std::string::npos);
    EXPECT_NE(bad.error().message.find(what), std::string::npos) << bad.error().message;
  }
}

TEST(ImagePatches, CutsRowMajorPatchesAndCropsTheRemainder) {
  ImagePixels img;
  img.height = 5;
  img.width = 7;
  img.channels = 1;
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x) img.values.push_back(static_cast<float>(y * 7 + x) / 34.0f);
  auto g = vision::cutPatches(img, 2, "img");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->rows, 2);
  EXPECT_EQ(g->cols, 3);
  EXPECT_EQ(g->usedWidth, 6);
  EXPECT_EQ(g->tokens[4], "r1c1");
  // Patch r1c1 holds pixels (2..3, 2..3), row-major.
  EXPECT_FLOAT_EQ(g->pixels(4, 0), (2 * 7 + 2) / 34.0f);
  EXPECT_FLOAT_EQ(g->pixels(4, 1), (2 * 7 + 3) / 34.0f);
  EXPECT_FLOAT_EQ(g->pixels(4, 2), (3 * 7 + 2) / 34.0f);
  const Mat x = vision::standardizedPatches(*g);
  EXPECT_NEAR(x.mean(), 0.0, 1e-5);
  EXPECT_NEAR(std::sqrt(x.array().square().mean()), 1.0, 1e-5);
  EXPECT_FALSE(vision::cutPatches(img, 6, "img").ok());
  EXPECT_FALSE(vision::cutPatches(img, 0, "img").ok());
  img.values[3] = 1.5f;
  auto bad = vision::cutPatches(img, 2, "img");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("[0, 1]"), std::string::npos);
}

TEST(ImageAttention, MatchesPyTorchMultiheadAttentionWithWindow2dAndSinusoidal2d) {
  const std::string path = std::string(ATTN_FIXTURE_DIR) + "/spatial/image_attention.npz";
  auto img = vision::readImageFile(path);  // the 'image' array, uint8 / 255
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_EQ(img->channels, 3);
  auto arrays = readNpzFile(path);
  ASSERT_TRUE(arrays.ok());
  std::map<std::string, Tensor> f;
  for (auto& a : *arrays) f[a.name] = a.values;

  auto grid = vision::cutPatches(*img, 4, path);
  ASSERT_TRUE(grid.ok()) << grid.error().message;
  AttentionInput in = vision::patchInput(*grid);
  AttentionSpec spec;
  spec.heads = 2;
  vision::fitSpecToGrid(*grid, spec);
  EXPECT_EQ(spec.dModel, 48);
  EXPECT_EQ(spec.gridCols, 4);
  spec.positional = PositionalEncoding::Sinusoidal2d;
  spec.mask = *Mask::parse("window2d:1");
  // The embeddings the script built: standardized patches + the 2-D table.
  const Mat withPos = in.x + sinusoidal2dTable(12, 48, 4);
  EXPECT_MATRIX_NEAR(withPos, f["x"].slice2d(0).eval(), 1e-5);
  in.wQ = ConstMatMap(f["w_q"].data.data(), 48, 48);
  in.wK = ConstMatMap(f["w_k"].data.data(), 48, 48);
  in.wV = ConstMatMap(f["w_v"].data.data(), 48, 48);
  in.wO = ConstMatMap(f["w_o"].data.data(), 48, 48);
  for (auto exec : {ExecPath::Naive, ExecPath::Tiled}) {
    spec.exec = exec;
    auto res = runAttention(in, spec);
    ASSERT_TRUE(res.ok()) << res.error().message;
    const Tensor& w = f["weights"];
    for (int h = 0; h < 2; ++h) {
      EXPECT_MATRIX_NEAR(res->heads[h].weights, Mat(w.slice2d(h)), 2e-5);
      const Tensor& keep = f["keep"];
      for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j)
          if (keep.data[static_cast<size_t>(i * 12 + j)] == 0) {
            ASSERT_EQ(res->heads[h].weights(i, j), 0.0f);
          }
    }
  }
  // One query's weights on the grid.
  AttentionSpec s2 = spec;
  s2.exec = ExecPath::Naive;
  auto res = runAttention(in, s2);
  ASSERT_TRUE(res.ok());
  const Mat onGrid = vision::weightsOnGrid(res->heads[0].weights, 5, 3, 4);
  EXPECT_FLOAT_EQ(onGrid(1, 2), res->heads[0].weights(5, 6));
  EXPECT_NEAR(onGrid.sum(), 1.0, 1e-5);
}

TEST(ImagePixels, NpyArraysAndTheirErrors) {
  const auto dir = std::filesystem::temp_directory_path() / "attn_spatial_test";
  std::filesystem::create_directories(dir);
  // A float32 [2, 2] grey image in [0, 1] and one with a value above 1.
  auto writeNpy = [&](const std::string& name, const std::vector<float>& v, const std::string& shape) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream o(dir / name, std::ios::binary);
    o.write("\x93NUMPY\x01\x00", 8);
    const uint16_t len = static_cast<uint16_t>(header.size());
    o.write(reinterpret_cast<const char*>(&len), 2);
    o << header;
    o.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
    return (dir / name).string();
  };
  auto ok = vision::readImageFile(writeNpy("g.npy", {0.0f, 0.25f, 0.5f, 1.0f}, "(2, 2)"));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->channels, 1);
  EXPECT_FLOAT_EQ(ok->at(1, 0, 0), 0.5f);
  auto high = vision::readImageFile(writeNpy("h.npy", {0.0f, 2.0f, 0.5f, 1.0f}, "(2, 2)"));
  ASSERT_FALSE(high.ok());
  EXPECT_NE(high.error().message.find("h.npy"), std::string::npos);
  auto rank = vision::readImageFile(writeNpy("r.npy", {0.0f, 1.0f}, "(2,)"));
  ASSERT_FALSE(rank.ok());
  EXPECT_NE(rank.error().message.find("[H, W]"), std::string::npos);
  auto png = vision::readImageFile((dir / "x.png").string());
  ASSERT_FALSE(png.ok());
  EXPECT_NE(png.error().message.find("Qt"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attn
