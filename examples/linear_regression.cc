// Linear regression with tensor + autograd only (no nn): recovers the true
// weights of y = x @ w + b + noise by full-batch gradient descent.
#include <cstdio>

#include "autograd/autograd.h"

using namespace torchlet;  // NOLINT: example brevity

int main() {
  manual_seed(0);
  const Tensor true_w = tensor({{2.0f}, {-3.4f}, {0.5f}});
  const float true_b = 4.2f;
  const Tensor x = randn({256, 3});
  const Tensor y = mm(x, true_w) + true_b + randn({256, 1}) * 0.01;

  Variable w(zeros({3, 1}), /*requires_grad=*/true);
  Variable b(zeros({1}), /*requires_grad=*/true);
  const Variable inputs(x), targets(y);
  const double lr = 0.1;

  for (int step = 0; step <= 100; ++step) {
    const Variable prediction = matmul(inputs, w) + b;
    const Variable loss = (prediction - targets).pow(2.0).mean();
    w.set_grad(Variable());
    b.set_grad(Variable());
    loss.backward();
    {
      NoGradGuard no_grad;
      w.sub_(w.grad(), lr);
      b.sub_(b.grad(), lr);
    }
    if (step % 10 == 0) std::printf("step %3d  loss %.6f\n", step, loss.item<double>());
  }
  const std::vector<float> fitted = w.data().to_vector<float>();
  const std::vector<float> expected = true_w.to_vector<float>();
  std::printf("\n%-6s %10s %10s\n", "param", "fitted", "true");
  for (size_t i = 0; i < fitted.size(); ++i) {
    std::printf("w[%zu]   %10.4f %10.4f\n", i, fitted[i], expected[i]);
  }
  std::printf("b      %10.4f %10.4f\n", b.item<double>(), static_cast<double>(true_b));
  return 0;
}
