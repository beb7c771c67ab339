// Bundled model names: `--model austen-gpt2` finds the folder the project ships
// ($ATTNSCOPE_MODELS_DIR first), a folder of that name in the working directory
// wins, and a name that is neither says where it looked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "attn/models/bundled_models.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;

class BundledModelPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_bundled_paths_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    root_ = fs::canonical(root_);
    if (const char* old = std::getenv("ATTNSCOPE_MODELS_DIR")) oldEnv_ = old, hadEnv_ = true;
    ::setenv("ATTNSCOPE_MODELS_DIR", root_.c_str(), 1);
  }
  void TearDown() override {
    if (hadEnv_)
      ::setenv("ATTNSCOPE_MODELS_DIR", oldEnv_.c_str(), 1);
    else
      ::unsetenv("ATTNSCOPE_MODELS_DIR");
    fs::remove_all(root_);
  }
  // The GPT-2 fixture under a bundled model's name.
  void installFixtureAs(const std::string& name) {
    fs::copy(std::string(ATTN_FIXTURE_DIR) + "/models/gpt2", root_ / name, fs::copy_options::recursive);
  }
  fs::path root_;
  std::string oldEnv_;
  bool hadEnv_ = false;
};

TEST_F(BundledModelPaths, RegistryListsTheDefaultFirstWithExamples) {
  ASSERT_FALSE(bundledModels().empty());
  EXPECT_EQ(&defaultBundledModel(), &bundledModels().front());
  EXPECT_EQ(defaultBundledModel().name, "austen-gpt2");
  for (const auto& m : bundledModels()) {
    EXPECT_EQ(findBundledModel(m.name), &m);
    EXPECT_GE(m.examples.size(), 2u) << m.name;
  }
  EXPECT_EQ(findBundledModel("gpt2"), nullptr);
  EXPECT_EQ(findBundledModel(""), nullptr);
}

TEST_F(BundledModelPaths, EnvironmentFolderIsSearchedFirst) {
  const auto dirs = bundledModelDirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs.front(), root_.string());
  installFixtureAs("induction-2l");
  const auto path = bundledModelPath("induction-2l");
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(*path, (root_ / "induction-2l").string());
  auto folder = resolveModelFolder("induction-2l");
  ASSERT_TRUE(folder.ok()) << folder.error().message;
  EXPECT_EQ(folder->dir, (root_ / "induction-2l").string());
  EXPECT_EQ(folder->name, "induction-2l");
  auto model = Model::open("induction-2l");
  ASSERT_TRUE(model.ok()) << model.error().message;
}

TEST_F(BundledModelPaths, OnlyBundledNamesAreLookedUp) {
  installFixtureAs("gpt2");  // not a bundled name: never found by name alone
  EXPECT_FALSE(bundledModelPath("gpt2").has_value());
  const fs::path cwd = fs::current_path();
  fs::current_path(fs::temp_directory_path());
  auto r = resolveModelFolder("gpt2");
  fs::current_path(cwd);
  if (!fs::exists(fs::temp_directory_path() / "gpt2")) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "gpt2: no such folder");
  }
}

TEST_F(BundledModelPaths, AFolderOfThatNameHereWins) {
  installFixtureAs("austen-gpt2");
  const fs::path here = root_ / "work";
  fs::create_directories(here);
  fs::copy(std::string(ATTN_FIXTURE_DIR) + "/models/gpt2", here / "austen-gpt2", fs::copy_options::recursive);
  const fs::path cwd = fs::current_path();
  fs::current_path(here);
  auto r = resolveModelFolder("austen-gpt2");
  std::error_code ec;
  const fs::path resolved = r.ok() ? fs::canonical(r->dir, ec) : fs::path();
  fs::current_path(cwd);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(resolved, here / "austen-gpt2");
}

TEST_F(BundledModelPaths, AMissingBundledModelSaysWhereItLooked) {
  // An empty environment folder, and a name nothing ships under any folder.
  EXPECT_FALSE(bundledModelPath("not-a-bundled-model").has_value());
  fs::remove_all(root_ / "austen-gpt2");
  if (bundledModelPath("austen-gpt2")) GTEST_SKIP() << "austen-gpt2 is installed beside this test program";
  auto r = resolveModelFolder("austen-gpt2");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bundled model"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(root_.string()), std::string::npos) << r.error().message;
}

// The registry's example sentences (the Examples menu; the first opens the model) fit the shipped
// model's positions, and a masked-LM model's hold its mask token, so that each shows predictions.
TEST(BundledModelExamples, FitAndAMaskedModelsExamplesHoldAMask) {
  for (const auto& m : bundledModels()) {
    auto model = Model::open(std::string(ATTN_SOURCE_DIR) + "/resources/models/" + m.name);
    ASSERT_TRUE(model.ok()) << model.error().message;
    for (const std::string& text : m.examples) {
      auto enc = (*model)->encode(text, std::nullopt, "example");
      ASSERT_TRUE(enc.ok()) << enc.error().message;
      if ((*model)->info().maxPositions > 0) EXPECT_LE(enc->size(), (*model)->info().maxPositions) << text;
      if ((*model)->info().maskToken.empty()) continue;
      RunOptions opt;
      opt.keepAttention = false;
      auto run = (*model)->run(*enc, opt);
      ASSERT_TRUE(run.ok()) << run.error().message;
      EXPECT_FALSE(run->maskPredictions.empty()) << m.name << ": " << text;
      for (const auto& top : run->maskPredictions) EXPECT_EQ(top.size(), 5u) << m.name << ": " << text;
    }
  }
}

}  // namespace
}  // namespace attn::models
