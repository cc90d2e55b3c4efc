#pragma once

namespace torchlet {

/// Whether differentiable ops record the graph on this thread (default on).
bool is_grad_enabled();
void set_grad_enabled(bool enabled);

/// Scoped grad mode (torch.no_grad / torch.enable_grad / set_grad_enabled).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~AutoGradMode() { set_grad_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

class EnableGradGuard : public AutoGradMode {
 public:
  EnableGradGuard() : AutoGradMode(true) {}
};

}  // namespace torchlet
