// The path rule for model folders: every file must resolve inside the folder,
// or inside its Hugging Face cache folder (models--org--name, whose snapshots
// link to ../../blobs). A link leaving it is refused before it is opened.
#include "attn/models/model_paths.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "attn/models/model.h"
#include "watchdog.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class ModelPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_model_paths_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    root_ = fs::canonical(root_);  // messages name the resolved folder
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path copyModel(const std::string& name, const fs::path& to) {
    fs::create_directories(to.parent_path());
    fs::copy(std::string(ATTN_FIXTURE_DIR) + "/models/" + name, to, fs::copy_options::recursive);
    return to;
  }
  static std::string openError(const fs::path& dir) {
    test::Watchdog dog(20s, "Model::open(" + dir.string() + ")");
    auto m = Model::open(dir.string());
    if (m.ok()) return "(opened)";
    EXPECT_EQ(m.error().message.find('\n'), std::string::npos) << m.error().message;
    return m.error().message;
  }
  /// Replaces `file` by a symlink to `target`.
  static void linkTo(const fs::path& file, const fs::path& target) {
    fs::remove(file);
    fs::create_symlink(target, file);
  }
  fs::path root_;
};

TEST_F(ModelPaths, LinksLeavingTheFolderAreRefusedBeforeOpening) {
  const fs::path dir = copyModel("gpt2", root_ / "m");
  const fs::path outside = root_ / "elsewhere";
  fs::create_directories(outside);
  // A FIFO outside: were it opened first, the message would be the FIFO's, not the rule's.
  ASSERT_EQ(::mkfifo((outside / "pipe").c_str(), 0600), 0);
  linkTo(dir / "model.safetensors", outside / "pipe");
  EXPECT_EQ(openError(dir),
            (dir / "model.safetensors").string() + ": leads to " + (outside / "pipe").string() +
                ", outside the model folder " + dir.string() +
                " (files of a model folder must stay inside it, or inside its Hugging Face cache "
                "folder models--org--name)");
  copyModel("gpt2", outside / "copy");
  linkTo(dir / "model.safetensors", outside / "copy" / "model.safetensors");
  EXPECT_TRUE(openError(dir).starts_with((dir / "model.safetensors").string() + ": leads to "))
      << openError(dir);

  const fs::path tok = copyModel("llama", root_ / "tok");
  linkTo(tok / "tokenizer.json", "/etc/passwd");
  EXPECT_TRUE(
      openError(tok).starts_with((tok / "tokenizer.json").string() + ": leads to /etc/passwd, outside"))
      << openError(tok);
  const fs::path cfg = copyModel("llama", root_ / "cfg");
  linkTo(cfg / "config.json", "/etc/passwd");
  EXPECT_TRUE(openError(cfg).starts_with((cfg / "config.json").string() + ": leads to /etc/passwd"))
      << openError(cfg);
  const fs::path vocab = copyModel("gpt2", root_ / "vocab");
  linkTo(vocab / "vocab.json", "/etc/passwd");
  EXPECT_TRUE(openError(vocab).starts_with((vocab / "vocab.json").string() + ": leads to /etc/passwd"))
      << openError(vocab);
  const fs::path shard = copyModel("qwen2", root_ / "shard");
  linkTo(shard / "model-00001-of-00002.safetensors", outside / "copy" / "model.safetensors");
  EXPECT_TRUE(
      openError(shard).starts_with((shard / "model-00001-of-00002.safetensors").string() + ": leads to "))
      << openError(shard);
}

TEST_F(ModelPaths, LinksInsideTheFolderStillLoad) {
  const fs::path dir = copyModel("gpt2", root_ / "m");
  fs::create_directories(dir / "weights");
  fs::rename(dir / "model.safetensors", dir / "weights" / "w.safetensors");
  fs::create_symlink("weights/w.safetensors", dir / "model.safetensors");
  auto m = Model::open(dir.string());
  EXPECT_TRUE(m.ok()) << m.error().message;
  // The folder itself may be reached through a link.
  fs::create_directory_symlink(dir, root_ / "alias");
  auto a = Model::open((root_ / "alias").string());
  EXPECT_TRUE(a.ok()) << a.error().message;
}

TEST_F(ModelPaths, HuggingFaceCacheBlobsLoadAndLinksOutOfTheCacheDoNot) {
  // models--org--tiny/snapshots/<hash>/<file> -> ../../blobs/<file's sha>, as huggingface_hub writes it.
  const fs::path cache = root_ / "hub" / "models--org--tiny";
  const fs::path snap = cache / "snapshots" / "0123abcd";
  fs::create_directories(snap);
  fs::create_directories(cache / "blobs");
  fs::create_directories(cache / "refs");
  std::ofstream(cache / "refs" / "main") << "0123abcd";
  for (const auto& e : fs::directory_iterator(std::string(ATTN_FIXTURE_DIR) + "/models/qwen2")) {
    const std::string sha = "sha-" + e.path().filename().string();
    fs::copy_file(e.path(), cache / "blobs" / sha);
    fs::create_symlink(fs::path("../../blobs") / sha, snap / e.path().filename());
  }
  auto m = Model::open(cache.string());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ((*m)->info().name, "org/tiny");
  auto direct = Model::open(snap.string());
  EXPECT_TRUE(direct.ok()) << direct.error().message;

  // A snapshot file leading out of models--org--tiny is refused, even into the same hub.
  const fs::path other = root_ / "hub" / "models--org--other";
  fs::create_directories(other);
  fs::rename(cache / "blobs" / "sha-tokenizer.json", other / "stolen");
  linkTo(snap / "tokenizer.json", other / "stolen");
  EXPECT_TRUE(openError(cache).starts_with((snap / "tokenizer.json").string() + ": leads to " +
                                           (other / "stolen").string()))
      << openError(cache);
}

TEST_F(ModelPaths, CheckAcceptsMissingFilesAndNamesTheTarget) {
  const fs::path dir = root_ / "m";
  fs::create_directories(dir);
  EXPECT_TRUE(checkModelFilePath(dir.string(), (dir / "absent.json").string()).ok());
  fs::create_symlink("/etc/passwd", dir / "x.json");
  auto st = checkModelFilePath(dir.string(), (dir / "x.json").string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("/etc/passwd"), std::string::npos) << st.error().message;
  std::ofstream(dir / "inside.json") << "{}";
  EXPECT_TRUE(checkModelFilePath(dir.string(), (dir / "inside.json").string()).ok());
}

}  // namespace
}  // namespace attn::models
