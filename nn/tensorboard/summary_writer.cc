#include "nn/tensorboard/summary_writer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "nn/tensorboard/event.h"
#include "nn/tensorboard/tfrecord.h"
#include "tensor/error.h"

namespace torchlet {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// tensorboard's EventFileWriter name: events.out.tfevents.%010d.<host>.<pid>.<n>.
std::string event_file_name(double wall_time) {
  static std::atomic<int> next_id{0};
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%010lld", static_cast<long long>(wall_time));
  return std::string("events.out.tfevents.") + seconds + "." + host_name() + "." +
         std::to_string(getpid()) + "." + std::to_string(next_id++);
}

}  // namespace

/// One event file: records appended through stdio's buffer.
class SummaryWriter::EventFile {
 public:
  explicit EventFile(const std::string& logdir) {
    std::error_code error;
    std::filesystem::create_directories(logdir, error);
    TORCHLET_CHECK(!error, "SummaryWriter: cannot create the log directory '", logdir,
                   "': ", error.message());
    const double wall_time = now_seconds();
    path_ = logdir + "/" + event_file_name(wall_time);
    file_ = std::fopen(path_.c_str(), "wb");
    TORCHLET_CHECK(file_ != nullptr, "SummaryWriter: cannot create '", path_,
                   "': ", std::strerror(errno));
    write(tensorboard::file_version_event(wall_time));
  }
  EventFile(const EventFile&) = delete;
  EventFile& operator=(const EventFile&) = delete;
  ~EventFile() { std::fclose(file_); }

  void write(const std::string& event) {
    const std::string record = tensorboard::frame_record(event);
    TORCHLET_CHECK(std::fwrite(record.data(), 1, record.size(), file_) == record.size(),
                   "SummaryWriter: cannot write to '", path_, "': ", std::strerror(errno));
  }
  void flush() {
    TORCHLET_CHECK(std::fflush(file_) == 0, "SummaryWriter: cannot write to '", path_,
                   "': ", std::strerror(errno));
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

SummaryWriter::SummaryWriter(std::string logdir)
    : logdir_(std::move(logdir)), main_(std::make_unique<EventFile>(logdir_)) {}

SummaryWriter::~SummaryWriter() = default;

const std::string& SummaryWriter::path() const { return main_->path(); }

void SummaryWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  main_->write(tensorboard::scalar_event(tag, static_cast<float>(value), step, now_seconds()));
}

SummaryWriter::EventFile& SummaryWriter::file_for(const std::string& logdir) {
  std::unique_ptr<EventFile>& file = scalars_files_[logdir];
  if (!file) file = std::make_unique<EventFile>(logdir);
  return *file;
}

void SummaryWriter::add_scalars(const std::string& main_tag,
                                const std::map<std::string, double>& scalars, int64_t step) {
  std::string run = main_tag;
  std::replace(run.begin(), run.end(), '/', '_');
  const double wall_time = now_seconds();
  for (const auto& [tag, value] : scalars) {
    file_for(logdir_ + "/" + run + "_" + tag)
        .write(tensorboard::scalar_event(main_tag, static_cast<float>(value), step, wall_time));
  }
}

void SummaryWriter::add_histogram(const std::string& tag, const Tensor& values, int64_t step) {
  TORCHLET_CHECK(values.defined(), "add_histogram: the values tensor is undefined");
  main_->write(tensorboard::histogram_event(
      tag, tensorboard::make_histogram(values.to_vector<double>()), step, now_seconds()));
}

void SummaryWriter::flush() {
  main_->flush();
  for (auto& [logdir, file] : scalars_files_) file->flush();
}

}  // namespace torchlet
