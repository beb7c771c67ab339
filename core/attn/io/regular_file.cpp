#include "attn/io/regular_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace attn {
namespace {

const char* specialFileKind(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "a special file";
}

}  // namespace

RegularFile& RegularFile::operator=(RegularFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_, size_ = o.size_;
    o.fd_ = -1;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<RegularFile> RegularFile::open(const std::string& path, int64_t maxBytes, bool allowEmpty) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    return Error{
        fmt::format("{}: cannot open file ({})", path, err == ENOENT ? "no such file" : std::strerror(err))};
  }
  RegularFile f(fd, 0);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return Error{fmt::format("{}: cannot read file size ({})", path, std::strerror(errno))};
  if (!S_ISREG(st.st_mode))
    return Error{fmt::format("{}: is {}, not a regular file", path, specialFileKind(st.st_mode))};
  // Regular files never block; clear the flag so reads behave as usual.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  f.size_ = static_cast<int64_t>(st.st_size);
  if (f.size_ == 0 && !allowEmpty) return Error{path + ": file is empty"};
  if (f.size_ > maxBytes)
    return Error{
        fmt::format("{}: file of {} bytes is larger than the {} byte limit", path, f.size_, maxBytes)};
  return f;
}

bool RegularFile::readAt(int64_t offset, size_t n, char* dst) const {
  while (n > 0) {
    const ssize_t got = ::pread(fd_, dst, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;  // error, or the file shrank under us
    dst += got, offset += got, n -= static_cast<size_t>(got);
  }
  return true;
}

Result<std::string> readRegularFile(const std::string& path, int64_t maxBytes, bool allowEmpty) {
  auto f = RegularFile::open(path, maxBytes, allowEmpty);
  if (!f) return f.error();
  std::string bytes(static_cast<size_t>(f->size()), '\0');
  if (!f->readAt(0, bytes.size(), bytes.data())) return Error{path + ": read failed"};
  return bytes;
}

}  // namespace attn
