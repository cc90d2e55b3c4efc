#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"
#include "tensor/test_util.h"

namespace torchlet {
namespace {

using testing::all_close;

const testing::GoldenFile& golden() {
  return testing::GoldenFile::get("tensor/testdata/einsum_golden.txt");
}

struct Case {
  const char* name;
  const char* equation;
  int operands;
};

// The catalogue of tools/gen_einsum_golden.py.
const Case kCases[] = {
    {"matmul", "ij,jk->ik", 2},
    {"matmul_implicit", "ij,jk", 2},
    {"bmm", "bij,bjk->bik", 2},
    {"outer", "i,j->ij", 2},
    {"trace", "ii", 1},
    {"diagonal", "ii->i", 1},
    {"batch_diagonal", "bii->bi", 1},
    {"repeated_implicit", "iij", 1},
    {"transpose", "ij->ji", 1},
    {"sum_all", "ij->", 1},
    {"sum_rows", "ij->i", 1},
    {"bilinear", "bn,anm,bm->ba", 3},
    {"ellipsis_both", "...ij,...jk->...ik", 2},
    {"ellipsis_middle", "a...b->...ab", 1},
    {"ellipsis_dropped", "...i->i", 1},
    {"ellipsis_implicit", "...ij,...j", 2},
    {"implicit_sorted", "ba,ac", 2},
    {"implicit_upper_first", "bA,Ac", 2},
    {"broadcast_mul", "ij,ij->ij", 2},
    {"broadcast_batch", "bij,bjk->bik", 2},
    {"broadcast_contracted", "ij,jk->ik", 2},
    {"chain3", "ij,jk,kl->il", 3},
    {"triple_dot", "i,i,i->", 3},
    {"outer3", "a,b,c->abc", 3},
    {"four_operands", "ab,bc,cd,de->ae", 4},
    {"one_side_sum", "ij,jk->i", 2},
    {"batch_keep_sum", "bij,bjk->b", 2},
    {"attention", "bhqd,bhkd->bhqk", 2},
    {"scalar_operand", ",ij->ij", 2},
    {"spaces", "i j , j k -> i k", 2},
    {"output_permuted", "ijk,jl->lki", 2},
    {"empty_contracted", "ij,jk->ik", 2},
    {"empty_batch", "bij,bjk->bik", 2},
};

std::vector<Tensor> inputs(const Case& c, DType dtype) {
  std::vector<Tensor> ops;
  for (int i = 0; i < c.operands; ++i) {
    ops.push_back(golden().at(std::string(c.name) + ".in" + std::to_string(i)).to(dtype));
  }
  return ops;
}

TEST(EinsumTest, MatchesPyTorchInFloat64) {
  for (const Case& c : kCases) {
    const Tensor out = einsum(c.equation, inputs(c, kFloat64));
    EXPECT_EQ(out.dtype(), kFloat64);
    EXPECT_TRUE(all_close(out, golden().at(std::string(c.name) + ".out"), 1e-12, 1e-12))
        << c.name << " " << c.equation;
  }
}

TEST(EinsumTest, MatchesPyTorchInFloat32) {
  for (const Case& c : kCases) {
    const Tensor out = einsum(c.equation, inputs(c, kFloat32));
    EXPECT_EQ(out.dtype(), kFloat32);
    EXPECT_TRUE(all_close(out, golden().at(std::string(c.name) + ".out"), 1e-5, 1e-5))
        << c.name << " " << c.equation;
  }
}

// Every operand as a non-contiguous view of the same values (a transposed
// copy for rank >= 2, every other element of a wider tensor for rank 1).
Tensor non_contiguous(const Tensor& t) {
  if (t.dim() >= 2) return t.transpose(0, 1).contiguous().transpose(0, 1);
  if (t.dim() == 1) {
    Tensor wide = zeros({t.size(0) * 2}, t.dtype());
    Tensor view = wide.slice(0, 0, std::nullopt, 2);
    view.copy_(t);
    return view;
  }
  return t;
}

TEST(EinsumTest, MatchesPyTorchOnNonContiguousOperands) {
  for (const Case& c : kCases) {
    std::vector<Tensor> ops = inputs(c, kFloat64);
    for (Tensor& t : ops) t = non_contiguous(t);
    EXPECT_TRUE(all_close(einsum(c.equation, ops), golden().at(std::string(c.name) + ".out"),
                          1e-12, 1e-12))
        << c.name << " " << c.equation;
  }
}

TEST(EinsumTest, DiagonalOfAnOffsetView) {
  // A repeated subscript on a view that starts inside its storage.
  const Tensor base = arange(0, 32, 1, kFloat64).view({2, 4, 4});
  const Tensor view = base.select(0, 1).narrow(0, 1, 3).narrow(1, 1, 3);
  EXPECT_TRUE(all_close(einsum("ii->i", {view}), tensor({21.0, 26.0, 31.0}, kFloat64)));
  EXPECT_TRUE(all_close(einsum("ii", {view}), scalar_tensor(78.0, kFloat64)));
}

TEST(EinsumTest, BatchedProductMatchesBmm) {
  manual_seed(3);
  const Tensor a = randn({4, 5, 6}), b = randn({4, 6, 7});
  EXPECT_TRUE(all_close(einsum("bij,bjk->bik", {a, b}), bmm(a, b), 1e-6, 1e-6));
}

TEST(EinsumTest, ImplicitOutputOfOneOperandWithNoRepeatsIsTheOperandItself) {
  const Tensor a = arange(0, 6, 1, kFloat32).view({2, 3});
  EXPECT_TRUE(einsum("ij", {a}).is_same(a) || einsum("ij", {a}).shares_storage(a));
}

TEST(EinsumTest, IntegerOperandsWithoutContractionKeepTheirDtype) {
  const Tensor a = arange(0, 6, 1, kInt64).view({2, 3});
  const Tensor out = einsum("ij->", {a});
  EXPECT_EQ(out.dtype(), kInt64);
  EXPECT_EQ(out.item<int64_t>(), 15);
}

// ---- Errors, in PyTorch's words ----------------------------------------------------

TEST(EinsumTest, RejectsNoOperands) {
  EXPECT_THROW_MSG(einsum("ij", {}), "einsum(): must provide at least one operand");
}

TEST(EinsumTest, RejectsSubscriptCountNotMatchingRank) {
  EXPECT_THROW_MSG(einsum("ij,jk", {zeros({2, 3, 4}), zeros({3, 4})}),
                   "einsum(): the number of subscripts in the equation (2) does not match the "
                   "number of dimensions (3) for operand 0 and no ellipsis was given");
  EXPECT_THROW_MSG(einsum("ijk...", {zeros({2, 3})}),
                   "einsum(): the number of subscripts in the equation (3) is more than the "
                   "number of dimensions (2) for operand 0");
}

TEST(EinsumTest, RejectsMoreOperandsThanTheEquationNames) {
  EXPECT_THROW_MSG(einsum("ij->ij", {zeros({2, 3}), zeros({2, 3})}),
                   "einsum(): more operands were provided than specified in the equation");
}

TEST(EinsumTest, RejectsFewerOperandsThanTheEquationNames) {
  EXPECT_THROW_MSG(einsum("ij,", {zeros({2, 3})}),
                   "einsum(): fewer operands were provided than specified in the equation");
}

TEST(EinsumTest, RejectsAnInvalidSubscriptWithItsIndex) {
  EXPECT_THROW_MSG(einsum("i$j", {zeros({2, 3})}),
                   "einsum(): invalid subscript given at index 1 in the equation string, "
                   "subscripts must be in [a-zA-Z]");
  EXPECT_THROW_MSG(einsum("i->i-", {zeros({2})}),
                   "einsum(): invalid subscript given at index 4 in the equation string");
}

TEST(EinsumTest, RejectsAnOutputSubscriptMissingFromTheInputs) {
  EXPECT_THROW_MSG(einsum("ij->k", {zeros({2, 3})}),
                   "einsum(): output subscript k does not appear in the equation for any input "
                   "operand");
}

TEST(EinsumTest, RejectsARepeatedOutputSubscript) {
  EXPECT_THROW_MSG(einsum("ij->jij", {zeros({2, 3})}),
                   "einsum(): output subscript j appears more than once in the output");
}

TEST(EinsumTest, RejectsARepeatedSubscriptOfDifferentSizes) {
  EXPECT_THROW_MSG(einsum("ii", {zeros({2, 3})}),
                   "einsum(): subscript i is repeated for operand 0 but the sizes don't match, "
                   "3 != 2");
}

TEST(EinsumTest, RejectsSubscriptSizesThatDoNotBroadcast) {
  EXPECT_THROW_MSG(einsum("ij,j", {zeros({2, 3}), zeros({4})}),
                   "einsum(): subscript j has size 4 for operand 1 which does not broadcast with "
                   "previously seen size 3");
}

TEST(EinsumTest, RejectsEllipsisDimsThatDoNotBroadcast) {
  EXPECT_THROW_MSG(einsum("...ij,...jk", {zeros({5, 2, 3}), zeros({4, 3, 4})}),
                   "einsum(): dimension 0 covered by ellipsis in operand 1has size 4 which does "
                   "not broadcast with previously seen ellipsis with size 5 for the respective "
                   "dimension");
}

TEST(EinsumTest, RejectsAStrayPeriod) {
  EXPECT_THROW_MSG(einsum("i..j", {zeros({2, 3})}),
                   "einsum(): found '.' for operand 0 that is not part of any ellipsis");
  EXPECT_THROW_MSG(einsum("ij->i.", {zeros({2, 3})}),
                   "einsum(): found '.' for output that is not part of any ellipsis (...)");
}

TEST(EinsumTest, RejectsTwoEllipses) {
  EXPECT_THROW_MSG(einsum("...i...", {zeros({2, 3})}),
                   "einsum(): found '.' for operand 0 for which an ellipsis was already found");
  EXPECT_THROW_MSG(einsum("...i->......", {zeros({2, 3})}),
                   "einsum(): found '.' for output but an ellipsis (...) was already found");
}

TEST(EinsumTest, RejectsOperandsOfDifferentDtypes) {
  EXPECT_THROW_MSG(einsum("ij,jk", {zeros({2, 3}), zeros({3, 4}, kFloat64)}), "dtype");
}

}  // namespace
}  // namespace torchlet
