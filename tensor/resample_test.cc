// Resampling composed of tensor ops (what GPUs run, Note [Composed
// resampling] in tensor/pool.cc) against the CPU kernels, on CPU tensors.
#include <vector>

#include "gtest/gtest.h"
#include "tensor/pool.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;

struct Case {
  SizeVec input;
  SizeVec output;
  std::vector<double> scales;  // <= 0: none given
};

void expect_composed_matches_kernel(const Case& c, ResampleMode mode, bool align_corners,
                                    DType dtype) {
  manual_seed(21);
  const Tensor x = randn(c.input).to(dtype);
  const Tensor expected = resample_forward(x, c.output, c.scales, mode, align_corners);
  const Tensor actual =
      detail::resample_forward_composed(x, c.output, c.scales, mode, align_corners);
  EXPECT_TRUE(all_close(actual, expected, 0, 0))
      << "forward " << shape_str(c.input) << " -> " << shape_str(c.output) << " " << dtype;
  const Tensor g = randn(expected.sizes()).to(dtype);
  const Tensor expected_grad = resample_backward(g, c.input, c.scales, mode, align_corners);
  const Tensor actual_grad =
      detail::resample_backward_composed(g, c.input, c.scales, mode, align_corners);
  EXPECT_TRUE(all_close(actual_grad, expected_grad, 1e-5, 1e-5))
      << "backward " << shape_str(c.input) << " -> " << shape_str(c.output) << " " << dtype;
}

// F::interpolate derives the output size from the input's rank, so only a
// direct call can pass sizes of another rank.
TEST(ResampleTest, InputRankMustMatchTheOutputSize) {
  const std::vector<double> scales{0.0, 0.0};
  EXPECT_THROW_MSG(resample_forward(randn({1, 1, 4}), {8, 8}, scales, ResampleMode::kNearest, false),
                   "upsample_nearest: expected input of 4 dims, got [1, 1, 4]");
}

TEST(ResampleTest, ComposedNearestEqualsTheKernel) {
  const std::vector<Case> cases = {
      {{2, 3, 7}, {14}, {-1}},
      {{2, 3, 7}, {5}, {-1}},
      {{1, 2, 5, 6}, {10, 12}, {-1, -1}},
      {{1, 2, 5, 6}, {7, 4}, {-1, -1}},
      {{1, 2, 5, 6}, {8, 9}, {1.7, 1.5}},
      {{1, 1, 3, 4, 5}, {6, 5, 9}, {-1, -1, -1}},
  };
  for (const Case& c : cases) {
    for (DType dtype : {kFloat32, kFloat64}) {
      expect_composed_matches_kernel(c, ResampleMode::kNearest, false, dtype);
    }
  }
}

TEST(ResampleTest, ComposedNearestExactEqualsTheKernel) {
  const std::vector<Case> cases = {
      {{2, 3, 7}, {14}, {-1}},
      {{1, 2, 5, 6}, {7, 4}, {-1, -1}},
      {{1, 2, 5, 6}, {8, 9}, {1.7, 1.5}},
      {{1, 1, 3, 4, 5}, {6, 5, 9}, {-1, -1, -1}},
  };
  for (const Case& c : cases) {
    for (DType dtype : {kFloat32, kFloat64}) {
      expect_composed_matches_kernel(c, ResampleMode::kNearestExact, false, dtype);
    }
  }
}

// linear over 2 dims is bilinear, by another kernel.
TEST(ResampleTest, SeparableLinearEqualsBilinear) {
  manual_seed(3);
  for (bool align_corners : {false, true}) {
    for (const Case& c : std::vector<Case>{{{2, 3, 5, 6}, {10, 4}, {-1, -1}},
                                           {{1, 2, 4, 7}, {9, 11}, {2.3, 1.6}}}) {
      const Tensor x = randn(c.input, kFloat64);
      EXPECT_TRUE(all_close(resample_forward(x, c.output, c.scales, ResampleMode::kLinear,
                                             align_corners),
                            resample_forward(x, c.output, c.scales, ResampleMode::kBilinear,
                                             align_corners),
                            1e-14, 1e-14));
      const Tensor g = randn(SizeVec{c.input[0], c.input[1], c.output[0], c.output[1]}, kFloat64);
      EXPECT_TRUE(all_close(resample_backward(g, c.input, c.scales, ResampleMode::kLinear,
                                              align_corners),
                            resample_backward(g, c.input, c.scales, ResampleMode::kBilinear,
                                              align_corners),
                            1e-14, 1e-14));
    }
  }
}

TEST(ResampleTest, ComposedBilinearEqualsTheKernel) {
  const std::vector<Case> cases = {
      {{2, 3, 5, 6}, {10, 12}, {-1, -1}},
      {{2, 3, 5, 6}, {3, 4}, {-1, -1}},
      {{1, 2, 4, 7}, {9, 11}, {2.3, 1.6}},
      {{1, 1, 1, 6}, {3, 6}, {-1, -1}},
  };
  for (const Case& c : cases) {
    for (bool align_corners : {false, true}) {
      for (DType dtype : {kFloat32, kFloat64}) {
        expect_composed_matches_kernel(c, ResampleMode::kBilinear, align_corners, dtype);
      }
    }
  }
}

TEST(ResampleTest, ComposedLinearAndTrilinearEqualTheKernel) {
  const std::vector<Case> cases = {
      {{2, 3, 7}, {14}, {-1}},
      {{2, 3, 7}, {4}, {-1}},
      {{2, 3, 7}, {7}, {-1}},  // a dim that keeps its size is copied
      {{2, 3, 7}, {12}, {1.7}},
      {{1, 2, 3, 4, 5}, {6, 5, 9}, {-1, -1, -1}},
      {{1, 2, 3, 4, 5}, {3, 7, 2}, {-1, -1, -1}},
      {{1, 1, 2, 3, 4}, {5, 6, 7}, {2.5, 2.1, 1.8}},
  };
  for (const Case& c : cases) {
    for (bool align_corners : {false, true}) {
      for (DType dtype : {kFloat32, kFloat64}) {
        expect_composed_matches_kernel(c, ResampleMode::kLinear, align_corners, dtype);
      }
    }
  }
}

TEST(ResampleTest, ComposedBicubicEqualsTheKernel) {
  const std::vector<Case> cases = {
      {{2, 3, 5, 6}, {10, 12}, {-1, -1}},
      {{2, 3, 5, 6}, {3, 4}, {-1, -1}},  // border taps clamped
      {{1, 2, 4, 7}, {9, 11}, {2.3, 1.6}},
      {{1, 1, 1, 6}, {1, 9}, {-1, -1}},  // a dim of size 1 is copied
  };
  for (const Case& c : cases) {
    for (bool align_corners : {false, true}) {
      for (DType dtype : {kFloat32, kFloat64}) {
        expect_composed_matches_kernel(c, ResampleMode::kBicubic, align_corners, dtype);
      }
    }
  }
}

}  // namespace
}  // namespace torchlet
