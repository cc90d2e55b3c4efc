// DataParallel on CPU devices: one SGD step (momentum 0.9, cross-entropy,
// batch 256) through DataParallel over 1 device using one core (/1) and
// over 2 devices using one core each (/2), the plain module on one device
// with 2 intra-op threads for comparison, and the parallel overhead alone:
// replicate, and scatter + gather of the step's batch and logits; and two
// references for /2: one core alone at half the batch, and two unrelated
// models stepping at once on the two cores. Measure with --benchmark_repetitions=3
// and compare ratios within one run.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>

#include "benchmark/benchmark.h"
#include "examples/lenet.h"
#include "nn/functional/functional.h"
#include "nn/optim/optim.h"
#include "parallel/device_tasks.h"
#include "parallel/parallel.h"
#include "tensor/parallel.h"

namespace torchlet::parallel {
namespace {

constexpr int64_t kBatch = 256;

// Every benchmark here trains one fixed batch, thousands of steps in a row
// over --benchmark_min_time of a few seconds, until the loss nears zero and
// the momentum buffers and gradients decay into subnormal floats, which
// x86 computes up to 100 times slower: the /2 step's optimizer took 185 us
// instead of 30 after 4700 steps (5 s), and since DataParallel runs the
// optimizer on one core where the plain module splits it over two, the
// turns below read DataParallel 3-5% slower than it is. Training on new
// batches, as the example does, keeps away from them, and so does flushing
// them to zero, as torch.set_flush_denormal(True) does, on every thread
// these benchmarks hand work to (Note [Threading model]).
const bool kFlushDenormal = set_flush_denormal(true);

/// The model every benchmark here trains: LeNet-5.
nn::Sequential make_model() { return examples::make_lenet(); }

Variable batch(int64_t n = kBatch) { return Variable(randn({n, 1, 28, 28})); }
Variable targets(int64_t n = kBatch) { return Variable(randint(0, 10, {n})); }

/// `devices` CPU devices, each with its share (one core on two cores) of
/// the intra-op threads.
std::vector<DeviceId> setup_devices(int devices) {
  set_cpu_device_count(2);
  set_num_threads(0);
  std::vector<DeviceId> ids;
  for (int i = 0; i < devices; ++i) ids.emplace_back(Device(kCPU, i));
  return ids;
}

/// CPU seconds used so far by every thread of the process: on a busy
/// machine, where wall times drift, this shows whether work was added.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

template <typename Model>
void train_steps(benchmark::State& state, Model& model, const std::vector<Variable>& params,
                 int64_t batch_size = kBatch) {
  const Variable x = batch(batch_size), y = targets(batch_size);
  optim::SGD opt(params, optim::SGDOptions(0.01).momentum(0.9));
  const double cpu_start = process_cpu_seconds();
  using Clock = std::chrono::steady_clock;
  Clock::duration forward{}, backward{}, stepping{};
  for (auto _ : state) {
    opt.zero_grad();
    const Clock::time_point start = Clock::now();
    const Variable loss = nn::functional::cross_entropy(model(x), y);
    const Clock::time_point forwarded = Clock::now();
    loss.backward();
    const Clock::time_point backwarded = Clock::now();
    opt.step();
    const Clock::time_point stepped = Clock::now();
    forward += forwarded - start;
    backward += backwarded - forwarded;
    stepping += stepped - backwarded;
    benchmark::DoNotOptimize(loss.item<float>());
  }
  // The phases of a step: the forward with the loss, backward, and the
  // optimizer's step, in microseconds.
  const auto per_step = [&state](Clock::duration d) {
    return benchmark::Counter(std::chrono::duration<double, std::micro>(d).count() /
                              static_cast<double>(state.iterations()));
  };
  state.counters["forward_us"] = per_step(forward);
  state.counters["backward_us"] = per_step(backward);
  state.counters["optimizer_us"] = per_step(stepping);
  state.counters["process_cpu_ms"] = benchmark::Counter(
      (process_cpu_seconds() - cpu_start) * 1e3 / static_cast<double>(state.iterations()));
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(batch_size * state.iterations()), benchmark::Counter::kIsRate);
}

/// One SGD step of `make_model()`'s model at `batch_size` through
/// DataParallel over state.range(0) devices, one core each.
void data_parallel_steps(benchmark::State& state, nn::Sequential (*make_model)(),
                         int64_t batch_size) {
  manual_seed(0);
  const std::vector<DeviceId> ids = setup_devices(static_cast<int>(state.range(0)));
  nn::Sequential net = make_model();
  DataParallel dp(net, ids);
  train_steps(state, dp, net->parameters(), batch_size);
  set_cpu_device_count(1);
}

/// The same step on the plain model, one device with both cores as
/// intra-op threads.
void plain_two_thread_steps(benchmark::State& state, nn::Sequential (*make_model)(),
                            int64_t batch_size) {
  manual_seed(0);
  set_cpu_device_count(1);
  set_num_threads(2);
  nn::Sequential net = make_model();
  train_steps(state, net, net->parameters(), batch_size);
  set_num_threads(0);
}

void BM_DataParallelLenetStep(benchmark::State& state) {
  data_parallel_steps(state, make_model, kBatch);
}
BENCHMARK(BM_DataParallelLenetStep)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same step at the examples' batch of 64 (32 rows a device on two):
// the per-step cost of scatter, replicate, the hand-overs between threads
// and gather weighs four times as much as at 256.
void BM_DataParallelLenetStepBatch64(benchmark::State& state) {
  data_parallel_steps(state, make_model, 64);
}
BENCHMARK(BM_DataParallelLenetStepBatch64)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_PlainLenetStepTwoThreadsBatch64(benchmark::State& state) {
  plain_two_thread_steps(state, make_model, 64);
}
BENCHMARK(BM_PlainLenetStepTwoThreadsBatch64)->UseRealTime()->Unit(benchmark::kMillisecond);

// The 784-512-512-10 MLP (670k parameters) at the examples' batch of 64,
// through DataParallel on 1 and 2 devices and plain on both cores through
// intra-op threads: a model whose step moves more parameter and gradient
// bytes between the cores than it computes, unlike LeNet-5.
void BM_DataParallelMlpStepBatch64(benchmark::State& state) {
  data_parallel_steps(state, examples::make_mlp, 64);
}
BENCHMARK(BM_DataParallelMlpStepBatch64)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_PlainMlpStepTwoThreadsBatch64(benchmark::State& state) {
  plain_two_thread_steps(state, examples::make_mlp, 64);
}
BENCHMARK(BM_PlainMlpStepTwoThreadsBatch64)->UseRealTime()->Unit(benchmark::kMillisecond);

// The plain module on one core at the given batch: at half the step's batch
// it is what each replica of /2 would take with no parallel cost at all.
void BM_PlainLenetStepOneThread(benchmark::State& state) {
  manual_seed(0);
  set_cpu_device_count(1);
  set_num_threads(1);
  nn::Sequential net = make_model();
  train_steps(state, net, net->parameters(), state.range(0));
  set_num_threads(0);
}
BENCHMARK(BM_PlainLenetStepOneThread)->Arg(32)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);

// A reference for /2 at batch 64: two independent models, one a device,
// each taking a whole step of its own at batch 32 at the same time, with no
// scatter, replicate, gather or gradient reduction between them. It is not
// a ceiling: each step waits for the slower of the two, and nothing helps it
// (Note [Replicas that finish first help] in tensor/parallel.cc), so where
// the two cores' speeds drift apart it can read slower than /2 itself.
void BM_TwoIndependentLenetStepsBatch32(benchmark::State& state) {
  manual_seed(0);
  setup_devices(2);
  const std::vector<Device> devices{Device(kCPU, 0), Device(kCPU, 1)};
  std::vector<nn::Sequential> nets;
  std::vector<std::unique_ptr<optim::SGD>> opts;
  std::vector<Variable> xs, ys;
  for (Device d : devices) {
    DeviceGuard guard(d);
    nets.push_back(make_model());
    nets.back()->to(d);
    opts.push_back(std::make_unique<optim::SGD>(nets.back()->parameters(),
                                                optim::SGDOptions(0.01).momentum(0.9)));
    xs.push_back(Variable(randn({32, 1, 28, 28}).to(d)));
    ys.push_back(Variable(randint(0, 10, {32}).to(d)));
  }
  for (auto _ : state) {
    detail::run_on_devices(devices, [&](size_t i) {
      opts[i]->zero_grad();
      const Variable loss = nn::functional::cross_entropy(nets[i](xs[i]), ys[i]);
      loss.backward();
      opts[i]->step();
      benchmark::DoNotOptimize(loss.item<float>());
    });
  }
  set_cpu_device_count(1);
}
BENCHMARK(BM_TwoIndependentLenetStepsBatch32)->UseRealTime()->Unit(benchmark::kMillisecond);

// The plain module on one device that uses both cores for intra-op threads.
void BM_PlainLenetStepTwoThreads(benchmark::State& state) {
  plain_two_thread_steps(state, make_model, kBatch);
}
BENCHMARK(BM_PlainLenetStepTwoThreads)->UseRealTime()->Unit(benchmark::kMillisecond);

/// Steps taken in alternating turns of kTurn steps by two ways (0 and 1),
/// the first two steps of each turn not timed, so that both ways see the
/// same minutes of a shared host.
class Turns {
 public:
  static constexpr int64_t kTurn = 16;

  /// The way the next step takes.
  int way() const { return static_cast<int>((step_ / kTurn) % 2); }
  /// Counts the step of way() that started at `start`.
  void done(std::chrono::steady_clock::time_point start) {
    if (step_ % kTurn >= 2) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      seconds_[way()] += took.count();
      ++timed_[way()];
    }
    ++step_;
  }
  /// Whether each way has a timed step.
  bool both_timed() const { return timed_[0] > 0 && timed_[1] > 0; }
  /// The mean seconds of a timed step of `way`.
  double mean(int way) const { return seconds_[way] / static_cast<double>(timed_[way]); }
  /// The steps taken, timed or not.
  int64_t steps() const { return step_; }

 private:
  int64_t step_ = 0;
  double seconds_[2] = {0, 0};
  int64_t timed_[2] = {0, 0};
};

/// One SGD step of `model` on (x, y): what every turn-taking benchmark times.
template <typename Model>
void sgd_step(Model& model, optim::SGD& opt, const Variable& x, const Variable& y) {
  opt.zero_grad();
  const Variable loss = nn::functional::cross_entropy(model(x), y);
  loss.backward();
  opt.step();
  benchmark::DoNotOptimize(loss.item<float>());
}

// Notes [Idle devices lend their cores] and [Replicas that finish first
// help] (tensor/parallel.cc) measured within one process: the /2 step (at
// batch 64 unless given) with lending and helping on and off in turns of
// 16 steps (the first two of each turn not timed), so that both see the
// same minutes of a shared host. With them on, DataParallel's StepPolicy
// decides step by step whether the replicas help (Note [Receivers copy]).
// Counters: lending_over_not, the step's time with them over its time
// without; on_ms, off_ms, each; lent_chunks_per_step, the chunks other
// threads ran for a step's loops, over the steps with them; helped_share,
// the share of those steps whose replicas helped one another.
void lending_turns(benchmark::State& state, nn::Sequential (*make_model)(),
                   int64_t batch_size = 64) {
  manual_seed(0);
  const std::vector<DeviceId> ids = setup_devices(2);
  nn::Sequential net = make_model();
  DataParallel dp(net, ids);
  const Variable x = batch(batch_size), y = targets(batch_size);
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  Turns turns;
  const int64_t lent_before = ::torchlet::detail::lent_chunks_run();
  int64_t helped = 0, on_steps = 0;
  for (auto _ : state) {
    const bool on = turns.way() == 1;
    ::torchlet::detail::set_lending_enabled(on);
    const auto start = std::chrono::steady_clock::now();
    sgd_step(dp, opt, x, y);
    turns.done(start);
    if (on) {
      ++on_steps;
      helped += ::torchlet::detail::replicas_help_enabled() ? 1 : 0;
    }
  }
  ::torchlet::detail::set_lending_enabled(true);
  ::torchlet::detail::set_replicas_help(true);
  if (turns.both_timed()) {
    const double off = turns.mean(0);
    const double on = turns.mean(1);
    state.counters["on_ms"] = on * 1e3;
    state.counters["off_ms"] = off * 1e3;
    state.counters["lending_over_not"] = on / off;
    state.counters["lent_chunks_per_step"] =
        static_cast<double>(::torchlet::detail::lent_chunks_run() - lent_before) /
        static_cast<double>(turns.steps() / 2);
    state.counters["helped_share"] =
        static_cast<double>(helped) / static_cast<double>(std::max<int64_t>(on_steps, 1));
  }
  set_cpu_device_count(1);
}

void BM_DataParallelMlpLendingTurns(benchmark::State& state) {
  lending_turns(state, examples::make_mlp);
}
BENCHMARK(BM_DataParallelMlpLendingTurns)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(8);

// At batch 2 (one sample per device), 64 and 256.
void BM_DataParallelLenetLendingTurns(benchmark::State& state) {
  lending_turns(state, make_model, state.range(0));
}
BENCHMARK(BM_DataParallelLenetLendingTurns)
    ->Arg(2)
    ->Arg(64)
    ->Arg(kBatch)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(8);

// The /2 step against the plain module on one device with both cores as
// intra-op threads, in one process, in turns of 16 steps (the first two of
// each turn not timed), at state.range(0) examples: separate benchmarks
// run minutes apart, and on a shared host that drift is larger than the
// difference. Counters: dp_over_plain, the /2 step's time over the plain
// step's; dp_ms, plain_ms, each.
void BM_DataParallelOverPlainLenetTurns(benchmark::State& state) {
  manual_seed(0);
  const std::vector<DeviceId> ids = setup_devices(2);
  nn::Sequential replicated = make_model(), plain = make_model();
  DataParallel dp(replicated, ids);
  optim::SGD opt_dp(replicated->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  optim::SGD opt_plain(plain->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  const Variable x = batch(state.range(0)), y = targets(state.range(0));
  Turns turns;
  for (auto _ : state) {
    const int on_plain = turns.way();
    // Plain turns: cpu:0 with both cores as intra-op threads (a set thread
    // count also turns lending and helping off); otherwise one core each.
    set_num_threads(on_plain == 1 ? 2 : 0);
    const auto start = std::chrono::steady_clock::now();
    if (on_plain == 1) {
      sgd_step(plain, opt_plain, x, y);
    } else {
      sgd_step(dp, opt_dp, x, y);
    }
    turns.done(start);
  }
  if (turns.both_timed()) {
    const double dp_s = turns.mean(0);
    const double plain_s = turns.mean(1);
    state.counters["dp_ms"] = dp_s * 1e3;
    state.counters["plain_ms"] = plain_s * 1e3;
    state.counters["dp_over_plain"] = dp_s / plain_s;
  }
  set_num_threads(0);
  set_cpu_device_count(1);
}
BENCHMARK(BM_DataParallelOverPlainLenetTurns)
    ->Arg(64)
    ->Arg(kBatch)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(8);

// The /2 step taken apart: the share of its wall time spent in scatter,
// replicate and gather (overhead_share, replicate_share), in the replicas'
// forward and in backward, in the optimizer step, and on the caller alone
// (serial_share).
void data_parallel_step_breakdown(benchmark::State& state, nn::Sequential (*make_model)()) {
  using Clock = std::chrono::steady_clock;
  manual_seed(0);
  setup_devices(2);
  const std::vector<Device> devices{Device(kCPU, 0), Device(kCPU, 1)};
  nn::Sequential net = make_model();
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  const int64_t batch_size = state.range(0);
  const Variable x = batch(batch_size), y = targets(batch_size);
  Clock::duration total{}, overhead{}, replicating{}, applying{}, backward{}, optimizer{}, serial{};
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    opt.zero_grad();
    const std::vector<std::tuple<Variable>> inputs = scatter(std::make_tuple(x), devices);
    const Clock::time_point scattered = Clock::now();
    const auto replicas = replicate(net.ptr(), devices);
    const Clock::time_point replicated = Clock::now();
    const std::vector<Variable> outputs = parallel_apply(replicas, inputs, {}, devices);
    const Clock::time_point applied = Clock::now();
    const Variable logits = gather(outputs, devices[0]);
    const Clock::time_point gathered = Clock::now();
    const Variable loss = nn::functional::cross_entropy(logits, y);
    const Clock::time_point lossed = Clock::now();
    loss.backward();
    const Clock::time_point backwarded = Clock::now();
    opt.step();
    const Clock::time_point stepped = Clock::now();
    benchmark::DoNotOptimize(loss.item<float>());
    const Clock::time_point end = Clock::now();
    total += end - start;
    replicating += replicated - scattered;
    overhead += (replicated - start) + (gathered - applied);
    applying += applied - replicated;
    backward += backwarded - lossed;
    optimizer += stepped - backwarded;
    serial += (replicated - start) + (lossed - applied) + (end - backwarded);
  }
  const auto share = [&](Clock::duration d) {
    return static_cast<double>(d.count()) / static_cast<double>(total.count());
  };
  state.counters["overhead_share"] = share(overhead);
  state.counters["replicate_share"] = share(replicating);
  state.counters["forward_share"] = share(applying);
  state.counters["backward_share"] = share(backward);
  state.counters["optimizer_share"] = share(optimizer);
  // Everything the caller does alone: zero_grad, scatter, replicate,
  // gather, the loss, the optimizer step.
  state.counters["serial_share"] = share(serial);
  set_cpu_device_count(1);
}

// At batch 256 and 64.
void BM_DataParallelLenetStepBreakdown(benchmark::State& state) {
  data_parallel_step_breakdown(state, make_model);
}
BENCHMARK(BM_DataParallelLenetStepBreakdown)->Arg(kBatch)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);

// The MLP's step at batch 64, where moving parameters and gradients
// between the cores weighs most.
void BM_DataParallelMlpStepBreakdown(benchmark::State& state) {
  data_parallel_step_breakdown(state, examples::make_mlp);
}
BENCHMARK(BM_DataParallelMlpStepBreakdown)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);

// replicate() of the model onto 2 devices, kept replicas re-bound. Its copy
// for cpu:1 streams to memory (Note [Copies for another core] in
// tensor/cpu/copy_kernel.cc), which nothing here reads back: in a step
// cpu:1's replica does.
void BM_DataParallelReplicate(benchmark::State& state) {
  manual_seed(0);
  setup_devices(2);
  nn::Sequential net = make_model();
  const std::vector<Device> devices{Device(kCPU, 0), Device(kCPU, 1)};
  for (auto _ : state) benchmark::DoNotOptimize(replicate(net, devices).size());
  set_cpu_device_count(1);
}
BENCHMARK(BM_DataParallelReplicate)->UseRealTime()->Unit(benchmark::kMicrosecond);

// The reduction of LeNet-5's gradients from 2 devices onto the first, as
// the backward of replicate's broadcast runs it each step.
void BM_DataParallelReduceGradients(benchmark::State& state) {
  manual_seed(0);
  setup_devices(2);
  nn::Sequential net = make_model();
  std::vector<std::vector<Tensor>> grads(2);
  for (const Variable& p : net->parameters()) {
    grads[0].push_back(randn(p.sizes()));
    grads[1].push_back(randn(p.sizes()).to(Device(kCPU, 1)));
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(comm::reduce_add_coalesced(grads, Device(kCPU, 0)).size());
  }
  set_cpu_device_count(1);
}
BENCHMARK(BM_DataParallelReduceGradients)->UseRealTime()->Unit(benchmark::kMicrosecond);

// What a step adds beside replicate, over 2 devices: scatter of the step's
// batch (which, as in training, requires no gradient), and gather of the
// replicas' logits with backward through it, which scatters the logits'
// gradient back to the devices. Outside DataParallel's step, so the caller
// makes the copy for cpu:1 itself (Note [Receivers copy]).
void BM_DataParallelScatterGather(benchmark::State& state) {
  manual_seed(0);
  setup_devices(2);
  const std::vector<Device> devices{Device(kCPU, 0), Device(kCPU, 1)};
  const Variable x(randn({kBatch, 1, 28, 28}));
  variable_list logits;
  for (Device d : devices) logits.emplace_back(randn({kBatch / 2, 10}).to(d), true);
  for (auto _ : state) {
    const variable_list parts = scatter(x, devices);
    benchmark::DoNotOptimize(parts.back().data().data_ptr());
    const Variable out = gather(logits, devices[0]);
    out.sum().backward();
    benchmark::DoNotOptimize(logits.back().grad().data().data_ptr());
  }
  set_cpu_device_count(1);
}
BENCHMARK(BM_DataParallelScatterGather)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace torchlet::parallel
