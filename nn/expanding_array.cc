#include "nn/expanding_array.h"

#include <algorithm>

#include "tensor/error.h"

namespace torchlet::nn {

template <size_t D>
ExpandingArray<D>::ExpandingArray(std::initializer_list<int64_t> values) {
  TORCHLET_CHECK(values.size() == D, "ExpandingArray<", D, ">: expected ", D, " values, got ",
                 values.size());
  std::copy(values.begin(), values.end(), values_.begin());
}

template class ExpandingArray<1>;
template class ExpandingArray<2>;
template class ExpandingArray<3>;
template class ExpandingArray<4>;
template class ExpandingArray<6>;

}  // namespace torchlet::nn
