#include "nn/serialize/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "tensor/tensor.h"

namespace torchlet::detail {

std::string os_error(int err) { return std::error_code(err, std::generic_category()).message(); }

std::string in_quotes(const std::string& path) { return "\"" + path + "\""; }

int UniqueFd::reset(int fd) {
  const int rc = fd_ < 0 ? 0 : ::close(fd_);
  fd_ = fd;
  return rc == 0 ? 0 : errno;
}

FileSource::FileSource(const std::string& path, std::string where, std::string error_prefix)
    : ByteSource(std::move(where)),
      error_prefix_(std::move(error_prefix)),
      fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  TORCHLET_CHECK(fd_.get() >= 0, error_prefix_, "cannot open the file: ", os_error(errno));
  struct stat st;
  TORCHLET_CHECK(::fstat(fd_.get(), &st) == 0, error_prefix_,
                 "cannot stat the file: ", os_error(errno));
  TORCHLET_CHECK(S_ISREG(st.st_mode), error_prefix_, "not a regular file");
  size_ = static_cast<uint64_t>(st.st_size);
}

void FileSource::read(uint64_t offset, void* dst, size_t n) const {
  char* out = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd_.get(), out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    TORCHLET_CHECK(got >= 0, error_prefix_, "cannot read the file: ", os_error(errno));
    TORCHLET_CHECK(got > 0, error_prefix_, "the file ended at byte ", offset,
                   " while being read (was it changed meanwhile?)");
    out += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
}

void BufferSource::read(uint64_t offset, void* dst, size_t n) const {
  if (n > 0) std::memcpy(dst, bytes_.data() + offset, n);
}

AtomicFile::AtomicFile(std::string path, std::string error_prefix)
    : path_(std::move(path)), error_prefix_(std::move(error_prefix)) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; fd_.get() < 0; ++attempt) {
    temp_path_ = str_cat(path_, ".tmp.", ::getpid(), ".", counter++);
    fd_.reset(::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd_.get() < 0 && (errno != EEXIST || attempt == 100)) {
      fail("cannot create a temporary file beside it", errno);
    }
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !temp_path_.empty()) {
    fd_.reset();
    ::unlink(temp_path_.c_str());
  }
}

void AtomicFile::write(const void* data, size_t n) {
  const char* in = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = ::write(fd_.get(), in, std::min<size_t>(n, size_t{1} << 30));
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) fail("cannot write", errno);
    in += put;
    n -= static_cast<size_t>(put);
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_.get()) != 0) fail("cannot sync", errno);
  if (const int err = fd_.reset()) fail("cannot close", err);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    fail("cannot rename the temporary file over it", errno);
  }
  committed_ = true;
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path_.substr(0, slash);
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0 || ::fsync(dir_fd.get()) != 0) fail("cannot sync its directory", errno);
}

void AtomicFile::fail(const char* what, int err) const {
  throw_error(str_cat(error_prefix_, what, ": ", os_error(err)));
}

}  // namespace torchlet::detail
