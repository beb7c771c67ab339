// Nothing lost: writes go to a temporary file renamed into place; a failed
// write leaves the old file as it was and no temporary behind. Tests run as
// root in CI, where a read-only folder does not stop writes, so failures are
// forced by other means: a parent that is a regular file, a target that is a
// folder, and a full disk simulated with RLIMIT_FSIZE in a child process.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attn/io/atomic_file.h"
#include "attn/io/npy_writer.h"

namespace attn {
namespace {

namespace fs = std::filesystem;

fs::path freshDir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("attn_atomic_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t entries(const fs::path& d) { return static_cast<size_t>(std::distance(fs::directory_iterator(d), {})); }

TEST(AtomicWrite, CreatesAndReplacesLeavingNoTemporary) {
  const auto dir = freshDir("replace");
  const auto path = (dir / "out.bin").string();
  ASSERT_TRUE(writeFileAtomic(path, "first").ok());
  EXPECT_EQ(slurp(path), "first");
  ASSERT_TRUE(writeFileAtomic(path, std::string("sec\0ond", 7)).ok());
  EXPECT_EQ(slurp(path), std::string("sec\0ond", 7));
  EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicWrite, ParentIsARegularFile) {
  const auto dir = freshDir("parent_file");
  { std::ofstream(dir / "notadir") << "precious"; }
  const auto path = (dir / "notadir" / "out.npz").string();
  auto st = writeFileAtomic(path, "data");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(path), std::string::npos) << st.error().message;
  EXPECT_EQ(slurp(dir / "notadir"), "precious");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicWrite, MissingFolderIsAnError) {
  const auto dir = freshDir("missing");
  auto st = writeFileAtomic((dir / "no" / "such" / "out.npz").string(), "data");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("cannot write"), std::string::npos) << st.error().message;
  EXPECT_EQ(entries(dir), 0u);
}

TEST(AtomicWrite, TargetIsAFolderKeepsFolderAndRemovesTemporary) {
  const auto dir = freshDir("target_dir");
  fs::create_directories(dir / "out.npz" / "inside");
  auto st = writeFileAtomic((dir / "out.npz").string(), "data");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("cannot replace"), std::string::npos) << st.error().message;
  EXPECT_TRUE(fs::is_directory(dir / "out.npz" / "inside"));
  EXPECT_EQ(entries(dir), 1u);  // the temporary was removed
}

// Disk full: the child may write at most 4 KB per file; the old file must
// survive a failed 1 MB write and no temporary may be left.
TEST(AtomicWrite, FullDiskKeepsOldFile) {
  const auto dir = freshDir("full");
  const auto path = (dir / "session.json").string();
  ASSERT_TRUE(writeFileAtomic(path, "old contents").ok());
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // get EFBIG from write(2) instead of a signal
    rlimit lim{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    auto st = writeFileAtomic(path, std::string(1 << 20, 'x'));
    const bool named = !st.ok() && st.error().message.find(path) != std::string::npos;
    ::_exit(named ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the failed write must be reported, naming the file";
  EXPECT_EQ(slurp(path), "old contents");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicWrite, NpzWriterFailureKeepsOldResult) {
  const auto dir = freshDir("npz");
  { std::ofstream(dir / "blocker") << "x"; }
  NpzWriter w;
  Tensor t;
  t.shape = {2};
  t.data = {1, 2};
  w.add("weights", t);
  EXPECT_FALSE(w.write((dir / "blocker" / "r.npz").string()).ok());
  const auto good = (dir / "r.npz").string();
  ASSERT_TRUE(w.write(good).ok());
  EXPECT_EQ(slurp(good), w.bytes());
}

}  // namespace
}  // namespace attn
