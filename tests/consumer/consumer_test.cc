// Built in a separate Bazel workspace that depends on @torchlet: proves the
// library works as an external dependency.
#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "tensor/tensor.h"

TEST(ConsumerTest, UsesTheTensorPackage) {
  torchlet::Tensor a = torchlet::tensor({{1, 2}, {3, 4}});
  torchlet::Tensor b = a * 2 + 1;
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{3, 5, 7, 9}));
  EXPECT_EQ(b.t().contiguous().to_vector<int64_t>(), (std::vector<int64_t>{3, 7, 5, 9}));
}

TEST(ConsumerTest, UsesTheAutogradPackage) {
  torchlet::Variable w(torchlet::tensor({1.0f, 2.0f}), /*requires_grad=*/true);
  (w * w).sum().backward();
  EXPECT_EQ(w.grad().data().to_vector<float>(), (std::vector<float>{2, 4}));
}

TEST(ConsumerTest, TrainsAndCheckpointsWithTheNnPackage) {
  using namespace torchlet;
  manual_seed(0);
  nn::Sequential net(nn::Linear(2, 8), nn::ReLU(), nn::Linear(8, 2));
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.1));
  const Variable x(randn({16, 2}));
  const Variable y(x.data().argmax(1));
  double first = 0, last = 0;
  for (int step = 0; step < 50; ++step) {
    opt.zero_grad();
    const Variable loss = nn::functional::cross_entropy(net(x), y);
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first);
  const std::string path = std::string(::testing::TempDir()) + "/net.safetensors";
  save(net->state_dict(), path);
  nn::Sequential copy(nn::Linear(2, 8), nn::ReLU(), nn::Linear(8, 2));
  copy->load_state_dict(load(path));
  EXPECT_EQ(copy(x).data().to_vector<float>(), net(x).data().to_vector<float>());
}
