#pragma once

// A test helper (testonly) that makes writes fail as on a full disk.

#include <signal.h>
#include <sys/resource.h>

namespace torchlet::testing {

/// Lowers the largest file this process may write (RLIMIT_FSIZE) for its
/// lifetime, so that writes past `bytes` fail with EFBIG as on a full disk,
/// and ignores the SIGXFSZ that would otherwise kill the process.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    saved_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, saved_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  sighandler_t saved_handler_;
};

}  // namespace torchlet::testing
