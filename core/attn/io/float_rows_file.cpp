#include "attn/io/float_rows_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <Eigen/Core>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace attn {

Result<FloatRowsFile> FloatRowsFile::open(const std::string& path, uint64_t offset, int planes, int rows, int cols) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("{}: cannot open ({})", path, std::strerror(errno))};
  FloatRowsFile f;
  f.fd_ = std::shared_ptr<int>(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  struct stat st {};
  const uint64_t bytes = 4ULL * static_cast<uint64_t>(planes) * static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols);
  if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < offset + bytes)
    return Error{fmt::format("{}: the file is shorter than it was when read (changed since?)", path)};
  f.path_ = path;
  f.offset_ = offset;
  f.planes_ = planes;
  f.rows_ = rows;
  f.cols_ = cols;
  return f;
}

Status FloatRowsFile::read(int plane, const int* rows, int count, float* dst) const {
  const size_t rowBytes = 4 * static_cast<size_t>(cols_);
  for (int a = 0; a < count;) {
    int run = 1;
    while (a + run < count && rows[a + run] == rows[a] + run) ++run;
    const uint64_t at = offset_ + rowBytes * (static_cast<uint64_t>(plane) * static_cast<uint64_t>(rows_) +
                                              static_cast<uint64_t>(rows[a]));
    char* out = reinterpret_cast<char*>(dst + static_cast<size_t>(a) * static_cast<size_t>(cols_));
    size_t want = rowBytes * static_cast<size_t>(run), done = 0;
    while (done < want) {
      const ssize_t got = ::pread(*fd_, out + done, want - done, static_cast<off_t>(at + done));
      if (got <= 0) return Error{fmt::format("{}: reading the queries again failed (changed since?)", path_)};
      done += static_cast<size_t>(got);
    }
    a += run;
  }
  const Eigen::Map<const Eigen::ArrayXf> all(dst, static_cast<Eigen::Index>(count) * cols_);
  if (!std::isfinite((all * 0.0f).sum()))
    return Error{fmt::format("{}: the queries hold a non-finite value now (the file changed since it was read)", path_)};
  return okStatus();
}

}  // namespace attn
