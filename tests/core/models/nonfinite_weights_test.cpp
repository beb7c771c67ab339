// A NaN or Inf among a model's weights is refused when the model opens, with
// the tensor and the count named: silently it gave all-zero heads (NaN clamped)
// or NaN next-token probabilities that `metrics` explained as masked rows.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "attn/models/model.h"
#include "attn/models/safetensors_mmap.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;

class NonFiniteWeights : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_nonfinite_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path copyModel(const std::string& name) {
    fs::copy(std::string(ATTN_FIXTURE_DIR) + "/models/" + name, root_ / name, fs::copy_options::recursive);
    return root_ / name;
  }
  /// Overwrites element `index` of tensor `name` in `file` with `bytes` (its dtype's width).
  static void poke(const fs::path& file, const std::string& name, int64_t index, const std::string& bytes) {
    int64_t offset = 0;
    {
      auto f = SafetensorsFile::open(file.string());
      ASSERT_TRUE(f.ok()) << f.error().message;
      const SafetensorsEntry* e = (*f)->find(name);
      ASSERT_NE(e, nullptr) << name;
      const char* base = (*f)->bytes(*e).data();
      uint64_t headerLen = 0;
      std::ifstream in(file, std::ios::binary);
      in.read(reinterpret_cast<char*>(&headerLen), 8);
      offset = static_cast<int64_t>(8 + headerLen) + e->begin + index * static_cast<int64_t>(bytes.size());
      ASSERT_NE(base, nullptr);
    }
    std::fstream out(file, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(offset);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  static std::string f32(uint32_t bits) {
    std::string s(4, '\0');
    std::memcpy(s.data(), &bits, 4);
    return s;
  }
  static std::string bf16(uint16_t bits) {
    std::string s(2, '\0');
    std::memcpy(s.data(), &bits, 2);
    return s;
  }
  fs::path root_;
};

TEST_F(NonFiniteWeights, NanAndInfInAnF32TensorAreCountedAndNamed) {
  const fs::path dir = copyModel("gpt2");
  const fs::path st = dir / "model.safetensors";
  ASSERT_TRUE(Model::open(dir.string()).ok());
  poke(st, "h.0.attn.c_attn.weight", 5, f32(0x7FC00000u));   // NaN
  poke(st, "h.0.attn.c_attn.weight", 70, f32(0xFF800000u));  // -Inf
  auto m = Model::open(dir.string());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message, st.string() +
                                   ": tensor 'h.0.attn.c_attn.weight' has 2 non-finite values (NaN or "
                                   "Inf) among its 12288");
}

TEST_F(NonFiniteWeights, ValuesFarApartInOneTensorAreAllCounted) {
  // wte [517, 64]: 33,088 values, scanned in pieces of 16,384 over the cores; one bad value in the
  // first piece and one in the last, and a later tensor's is not the one named.
  const fs::path dir = copyModel("gpt2");
  const fs::path st = dir / "model.safetensors";
  poke(st, "wte.weight", 3, f32(0x7F800000u));      // +Inf
  poke(st, "wte.weight", 33087, f32(0x7FC00000u));  // NaN, the last value
  poke(st, "h.1.mlp.c_fc.weight", 0, f32(0x7FC00000u));
  auto m = Model::open(dir.string());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message,
            st.string() + ": tensor 'wte.weight' has 2 non-finite values (NaN or Inf) among its 33088");
}

TEST_F(NonFiniteWeights, BF16KeptInTheMappingAndConvertedAreBothChecked) {
  const fs::path dir = copyModel("llama");
  const fs::path st = dir / "model.safetensors";
  ASSERT_TRUE(Model::open(dir.string()).ok());
  // A linear weight stays BF16 in the mapping; a norm is converted to f32.
  poke(st, "model.layers.0.self_attn.q_proj.weight", 3, bf16(0x7FC1));  // NaN
  auto q = Model::open(dir.string());
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message.rfind(st.string() + ": tensor 'model.layers.0.self_attn.q_proj.weight' has 1 "
                                                  "non-finite values",
                                    0),
            0u)
      << q.error().message;
  poke(st, "model.layers.0.self_attn.q_proj.weight", 3, bf16(0x3F80));  // 1.0 again
  poke(st, "model.layers.1.input_layernorm.weight", 0, bf16(0x7F80));   // +Inf
  auto n = Model::open(dir.string());
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("tensor 'model.layers.1.input_layernorm.weight' has 1 non-finite values"),
            std::string::npos)
      << n.error().message;
  poke(st, "model.layers.1.input_layernorm.weight", 0, bf16(0x3F80));
  EXPECT_TRUE(Model::open(dir.string()).ok());
}

}  // namespace
}  // namespace attn::models
