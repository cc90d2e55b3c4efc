// Custom functions (Function<T>): gradients, arguments, the context's
// features, PyTorch's checks on what backward returns, double backward,
// devices, printing and grad mode.
#include "autograd/custom_function.h"

#include <atomic>
#include <sstream>
#include <stdexcept>
#include <string>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using autograd::AutogradContext;
using autograd::Function;
using testing::all_close;

Variable param(std::initializer_list<double> v) {
  return Variable(from_vector(std::vector<double>(v), {static_cast<int64_t>(v.size())}), true);
}

// k * x^2, saving x as an input and k as an attribute.
struct Square : Function<Square> {
  static constexpr const char* name = "SquareBackward";
  static Variable forward(AutogradContext* ctx, const Variable& x, double k) {
    ctx->save_for_backward({x});
    ctx->saved_data["k"] = k;
    return x * x * k;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Variable x = ctx->get_saved_variables()[0];
    return {grads[0] * x * (2 * ctx->get<double>("k")), Variable()};
  }
};

// exp(x), saving its own output; named by its type.
struct Exp : Function<Exp> {
  static Variable forward(AutogradContext* ctx, const Variable& x) {
    Variable y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

TEST(CustomFunctionTest, GradientMatchesTheAnalyticValue) {
  Variable x = param({1, -2, 3});
  Square::apply(x, 3.0).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({6.0, -12.0, 18.0})));
}

TEST(CustomFunctionTest, PassesGradcheck) {
  Variable x = param({0.5, -1.5, 2.0});
  EXPECT_TRUE(testing::gradcheck([](const variable_list& in) { return Square::apply(in[0], 1.5); },
                                 {x}));
  EXPECT_TRUE(testing::gradcheck([](const variable_list& in) { return Exp::apply(in[0]); }, {x}));
}

// Scales x by factor and shifts by an offset Tensor: only x is a Variable.
struct ScaleShift : Function<ScaleShift> {
  static Variable forward(AutogradContext* ctx, const Variable& x, int64_t factor,
                          const std::string& tag, const Tensor& offset) {
    ctx->saved_data["factor"] = factor;
    ctx->saved_data["tag"] = tag;
    return Variable(x.data() * static_cast<double>(factor) + offset);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_EQ(ctx->get<std::string>("tag"), "scaled");
    const auto factor = static_cast<double>(ctx->get<int64_t>("factor"));
    return {grads[0] * factor, Variable(), Variable(), Variable()};
  }
};

TEST(CustomFunctionTest, NonVariableArgumentsArePassedThroughUnchanged) {
  Variable x = param({1, 2});
  Variable y = ScaleShift::apply(x, int64_t{3}, std::string("scaled"), tensor({10.0, 20.0}));
  EXPECT_TRUE(all_close(y.data(), tensor({13.0, 26.0})));
  y.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({3.0, 3.0})));
}

// {x * y, x + y}; records what backward received for the second output.
struct ProductAndSum : Function<ProductAndSum> {
  static inline bool materialize = true;
  static inline bool second_defined = false;
  static inline std::vector<double> second_values;
  static variable_list forward(AutogradContext* ctx, const Variable& x, const Variable& y) {
    ctx->set_materialize_grads(materialize);
    ctx->save_for_backward({x, y});
    return {x * y, x + y};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    second_defined = grads[1].defined();
    second_values = second_defined ? testing::values(grads[1].data()) : std::vector<double>();
    Variable gx = grads[0] * saved[1];
    Variable gy = grads[0] * saved[0];
    if (grads[1].defined()) {
      gx = gx + grads[1];
      gy = gy + grads[1];
    }
    return {gx, gy};
  }
};

TEST(CustomFunctionTest, AnOutputWithoutGradientGetsZerosByDefault) {
  ProductAndSum::materialize = true;
  Variable x = param({2, 3});
  Variable y = param({5, 7});
  const variable_list out = ProductAndSum::apply(x, y);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].output_nr(), 0u);
  EXPECT_EQ(out[1].output_nr(), 1u);
  out[0].sum().backward();
  EXPECT_TRUE(ProductAndSum::second_defined);
  EXPECT_EQ(ProductAndSum::second_values, (std::vector<double>{0, 0}));
  EXPECT_TRUE(all_close(x.grad().data(), tensor({5.0, 7.0})));
  EXPECT_TRUE(all_close(y.grad().data(), tensor({2.0, 3.0})));
}

TEST(CustomFunctionTest, WithoutMaterializeAnOutputWithoutGradientGetsUndefined) {
  ProductAndSum::materialize = false;
  Variable x = param({2, 3});
  Variable y = param({5, 7});
  ProductAndSum::apply(x, y)[0].sum().backward();
  ProductAndSum::materialize = true;
  EXPECT_FALSE(ProductAndSum::second_defined);
  EXPECT_TRUE(all_close(x.grad().data(), tensor({5.0, 7.0})));
}

TEST(CustomFunctionTest, BothOutputsContributeToTheGradients) {
  Variable x = param({2, 3});
  Variable y = param({5, 7});
  const variable_list out = ProductAndSum::apply(x, y);
  (out[0] + out[1]).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({6.0, 8.0})));
  EXPECT_TRUE(all_close(y.grad().data(), tensor({3.0, 4.0})));
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& in) {
        const variable_list o = ProductAndSum::apply(in[0], in[1]);
        return o[0] * 2.0 + o[1];
      },
      {param({0.5, 1.5}), param({-1, 2})}));
}

// x * y + k; records needs_input_grad and returns a gradient for every input.
struct NeedsGrad : Function<NeedsGrad> {
  static inline std::vector<bool> seen;
  static Variable forward(AutogradContext*, const Variable& x, const Variable& y, double k) {
    return x * y + k;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    seen = {ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2)};
    return {grads[0] * 2.0, grads[0] * 3.0, Variable()};
  }
};

TEST(CustomFunctionTest, NeedsInputGradReflectsWhichInputsRequireGrad) {
  Variable x = param({1});
  Variable y(tensor({2.0}));  // no grad
  NeedsGrad::apply(x, y, 1.0).sum().backward();
  EXPECT_EQ(NeedsGrad::seen, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(x.grad().item<double>(), 2);
  EXPECT_FALSE(y.grad().defined());  // the gradient backward returned for y is dropped
}

TEST(CustomFunctionTest, SavedDataAttributesReachBackward) {
  // Square keeps k in saved_data; ScaleShift keeps an integer and a string.
  Variable x = param({2});
  Square::apply(x, 0.25).sum().backward();
  EXPECT_DOUBLE_EQ(x.grad().item<double>(), 1.0);
}

struct ReadsDataAsTheWrongType : Function<ReadsDataAsTheWrongType> {
  static Variable forward(AutogradContext* ctx, const Variable& x) {
    ctx->saved_data["n"] = 3;
    return x * 1.0;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    ctx->get<double>("n");  // stored as an int
    return grads;
  }
};

TEST(CustomFunctionTest, ReadingSavedDataAsTheWrongTypeThrows) {
  Variable x = param({1});
  EXPECT_THROW_MSG(ReadsDataAsTheWrongType::apply(x).sum().backward(), "saved_data[\"n\"] does not hold");
}

struct ReadsMissingData : Function<ReadsMissingData> {
  static Variable forward(AutogradContext* ctx, const Variable& x) {
    ctx->saved_data["n"] = 3;
    return x * 1.0;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    ctx->get<int>("m");  // never stored
    return grads;
  }
};

TEST(CustomFunctionTest, ReadingAMissingSavedDataEntryThrows) {
  Variable x = param({1});
  EXPECT_THROW_MSG(ReadsMissingData::apply(x).sum().backward(), "saved_data has no entry \"m\"");
}

// Asks needs_input_grad for an argument past its two (x and k).
struct AsksPastItsArguments : Function<AsksPastItsArguments> {
  static Variable forward(AutogradContext* ctx, const Variable& x, double k) {
    ctx->needs_input_grad(2);
    return x * k;
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0], Variable()};
  }
};

TEST(CustomFunctionTest, NeedsInputGradOutOfRangeThrows) {
  Variable x = param({1});
  EXPECT_THROW_MSG(AsksPastItsArguments::apply(x, 2.0),
                   "needs_input_grad: index 2 is out of range for a function of 2 arguments");
}

TEST(CustomFunctionTest, ModifyingASavedInputInPlaceMakesBackwardThrow) {
  Variable x = param({1, 2});
  Variable y = Square::apply(x, 1.0).sum();
  {
    NoGradGuard no_grad;
    x.mul_(2.0);
  }
  EXPECT_THROW_MSG(y.backward(), "modified by an inplace operation");
}

TEST(CustomFunctionTest, ModifyingASavedOutputInPlaceMakesBackwardThrow) {
  Variable x = param({1, 2});
  Variable e = Exp::apply(x);
  Variable y = e.sum();
  e.add_(1.0);
  EXPECT_THROW_MSG(y.backward(), "which is saved by ExpBackward");
}

TEST(CustomFunctionTest, ASavedOutputDoesNotKeepTheGraphAlive) {
  Variable x = param({1});
  Variable y = Exp::apply(x);
  std::weak_ptr<autograd::Node> node = y.grad_fn();
  ASSERT_FALSE(node.expired());
  y = Variable();
  EXPECT_TRUE(node.expired());
}

TEST(CustomFunctionTest, ASecondBackwardWithoutRetainGraphThrows) {
  Variable x = param({1, 2});
  Variable y = Square::apply(x, 1.0).sum();
  y.backward();
  EXPECT_THROW_MSG(y.backward(), "Trying to backward through the graph a second time");
}

TEST(CustomFunctionTest, RetainGraphKeepsTheSavedVariables) {
  Variable x = param({3});
  Variable y = Square::apply(x, 1.0).sum();
  y.backward(Variable(), /*retain_graph=*/true);
  y.backward();
  EXPECT_EQ(x.grad().item<double>(), 12);
}

struct TooFewGradients : Function<TooFewGradients> {
  static Variable forward(AutogradContext*, const Variable& x, double) { return x * 2.0; }
  static variable_list backward(AutogradContext*, variable_list grads) { return grads; }
};

TEST(CustomFunctionTest, AWrongNumberOfGradientsThrows) {
  Variable x = param({1});
  EXPECT_THROW_MSG(TooFewGradients::apply(x, 1.0).sum().backward(),
                   "function TooFewGradientsBackward returned an incorrect number of gradients "
                   "(expected 2, got 1)");
}

struct GradientForANumber : Function<GradientForANumber> {
  static Variable forward(AutogradContext*, const Variable& x, double) { return x * 2.0; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0], grads[0]};
  }
};

TEST(CustomFunctionTest, AGradientForANonVariableArgumentThrows) {
  Variable x = param({1});
  EXPECT_THROW_MSG(GradientForANumber::apply(x, 1.0).sum().backward(),
                   "returned a gradient different that is defined at position 2, but the "
                   "corresponding forward input was not a Variable");
}

// Returns a gradient of a fixed shape, ones.
struct FixedShapeGradient : Function<FixedShapeGradient> {
  static inline std::vector<int64_t> shape;
  static inline DType dtype = kFloat64;
  static Variable forward(AutogradContext*, const Variable& x) { return x * 1.0; }
  static variable_list backward(AutogradContext*, variable_list) {
    return {Variable(ones(shape, dtype))};
  }
};

TEST(CustomFunctionTest, AGradientOfTheWrongShapeThrows) {
  FixedShapeGradient::shape = {3};
  FixedShapeGradient::dtype = kFloat64;
  Variable x = param({1, 2});
  EXPECT_THROW_MSG(FixedShapeGradient::apply(x).sum().backward(),
                   "Function FixedShapeGradientBackward returned an invalid gradient at index 0 - "
                   "got [3] but expected shape compatible with [2]");
}

TEST(CustomFunctionTest, ABroadcastGradientIsSummedToTheInputShape) {
  FixedShapeGradient::shape = {4, 2};
  FixedShapeGradient::dtype = kFloat64;
  Variable x = param({1, 2});
  FixedShapeGradient::apply(x).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({4.0, 4.0})));
}

TEST(CustomFunctionTest, AGradientOfAnotherDtypeIsConverted) {
  FixedShapeGradient::shape = {2};
  FixedShapeGradient::dtype = kFloat32;
  Variable x = param({1, 2});
  FixedShapeGradient::apply(x).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat64);
  EXPECT_TRUE(all_close(x.grad().data(), tensor({1.0, 1.0})));
}

struct ThrowsInBackward : Function<ThrowsInBackward> {
  static Variable forward(AutogradContext*, const Variable& x) { return x * 1.0; }
  static variable_list backward(AutogradContext*, variable_list) {
    throw Error("ThrowsInBackward: refused");
  }
};

TEST(CustomFunctionTest, AnExceptionInBackwardReachesTheCallerAndTheEngineRecovers) {
  Variable x = param({1});
  EXPECT_THROW_MSG(ThrowsInBackward::apply(x * 2.0).sum().backward(),
                   "ThrowsInBackward: refused");
  Variable w = param({2});
  Square::apply(w, 1.0).sum().backward();
  EXPECT_EQ(w.grad().item<double>(), 4);
}

TEST(CustomFunctionTest, DoubleBackwardGoesThroughTheCustomBackward) {
  // d/dx (d/dx k x^2)^2 = d/dx (2kx)^2 = 8 k^2 x
  Variable x = param({1.5});
  const Variable dx =
      autograd::grad({Square::apply(x, 2.0).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_TRUE(dx.requires_grad());
  (dx * dx).sum().backward();
  EXPECT_DOUBLE_EQ(x.grad().item<double>(), 8 * 4 * 1.5);
}

TEST(CustomFunctionTest, DoubleBackwardPassesGradgradcheck) {
  Variable x = param({0.5, -1.0, 2.0});
  EXPECT_TRUE(testing::gradgradcheck(
      [](const variable_list& in) { return Square::apply(in[0], 1.5); }, {x}));
  // Exp's backward uses its saved output, whose history is the custom node.
  EXPECT_TRUE(testing::gradgradcheck([](const variable_list& in) { return Exp::apply(in[0]); },
                                     {x}));
  EXPECT_TRUE(testing::gradgradcheck(
      [](const variable_list& in) { return ProductAndSum::apply(in[0], in[1])[0]; },
      {param({0.5, 1.5}), param({-1, 2})}));
}

// Identity returning its input: the input keeps its own state.
struct Identity : Function<Identity> {
  static Variable forward(AutogradContext*, const Variable& x) { return x; }
  static variable_list backward(AutogradContext*, variable_list grads) { return grads; }
};

TEST(CustomFunctionTest, ReturningAnInputWrapsItInsteadOfChangingIt) {
  Variable x = param({1, 2});
  Variable y = Identity::apply(x);
  EXPECT_FALSE(y.is_same(x));
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "IdentityBackward");
  EXPECT_EQ(y.data().data_ptr(), x.data().data_ptr());
  (y * 3.0).sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({3.0, 3.0})));
}

// {x * 2, argmax-like integer output, a marked non-differentiable copy}.
struct WithIndices : Function<WithIndices> {
  static variable_list forward(AutogradContext* ctx, const Variable& x) {
    Variable scaled = x * 2.0;
    Variable copy = x * 1.0;
    ctx->mark_non_differentiable({copy});
    return {scaled, Variable(zeros({2}, kInt64)), copy};
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    EXPECT_TRUE(all_close(grads[2].data(), zeros({2}, kFloat64)));
    return {grads[0] * 2.0};
  }
};

TEST(CustomFunctionTest, NonDifferentiableOutputsDoNotRequireGrad) {
  Variable x = param({1, 2});
  const variable_list out = WithIndices::apply(x);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  EXPECT_FALSE(out[2].requires_grad());
  EXPECT_EQ(out[2].grad_fn(), nullptr);
  out[0].sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({2.0, 2.0})));
}

// Doubles x in place and returns it.
struct DoubleInPlace : Function<DoubleInPlace> {
  static Variable forward(AutogradContext* ctx, Variable x) {
    x.mul_(2.0);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0] * 2.0};
  }
};

TEST(CustomFunctionTest, MarkDirtyRebasesTheModifiedInput) {
  Variable x = param({1, 2});
  Variable a = x * 3.0;
  Variable out = DoubleInPlace::apply(a);
  EXPECT_TRUE(out.is_same(a));
  EXPECT_EQ(a.grad_fn()->name(), "DoubleInPlaceBackward");
  EXPECT_TRUE(all_close(a.data(), tensor({6.0, 12.0})));
  a.sum().backward();
  EXPECT_TRUE(all_close(x.grad().data(), tensor({6.0, 6.0})));
}

// Doubles x in place but returns a new Variable.
struct DoubleInPlaceReturningACopy : Function<DoubleInPlaceReturningACopy> {
  static Variable forward(AutogradContext* ctx, Variable x) {
    x.mul_(2.0);
    ctx->mark_dirty({x});
    return Variable(x.data().clone());
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0] * 2.0};
  }
};

TEST(CustomFunctionTest, ADirtyInputThatIsNotReturnedIsRefused) {
  Variable x = param({1, 2});
  Variable a = x * 3.0;
  EXPECT_THROW_MSG(DoubleInPlaceReturningACopy::apply(a),
                   "DoubleInPlaceReturningACopyBackward: Some elements marked as dirty during the "
                   "forward method were not returned as output. The inputs that are modified "
                   "inplace must all be outputs of the Function.");
}

TEST(CustomFunctionTest, MarkDirtyOnAViewRebasesItsBase) {
  Variable x = param({1, 2, 3});
  Variable a = x * 1.0;
  Variable head = a.narrow(0, 0, 2);
  DoubleInPlace::apply(head);
  EXPECT_EQ(a.grad_fn()->name(), "CopySlices");
  EXPECT_TRUE(all_close(a.data(), tensor({2.0, 4.0, 3.0})));
  (a * a).sum().backward();  // d/dx of (2x0)^2 + (2x1)^2 + x2^2
  EXPECT_TRUE(all_close(x.grad().data(), tensor({8.0, 16.0, 6.0})));
}

TEST(CustomFunctionTest, MarkDirtyOnALeafThatRequiresGradThrows) {
  Variable x = param({1, 2});
  EXPECT_THROW_MSG(DoubleInPlace::apply(x),
                   "a leaf Variable that requires grad is being used in an in-place operation");
}

TEST(CustomFunctionTest, PrintingTheOutputShowsTheNodeName) {
  Variable x = param({1});
  std::ostringstream text;
  text << Square::apply(x, 1.0);
  EXPECT_NE(text.str().find("grad_fn=<SquareBackward>"), std::string::npos) << text.str();
  EXPECT_EQ(Exp::apply(x).grad_fn()->name(), "ExpBackward");
}

TEST(CustomFunctionTest, NoGradRecordsNoNode) {
  Variable x = param({1, 2});
  NoGradGuard no_grad;
  Variable y = Square::apply(x, 1.0);
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.grad_fn(), nullptr);
  Variable z = Identity::apply(x);
  EXPECT_FALSE(z.requires_grad());  // an alias of the input, not the input
  EXPECT_TRUE(x.requires_grad());
}

TEST(CustomFunctionTest, InputsWithoutGradRecordNoNode) {
  Variable x(tensor({1.0, 2.0}));
  Variable y = Square::apply(x, 1.0);
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.grad_fn(), nullptr);
}

// Checks, in forward, that grad mode is off.
struct ForwardGradMode : Function<ForwardGradMode> {
  static inline bool enabled_in_forward = true;
  static Variable forward(AutogradContext*, const Variable& x) {
    enabled_in_forward = is_grad_enabled();
    return x * 2.0;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return grads; }
};

TEST(CustomFunctionTest, ForwardRunsWithGradModeOff) {
  Variable x = param({1});
  Variable y = ForwardGradMode::apply(x);
  EXPECT_FALSE(ForwardGradMode::enabled_in_forward);
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_TRUE(y.requires_grad());
}

class TwoDevices : public ::testing::Test {
 protected:
  void SetUp() override { set_cpu_device_count(2); }
  void TearDown() override { set_cpu_device_count(1); }
};

// Records where its backward ran.
struct WhereBackwardRuns : Function<WhereBackwardRuns> {
  static inline std::atomic<bool> on_executor{false};
  static inline Device device;
  static Variable forward(AutogradContext*, const Variable& x) { return x * 2.0; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    on_executor = device_executor(Device("cpu:1")).is_current_thread();
    device = current_device();
    return {grads[0] * 2.0};
  }
};

TEST_F(TwoDevices, ABackwardRunsOnTheDeviceOfTheOutputs) {
  Variable x = param({1, 2});
  Variable on1 = x.to(Device("cpu:1"));
  Variable y = WhereBackwardRuns::apply(on1);
  EXPECT_EQ(y.grad_fn()->device(), Device("cpu:1"));
  y.sum().backward();
  EXPECT_TRUE(WhereBackwardRuns::on_executor.load());
  EXPECT_EQ(WhereBackwardRuns::device, Device("cpu:1"));
  EXPECT_EQ(x.grad().device(), Device("cpu:0"));
  EXPECT_TRUE(all_close(x.grad().data(), tensor({2.0, 2.0})));
}

// Returns a gradient on cpu:0 for an input on cpu:1.
struct GradientOnTheWrongDevice : Function<GradientOnTheWrongDevice> {
  static Variable forward(AutogradContext*, const Variable& x) { return x * 1.0; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0].to(Device("cpu:0"))};
  }
};

TEST_F(TwoDevices, AGradientOnAnotherDeviceThrows) {
  Variable x = param({1, 2});
  Variable on1 = x.to(Device("cpu:1"));
  EXPECT_THROW_MSG(GradientOnTheWrongDevice::apply(on1).sum().backward(),
                   "returned an invalid gradient at index 0 - expected device cpu:1 but got cpu:0");
}

// scale * (xs[0] + xs[1] + ...): any number of inputs, as one variable_list.
struct ScaledSum : Function<ScaledSum> {
  static inline std::vector<bool> needs;
  static Variable forward(AutogradContext* ctx, const variable_list& xs, double scale) {
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["n"] = xs.size();
    needs.clear();
    for (size_t i = 0; i <= xs.size(); ++i) needs.push_back(ctx->needs_input_grad(i));
    Variable total = xs[0];
    for (size_t i = 1; i < xs.size(); ++i) total = total + xs[i];
    return total * scale;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const double scale = ctx->get<double>("scale");
    variable_list out(ctx->get<size_t>("n"), grads[0] * scale);
    out.emplace_back();  // scale
    return out;
  }
};

// {xs[i] * 2}: one output per input (a Broadcast-style node).
struct DoubleEach : Function<DoubleEach> {
  static variable_list forward(AutogradContext*, const variable_list& xs) {
    variable_list out;
    for (const Variable& x : xs) out.push_back(x * 2.0);
    return out;
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    variable_list out;
    for (const Variable& g : grads) out.push_back(g * 2.0);
    return out;
  }
};

// Returns one gradient for a list of two.
struct TooFewForAList : Function<TooFewForAList> {
  static Variable forward(AutogradContext*, const variable_list& xs) { return xs[0] + xs[1]; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

TEST(CustomFunctionTest, EachElementOfAVariableListIsAnInput) {
  Variable a = param({1, 2}), b = param({3, 4}), c = param({5, 6});
  ScaledSum::apply(variable_list{a, b, c}, 3.0).sum().backward();
  for (const Variable& v : {a, b, c}) {
    EXPECT_TRUE(all_close(v.grad().data(), tensor({3.0, 3.0})));
  }
}

TEST(CustomFunctionTest, NeedsInputGradCountsListElementsOneByOne) {
  Variable a = param({1}), b(tensor({2.0})), c = param({3});
  ScaledSum::apply(variable_list{a, b, c}, 1.0);
  EXPECT_EQ(ScaledSum::needs, (std::vector<bool>{true, false, true, false}));
}

TEST(CustomFunctionTest, AListWithAnInputThatNeedsNoGradLeavesItAlone) {
  Variable a = param({1}), b(tensor({2.0}));
  ScaledSum::apply(variable_list{a, b}, 2.0).sum().backward();
  EXPECT_EQ(a.grad().item<double>(), 2);
  EXPECT_FALSE(b.grad().defined());
}

TEST(CustomFunctionTest, AListFunctionPassesGradcheck) {
  Variable a = param({0.5, -1}), b = param({2, 0.25});
  EXPECT_TRUE(testing::gradcheck(
      [](const variable_list& in) { return ScaledSum::apply(in, 1.5); }, {a, b}));
}

TEST(CustomFunctionTest, AListFunctionMayReturnOneOutputPerInput) {
  Variable a = param({1}), b = param({2});
  const variable_list out = DoubleEach::apply(variable_list{a, b});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].output_nr(), 1u);
  (out[0] * 5.0 + out[1]).sum().backward();
  EXPECT_EQ(a.grad().item<double>(), 10);
  EXPECT_EQ(b.grad().item<double>(), 2);
}

TEST(CustomFunctionTest, AListFunctionMustReturnAGradientPerElement) {
  Variable a = param({1}), b = param({2});
  EXPECT_THROW_MSG(TooFewForAList::apply(variable_list{a, b}).sum().backward(),
                   "function TooFewForAListBackward returned an incorrect number of gradients "
                   "(expected 2, got 1)");
}

}  // namespace
}  // namespace torchlet
