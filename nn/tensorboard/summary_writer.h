#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

/// Writes TensorBoard event files, as `torch.utils.tensorboard.SummaryWriter`
/// does: `tensorboard --logdir <logdir>` shows them. The file is
/// `<logdir>/events.out.tfevents.<seconds>.<host>.<pid>.<n>`; its first record
/// is a file_version "brain.Event:2" event and each add_* appends one Event
/// (tensorboard/event.h), framed as TFRecords (tensorboard/tfrecord.h).
/// Events are buffered; flush() writes them out, and so does destruction.
/// Steps default to 0 and wall times are the time of the call. One thread at
/// a time.
class SummaryWriter {
 public:
  /// Creates `logdir` (and its parents) if needed and opens a new event file
  /// there. Throws naming the directory or file it cannot create.
  explicit SummaryWriter(std::string logdir);
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;
  /// Flushes and closes every event file.
  ~SummaryWriter();

  /// One point of the scalar chart `tag`.
  void add_scalar(const std::string& tag, double value, int64_t step = 0);
  /// Several scalars on one chart: like PyTorch, each goes to its own event
  /// file in `<logdir>/<main_tag with '/' as '_'>_<tag>` (a run of its own),
  /// under the tag `main_tag`.
  void add_scalars(const std::string& main_tag, const std::map<std::string, double>& scalars,
                   int64_t step = 0);
  /// The histogram of `values` (any shape, any real dtype; non-empty and
  /// finite) with PyTorch's default `bins='tensorflow'`.
  void add_histogram(const std::string& tag, const Tensor& values, int64_t step = 0);
  /// Writes the buffered events of every file to disk.
  void flush();

  const std::string& logdir() const { return logdir_; }
  /// The main event file's path.
  const std::string& path() const;

 private:
  class EventFile;
  EventFile& file_for(const std::string& logdir);

  std::string logdir_;
  std::unique_ptr<EventFile> main_;
  std::map<std::string, std::unique_ptr<EventFile>> scalars_files_;
};

}  // namespace torchlet
