// The Ollama store listing: every manifest under manifests/registry.ollama.ai is one entry,
// resolved to its model blob with the blob's size, or named with its fault; an absent store
// says where it looked; the listing stops at its limit.
#include "attn/models/gguf/ollama_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace attn::models::gguf {
namespace {

namespace fs = std::filesystem;

class OllamaStoreListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("attn_ollama_list_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "blobs");
    ::setenv("OLLAMA_MODELS", root.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("OLLAMA_MODELS");
    fs::remove_all(root);
  }
  fs::path manifestDir(const std::string& space, const std::string& model) const {
    return root / "manifests" / "registry.ollama.ai" / space / model;
  }
  // A manifest whose model layer is a blob of `bytes` bytes named by the digest `hex`.
  void addModel(const std::string& space, const std::string& model, const std::string& tag, char hexDigit,
                size_t bytes) {
    const std::string hex(64, hexDigit);
    std::ofstream(root / "blobs" / ("sha256-" + hex), std::ios::binary) << std::string(bytes, 'x');
    fs::create_directories(manifestDir(space, model));
    std::ofstream(manifestDir(space, model) / tag)
        << R"({"schemaVersion": 2, "layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:)"
        << hex << R"(", "size": )" << bytes << "}]}";
  }
  fs::path root;
};

TEST_F(OllamaStoreListingTest, ListsEveryManifestWithItsBlobAndSize) {
  addModel("library", "tiny", "q8", 'a', 1234);
  addModel("library", "tiny", "latest", 'b', 10);
  addModel("someone", "mine", "v1", 'c', 77);
  const OllamaStoreListing l = listOllamaModels();
  EXPECT_TRUE(l.found);
  EXPECT_EQ(l.root, root.string());
  EXPECT_EQ(l.manifests, (root / "manifests" / "registry.ollama.ai").string());
  EXPECT_FALSE(l.truncated);
  ASSERT_EQ(l.models.size(), 3u);
  // library before someone; latest before q8
  EXPECT_EQ(l.models[0].spec, "ollama:tiny:latest");
  EXPECT_EQ(l.models[0].bytes, 10);
  EXPECT_EQ(l.models[1].spec, "ollama:tiny:q8");
  EXPECT_EQ(l.models[1].name, "tiny");
  EXPECT_EQ(l.models[1].tag, "q8");
  EXPECT_EQ(l.models[1].bytes, 1234);
  EXPECT_EQ(l.models[1].blob, (root / "blobs" / ("sha256-" + std::string(64, 'a'))).string());
  EXPECT_TRUE(l.models[1].error.empty());
  EXPECT_EQ(l.models[2].spec, "ollama:someone/mine:v1");
  EXPECT_EQ(l.models[2].name, "someone/mine");
  EXPECT_EQ(l.models[2].bytes, 77);
  // Each spec opens the same blob through the CLI's resolution.
  EXPECT_EQ(*resolveOllamaModel(l.models[2].spec), l.models[2].blob);
}

TEST_F(OllamaStoreListingTest, ABrokenManifestIsNamedAndTheOthersStillList) {
  addModel("library", "good", "latest", 'a', 5);
  fs::create_directories(manifestDir("library", "bad"));
  std::ofstream(manifestDir("library", "bad") / "json") << "{\"layers\": [";
  std::ofstream(manifestDir("library", "bad") / "digest")
      << R"({"layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:../../etc"}]})";
  addModel("library", "bad", "noblob", 'd', 1);
  fs::remove(root / "blobs" / ("sha256-" + std::string(64, 'd')));
  fs::create_directories(manifestDir("library", "bad") / "afolder");  // a folder where a manifest belongs
  fs::create_directories(manifestDir("library", "we ird"));           // not an Ollama name: skipped
  const OllamaStoreListing l = listOllamaModels();
  ASSERT_EQ(l.models.size(), 5u);
  for (const auto& e : l.models) {
    if (e.name == "good") {
      EXPECT_TRUE(e.error.empty()) << e.error;
      continue;
    }
    EXPECT_TRUE(e.blob.empty()) << e.spec;
    EXPECT_EQ(e.error.rfind((manifestDir("library", "bad") / e.tag).string(), 0), 0u) << e.error;
  }
  EXPECT_NE(l.models[1].error.find("not sha256:<64 hex digits>"), std::string::npos) << l.models[1].error;
  EXPECT_NE(l.models[3].error.find("blob"), std::string::npos) << l.models[3].error;
  EXPECT_EQ(l.models[4].spec, "ollama:good:latest");
}

TEST_F(OllamaStoreListingTest, AnAbsentStoreSaysWhereItLooked) {
  const OllamaStoreListing l = listOllamaModels();
  EXPECT_FALSE(l.found);
  EXPECT_TRUE(l.models.empty());
  EXPECT_EQ(l.manifests, (root / "manifests" / "registry.ollama.ai").string());
  ::unsetenv("OLLAMA_MODELS");
  const char* home = std::getenv("HOME");
  if (home && *home) EXPECT_EQ(ollamaStoreRoot(), std::string(home) + "/.ollama/models");
}

TEST_F(OllamaStoreListingTest, StopsAtTheLimit) {
  for (int i = 0; i < 6; ++i) addModel("library", "m" + std::to_string(i), "latest", 'a', 3);
  const OllamaStoreListing l = listOllamaModels(4);
  EXPECT_EQ(l.models.size(), 4u);
  EXPECT_TRUE(l.truncated);
}

}  // namespace
}  // namespace attn::models::gguf
