#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tensor/tensor_body.h"

namespace torchlet {

/// torch.unique: the sorted distinct values (1-D), and when asked, the
/// inverse indices (shape of `t`) and counts; unrequested results are
/// undefined tensors.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& t, bool sorted = true,
                                          bool return_inverse = false,
                                          bool return_counts = false);
/// torch.unique_consecutive (see Tensor::unique_consecutive).
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& t,
                                                      bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
/// What quantile and nanquantile share with their gradient (which applies
/// it to a Variable's lanes): the checked arguments, turned into positions
/// in the sorted lanes. The lanes are `t` permuted by `order` (`dim` last),
/// or flattened when `flatten`; sorted ascending, NaNs last, each q takes
/// the lerp of the elements at `below` and `above` by `weight` (int64 and
/// t's dtype, of shape [q's numel, lane dims..., 1]; `weight` undefined
/// when `below` is the answer). The result then has `shape`.
struct QuantilePlan {
  std::vector<int64_t> order;
  bool flatten = false;
  Tensor below, above, weight;
  SizeVec shape;
};
QuantilePlan quantile_plan(const Tensor& t, const Tensor& q, std::optional<int64_t> dim,
                           bool keepdim, const std::string& interpolation, bool ignore_nan);

Tensor median(const Tensor& t);
std::tuple<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& t);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor quantile(const Tensor& t, double q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& t, double q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");

}  // namespace torchlet
