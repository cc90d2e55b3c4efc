// comm's raw collectives and the differentiable functions built on them,
// on 2, 3 and 4 CPU devices; every backward checked against finite
// differences to second order.
#include "parallel/comm.h"

#include "autograd/gradcheck.h"
#include "parallel/functions.h"
#include "parallel/testing.h"
#include "tensor/test_util.h"

namespace torchlet::parallel {
namespace {

using ::torchlet::testing::all_close;
using ::torchlet::testing::gradcheck;
using ::torchlet::testing::gradgradcheck;
using testing::leaf;

class CommTest : public testing::OnDevices {};

TEST_P(CommTest, BroadcastCopiesToEveryDeviceAndKeepsTheSourceItself) {
  const Tensor t = leaf({2, 3}).data();
  const std::vector<Tensor> out = comm::broadcast(t, devices());
  ASSERT_EQ(out.size(), devices().size());
  EXPECT_TRUE(out[0].shares_storage(t));
  for (size_t d = 0; d < out.size(); ++d) {
    EXPECT_EQ(out[d].device(), devices()[d]);
    EXPECT_TRUE(all_close(out[d], t));
    if (d > 0) {
      EXPECT_FALSE(out[d].shares_storage(t));
    }
  }
}

TEST_P(CommTest, BroadcastCoalescedGivesEachCopyItsOwnMemoryAndVersion) {
  const std::vector<Tensor> ts = {leaf({2, 3}).data(), leaf({4}).data(),
                                  leaf({3}).data().to(kFloat32)};
  const auto out = comm::broadcast_coalesced(ts, devices());
  ASSERT_EQ(out.size(), devices().size());
  for (size_t i = 0; i < ts.size(); ++i) EXPECT_TRUE(out[0][i].shares_storage(ts[i]));
  for (size_t d = 1; d < out.size(); ++d) {
    for (size_t i = 0; i < ts.size(); ++i) {
      EXPECT_EQ(out[d][i].device(), devices()[d]);
      EXPECT_TRUE(all_close(out[d][i], ts[i]));
    }
    EXPECT_FALSE(out[d][0].shares_storage(out[d][1]));  // same dtype, still apart
    const uint32_t version = out[d][1].version();
    Tensor first = out[d][0];
    first.add_(1);
    EXPECT_EQ(out[d][1].version(), version);
  }
}

TEST_P(CommTest, BroadcastCoalescedRejectsTensorsOffTheFirstDevice) {
  const Tensor t = leaf({2}).data().to(devices()[1]);
  EXPECT_THROW_MSG(comm::broadcast_coalesced({t}, devices()),
                   "broadcast_coalesced: All tensors must be on devices[0]: cpu:0, but tensor 0 "
                   "is on cpu:1");
  EXPECT_THROW_MSG(comm::broadcast_coalesced({t}, {}),
                   "broadcast_coalesced: Expected at least one device");
}

TEST_P(CommTest, ReduceAddSumsOnTheDestination) {
  std::vector<Tensor> ts;
  Tensor expected = zeros({2, 2}, kFloat64);
  for (Device d : devices()) {
    ts.push_back(leaf({2, 2}, false, d.index).data().to(d));
    expected = expected + ts.back().to(Device(kCPU, 0));
  }
  const Tensor sum = comm::reduce_add(ts, devices()[1]);
  EXPECT_EQ(sum.device(), devices()[1]);
  EXPECT_TRUE(all_close(sum.to(Device(kCPU, 0)), expected));
  for (const Tensor& t : ts) EXPECT_FALSE(sum.shares_storage(t));
}

TEST_P(CommTest, ReduceAddOfOneTensorReturnsThatTensor) {
  // comm.py: `if len(inputs) == 1: return inputs[0]`.
  const Tensor t = leaf({2, 2}).data();
  EXPECT_TRUE(comm::reduce_add({t}, devices()[0]).is_same(t));
}

TEST_P(CommTest, ReduceAddRejectsMismatchedSizesAndAMissingDestination) {
  const Tensor a = zeros({2, 3});
  const Tensor b = zeros({3, 2}, TensorOptions().device(devices()[1]));
  EXPECT_THROW_MSG(comm::reduce_add({a, b}, devices()[0]),
                   "reduce_add: input 1 has invalid size: got [3, 2], but expected [2, 3]");
  EXPECT_THROW_MSG(comm::reduce_add({a, a}, devices()[1]),
                   "reduce_add expects destination to be on the same GPU with one of the tensors");
}

TEST_P(CommTest, ReduceAddCoalescedSumsEachColumn) {
  std::vector<std::vector<Tensor>> inputs;
  for (Device d : devices()) inputs.push_back({ones({2}).to(d), full({3}, 2.0).to(d)});
  const std::vector<Tensor> out = comm::reduce_add_coalesced(inputs, devices()[0]);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(all_close(out[0], full({2}, double(count()))));
  EXPECT_TRUE(all_close(out[1], full({3}, 2.0 * count())));
  inputs.back().pop_back();
  EXPECT_THROW_MSG(comm::reduce_add_coalesced(inputs, devices()[0]), "tensors, but device 0 has 2");
}

TEST_P(CommTest, ReduceAddCoalescedOfLargeInputsIsReducedOnEveryDevice) {
  std::vector<std::vector<Tensor>> inputs;
  const std::vector<int64_t> sizes{40000, 7, 30000, 1, 25000};
  for (Device d : devices()) {
    inputs.emplace_back();
    for (int64_t n : sizes) inputs.back().push_back(full({n}, 1.0 + d.index).to(d));
  }
  const std::vector<Tensor> out = comm::reduce_add_coalesced(inputs, devices()[1]);
  const double expected = count() * (count() + 1) / 2.0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(out[i].device(), devices()[1]);
    EXPECT_TRUE(all_close(out[i].to(Device(kCPU, 0)), full({sizes[i]}, expected)));
  }
}

TEST_P(CommTest, ScatterChunksAsChunkDoes) {
  const Tensor t = arange(0, 9, 1, kFloat64).view({9, 1});
  const std::vector<Tensor> out = comm::scatter(t, devices());
  const std::vector<Tensor> chunks = t.chunk(count());
  ASSERT_EQ(out.size(), chunks.size());
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].device(), devices()[i]);
    EXPECT_TRUE(all_close(out[i].to(Device(kCPU, 0)), chunks[i]));
  }
  EXPECT_TRUE(out[0].shares_storage(t));
}

TEST_P(CommTest, ScatterFollowsChunkSizes) {
  const Tensor t = arange(0, 12, 1, kFloat64).view({2, 6});
  std::vector<int64_t> sizes(devices().size(), 1);
  sizes.back() = 6 - (count() - 1);
  const std::vector<Tensor> out = comm::scatter(t, devices(), sizes, 1);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].size(1), sizes[i]);
  EXPECT_THROW_MSG(comm::scatter(t, devices(), std::vector<int64_t>{6}, 1),
                   "Expected devices and chunk_sizes to be of same length, but got len(devices) = ");
  EXPECT_THROW_MSG(comm::scatter(t, {}), "scatter: Expected at least one device to scatter to");
}

TEST_P(CommTest, GatherConcatenatesOnTheDestination) {
  std::vector<Tensor> ts;
  for (Device d : devices()) ts.push_back(full({d.index + 1, 2}, double(d.index)).to(d));
  const Tensor out = comm::gather(ts, 0, devices().back());
  EXPECT_EQ(out.device(), devices().back());
  std::vector<Tensor> local;
  for (const Tensor& t : ts) local.push_back(t.to(Device(kCPU, 0)));
  EXPECT_TRUE(all_close(out.to(Device(kCPU, 0)), cat(local, 0)));
}

TEST_P(CommTest, GatherRejectsMismatchedShapes) {
  const Tensor a = zeros({2, 3});
  const Tensor b = zeros({2, 4}, TensorOptions().device(devices()[1]));
  EXPECT_THROW_MSG(comm::gather({a, b}, 0),
                   "gather: Input tensor at index 1 has invalid shape [2, 4], but expected [2, 3]");
  EXPECT_THROW_MSG(comm::gather({a, zeros({2})}, 0),
                   "tensor at index 1 has 1 dimensions, (expected 2)");
  EXPECT_THROW_MSG(comm::gather({}, 0), "gather: Expected at least one tensor to gather from");
}

TEST_P(CommTest, GatherRejectsMixedDtypes) {
  const Tensor a = zeros({2, 3}, kFloat64);
  const Tensor b = zeros({2, 3}, TensorOptions(kFloat32).device(devices()[1]));
  EXPECT_THROW_MSG(comm::gather({a, b}, 0),
                   "gather: Expected all input tensors to have the same dtype, but tensor at index "
                   "1 has float32 (expected float64)");
}

TEST_P(CommTest, CollectivesRejectAnUndefinedTensorNamingTheOperation) {
  const Tensor t = leaf({2}).data();
  EXPECT_THROW_MSG(comm::broadcast(Tensor(), devices()), "broadcast: the tensor is undefined");
  EXPECT_THROW_MSG(comm::broadcast_coalesced({t, Tensor()}, devices()),
                   "broadcast_coalesced: tensor 1 is undefined");
  EXPECT_THROW_MSG(comm::reduce_add({t, Tensor()}, devices()[0]),
                   "reduce_add: input 1 is undefined");
  EXPECT_THROW_MSG(comm::scatter(Tensor(), devices()), "scatter: the tensor is undefined");
  EXPECT_THROW_MSG(comm::gather({Tensor(), t}, 0), "gather: tensor 0 is undefined");
  EXPECT_THROW_MSG(comm::gather({t, Tensor()}, 0), "gather: tensor 1 is undefined");
}

TEST_P(CommTest, ReduceAddRejectsNoInputsAndMixedDtypes) {
  EXPECT_THROW_MSG(comm::reduce_add({}, devices()[0]),
                   "reduce_add: Expected at least one tensor to reduce");
  const Tensor a = zeros({2}, kFloat64);
  const Tensor b = zeros({2}, TensorOptions(kFloat32).device(devices()[1]));
  EXPECT_THROW_MSG(comm::reduce_add({a, b}, devices()[0]),
                   "reduce_add: input 1 has dtype float32, but expected float64");
}

TEST_P(CommTest, ReduceAddCoalescedRejectsNoInputs) {
  EXPECT_THROW_MSG(comm::reduce_add_coalesced({}, devices()[0]),
                   "reduce_add_coalesced: Expected at least one device's tensors");
}

// ---- Differentiable functions ------------------------------------------------------------

TEST_P(CommTest, BroadcastBackwardSumsTheReplicasGradients) {
  const Variable a = leaf({2, 2}), b = leaf({3});
  const variable_list out = Broadcast::apply(devices(), variable_list{a, b});
  ASSERT_EQ(out.size(), 2 * devices().size());
  EXPECT_EQ(out[0].grad_fn()->name(), "BroadcastBackward");
  Variable loss;
  for (size_t d = 0; d < devices().size(); ++d) {
    const Variable term = (out[2 * d] * double(d + 1)).sum() + out[2 * d + 1].sum();
    loss = loss.defined() ? loss + term.to(Device(kCPU, 0)) : term;
  }
  loss.backward();
  const double n = count();
  EXPECT_TRUE(all_close(a.grad().data(), full({2, 2}, n * (n + 1) / 2, kFloat64)));
  EXPECT_TRUE(all_close(b.grad().data(), full({3}, n, kFloat64)));
}

TEST_P(CommTest, BroadcastMarksInputsWithoutGradNonDifferentiable) {
  const Variable a = leaf({2}), b = leaf({2}, false);
  const variable_list out = Broadcast::apply(devices(), variable_list{a, b});
  EXPECT_TRUE(out[2].requires_grad());
  EXPECT_FALSE(out[3].requires_grad());
}

TEST_P(CommTest, BroadcastPassesGradcheckToSecondOrder) {
  const std::vector<Device> devs = devices();
  const auto fn = [devs](const variable_list& in) {
    const variable_list out = Broadcast::apply(devs, in);
    Variable acc = out[0] * out[1].sum();
    for (size_t i = 2; i < out.size(); ++i) {
      acc = acc + (out[i] * out[i] * double(i)).sum().to(Device(kCPU, 0));
    }
    return acc;
  };
  EXPECT_TRUE(gradcheck(fn, {leaf({3}), leaf({2})}));
  EXPECT_TRUE(gradgradcheck(fn, {leaf({3}), leaf({2})}));
}

TEST_P(CommTest, ReduceAddCoalescedPassesGradcheckToSecondOrder) {
  const std::vector<Device> devs = devices();
  const auto fn = [devs](const variable_list& in) {
    variable_list grads;
    for (size_t d = 0; d < devs.size(); ++d) {
      grads.push_back((in[0] * double(d + 1)).to(devs[d]));
      grads.push_back((in[1] * in[1]).to(devs[d]));
    }
    const variable_list sums = ReduceAddCoalesced::apply(devs[0], int64_t{2}, grads);
    return sums[0] * sums[1].sum() * sums[0];
  };
  EXPECT_TRUE(gradcheck(fn, {leaf({3}), leaf({2})}));
  EXPECT_TRUE(gradgradcheck(fn, {leaf({3}), leaf({2})}));
}

TEST_P(CommTest, ScatterAndGatherPassGradcheckToSecondOrder) {
  const std::vector<Device> devs = devices();
  const auto fn = [devs](const variable_list& in) {
    const variable_list parts =
        Scatter::apply(devs, std::optional<std::vector<int64_t>>(), int64_t{0}, in[0]);
    variable_list squared;
    for (const Variable& p : parts) squared.push_back(p * p);
    return Gather::apply(devs.back(), int64_t{0}, squared).to(Device(kCPU, 0));
  };
  EXPECT_TRUE(gradcheck(fn, {leaf({7, 2})}));
  EXPECT_TRUE(gradgradcheck(fn, {leaf({7, 2})}));
}

TEST_P(CommTest, ScatterGradientReturnsToTheInputsDevice) {
  const Variable x(leaf({5, 2}).data().to(devices()[1]), true);
  const variable_list parts =
      Scatter::apply(devices(), std::optional<std::vector<int64_t>>(), int64_t{0}, x);
  Variable loss = parts[0].sum();
  for (size_t i = 1; i < parts.size(); ++i) loss = loss + parts[i].sum().to(devices()[0]);
  loss.backward();
  EXPECT_EQ(x.grad().device(), devices()[1]);
  EXPECT_TRUE(all_close(x.grad().data().to(Device(kCPU, 0)), ones({5, 2}, kFloat64)));
}

TEST_P(CommTest, ReduceAddCoalescedFunctionRejectsGradientsNotInWholeGroups) {
  const variable_list grads{leaf({2}), leaf({2}), leaf({2})};
  EXPECT_THROW_MSG(ReduceAddCoalesced::apply(devices()[0], int64_t{2}, grads),
                   "ReduceAddCoalesced: expected a multiple of num_inputs = 2 gradients, got 3");
  EXPECT_THROW_MSG(ReduceAddCoalesced::apply(devices()[0], int64_t{0}, grads),
                   "ReduceAddCoalesced: expected a multiple of num_inputs = 0 gradients, got 3");
}

TEST_P(CommTest, GatherFunctionRejectsNoInputsAndAnUndefinedInput) {
  EXPECT_THROW_MSG(Gather::apply(devices()[0], int64_t{0}, variable_list{}),
                   "Gather: Expected at least one tensor to gather from");
  EXPECT_THROW_MSG(Gather::apply(devices()[0], int64_t{0}, variable_list{leaf({2}), Variable()}),
                   "Gather: an input is undefined");
}

/// One 0-dim float64 leaf per device, 2 * its index.
variable_list scalars_on(const std::vector<Device>& devices) {
  variable_list scalars;
  for (Device d : devices) scalars.push_back(Variable(full({}, 2.0 * d.index, kFloat64).to(d), true));
  return scalars;
}

TEST_P(CommTest, GatherOfScalarsGivesAVectorAndWarnsEachTime) {
  std::vector<std::string> warnings;
  const variable_list scalars = scalars_on(devices());
  Variable v;
  {
    WarningHandlerGuard guard([&warnings](const std::string& m) { warnings.push_back(m); });
    v = Gather::apply(devices()[0], int64_t{0}, scalars);
    Gather::apply(devices()[0], int64_t{0}, scalars);
  }
  EXPECT_EQ(v.sizes(), IntArrayRef({count()}));
  EXPECT_EQ(warnings, (std::vector<std::string>{kGatherScalarsWarning, kGatherScalarsWarning}));
  (v * v).sum().backward();
  EXPECT_EQ(scalars[1].grad().dim(), 0);
  EXPECT_DOUBLE_EQ(scalars[1].grad().item<double>(), 4.0);
}

TEST_P(CommTest, GatherOfScalarsPrintsItsWarningOnceByDefault) {
  const variable_list scalars = scalars_on(devices());
  ::testing::internal::CaptureStderr();
  Gather::apply(devices()[0], int64_t{0}, scalars);
  Gather::apply(devices()[0], int64_t{0}, scalars);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            std::string("UserWarning: ") + kGatherScalarsWarning + "\n");
}

INSTANTIATE_TEST_SUITE_P(Devices, CommTest, ::testing::Values(2, 3, 4),
                         ::testing::PrintToStringParamName());

}  // namespace
}  // namespace torchlet::parallel
