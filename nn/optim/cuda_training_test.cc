// A model moved to a GPU trains with the same code and reaches the same
// parameters as on the CPU: layers, cross-entropy, backward and every
// optimizer's fused update on CUDA tensors. Skipped where no GPU is present.
#include <functional>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "nn/functional/loss.h"
#include "nn/nn.h"
#include "nn/optim/optim.h"
#include "tensor/test_util.h"

namespace torchlet::optim {
namespace {

using MakeOptimizer = std::function<std::unique_ptr<Optimizer>(std::vector<Variable>)>;

// `steps` steps of a small MLP on `device`; its parameters afterwards, on the CPU.
std::vector<Tensor> train(Device device, const MakeOptimizer& make, int steps = 3) {
  manual_seed(7);
  nn::Sequential model(nn::Linear(12, 32), nn::ReLU(), nn::Linear(32, 5));
  model->to(device);
  const Tensor x = randn({64, 12}).to(device);
  const Tensor y = randint(0, 5, {64}).to(device);
  std::unique_ptr<Optimizer> optimizer = make(model->parameters());
  for (int step = 0; step < steps; ++step) {
    optimizer->zero_grad();
    const Variable loss = nn::functional::cross_entropy(model->forward(Variable(x)), Variable(y));
    loss.backward();
    optimizer->step();
  }
  std::vector<Tensor> params;
  for (const Variable& p : model->parameters()) {
    EXPECT_EQ(p.device(), device);
    params.push_back(p.data().to(Device("cpu:0")));
  }
  return params;
}

void expect_same_training(const MakeOptimizer& make, int steps = 3) {
  const std::vector<Tensor> cpu = train(Device("cpu:0"), make, steps);
  const std::vector<Tensor> gpu = train(Device("cuda:0"), make, steps);
  ASSERT_EQ(cpu.size(), gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_TRUE(testing::all_close(gpu[i], cpu[i], 1e-4, 1e-5)) << "parameter " << i;
  }
}

TEST(CudaTrainingTest, SgdWithMomentumTrainsLikeTheCpu) {
  REQUIRE_GPU();
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<SGD>(params, SGDOptions(0.1).momentum(0.9).nesterov(true));
  });
}

TEST(CudaTrainingTest, AdamTrainsLikeTheCpu) {
  REQUIRE_GPU();
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<Adam>(params, AdamOptions(1e-2).amsgrad(true));
  });
}

TEST(CudaTrainingTest, RmspropAndAdagradTrainLikeTheCpu) {
  REQUIRE_GPU();
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<RMSprop>(params, RMSpropOptions(1e-2).centered(true).momentum(0.5));
  });
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<Adagrad>(params, AdagradOptions(1e-2));
  });
}

TEST(CudaTrainingTest, AdadeltaAdamaxAndNAdamTrainLikeTheCpu) {
  REQUIRE_GPU();
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<Adadelta>(params, AdadeltaOptions(1.0).weight_decay(1e-2));
  });
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<Adamax>(params, AdamaxOptions(1e-2).weight_decay(1e-2));
  });
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<NAdam>(params, NAdamOptions(1e-2).weight_decay(1e-2));
  });
}

TEST(CudaTrainingTest, RadamTrainsLikeTheCpu) {
  REQUIRE_GPU();
  // From step 6 on, the variance is tractable and the step rectified.
  expect_same_training(
      [](std::vector<Variable> params) {
        return std::make_unique<RAdam>(params, RAdamOptions(1e-2).weight_decay(1e-2));
      },
      8);
}

TEST(CudaTrainingTest, AsgdAndRpropTrainLikeTheCpu) {
  REQUIRE_GPU();
  // t0 = 1: the average starts moving after the first step.
  expect_same_training([](std::vector<Variable> params) {
    return std::make_unique<ASGD>(params, ASGDOptions(1e-2).t0(1).lambd(1e-3));
  });
  expect_same_training(
      [](std::vector<Variable> params) {
        return std::make_unique<Rprop>(params, RpropOptions(1e-2).etas({0.4, 1.3}));
      },
      5);
}

// `train` with LBFGS, whose step(closure) evaluates the loss as often as it
// needs.
std::vector<Tensor> train_lbfgs(Device device, const LBFGSOptions& options) {
  manual_seed(7);
  nn::Sequential model(nn::Linear(12, 32), nn::ReLU(), nn::Linear(32, 5));
  model->to(device);
  const Tensor x = randn({64, 12}).to(device);
  const Tensor y = randint(0, 5, {64}).to(device);
  LBFGS optimizer(model->parameters(), options);
  for (int step = 0; step < 3; ++step) {
    optimizer.step([&] {
      optimizer.zero_grad();
      const Variable loss =
          nn::functional::cross_entropy(model->forward(Variable(x)), Variable(y));
      loss.backward();
      return loss;
    });
  }
  std::vector<Tensor> params;
  for (const Variable& p : model->parameters()) {
    EXPECT_EQ(p.device(), device);
    params.push_back(p.data().to(Device("cpu:0")));
  }
  return params;
}

TEST(CudaTrainingTest, LbfgsTrainsLikeTheCpu) {
  REQUIRE_GPU();
  for (const LBFGSOptions& options :
       {LBFGSOptions(0.5).max_iter(4).history_size(3),
        LBFGSOptions(1).max_iter(5).line_search_fn("strong_wolfe")}) {
    SCOPED_TRACE(options.line_search_fn_.value_or("no line search"));
    const std::vector<Tensor> cpu = train_lbfgs(Device("cpu:0"), options);
    const std::vector<Tensor> gpu = train_lbfgs(Device("cuda:0"), options);
    ASSERT_EQ(cpu.size(), gpu.size());
    // Each iteration's direction and step length come from dot products and
    // norms over every parameter: looser than a single update.
    for (size_t i = 0; i < cpu.size(); ++i) {
      EXPECT_TRUE(testing::all_close(gpu[i], cpu[i], 1e-3, 1e-4)) << "parameter " << i;
    }
  }
}

TEST(CudaTrainingTest, LenetStepsOnTheGpuMatchTheCpu) {
  REQUIRE_GPU();
  auto train_lenet = [](Device device) {
    manual_seed(3);
    nn::Sequential net(nn::Conv2d(nn::Conv2dOptions(1, 6, 5).padding(2)), nn::ReLU(),
                       nn::MaxPool2d(2), nn::Conv2d(6, 16, 5), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Flatten(), nn::Linear(400, 120), nn::ReLU(), nn::Linear(120, 84),
                       nn::ReLU(), nn::Linear(84, 10));
    net->to(device);
    const Tensor x = randn({32, 1, 28, 28}).to(device);
    const Tensor y = randint(0, 10, {32}).to(device);
    SGD optimizer(net->parameters(), SGDOptions(0.05).momentum(0.9));
    for (int step = 0; step < 3; ++step) {
      optimizer.zero_grad();
      nn::functional::cross_entropy(net->forward(Variable(x)), Variable(y)).backward();
      optimizer.step();
    }
    std::vector<Tensor> params;
    for (const Variable& p : net->parameters()) params.push_back(p.data().to(Device("cpu:0")));
    return params;
  };
  const std::vector<Tensor> cpu = train_lenet(Device("cpu:0"));
  const std::vector<Tensor> gpu = train_lenet(Device("cuda:0"));
  ASSERT_EQ(cpu.size(), gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_TRUE(testing::all_close(gpu[i], cpu[i], 1e-3, 1e-4)) << "parameter " << i;
  }
}

TEST(CudaTrainingTest, OutOfRangeTargetsOnTheGpuAreNamed) {
  REQUIRE_GPU();
  const Variable input(zeros({2, 3}, Device("cuda:0")));
  const Variable target(tensor({0, 5}).to(Device("cuda:0")));
  EXPECT_THROW_MSG(nn::functional::cross_entropy(input, target), "Target 5 is out of bounds.");
}

}  // namespace
}  // namespace torchlet::optim
