// scatter, scatter_kwargs and gather over nested values, on 2, 3 and 4 CPU
// devices (PyTorch's scatter_gather.py semantics).
#include "parallel/scatter_gather.h"

#include "parallel/testing.h"
#include "tensor/test_util.h"

namespace torchlet::parallel {
namespace {

using ::torchlet::testing::all_close;
using testing::leaf;

class ScatterGatherTest : public testing::OnDevices {};

std::vector<int64_t> rows(const variable_list& parts) {
  std::vector<int64_t> out;
  for (const Variable& p : parts) out.push_back(p.size(0));
  return out;
}

TEST_P(ScatterGatherTest, NineRowsSplitAsChunkDoes) {
  const variable_list parts = scatter(leaf({9, 2}), devices());
  std::vector<int64_t> expected;
  for (const Tensor& c : zeros({9, 2}).chunk(count())) expected.push_back(c.size(0));
  EXPECT_EQ(rows(parts), expected);
  for (size_t i = 0; i < parts.size(); ++i) EXPECT_EQ(parts[i].device(), devices()[i]);
}

TEST_P(ScatterGatherTest, FewerRowsThanDevicesGiveFewerChunks) {
  EXPECT_EQ(rows(scatter(leaf({1, 2}), devices())), std::vector<int64_t>{1});
  EXPECT_EQ(rows(scatter(leaf({2, 2}), devices())), (std::vector<int64_t>{1, 1}));
}

TEST_P(ScatterGatherTest, ScatterAlongAnotherDim) {
  const variable_list parts = scatter(leaf({2, 8}), devices(), 1);
  int64_t total = 0;
  for (const Variable& p : parts) total += p.size(1);
  EXPECT_EQ(total, 8);
  EXPECT_EQ(parts[0].size(0), 2);
}

TEST_P(ScatterGatherTest, OtherValuesAreCopiedToEveryDevice) {
  const std::vector<std::string> out = scatter(std::string("tag"), devices());
  EXPECT_EQ(out, std::vector<std::string>(devices().size(), "tag"));
  EXPECT_EQ(scatter(std::vector<Variable>{}, devices()).size(), devices().size());
  EXPECT_EQ(scatter(std::optional<Variable>(), devices()).size(), devices().size());
}

TEST_P(ScatterGatherTest, ContainersKeepTheirTypeAndZipToTheShortest) {
  using In = std::tuple<Variable, std::vector<Variable>, std::map<std::string, Variable>,
                        std::pair<Variable, int>, std::optional<Variable>>;
  const In in{leaf({8, 1}), {leaf({8, 2}), leaf({2, 2})}, {{"a", leaf({8})}},
              {leaf({8, 3}), 7}, leaf({8})};
  const std::vector<In> out = scatter(in, devices());
  ASSERT_EQ(out.size(), 2u);  // the [2, 2] member splits into two
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(std::get<0>(out[i]).device(), devices()[i]);
    EXPECT_EQ(std::get<1>(out[i]).size(), 2u);
    EXPECT_EQ(std::get<2>(out[i]).at("a").device(), devices()[i]);
    EXPECT_EQ(std::get<3>(out[i]).second, 7);
    EXPECT_EQ(std::get<4>(out[i])->device(), devices()[i]);
  }
}

TEST_P(ScatterGatherTest, ScatteredGradientComesBackToTheInput) {
  const Variable x = leaf({6, 2});
  const variable_list parts = scatter(x, devices());
  const Variable y = gather(parts, devices()[0]);
  (y * y).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), x.data() * 2));
}

TEST_P(ScatterGatherTest, GatherConcatenatesOnTheOutputDevice) {
  const Variable x = leaf({7, 2});
  const Variable y = gather(scatter(x, devices()), devices().back());
  EXPECT_EQ(y.device(), devices().back());
  EXPECT_TRUE(all_close(y.data().to(Device(kCPU, 0)), x.data()));
}

TEST_P(ScatterGatherTest, NestedOutputsGatherElementWise) {
  using Out = std::tuple<Variable, std::vector<Variable>, std::map<std::string, Variable>,
                         std::optional<Variable>, std::pair<Variable, std::string>>;
  std::vector<Out> outs;
  for (Device d : devices()) {
    const Variable v(full({1, 2}, double(d.index)).to(d));
    Out out;
    std::get<0>(out) = v;
    std::get<1>(out) = {v, v};
    std::get<2>(out)["k"] = v;
    std::get<4>(out) = {v, "first"};
    outs.push_back(std::move(out));
  }
  const Out g = gather(outs, devices()[0]);
  EXPECT_EQ(std::get<0>(g).sizes(), IntArrayRef({count(), 2}));
  EXPECT_EQ(std::get<1>(g).size(), 2u);
  EXPECT_EQ(std::get<2>(g).at("k").size(0), count());
  EXPECT_FALSE(std::get<3>(g).has_value());
  EXPECT_EQ(std::get<4>(g).second, "first");
}

TEST_P(ScatterGatherTest, GatherOfMapsWithDifferentKeysThrows) {
  using Map = std::map<std::string, Variable>;
  const Variable v(zeros({1}));
  std::vector<Map> outs(devices().size(), Map{{"a", v}});
  outs.back() = Map{{"a", v}, {"b", v}};
  EXPECT_THROW_MSG(gather(outs, devices()[0]), "All dicts must have the same number of keys");
  outs.back() = Map{{"b", v}};
  EXPECT_THROW_MSG(gather(outs, devices()[0]), "gather: KeyError: 'a'");
}

TEST_P(ScatterGatherTest, GatherOfNoOutputsThrows) {
  EXPECT_THROW_MSG(gather(std::vector<Variable>{}, devices()[0]),
                   "gather: expected at least one output to gather");
}

TEST_P(ScatterGatherTest, GatherOfAnEmptyOptionalBesideAValueThrows) {
  std::vector<std::optional<Variable>> outs(devices().size(), Variable(zeros({1})));
  outs.back() = std::nullopt;
  EXPECT_THROW_MSG(gather(outs, devices()[0]),
                   "is an empty optional, but output 0 holds a value");
}

TEST_P(ScatterGatherTest, ScatterKwargsPadsTheShorterList) {
  using Kwargs = std::map<std::string, Variable>;
  const auto [in, kw] = scatter_kwargs(std::tuple<Variable>(leaf({1, 2})),
                                       Kwargs{{"x", leaf({8, 2})}}, devices());
  EXPECT_EQ(in.size(), kw.size());
  EXPECT_EQ(kw.size(), devices().size());
  EXPECT_FALSE(std::get<0>(in.back()).defined());  // padded with an empty input

  const auto [in2, kw2] =
      scatter_kwargs(std::tuple<Variable>(leaf({8, 2})), Kwargs{{"x", leaf({1, 2})}}, devices());
  EXPECT_EQ(kw2.size(), devices().size());
  EXPECT_TRUE(kw2.back().empty());  // padded with {}
}

TEST_P(ScatterGatherTest, ScatterKwargsOfNothingIsEmpty) {
  const auto [in, kw] = scatter_kwargs(std::tuple<>(), NoKwargs{}, devices());
  EXPECT_TRUE(in.empty());
  EXPECT_TRUE(kw.empty());
  const auto [in2, kw2] = scatter_kwargs(std::tuple<>(), std::map<std::string, Variable>{{"x", leaf({4})}}, devices());
  EXPECT_EQ(in2.size(), kw2.size());
}

TEST_P(ScatterGatherTest, RawTensorsScatterAndGatherWithoutAGraph) {
  const Tensor t = arange(0, 10, 1, kFloat64);
  const std::vector<Tensor> parts = scatter(t, devices());
  EXPECT_EQ(parts[1].device(), devices()[1]);
  EXPECT_TRUE(all_close(gather(parts, devices()[0]), t));
}

INSTANTIATE_TEST_SUITE_P(Devices, ScatterGatherTest, ::testing::Values(2, 3, 4),
                         ::testing::PrintToStringParamName());

// Containers that would be copied whole on scatter and keep replica 0's
// value on gather fail to compile (ScatterGather's static_assert).
static_assert(detail::unsupported_holder_of_variables<std::unordered_map<std::string, Variable>>::value);
static_assert(detail::unsupported_holder_of_variables<std::map<int, Variable>>::value);
static_assert(detail::unsupported_holder_of_variables<std::array<Tensor, 2>>::value);
static_assert(detail::unsupported_holder_of_variables<std::list<std::vector<Variable>>>::value);
static_assert(detail::unsupported_holder_of_variables<std::deque<Variable>>::value);
static_assert(!detail::unsupported_holder_of_variables<std::map<std::string, Variable>>::value);
static_assert(!detail::unsupported_holder_of_variables<std::vector<Variable>>::value);
static_assert(!detail::unsupported_holder_of_variables<std::unordered_map<std::string, int>>::value);
static_assert(detail::unsupported_holder_of_variables<
              std::array<std::pair<std::string, std::optional<Variable>>, 2>>::value);
static_assert(!detail::unsupported_holder_of_variables<std::array<std::tuple<int, std::string>, 2>>::value);

// gather takes only values that visibly hold no Variables from the first
// replica; a struct of the user's own (which may hold some) fails to compile.
struct UserOutput {
  Variable logits;
  Variable features;
};
enum class Phase { kTrain, kEval };
static_assert(!detail::gathered_whole<UserOutput>::value);
static_assert(!detail::gathered_whole<const char*>::value);
static_assert(detail::gathered_whole<int64_t>::value);
static_assert(detail::gathered_whole<Phase>::value);
static_assert(detail::gathered_whole<std::string>::value);
static_assert(detail::gathered_whole<std::array<int, 2>>::value);
static_assert(!detail::gathered_whole<std::array<Variable, 2>>::value);

}  // namespace
}  // namespace torchlet::parallel
