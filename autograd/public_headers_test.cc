// What autograd.h gives a user (Note [Public graph, internal plumbing]):
// the graph as Node and Edge, but none of the plumbing that builds it.
#include <type_traits>

#include "autograd/autograd.h"
#include "gtest/gtest.h"

namespace torchlet {
namespace {

template <typename T, typename = void>
struct is_complete : std::false_type {};
template <typename T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

TEST(PublicHeadersTest, VariableStateIsOpaque) {
  EXPECT_FALSE(is_complete<VariableImpl>::value);
}

TEST(PublicHeadersTest, SavedVariableIsOpaque) {
  EXPECT_FALSE(is_complete<autograd::SavedVariable>::value);
}

TEST(PublicHeadersTest, NodeAndEdgeArePublic) {
  EXPECT_TRUE(is_complete<autograd::Node>::value);
  EXPECT_TRUE(is_complete<autograd::Edge>::value);
}

TEST(PublicHeadersTest, AGradFnIsNamedAndLeadsToItsInputs) {
  Variable w(tensor({1.0, 2.0}), /*requires_grad=*/true);
  const Variable y = (w * 2.0).sum();
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  const autograd::Edge& edge = y.grad_fn()->next_edges().at(0);
  ASSERT_TRUE(edge.valid());
  EXPECT_EQ(edge.fn->name(), "MulBackward1");
  EXPECT_EQ(autograd::gradient_edge(w).fn->name(), "AccumulateGrad");
}

}  // namespace
}  // namespace torchlet
