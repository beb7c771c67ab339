#include "attn/models/verified_weights.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <sstream>

#include "attn/io/regular_file.h"

namespace attn::models {
namespace {

constexpr const char* kHeader = "attnscope verified weights 1";
constexpr int64_t kMaxRecordBytes = 256 * 1024;  // 64 lines of a few files each; larger: not ours
constexpr size_t kMaxEntries = 64;

std::mutex gMutex;  // one process's reads and writes of the record in turn
std::optional<std::string> gDir;
std::atomic<int64_t> gScanned{0}, gRemembered{0};

std::string defaultDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/attnscope";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/attnscope";
  return "";
}

std::string lineOf(const WeightsIdentity& id) {
  std::string s = fmt::format("{:016x}", id.tensors);
  for (const FileStamp& f : id.files)
    s += fmt::format(" {} {} {} {} {}", f.device, f.inode, f.size, f.mtimeNs, f.ctimeNs);
  return s;
}

/// The record's lines after its header (malformed lines are kept as text and never match).
std::vector<std::string> readRecord(const std::string& path) {
  std::vector<std::string> lines;
  auto f = RegularFile::open(path, kMaxRecordBytes);
  if (!f) return lines;  // absent, not a regular file or too large: no record
  std::string text(static_cast<size_t>(f->size()), '\0');
  if (!f->readAt(0, text.size(), text.data())) return lines;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return lines;
  while (std::getline(in, line) && lines.size() < 4 * kMaxEntries)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

bool writeAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

FileStamp stampOf(int fd) {
  FileStamp s;
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return s;
  s.device = static_cast<uint64_t>(st.st_dev);
  s.inode = static_cast<uint64_t>(st.st_ino);
  s.size = static_cast<int64_t>(st.st_size);
  s.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctimeNs = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  s.valid = true;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  s.takenNs = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  return s;
}

void setVerifiedWeightsDir(std::optional<std::string> dir) {
  std::lock_guard lock(gMutex);
  gDir = std::move(dir);
}

std::string verifiedWeightsPath() {
  std::lock_guard lock(gMutex);
  const std::string dir = gDir ? *gDir : defaultDir();
  return dir.empty() ? "" : dir + "/verified-weights";
}

bool knownFinite(const WeightsIdentity& id) {
  if (id.files.empty()) return false;
  for (const FileStamp& f : id.files)
    if (!f.valid) return false;
  const std::string path = verifiedWeightsPath();
  if (path.empty()) return false;
  const std::string want = lineOf(id);
  std::lock_guard lock(gMutex);
  for (const std::string& line : readRecord(path))
    if (line == want) return true;
  return false;
}

void rememberFinite(const WeightsIdentity& id) {
  constexpr int64_t kSettledNs = 1000000000;
  if (id.files.empty()) return;
  for (const FileStamp& f : id.files)
    if (!f.valid || f.ctimeNs > f.takenNs - kSettledNs || f.mtimeNs > f.takenNs - kSettledNs) return;
  const std::string path = verifiedWeightsPath();
  if (path.empty()) return;
  const std::string dir = path.substr(0, path.rfind('/'));
  const std::string add = lineOf(id);
  std::lock_guard lock(gMutex);
  std::vector<std::string> lines;
  for (std::string& line : readRecord(path))
    if (line != add) lines.push_back(std::move(line));
  lines.push_back(add);
  if (lines.size() > kMaxEntries) lines.erase(lines.begin(), lines.end() - kMaxEntries);
  std::string text = std::string(kHeader) + "\n";
  for (const std::string& line : lines) text += line + "\n";
  // The cache folder and its parent, owner-only where they are made here.
  const std::string parent = dir.substr(0, dir.rfind('/'));
  if (!parent.empty()) ::mkdir(parent.c_str(), 0700);
  ::mkdir(dir.c_str(), 0700);
  // A new file renamed over the record: a reader sees the old record or the new one, never half
  // of one; O_EXCL | O_NOFOLLOW: a name planted there (a link) is not written through.
  const std::string tmp = fmt::format("{}.{}.tmp", path, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool ok = writeAll(fd, text);
  if (::close(fd) != 0 || !ok || ::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
}

int64_t finiteScannedBytes() { return gScanned.load(); }
int64_t finiteRememberedBytes() { return gRemembered.load(); }
void countFiniteCheck(int64_t bytes, bool remembered) { (remembered ? gRemembered : gScanned) += bytes; }

}  // namespace attn::models
