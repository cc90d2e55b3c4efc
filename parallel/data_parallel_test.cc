// DataParallel and data_parallel against the plain module, on 2, 3 and 4
// CPU devices: the behaviours PyTorch's test_data_parallel.py and
// test/cpp/api/parallel.cpp cover.
#include "parallel/data_parallel.h"

#include <atomic>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "autograd/engine.h"
#include "autograd/gradcheck.h"
#include "tensor/executor.h"
#include "nn/optim/optim.h"
#include "parallel/testing.h"
#include "tensor/test_util.h"

namespace torchlet::parallel {
namespace {

namespace F = nn::functional;
using ::torchlet::testing::all_close;
using testing::leaf;

/// A float64 MLP: Linear(3, 5) - Tanh - Linear(5, 4).
nn::Sequential mlp() {
  nn::Sequential seq(nn::Linear(3, 5), nn::Tanh(), nn::Linear(5, 4));
  seq->to(kFloat64);
  return seq;
}

/// A deep copy of `seq` (the plain module to compare with).
nn::Sequential copy_of(const nn::Sequential& seq) {
  return nn::Sequential(std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone()));
}

template <typename M>
std::shared_ptr<M> to_double(std::shared_ptr<M> m) {
  m->to(kFloat64);
  return m;
}

::testing::AssertionResult same_grads(const nn::Module& a, const nn::Module& b) {
  const std::vector<Variable> pa = a.parameters(), pb = b.parameters();
  for (size_t i = 0; i < pa.size(); ++i) {
    if (!pa[i].grad().defined() || !pb[i].grad().defined()) {
      return ::testing::AssertionFailure() << "parameter " << i << " has no gradient";
    }
    auto r = all_close(pa[i].grad().data(), pb[i].grad().data(), 1e-9, 1e-12);
    if (!r) return r << " (parameter " << i << ")";
  }
  return ::testing::AssertionSuccess();
}

class DataParallelTest : public testing::OnDevices {
 protected:
  Device cpu(int i) const { return Device(kCPU, i); }
};

TEST_P(DataParallelTest, OutputAndGradientsMatchThePlainModule) {
  nn::Sequential seq = mlp();
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, device_ids());
  const Variable x = leaf({10, 3});
  const Variable y = dp(x);
  EXPECT_EQ(y.device(), cpu(0));
  const Variable expected = plain(x);
  EXPECT_TRUE(all_close(y.data(), expected.data(), 1e-12, 1e-12));
  (y * y).sum().backward();
  (expected * expected).sum().backward();
  EXPECT_TRUE(same_grads(*seq, *plain));
}

TEST_P(DataParallelTest, ConcurrentForwardsFromSeveralThreadsGiveThePlainModulesOutputs) {
  // Inference served from several threads through one DataParallel, as
  // through one plain module: each call's replicas are its own.
  nn::Sequential seq = mlp();
  DataParallel dp(seq, device_ids());
  constexpr int kThreads = 3;
  std::vector<Variable> xs;
  std::vector<Tensor> expected;
  for (int t = 0; t < kThreads; ++t) {
    xs.push_back(leaf({10, 3}, /*requires_grad=*/false, 0.1 * (t + 1)));
    NoGradGuard no_grad;
    expected.push_back(seq(xs.back()).data());
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      NoGradGuard no_grad;
      for (int i = 0; i < 30; ++i) {
        if (!all_close(dp(xs[t]).data(), expected[t], 1e-12, 1e-12)) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_P(DataParallelTest, ConcurrentTrainingStepsFromSeveralThreadsSumTheirGradients) {
  nn::Sequential seq = mlp();
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, device_ids());
  constexpr int kThreads = 3;
  std::vector<Variable> xs;
  for (int t = 0; t < kThreads; ++t) xs.push_back(leaf({10, 3}, /*requires_grad=*/false, 0.1 * (t + 1)));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { dp(xs[t]).pow(2).sum().backward(); });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) plain(xs[t]).pow(2).sum().backward();
  EXPECT_TRUE(same_grads(*seq, *plain));
}

/// Saves one buffer for backward (fc(x) * scale) and bumps another in
/// place in forward.
class ScaleAndCountImpl : public nn::Cloneable<ScaleAndCountImpl> {
 public:
  ScaleAndCountImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(3, 3));
    scale = register_buffer("scale", full({3}, 2.0));
    count = register_buffer("count", zeros({1}));
  }
  Variable forward(const Variable& x) {
    Variable y = fc(x) * scale;
    NoGradGuard no_grad;
    Tensor c = count.data();
    c.add_(1);
    return y;
  }
  nn::Linear fc{nullptr};
  Variable scale;
  Variable count;
};
TORCHLET_MODULE(ScaleAndCount);

TEST_P(DataParallelTest, AnInPlaceBufferUpdateLeavesTheReplicasOtherCopiesValidForBackward) {
  // Each replica's copies have version counters of their own, as PyTorch's
  // coalesced broadcast gives them.
  ScaleAndCount net;
  net->to(kFloat64);
  ScaleAndCount plain(std::dynamic_pointer_cast<ScaleAndCountImpl>(net->clone()));
  DataParallel dp(net, device_ids());
  const Variable x = leaf({8, 3}, /*requires_grad=*/false);
  dp(x).sum().backward();
  plain(x).sum().backward();
  EXPECT_TRUE(same_grads(*net, *plain));
}

TEST_P(DataParallelTest, MultipleInputs) {
  testing::TwoInputs net;
  net->to(kFloat64);
  DataParallel dp(net, device_ids());
  const Variable a = leaf({7, 3}), b = leaf({7, 2});
  EXPECT_TRUE(all_close(dp(a, b).data(), net->forward(a, b).data(), 1e-12, 1e-12));
}

TEST_P(DataParallelTest, DeviceOrders) {
  const Variable x = leaf({6, 3});
  for (const std::vector<DeviceId>& ids :
       std::vector<std::vector<DeviceId>>{{0, 1}, {1, 0}, {0}}) {
    nn::Sequential seq = mlp();
    seq->to(ids[0].device());
    const Variable expected = copy_of(seq)(Variable(x.data().to(ids[0].device())));
    DataParallel dp(seq, ids);
    const Variable y = dp(x);
    EXPECT_EQ(y.device(), ids[0].device());
    EXPECT_TRUE(all_close(y.data().to(cpu(0)), expected.data().to(cpu(0)), 1e-12, 1e-12));
  }
}

TEST_P(DataParallelTest, SmallBatchUsesFewerReplicas) {
  nn::Sequential seq = mlp();
  DataParallel dp(seq, device_ids());
  const Variable x = leaf({1, 3});
  const Variable y = dp(x);
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 4}));
  EXPECT_TRUE(all_close(y.data(), copy_of(seq)(x).data(), 1e-12, 1e-12));
  y.sum().backward();
  EXPECT_TRUE(seq->parameters()[0].grad().defined());
}

TEST_P(DataParallelTest, UnevenBatchesWork) {
  nn::Sequential seq = mlp();
  DataParallel dp(seq, device_ids());
  const Variable x = leaf({static_cast<int64_t>(count()) * 3 + 1, 3});
  EXPECT_TRUE(all_close(dp(x).data(), copy_of(seq)(x).data(), 1e-12, 1e-12));
}

TEST_P(DataParallelTest, NestedInputAndOutputTypesAreKept) {
  testing::NestedNet net;
  net->to(kFloat64);
  DataParallel dp(net, device_ids(), DeviceId(count() - 1));
  const std::vector<Variable> xs{leaf({9, 3}), leaf({9, 3}, true, 0.1)};
  const std::pair<Variable, double> scaled{leaf({9, 3}, true, -0.2), 0.5};
  const testing::Nested out = dp(xs, scaled);
  const testing::Nested expected = net->forward(xs, scaled);
  const Device last = cpu(count() - 1);
  EXPECT_EQ(std::get<0>(out).device(), last);
  EXPECT_TRUE(all_close(std::get<0>(out).data().to(cpu(0)), std::get<0>(expected).data(), 1e-12));
  ASSERT_EQ(std::get<1>(out).size(), 2u);
  EXPECT_TRUE(all_close(std::get<1>(out)[1].data().to(cpu(0)), std::get<1>(expected)[1].data()));
  EXPECT_TRUE(all_close(std::get<2>(out).at("square").data().to(cpu(0)),
                        std::get<2>(expected).at("square").data()));
}

TEST_P(DataParallelTest, AnLstmSplitAlongTheBatchDimensionOneMatchesThePlainModule) {
  // A sequence-first LSTM takes [time, batch, features] and returns
  // (output, (h_n, c_n)), each with the batch in dim 1: DataParallel with
  // dim = 1 scatters the input and gathers all three along it.
  auto lstm = to_double(std::make_shared<nn::LSTMImpl>(nn::LSTMOptions(3, 4).num_layers(2)));
  const auto plain = std::dynamic_pointer_cast<nn::LSTMImpl>(lstm->clone());
  DataParallel<nn::LSTMImpl> dp(lstm, device_ids(), std::nullopt, /*dim=*/1);
  const Variable x = leaf({5, static_cast<int64_t>(count()) * 2 + 1, 3});
  const auto [out, state] = dp(x);
  const auto [expected, expected_state] = plain->forward(x);
  EXPECT_TRUE(all_close(out.data(), expected.data(), 1e-12, 1e-12));
  EXPECT_TRUE(all_close(std::get<0>(state).data(), std::get<0>(expected_state).data(), 1e-12, 1e-12));
  EXPECT_TRUE(all_close(std::get<1>(state).data(), std::get<1>(expected_state).data(), 1e-12, 1e-12));
  (out.sum() + std::get<1>(state).sum()).backward();
  (expected.sum() + std::get<1>(expected_state).sum()).backward();
  EXPECT_TRUE(same_grads(*lstm, *plain));
}

TEST_P(DataParallelTest, ZeroInputsRunOnTheFirstDevice) {
  testing::NoInputNet net;
  DataParallel dp(net, device_ids());
  const Variable y = dp();
  EXPECT_EQ(y.device(), cpu(0));
  EXPECT_TRUE(all_close(y.data(), net->forward().data()));
}

TEST_P(DataParallelTest, KwargsAreScatteredLikeInputs) {
  testing::KwargsNet net;
  net->to(kFloat64);
  DataParallel dp(net, device_ids());
  const Variable x = leaf({8, 3});
  const testing::Kwargs kwargs{{"scale", leaf({8, 1})}, {"shift", leaf({8, 2}, true, 0.3)}};
  const Variable y = dp->forward_kwargs(kwargs, x);
  EXPECT_TRUE(all_close(y.data(), net->forward(x, kwargs).data(), 1e-12, 1e-12));
}

TEST_P(DataParallelTest, KwargsOnly) {
  testing::KwargsNet net;
  net->to(kFloat64);
  DataParallel dp(net, device_ids());
  const testing::Kwargs kwargs{{"x", leaf({5, 3})}};
  EXPECT_TRUE(all_close(dp->forward_kwargs(kwargs).data(), net->forward(kwargs).data(), 1e-12));
}

TEST_P(DataParallelTest, ScalarOutputsBecomeAVectorWithAWarningEachCall) {
  std::vector<std::string> warnings;
  testing::ScalarNet net;
  DataParallel dp(net, device_ids());
  Variable y;
  {
    WarningHandlerGuard guard([&warnings](const std::string& m) { warnings.push_back(m); });
    y = dp(Variable(ones({2 * count(), 3})));
    dp(Variable(ones({2 * count(), 3})));
  }
  EXPECT_EQ(y.sizes(), IntArrayRef({count()}));
  EXPECT_EQ(warnings, (std::vector<std::string>{kGatherScalarsWarning, kGatherScalarsWarning}));
}

TEST_P(DataParallelTest, ScalarOutputsWarningIsPrintedOnceByDefault) {
  testing::ScalarNet net;
  DataParallel dp(net, device_ids());
  ::testing::internal::CaptureStderr();
  dp(Variable(ones({2 * count(), 3})));
  dp(Variable(ones({2 * count(), 3})));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            std::string("UserWarning: ") + kGatherScalarsWarning + "\n");
}

/// forward(x) = x * 2, warning "forward on <device>" from its replica and
/// "backward on <device>" when its output's gradient is computed, and
/// recording the threads both ran on.
class WarningProbeImpl : public nn::Cloneable<WarningProbeImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& x) {
    record_thread();
    warn("forward on " + current_device().str());
    Variable y = x * 2;
    y.register_hook([this](const Variable& grad) {
      record_thread();
      warn("backward on " + current_device().str());
      return grad;
    });
    std::lock_guard<std::mutex> lock(*mutex);
    outputs->push_back(y);  // a hook runs while its Variable lives
    return y;
  }
  void record_thread() {
    std::lock_guard<std::mutex> lock(*mutex);
    threads->insert(std::this_thread::get_id());
  }
  std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
  std::shared_ptr<variable_list> outputs = std::make_shared<variable_list>();
  std::shared_ptr<std::set<std::thread::id>> threads = std::make_shared<std::set<std::thread::id>>();
};
TORCHLET_MODULE(WarningProbe);

TEST_P(DataParallelTest, WarningsFromReplicasAndTheirBackwardReachTheCallersGuard) {
  WarningProbe probe;
  DataParallel dp(probe, device_ids());
  std::multiset<std::string> warnings;
  {
    WarningHandlerGuard guard([&warnings](const std::string& m) { warnings.insert(m); });
    dp(leaf({2 * count(), 3})).sum().backward();
  }
  std::multiset<std::string> expected;
  for (Device d : devices()) {
    expected.insert("forward on " + d.str());
    expected.insert("backward on " + d.str());
  }
  EXPECT_EQ(warnings, expected);
  EXPECT_GT(probe->threads->size(), 1u);  // some came from other threads than the caller's
}

TEST_P(DataParallelTest, BufferUpdatesOnTheFirstDeviceAreKept) {
  testing::BufferNet net;
  DataParallel dp(net, device_ids());
  const Variable x(leaf({2 * count(), 3}, false).data().to(kFloat32));
  dp(x);
  const Tensor first_chunk = x.data().chunk(count())[0];
  EXPECT_TRUE(all_close(net->running.data(), first_chunk.mean({0}).mul(0.5)));
  EXPECT_EQ(net->calls.data().item<float>(), 1.0f);
}

TEST_P(DataParallelTest, WrongDeviceErrorAcrossPlacementsIsFixedByTo) {
  for (int param_device = 0; param_device < count(); ++param_device) {
    for (int buffer_device = 0; buffer_device < count(); ++buffer_device) {
      testing::BufferNet net;
      net->fc->to(cpu(param_device));
      net->running.set_data(net->running.data().to(cpu(buffer_device)));
      DataParallel dp(net, device_ids());
      const int wrong = param_device != 0 ? param_device : buffer_device;
      if (wrong == 0) {
        EXPECT_NO_THROW(dp(Variable(ones({count(), 3}))));
        continue;
      }
      EXPECT_THROW_MSG(dp(Variable(ones({count(), 3}))),
                       "module must have its parameters and buffers on device cpu:0 "
                       "(device_ids[0]) but found one of them on device: cpu:" +
                           std::to_string(wrong));
      dp->to(cpu(0));
      EXPECT_NO_THROW(dp(Variable(ones({count(), 3}))));
    }
  }
}

TEST_P(DataParallelTest, ExceptionsNameTheReplicaAndDeviceAndLeaveItUsable) {
  testing::ThrowingNet net(std::vector<int>{1});
  DataParallel dp(net, device_ids());
  EXPECT_THROW_MSG(dp(Variable(ones({count(), 3}))),
                   "Caught std::invalid_argument in replica 1 on device cpu:1.\nbad replica input");
  EXPECT_EQ(dp(Variable(ones({1, 3}))).sizes(), IntArrayRef({1, 2}));
}

TEST_P(DataParallelTest, NoGradIsCarriedIntoTheReplicas) {
  nn::Sequential seq = mlp();
  DataParallel dp(seq, device_ids());
  NoGradGuard no_grad;
  const Variable y = dp(leaf({2 * count(), 3}));
  EXPECT_FALSE(y.requires_grad());
  for (const auto& replica : replicate(seq.ptr(), devices(), /*detach=*/true)) {
    EXPECT_FALSE(replica->parameters()[0].requires_grad());
  }
}

TEST_P(DataParallelTest, OutputDevicePlacement) {
  for (int out = 0; out < count(); ++out) {
    nn::Sequential seq = mlp();
    DataParallel dp(seq, device_ids(), DeviceId(cpu(out)));
    EXPECT_EQ(dp(leaf({5, 3})).device(), cpu(out));
  }
  nn::Sequential seq = mlp();
  EXPECT_EQ(data_parallel(seq, leaf({5, 3}), device_ids(), DeviceId(-1)).device(), cpu(0));
}

TEST(DataParallelConstructionTest, MinusOneForTheCpuWarnsAsDeprecated) {
  std::vector<std::string> warnings;
  WarningHandlerGuard guard([&warnings](const std::string& m) { warnings.push_back(m); });
  EXPECT_EQ(DeviceId(-1).device(), Device(kCPU, 0));
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "Using -1 to represent CPU tensor is deprecated. Please use a device "
                          "object or string instead, e.g., \"cpu\"."}));
  warnings.clear();
  EXPECT_EQ(DeviceId("cpu").device(), Device(kCPU, 0));
  EXPECT_TRUE(warnings.empty());
}

TEST_P(DataParallelTest, ParametersAfterThreeSgdStepsMatchThePlainModule) {
  nn::Sequential seq = mlp();
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, device_ids());
  optim::SGD opt(seq->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  optim::SGD plain_opt(plain->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < 3; ++step) {
    const Variable x = leaf({11, 3}, false, 0.1 * step);
    const Variable target(from_vector(std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2}));
    opt.zero_grad();
    F::cross_entropy(dp(x), target).backward();
    opt.step();
    plain_opt.zero_grad();
    F::cross_entropy(plain(x), target).backward();
    plain_opt.step();
  }
  const auto mine = seq->parameters(), theirs = plain->parameters();
  for (size_t i = 0; i < mine.size(); ++i) {
    EXPECT_TRUE(all_close(mine[i].data(), theirs[i].data(), 1e-10, 1e-12));
  }
}

// PyTorch's replicate keeps a submodule used twice one module in each
// replica; three steps through DataParallel then match the plain module's.
TEST_P(DataParallelTest, ASubmoduleUsedTwiceTrainsAsInThePlainModule) {
  const nn::Linear lin = to_double(nn::Linear(3, 3).ptr());
  const nn::Linear plain_lin(std::dynamic_pointer_cast<nn::LinearImpl>(lin->clone()));
  nn::Sequential seq(lin, nn::Tanh(), lin);
  nn::Sequential plain(plain_lin, nn::Tanh(), plain_lin);
  DataParallel dp(seq, device_ids());
  optim::SGD opt(seq->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  optim::SGD plain_opt(plain->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < 3; ++step) {
    const Variable x = leaf({2 * count() + 1, 3}, false, 0.1 * step);
    opt.zero_grad();
    const Variable y = dp(x);
    (y * y).sum().backward();
    opt.step();
    plain_opt.zero_grad();
    const Variable expected = plain(x);
    (expected * expected).sum().backward();
    plain_opt.step();
    EXPECT_TRUE(all_close(y.data(), expected.data(), 1e-12, 1e-12));
  }
  EXPECT_TRUE(all_close(lin->weight.data(), plain_lin->weight.data(), 1e-10, 1e-12));
  EXPECT_TRUE(all_close(lin->bias.data(), plain_lin->bias.data(), 1e-10, 1e-12));
}

TEST_P(DataParallelTest, TwoForwardsBeforeOneBackward) {
  nn::Sequential seq = mlp();
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, device_ids());
  const Variable x1 = leaf({6, 3}), x2 = leaf({9, 3}, true, -0.4);
  (dp(x1).sum() + (dp(x2) * dp(x2)).sum()).backward();
  (plain(x1).sum() + (plain(x2) * plain(x2)).sum()).backward();
  EXPECT_TRUE(same_grads(*seq, *plain));
}

TEST_P(DataParallelTest, GradientPenaltyThroughDataParallel) {
  nn::Sequential seq = mlp();
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, device_ids());
  const Variable x = leaf({7, 3});
  const auto penalty = [&x](const auto& module) {
    const Variable y = module(x);
    const Variable g = autograd::grad({(y * y).sum()}, {x}, {}, std::nullopt, true)[0];
    return (g * g).sum();
  };
  penalty(dp).backward();
  penalty(plain).backward();
  EXPECT_TRUE(same_grads(*seq, *plain));
}

TEST_P(DataParallelTest, DoubleBackwardThroughDataParallelPassesGradgradcheck) {
  nn::Sequential seq = mlp();
  const std::vector<DeviceId> ids = device_ids();
  const auto fn = [&seq, &ids](const variable_list& in) {
    return data_parallel(seq, in[0], ids);
  };
  EXPECT_TRUE(::torchlet::testing::gradcheck(fn, {leaf({5, 3})}));
  EXPECT_TRUE(::torchlet::testing::gradgradcheck(fn, {leaf({5, 3})}));
}

TEST_P(DataParallelTest, HooksRunOncePerReplicaOnItsDevice) {
  nn::Sequential seq = mlp();
  std::mutex mutex;
  std::vector<Device> seen;
  seq[0]->register_forward_pre_hook([&](nn::Module&, Variable& input) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(input.device());
  });
  DataParallel dp(seq, device_ids());
  dp(leaf({3 * count(), 3}));
  std::sort(seen.begin(), seen.end(), [](Device a, Device b) { return a.index < b.index; });
  EXPECT_EQ(seen, devices());
}

/// forward(x) = x * 2, recording where the gradient of its output is
/// computed: the device current there and whether that device's executor
/// ran it.
class BackwardProbeImpl : public nn::Cloneable<BackwardProbeImpl> {
 public:
  void reset() override {}
  Variable forward(const Variable& x) {
    Variable y = x * 2;
    y.register_hook([this](const Variable& grad) {
      std::lock_guard<std::mutex> lock(*mutex);
      seen->emplace_back(current_device(),
                         device_executor(current_device()).is_current_thread());
      return grad;
    });
    std::lock_guard<std::mutex> lock(*mutex);
    outputs->push_back(y);  // a hook runs while its Variable lives
    return y;
  }
  std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
  std::shared_ptr<variable_list> outputs = std::make_shared<variable_list>();
  std::shared_ptr<std::vector<std::pair<Device, bool>>> seen =
      std::make_shared<std::vector<std::pair<Device, bool>>>();
};
TORCHLET_MODULE(BackwardProbe);

TEST_P(DataParallelTest, EachReplicasBackwardRunsOnItsDevice) {
  BackwardProbe probe;
  DataParallel dp(probe, device_ids());
  dp(leaf({2 * count(), 3})).sum().backward();
  std::vector<std::pair<Device, bool>> seen = *probe->seen;
  std::sort(seen.begin(), seen.end(),
            [](const auto& a, const auto& b) { return a.first.index < b.first.index; });
  ASSERT_EQ(seen.size(), devices().size());
  for (size_t d = 0; d < seen.size(); ++d) {
    EXPECT_EQ(seen[d].first, devices()[d]);
    // Device 0's nodes run on the thread that called backward, every other
    // device's on its own executor.
    EXPECT_EQ(seen[d].second, d != 0);
  }
}

TEST_P(DataParallelTest, StateDictIsPrefixedAndLoadsIntoTheBareModule) {
  nn::Sequential seq = mlp();
  DataParallel dp(seq, device_ids());
  StateDict sd = dp->state_dict();
  EXPECT_EQ(sd.keys()[0], "module.0.weight");
  consume_prefix_in_state_dict_if_present(sd, "module.");
  nn::Sequential bare = mlp();
  bare->load_state_dict(sd);
  EXPECT_TRUE(all_close(bare->parameters()[0].data(), seq->parameters()[0].data()));
}

TEST_P(DataParallelTest, ReprIsPyTorchs) {
  nn::Linear fc(3, 2);
  DataParallel dp(fc, device_ids());
  std::ostringstream out;
  out << dp;
  EXPECT_EQ(out.str(),
            "DataParallel(\n  (module): Linear(in_features=3, out_features=2, bias=True)\n)");
  EXPECT_EQ(dp->module().get(), fc.get());
}

TEST_P(DataParallelTest, FunctionalFormMatchesTheModule) {
  testing::KwargsNet net;
  net->to(kFloat64);
  const Variable x = leaf({8, 3});
  const testing::Kwargs kwargs{{"scale", leaf({8, 1})}};
  const Variable y = data_parallel(net, std::make_tuple(x), device_ids(), std::nullopt, 0, kwargs);
  EXPECT_TRUE(all_close(y.data(), net->forward(x, kwargs).data(), 1e-12, 1e-12));
}

/// A float64 Conv2d(2, 3, 3, padding 1) - BatchNorm2d(3) - ReLU.
nn::Sequential conv_bn_relu() {
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1)), nn::BatchNorm2d(3),
                     nn::ReLU());
  seq->to(kFloat64);
  return seq;
}

/// A float64 batch of `n` 2-channel 4x4 images.
Variable images(int64_t n, bool requires_grad = true) {
  return Variable(leaf({n, 2, 4, 4}, false).data().mul(0.1), requires_grad);
}

::testing::AssertionResult same_buffers(const nn::Module& a, const nn::Module& b) {
  const std::vector<nn::Module::NamedVariable> ba = a.named_buffers(), bb = b.named_buffers();
  if (ba.size() != bb.size()) return ::testing::AssertionFailure() << "buffer counts differ";
  for (size_t i = 0; i < ba.size(); ++i) {
    if (ba[i].first != bb[i].first) {
      return ::testing::AssertionFailure() << ba[i].first << " vs " << bb[i].first;
    }
    auto r = all_close(ba[i].second.data(), bb[i].second.data(), 1e-12, 1e-12);
    if (!r) return r << " (buffer " << ba[i].first << ")";
  }
  return ::testing::AssertionSuccess();
}

// PyTorch's DataParallel keeps only the running statistics device 0's
// replica computed: it shares the module's buffers, the other replicas'
// updates go to copies that are dropped.
TEST_P(DataParallelTest, BatchNormRunningStatsAreThoseOfTheFirstChunk) {
  nn::Sequential seq = conv_bn_relu();
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, device_ids());
  const Variable x = images(2 * count(), false);
  dp(x);
  plain(x.chunk(count())[0]);
  EXPECT_TRUE(same_buffers(*seq, *plain));
  EXPECT_EQ(seq->ptr<nn::BatchNorm2dImpl>(1)->num_batches_tracked.data().item<int64_t>(), 1);
  EXPECT_FALSE(all_close(seq->ptr<nn::BatchNorm2dImpl>(1)->running_mean.data(),
                         zeros({3}, kFloat64)));
}

TEST_P(DataParallelTest, BatchNormInEvalMatchesThePlainModuleOnTheWholeBatch) {
  nn::Sequential seq = conv_bn_relu();
  DataParallel dp(seq, device_ids());
  dp(images(2 * count(), false));  // running statistics other than the initial ones
  nn::Sequential plain = copy_of(seq);
  dp->eval();
  plain->eval();
  const Variable x = images(3 * count() + 1, false);
  EXPECT_TRUE(all_close(dp(x).data(), plain(x).data(), 1e-12, 1e-12));
  EXPECT_TRUE(same_buffers(*seq, *plain));  // eval leaves them alone
}

// Each replica normalizes its chunk by that chunk's statistics, so the
// reference is the plain module run on each chunk separately.
TEST_P(DataParallelTest, BatchNormGradientsAreThoseOfThePlainModulePerChunk) {
  nn::Sequential seq = conv_bn_relu();
  nn::Sequential plain = copy_of(seq);
  DataParallel dp(seq, device_ids());
  const Variable x = images(2 * count());
  const Variable y = dp(x);
  (y * y).sum().backward();
  const Variable x_plain = images(2 * count());
  variable_list outputs;
  for (const Variable& chunk : x_plain.chunk(count())) outputs.push_back(plain(chunk));
  const Variable expected = cat(outputs);
  (expected * expected).sum().backward();
  EXPECT_TRUE(all_close(y.data(), expected.data(), 1e-12, 1e-12));
  EXPECT_TRUE(same_grads(*seq, *plain));
  EXPECT_TRUE(all_close(x.grad().data(), x_plain.grad().data(), 1e-9, 1e-12));
}

TEST_P(DataParallelTest, BatchNormStateDictIsPrefixedAndLoadsIntoTheBareModule) {
  nn::Sequential seq = conv_bn_relu();
  DataParallel dp(seq, device_ids());
  dp(images(2 * count(), false));
  StateDict sd = dp->state_dict();
  EXPECT_EQ(sd.keys(),
            (std::vector<std::string>{"module.0.weight", "module.0.bias", "module.1.weight",
                                      "module.1.bias", "module.1.running_mean",
                                      "module.1.running_var", "module.1.num_batches_tracked"}));
  consume_prefix_in_state_dict_if_present(sd, "module.");
  nn::Sequential bare = conv_bn_relu();
  bare->load_state_dict(sd);
  EXPECT_TRUE(same_buffers(*bare, *seq));
  bare->eval();
  seq->eval();
  const Variable x = images(count(), false);
  EXPECT_TRUE(all_close(bare(x).data(), seq(x).data(), 1e-12, 1e-12));
}

INSTANTIATE_TEST_SUITE_P(Devices, DataParallelTest, ::testing::Values(2, 3, 4),
                         ::testing::PrintToStringParamName());

// ---- Construction (one fixed device count) -------------------------------------------

TEST(DataParallelConstructionTest, WithoutDevicesTheModuleRunsDirectly) {
  nn::Linear fc(3, 2);
  DataParallel dp(fc);
  EXPECT_TRUE(dp->device_ids().empty());
  const Variable x(ones({2, 3}));
  EXPECT_TRUE(all_close(dp(x).data(), fc(x).data()));
}

TEST(DataParallelConstructionTest, ASingleDeviceMovesTheModule) {
  set_cpu_device_count(2);
  nn::Linear fc(3, 2);
  DataParallel dp(fc, {"cpu:1"});
  EXPECT_EQ(fc->weight.device(), Device("cpu:1"));
  EXPECT_EQ(dp(Variable(ones({2, 3}))).device(), Device("cpu:1"));
  set_cpu_device_count(1);
}

TEST(DataParallelConstructionTest, DeviceIdsAsIndicesDevicesAndStrings) {
  set_cpu_device_count(3);
  nn::Linear fc(3, 2);
  DataParallel dp(fc, {0, Device("cpu:1"), "cpu:2"});
  EXPECT_EQ(dp->device_ids(), (std::vector<Device>{Device("cpu:0"), Device("cpu:1"),
                                                   Device("cpu:2")}));
  EXPECT_EQ(dp->output_device(), Device("cpu:0"));
  EXPECT_THROW_MSG(DataParallel(fc, {0, 3}), "DataParallel: device cpu:3 does not exist");
  set_cpu_device_count(1);
}

TEST(DataParallelConstructionTest, BalanceWarningNamesBothDevices) {
  const std::vector<Device> devs{Device(kCUDA, 0), Device(kCUDA, 1)};
  EXPECT_EQ(detail::imbalance_warning(devs, {8.0, 8.0}, {10.0, 10.0}), std::nullopt);
  const std::optional<std::string> memory = detail::imbalance_warning(devs, {8.0, 4.0}, {1, 1});
  ASSERT_TRUE(memory.has_value());
  EXPECT_EQ(*memory,
            "\n    There is an imbalance between your GPUs. You may want to exclude GPU 1 which"
            "\n    has less than 75% of the memory or cores of GPU 0. You can do so by setting"
            "\n    the device_ids argument to DataParallel, or by setting the CUDA_VISIBLE_DEVICES"
            "\n    environment variable.");
  const std::optional<std::string> cores = detail::imbalance_warning(devs, {8, 8}, {10.0, 7.0});
  ASSERT_TRUE(cores.has_value());
}

TEST(DataParallelConstructionTest, ImbalanceWarningNamesTheFirstLargestAndSmallestDevices) {
  // Python's max() and min() over enumerate() keep the first of equal values.
  const std::vector<Device> devs{Device(kCUDA, 0), Device(kCUDA, 1), Device(kCUDA, 2),
                                 Device(kCUDA, 3)};
  const std::optional<std::string> warning =
      detail::imbalance_warning(devs, {8.0, 4.0, 8.0, 4.0}, {1, 1, 1, 1});
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("exclude GPU 1 which\n    has less than 75% of the memory or cores of "
                          "GPU 0."),
            std::string::npos);
}

TEST(DataParallelConstructionTest, ConsumePrefixLeavesOtherKeys) {
  StateDict sd{{"module.w", zeros({1})}, {"other", zeros({1})}};
  consume_prefix_in_state_dict_if_present(sd, "module.");
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"w", "other"}));
}

}  // namespace
}  // namespace torchlet::parallel
