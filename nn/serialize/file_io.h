#pragma once

// File reading and atomic writing shared by the checkpoint formats
// (safetensors.cc, pytorch_checkpoint.cc). Internal to nn/serialize: not
// exported through nn/nn.h.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace torchlet::detail {

/// The text of the OS error `err` (an errno value).
std::string os_error(int err);

/// `path` in double quotes, as errors name a file.
std::string in_quotes(const std::string& path);

/// A file descriptor closed on destruction.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  int get() const { return fd_; }
  /// Closes the descriptor and holds `fd` instead; the OS error of the
  /// close, or 0.
  int reset(int fd = -1);

 private:
  int fd_;
};

/// The bytes of a checkpoint: on disk or in memory.
class ByteSource {
 public:
  explicit ByteSource(std::string where) : where_(std::move(where)) {}
  virtual ~ByteSource() = default;
  /// How the format's errors name the file.
  const std::string& where() const { return where_; }
  virtual uint64_t size() const = 0;
  /// Copies `n` bytes at `offset` (within size()) to `dst`.
  virtual void read(uint64_t offset, void* dst, size_t n) const = 0;

 private:
  std::string where_;
};

/// A regular file, read with pread.
class FileSource final : public ByteSource {
 public:
  /// Opens `path`. `where` becomes where(); the errors of opening and
  /// reading begin with `error_prefix` ("load(\"f.bin\"): ").
  FileSource(const std::string& path, std::string where, std::string error_prefix);

  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, size_t n) const override;

 private:
  std::string error_prefix_;
  UniqueFd fd_;
  uint64_t size_ = 0;
};

/// Bytes in memory, which must outlive the source.
class BufferSource final : public ByteSource {
 public:
  BufferSource(std::string_view bytes, std::string where)
      : ByteSource(std::move(where)), bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, void* dst, size_t n) const override;

 private:
  std::string_view bytes_;
};

// Note [Atomic save]
// A checkpoint is written to a temporary file beside the target (same
// directory, hence same filesystem), which is fsynced, renamed over the
// target, and the directory fsynced so the rename itself is durable.
// rename() replaces the name in one step: a reader, or a crash at any moment,
// sees the old file or the new one, never a mix. A process killed mid-write
// leaves its temporary file, named `<target>.tmp.<pid>.<n>`, and the target
// untouched; on any error we can report, the temporary file is removed before
// the error is thrown.
class AtomicFile {
 public:
  /// Creates the temporary file for `path`; errors begin with `error_prefix`
  /// ("save(\"f.bin\"): ").
  AtomicFile(std::string path, std::string error_prefix);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  int fd() const { return fd_.get(); }
  const std::string& temp_path() const { return temp_path_; }

  /// Appends `n` bytes.
  void write(const void* data, size_t n);

  /// Makes the written bytes the content of the target, durably.
  void commit();

  /// Throws "<error_prefix><what>: <OS error text>".
  [[noreturn]] void fail(const char* what, int err) const;

 private:
  std::string path_;
  std::string error_prefix_;
  std::string temp_path_;
  UniqueFd fd_;
  bool committed_ = false;
};

}  // namespace torchlet::detail
