// The backward engine (PyTorch's engine.cpp design): count the dependencies
// of every node reachable from the roots, sum the gradients arriving at each
// node, and run a node once all of them have arrived, later-recorded nodes
// first.
//
// Every node runs on its device: nodes of the caller's current device run on
// the calling thread (as PyTorch runs CPU work), those of other devices on
// their device's executor (tensor/executor.h), so the backward passes of
// replicas on cpu:0 and cpu:1 run at once. The first exception stops the
// pass and is rethrown to the caller once no worker is still running.
//
// Every node runs with the ThreadLocalState of the thread that called
// backward, its device and the pass's grad mode set (Note [Threading
// model]). A caller that is itself an executor's thread waits by helping
// that executor with its queued work (Note [Waiting executors help]), so
// backward passes started on two executors that need each other's device
// both finish.
//
// Note [Serial backward]
// Most passes never leave the caller's device: one model on one device. For
// those, prepare() finds every node on the caller's device, and the pass
// runs as a plain loop on the caller, taking no lock and waking no one; the
// first exception propagates directly. The task, its node table and ready
// queue come from the recycled small blocks (tensor/storage.h), not malloc.
#include "autograd/engine.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"

#include "autograd/internal/graph.h"
#include "tensor/cuda/stream.h"
#include "tensor/executor.h"
#include "tensor/parallel.h"
#include "tensor/spin_wait.h"
#include "tensor/storage.h"
#include "tensor/thread_local_state.h"

namespace torchlet::autograd {
namespace {

// Events a node waits for before it runs: one per gradient on a GPU that a
// node of another device made, on another thread and stream (Note
// [Streams] in tensor/cuda/stream.h). Empty unless a GPU gradient crossed
// devices.
using StreamWaits = std::vector<std::shared_ptr<cuda::Event>>;

struct NodeTask {
  std::shared_ptr<Node> node;
  variable_list grads;  // one per output of the node
  StreamWaits waits;
};

struct LaterFirst {
  bool operator()(const NodeTask& a, const NodeTask& b) const {
    return a.node->sequence_nr() < b.node->sequence_nr();
  }
};

/// The ready nodes of one device, later-recorded first: a binary heap whose
/// top is moved out, not copied (std::priority_queue::top is const).
class ReadyQueue {
 public:
  ReadyQueue() { heap_.reserve(8); }
  bool empty() const { return heap_.empty(); }
  void push(NodeTask task) {
    heap_.push_back(std::move(task));
    std::push_heap(heap_.begin(), heap_.end(), LaterFirst());
  }
  NodeTask pop() {
    std::pop_heap(heap_.begin(), heap_.end(), LaterFirst());
    NodeTask task = std::move(heap_.back());
    heap_.pop_back();
    return task;
  }

 private:
  std::vector<NodeTask, CachedAllocator<NodeTask>> heap_;
};

/// A device's ready nodes and how they run: on the caller (`runs_inline`)
/// or drained by the device's executor (`draining` while a drain is queued
/// or running).
struct DeviceQueue {
  Device device;
  bool runs_inline = false;
  bool draining = false;
  ReadyQueue ready;
};

/// What the engine knows of a node of the pass: how many gradients it still
/// waits for, and the sum of those that arrived, by output.
struct NodeState {
  int dependencies = 0;
  variable_list grads;
  StreamWaits waits;
};

class GraphTask : public std::enable_shared_from_this<GraphTask> {
 public:
  GraphTask(bool retain_graph, bool create_graph)
      : retain_graph_(retain_graph),
        create_graph_(create_graph),
        caller_state_(thread_local_state()),
        caller_executor_(current_executor()) {}

  // Dependencies of every node reachable from `roots`; with captures, only
  // nodes that lead to a captured input run.
  void prepare(const std::vector<Edge>& roots) {
    nodes_.reserve(32);
    absl::InlinedVector<Node*, 32> stack;
    std::vector<Node*> order;  // discovery order, for captures only
    for (const Edge& e : roots) {
      if (e.valid() && nodes_.try_emplace(e.fn.get()).second) stack.push_back(e.fn.get());
    }
    bool serial = true;
    while (!stack.empty()) {
      Node* node = stack.back();
      stack.pop_back();
      serial = serial && node->device() == caller_state_.device;
      if (!captures_.empty()) order.push_back(node);
      for (const Edge& e : node->next_edges()) {
        if (!e.valid()) continue;
        auto [it, inserted] = nodes_.try_emplace(e.fn.get());
        ++it->second.dependencies;
        if (inserted) stack.push_back(e.fn.get());
      }
    }
    serial_ = serial;
    if (captures_.empty()) return;
    // A node is needed if it is captured or one of its edges leads to a
    // needed node; settle by iterating to a fixed point over `order`.
    for (bool changed = true; changed;) {
      changed = false;
      for (Node* node : order) {
        if (needed_.count(node)) continue;
        bool need = captured_nodes_.count(node) > 0;
        for (const Edge& e : node->next_edges()) need = need || (e.valid() && needed_.count(e.fn.get()));
        if (need) {
          needed_.insert(node);
          changed = true;
        }
      }
    }
  }

  void capture(const Edge& edge, size_t slot) {
    captures_[{edge.fn.get(), edge.input_nr}] = slot;
    captured_nodes_.insert(edge.fn.get());
  }

  // Delivers `grad` to input `edge.input_nr` of `edge.fn`; queues the node
  // when it has all its gradients. `made`: an event after the work that
  // made `grad` on its GPU, when another device's node made it. Call with
  // mutex_ held.
  void deliver_locked(const Edge& edge, Variable grad,
                      const std::shared_ptr<cuda::Event>& made = nullptr) {
    Node* target = edge.fn.get();
    NodeState& state = nodes_[target];
    if (state.grads.empty()) {
      if (!spare_grads_.empty()) {
        state.grads = std::move(spare_grads_.back());
        spare_grads_.pop_back();
      }
      state.grads.resize(target->num_outputs());
    }
    Variable& slot = state.grads.at(edge.input_nr);
    if (grad.defined() && slot.defined() && !state.waits.empty()) {
      // Summed here, on this thread's stream: after the earlier gradients'.
      wait_for(state.waits, grad.device());
    }
    if (made != nullptr) state.waits.push_back(made);
    if (grad.defined()) slot = slot.defined() ? slot + grad : std::move(grad);
    if (--state.dependencies > 0) return;
    NodeTask task{edge.fn, std::move(state.grads), std::move(state.waits)};
    state.grads = variable_list();
    state.waits.clear();
    if (!captures_.empty() && !needed_.count(target)) return;
    if (running_serial_ && target->sequence_nr() == std::numeric_limits<uint64_t>::max()) {
      // A leaf's AccumulateGrad would be the next node popped anyway (the
      // highest sequence number): a serial pass runs it right away.
      run_node_here(task);
      return;
    }
    enqueue_locked(std::move(task));
  }

  void deliver_roots(const std::vector<Edge>& roots, variable_list grads) {
    TaskLock lock(*this);
    for (const Edge& e : roots) ++nodes_[e.fn.get()].dependencies;
    for (size_t i = 0; i < roots.size(); ++i) deliver_locked(roots[i], std::move(grads[i]));
  }

  // Runs until every queued node ran or one threw; rethrows that.
  void run() {
    if (serial_) {
      // Note [Serial backward]: every node runs here, in order, and the
      // first exception simply propagates.
      if (devices_.empty()) return;
      // The caller's own state, with the pass's grad mode, for every node.
      ThreadLocalState state = caller_state_;
      state.grad_enabled = create_graph_;
      ThreadLocalStateGuard state_guard(state);
      running_serial_ = true;
      ReadyQueue& ready = devices_.front().ready;
      while (!ready.empty()) {
        NodeTask task = ready.pop();
        run_node(task);
      }
      return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      news_.store(false, std::memory_order_relaxed);
      if (error_ == nullptr && outstanding_ > 0) {
        ReadyQueue* queue = inline_queue_locked();
        if (queue != nullptr) {
          NodeTask task = queue->pop();
          lock.unlock();
          execute(std::move(task));
          lock.lock();
          continue;
        }
      }
      if ((outstanding_ == 0 || error_ != nullptr) && active_workers_ == 0) break;
      wait(lock);
    }
    join_gpu_streams_locked();
    if (error_ != nullptr) std::rethrow_exception(error_);
  }

  variable_list& results() { return results_; }

 private:
  // Sleeps until notify_locked(); an executor's thread runs its queued work
  // meanwhile. news_ was cleared under the lock before the caller looked at
  // the state, so a change made after that look is never missed.
  void wait(std::unique_lock<std::mutex>& lock) {
    if (caller_executor_ == nullptr) {
      // Note [Spin before sleeping]: another device's nodes usually finish
      // within microseconds. news_ is only set under the lock, so checking
      // it again under the lock before sleeping misses no notification.
      lock.unlock();
      torchlet::detail::spin_helping_until(
          [this] { return news_.load(std::memory_order_acquire); }, kSpinBetweenTasks);
      lock.lock();
      if (!news_.load(std::memory_order_relaxed)) done_.wait(lock);
      return;
    }
    lock.unlock();
    caller_executor_->help_until([this] { return news_.load(std::memory_order_acquire); });
    lock.lock();
  }

  // Locks mutex_ unless the pass is serial (Note [Serial backward]).
  class TaskLock {
   public:
    explicit TaskLock(GraphTask& task) : mutex_(task.serial_ ? nullptr : &task.mutex_) {
      if (mutex_ != nullptr) mutex_->lock();
    }
    ~TaskLock() {
      if (mutex_ != nullptr) mutex_->unlock();
    }
    TaskLock(const TaskLock&) = delete;
    TaskLock& operator=(const TaskLock&) = delete;

   private:
    std::mutex* mutex_;
  };

  // Tells the waiting caller the state changed. Call with mutex_ held.
  void notify_locked() {
    news_.store(true, std::memory_order_release);
    done_.notify_all();
    if (caller_executor_ != nullptr) caller_executor_->wake();
  }

  // The queue of `device`, made on first use. The caller's current device
  // runs on the caller: no thread hop for single-device training. So does
  // the device whose executor the caller is (whatever its current device):
  // that executor is busy waiting here. Call with mutex_ held; the
  // reference lasts until the lock is released.
  DeviceQueue& queue_of_locked(Device device) {
    for (DeviceQueue& q : devices_) {
      if (q.device == device) return q;
    }
    DeviceQueue& q = devices_.emplace_back();
    q.device = device;
    q.runs_inline = device == caller_state_.device || device_executor(device).is_current_thread();
    return q;
  }

  // A non-empty queue the caller runs itself, or null.
  ReadyQueue* inline_queue_locked() {
    for (DeviceQueue& q : devices_) {
      if (q.runs_inline && !q.ready.empty()) return &q.ready;
    }
    return nullptr;
  }

  void enqueue_locked(NodeTask task) {
    const Device device = task.node->device();
    DeviceQueue& queue = queue_of_locked(device);
    queue.ready.push(std::move(task));
    ++outstanding_;
    if (queue.runs_inline) {
      if (!serial_) notify_locked();
      return;
    }
    if (queue.draining) return;
    queue.draining = true;
    ++active_workers_;
    auto self = shared_from_this();
    try {
      device_executor(device).submit([self, device] { self->drain(device); });
    } catch (...) {
      // Nothing was queued (a task that could not be allocated): the pass
      // fails with that error rather than wait for a worker that never runs.
      queue.draining = false;
      --active_workers_;
      if (error_ == nullptr) error_ = std::current_exception();
      notify_locked();
    }
  }

  // An executor's loop: run this device's ready nodes until none is left.
  void drain(Device device) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ReadyQueue& ready = queue_of_locked(device).ready;
      if (ready.empty() || error_ != nullptr) break;
      NodeTask task = ready.pop();
      lock.unlock();
      execute(std::move(task));
      lock.lock();
    }
    queue_of_locked(device).draining = false;
    --active_workers_;
    notify_locked();
  }

  // Runs a queued node of a parallel pass. A node that returns counts
  // itself done under the lock it delivered its gradients under
  // (node_done_locked); one that throws, here.
  void execute(NodeTask task) {
    try {
      run_node(task);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (error_ == nullptr) error_ = std::current_exception();
      --outstanding_;
      notify_locked();
    }
  }

  // Note [Waking the caller]: a node of a parallel pass that ran counts
  // itself done, and wakes the waiting caller only when that was the last
  // one; the caller is also woken when a node is queued for it to run
  // (enqueue_locked), when a worker stops (drain) and on an error. Waking
  // it after every node of another device's executor made it take the
  // lock, which that executor takes to deliver each node's gradients, once
  // per node: in a DataParallel backward over two CPU devices the lock's
  // line then crossed between the cores a few times a node. Call with
  // mutex_ held, last, after every delivery succeeded.
  void node_done_locked() {
    if (serial_) return;
    if (--outstanding_ == 0) notify_locked();
  }

  // Runs a node with the caller's state, its device and the pass's grad
  // mode (a serial pass set them once for all its nodes).
  void run_node(NodeTask& task) {
    if (serial_) return run_node_here(task);
    ThreadLocalState state = caller_state_;
    state.device = task.node->device();
    state.grad_enabled = create_graph_;
    ThreadLocalStateGuard state_guard(state);
    // Each device's nodes run on their own thread: replicas of a
    // DataParallel backward (Note [Replicas that finish first help]).
    torchlet::detail::ReplicaScope replica;
    wait_for(task.waits, state.device);
    run_node_here(task);
  }

  // Makes this thread's work on `at` (a GPU: its current stream; the CPU:
  // the host) wait for `waits`.
  static void wait_for(const StreamWaits& waits, Device at) {
    for (const std::shared_ptr<cuda::Event>& made : waits) {
      if (at.is_cuda()) {
        made->wait(cuda::current_stream(at.index));
      } else {
        made->synchronize();  // a CPU node reads a GPU gradient from the host
      }
    }
  }

  // Note [Streams]: once every node ran, the caller's work on each GPU
  // whose nodes ran on its executor waits for what they queued there. Call
  // with mutex_ held, after the last worker finished.
  void join_gpu_streams_locked() {
    for (const DeviceQueue& q : devices_) {
      if (q.runs_inline || !q.device.is_cuda()) continue;
      try {
        device_executor(q.device).join_stream();
      } catch (...) {
        if (error_ == nullptr) error_ = std::current_exception();
      }
    }
  }

  void run_node_here(NodeTask& task) {
    Node& node = *task.node;
    const bool materialize = node.materializes_grads();
    for (uint32_t i = 0; i < task.grads.size(); ++i) {
      if (!task.grads[i].defined()) {
        if (!materialize) continue;  // the node takes undefined gradients
        task.grads[i] = node.zeros_for_output(i);
      }
      task.grads[i] = node.run_output_hooks(i, std::move(task.grads[i]));
    }
    if (!captures_.empty() && captured_nodes_.count(&node)) {
      TaskLock lock(*this);
      for (uint32_t i = 0; i < task.grads.size(); ++i) {
        auto it = captures_.find({&node, i});
        if (it != captures_.end()) results_[it->second] = task.grads[i];
      }
      if (dynamic_cast<AccumulateGrad*>(&node) != nullptr) {
        node_done_locked();
        return;
      }
    }
    variable_list outputs = node.apply(std::move(task.grads));
    if (!retain_graph_) node.release_variables();
    const std::vector<Edge>& edges = node.next_edges();
    TORCHLET_CHECK(outputs.size() == edges.size(), node.name(),
                   " returned ", outputs.size(), " gradients but has ", edges.size(), " inputs");
    // A gradient on a GPU handed to another device's node (so to another
    // thread, and stream): that node waits for an event after the work
    // this thread queued on that GPU (Note [Streams]).
    absl::InlinedVector<std::shared_ptr<cuda::Event>, 2> made;  // empty: none crossed
    if (!serial_) {
      for (size_t i = 0; i < outputs.size(); ++i) {
        const Edge& e = edges[i];
        if (!e.valid() || !outputs[i].defined() || e.fn->device() == node.device()) continue;
        const Device at = outputs[i].device();
        if (!at.is_cuda()) continue;
        if (made.empty()) made.resize(outputs.size());
        made[i] = std::make_shared<cuda::Event>();
        made[i]->record(cuda::current_stream(at.index));
      }
    }
    TaskLock lock(*this);
    // A node that left its gradients' vector in place gives it to the next
    // node that gathers gradients: one allocation fewer a node.
    if (task.grads.capacity() != 0) {
      task.grads.clear();
      spare_grads_.push_back(std::move(task.grads));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (edges[i].valid()) {
        deliver_locked(edges[i], std::move(outputs[i]), made.empty() ? nullptr : made[i]);
      }
    }
    node_done_locked();
  }

  const bool retain_graph_;
  const bool create_graph_;
  const ThreadLocalState caller_state_;
  Executor* const caller_executor_;  // null unless called on an executor's thread
  // Every node of the pass is on the caller's device (Note [Serial backward]).
  bool serial_ = false;
  // Set once a serial pass's loop runs (with the pass's state installed):
  // from then on a ready AccumulateGrad runs at once.
  bool running_serial_ = false;

  std::mutex mutex_;
  std::condition_variable done_;
  std::atomic<bool> news_{false};
  absl::flat_hash_map<Node*, NodeState, absl::Hash<Node*>, std::equal_to<Node*>,
                      CachedAllocator<std::pair<Node* const, NodeState>>>
      nodes_;
  // Emptied gradient vectors of nodes that ran, for reuse.
  absl::InlinedVector<variable_list, 4> spare_grads_;
  // One a device the pass touched; few, so searched in order.
  absl::InlinedVector<DeviceQueue, 2> devices_;
  int outstanding_ = 0;
  int active_workers_ = 0;
  std::exception_ptr error_;

  std::map<std::pair<Node*, uint32_t>, size_t> captures_;
  std::unordered_set<Node*> captured_nodes_;
  std::unordered_set<Node*> needed_;
  variable_list results_;
};

// Root edges and their seed gradients.
std::pair<std::vector<Edge>, variable_list> roots_of(const variable_list& outputs,
                                                      const variable_list& grad_outputs) {
  TORCHLET_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
                 "backward: got ", grad_outputs.size(), " gradients for ", outputs.size(),
                 " outputs");
  std::vector<Edge> edges;
  variable_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Variable& out = outputs[i];
    TORCHLET_CHECK(out.defined(), "backward: output ", i, " is undefined");
    TORCHLET_CHECK(out.requires_grad(), "element ", i,
                   " of tensors does not require grad and does not have a grad_fn");
    Variable g = i < grad_outputs.size() ? grad_outputs[i] : Variable();
    if (!g.defined()) {
      TORCHLET_CHECK(out.numel() == 1,
                     "grad can be implicitly created only for scalar outputs (got an output of "
                     "shape ", shape_str(out.sizes()), ")");
      g = Variable(ones_like(out.data()));
    } else {
      TORCHLET_CHECK(g.sizes() == out.sizes(), "backward: the gradient of shape ",
                     shape_str(g.sizes()), " does not match output ", i, " of shape ",
                     shape_str(out.sizes()));
      // As PyTorch's engine does for every gradient it passes on: a seed of
      // another dtype is converted to the output's.
      if (g.dtype() != out.dtype()) g = g.to(out.dtype());
    }
    edges.push_back(gradient_edge(out));
    grads.push_back(std::move(g));
  }
  return {std::move(edges), std::move(grads)};
}

std::shared_ptr<GraphTask> new_task(bool retain_graph, bool create_graph) {
  return std::allocate_shared<GraphTask>(CachedAllocator<GraphTask>(), retain_graph, create_graph);
}

}  // namespace

void backward(const variable_list& outputs, const variable_list& grad_outputs,
              std::optional<bool> retain_graph, bool create_graph) {
  auto [edges, grads] = roots_of(outputs, grad_outputs);
  auto task = new_task(retain_graph.value_or(create_graph), create_graph);
  task->prepare(edges);
  task->deliver_roots(edges, std::move(grads));
  task->run();
}

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, std::optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  auto [edges, grads] = roots_of(outputs, grad_outputs);
  auto task = new_task(retain_graph.value_or(create_graph), create_graph);
  task->results().resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    TORCHLET_CHECK(inputs[i].defined() && inputs[i].requires_grad(), "grad: input ", i,
                   " does not require grad");
    task->capture(gradient_edge(inputs[i]), i);
  }
  task->prepare(edges);
  task->deliver_roots(edges, std::move(grads));
  task->run();
  variable_list results = std::move(task->results());
  for (size_t i = 0; i < results.size(); ++i) {
    TORCHLET_CHECK(results[i].defined() || allow_unused,
                   "grad: One of the differentiated Variables (input ", i,
                   ") appears to not have been used in the graph. Set allow_unused=true if this "
                   "is the desired behavior.");
  }
  return results;
}

}  // namespace torchlet::autograd
