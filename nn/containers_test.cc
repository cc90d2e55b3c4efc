#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;

using testing::printed;

std::vector<std::string> child_names(const Module& module) {
  std::vector<std::string> names;
  for (const auto& child : module.named_children()) names.push_back(child.first);
  return names;
}

TEST(SequentialTest, ForwardChainsTheModules) {
  Sequential seq(Linear(3, 4), ReLU(), Linear(4, 2));
  const Variable x(randn({5, 3}));
  const Variable expected =
      seq->ptr<LinearImpl>(2)->forward(seq->ptr<LinearImpl>(0)->forward(x).relu());
  EXPECT_TRUE(all_close(seq(x).data(), expected.data()));
}

TEST(SequentialTest, EmptySequentialReturnsItsInput) {
  Sequential seq;
  const Variable x(randn({2}));
  EXPECT_TRUE(seq(x).is_same(x));
  EXPECT_EQ(printed(seq), "Sequential()");
}

TEST(SequentialTest, PushBackNamesByPositionOrByTheGivenName) {
  Sequential seq;
  seq->push_back(Linear(2, 2));
  seq->push_back("act", ReLU());
  seq->push_back(std::make_shared<TanhImpl>());
  EXPECT_EQ(child_names(*seq), (std::vector<std::string>{"0", "act", "2"}));
  EXPECT_EQ(seq->size(), 3u);
}

TEST(SequentialTest, SliceKeepsNamesAndSharesModules) {
  Sequential seq(Linear(1, 2), ReLU(), Tanh(), Sigmoid());
  auto middle = seq->slice(1, 3);
  EXPECT_EQ(printed(*middle), "Sequential(\n  (1): ReLU()\n  (2): Tanh()\n)");
  EXPECT_EQ((*middle)[0].get(), seq[1].get());
  EXPECT_EQ(printed(*seq->slice(-2, 4)), "Sequential(\n  (2): Tanh()\n  (3): Sigmoid()\n)");
}

TEST(SequentialTest, IteratesItsModulesInOrder) {
  Sequential seq({{"fc", Linear(1, 2)}, {"act", ReLU()}});
  std::vector<Module*> seen;
  for (const std::shared_ptr<Module>& m : *seq) seen.push_back(m.get());
  EXPECT_EQ(seen, (std::vector<Module*>{seq[0].get(), seq[1].get()}));
}

TEST(SequentialTest, ExtendAppendsTheOtherModulesNumberedByPosition) {
  // torch.nn.Sequential.extend appends each layer under str(len(self)).
  Sequential seq({{"fc", Linear(3, 3)}});
  Sequential tail(ReLU(), Linear(3, 2));
  seq->extend(*tail);
  seq->append(Tanh());
  EXPECT_EQ(child_names(*seq), (std::vector<std::string>{"fc", "1", "2", "3"}));
  EXPECT_EQ(seq[2].get(), tail[1].get());
  const Variable x(randn({4, 3}));
  EXPECT_TRUE(all_close(seq(x).data(), tail(seq->ptr<LinearImpl>(0)->forward(x)).tanh().data()));
}

TEST(SequentialTest, ExtendWithItselfRepeatsItsModules) {
  Sequential seq(Linear(2, 2), ReLU());
  seq->extend(*seq);
  EXPECT_EQ(seq->size(), 4u);
  EXPECT_EQ(seq[2].get(), seq[0].get());
  EXPECT_EQ(seq->parameters().size(), 2u);
}

TEST(SequentialTest, BadIndexOrNameThrows) {
  Sequential seq({{"fc", Linear(1, 2)}, {"act", ReLU()}});
  EXPECT_THROW_MSG(seq[5], "index 5 is out of range");
  EXPECT_THROW_MSG(seq[-3], "index -3 is out of range");
  EXPECT_THROW_MSG(seq["conv"], "Sequential has no attribute `conv`");
  EXPECT_THROW_MSG(seq->ptr<TanhImpl>(1), "Sequential: module 1 is not of the type asked");
  EXPECT_THROW_MSG(seq->push_back("fc", Tanh()), "attribute 'fc' already exists");
}

TEST(ModuleListTest, AppendExtendAndInsertRenumber) {
  ModuleList list{ReLU(), Tanh()};
  list->insert(1, Sigmoid());
  EXPECT_EQ(printed(list), "ModuleList(\n  (0): ReLU()\n  (1): Sigmoid()\n  (2): Tanh()\n)");
  ModuleList more{Identity()};
  list->extend(*more);
  list->append(Linear(1, 1));
  EXPECT_EQ(child_names(*list), (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(list[3]->name(), "Identity");
  EXPECT_EQ(list[-1]->name(), "Linear");
  EXPECT_EQ(list->ptr<LinearImpl>(4)->in_features(), 1);
  EXPECT_THROW_MSG(list[7], "index 7 is out of range");
  EXPECT_THROW_MSG(list->insert(9, ReLU()), "index 9 is out of range");
  EXPECT_THROW_MSG(list->ptr<TanhImpl>(0), "ModuleList: module 0 is not of the type asked");
  EXPECT_EQ(printed(ModuleList()), "ModuleList()");
}

TEST(ModuleListTest, ParametersOfTheElementsBelongToTheOwner) {
  struct Stack : Module {
    Stack() { layers = register_module("layers", ModuleList(Linear(2, 2), Linear(2, 1))); }
    Variable forward(Variable x) {
      for (const auto& layer : *layers) x = layer->as<LinearImpl>()->forward(x);
      return x;
    }
    ModuleList layers{nullptr};
  };
  Stack stack;
  std::vector<std::string> names;
  for (const auto& named : stack.named_parameters()) names.push_back(named.first);
  EXPECT_EQ(names, (std::vector<std::string>{"layers.0.weight", "layers.0.bias",
                                             "layers.1.weight", "layers.1.bias"}));
  EXPECT_EQ(call(stack, Variable(ones({3, 2}))).sizes(), IntArrayRef({3, 1}));
}

TEST(ModuleDictTest, InsertLookupReplaceAndPop) {
  ModuleDict dict({{"act", ReLU()}, {"fc", Linear(3, 4)}});
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"act", "fc"}));
  EXPECT_TRUE(dict->contains("fc"));
  EXPECT_EQ(dict["act"]->name(), "ReLU");
  dict->insert("act", Tanh());
  EXPECT_EQ(dict["act"]->name(), "Tanh");
  EXPECT_EQ(dict->size(), 2u);
  EXPECT_EQ(dict->pop("act")->name(), "Tanh");
  EXPECT_FALSE(dict->contains("act"));
  EXPECT_EQ(dict->values().size(), 1u);
  EXPECT_THROW_MSG(dict["act"], "ModuleDict: no module under the key 'act'");
  EXPECT_THROW_MSG(dict->pop("act"), "ModuleDict: no module under the key 'act'");
  EXPECT_EQ(printed(dict), "ModuleDict(\n  (fc): Linear(in_features=3, out_features=4, bias=True)\n)");
}

TEST(ParameterListTest, AppendIndexAndPrintAsPyTorch) {
  ParameterList list;
  EXPECT_EQ(printed(list), "ParameterList()");
  list->append(zeros({3, 4}));
  EXPECT_EQ(printed(list), "ParameterList(  (0): Parameter containing: [torch.float32 of size 3x4])");
  list->append(zeros({2}, kFloat64));
  EXPECT_EQ(printed(list),
            "ParameterList(\n"
            "    (0): Parameter containing: [torch.float32 of size 3x4]\n"
            "    (1): Parameter containing: [torch.float64 of size 2]\n"
            ")");
  EXPECT_TRUE(list[1].requires_grad());
  EXPECT_TRUE(list[-1].is_same(list->parameters()[1]));
  EXPECT_THROW_MSG(list[2], "index 2 is out of range");
}

TEST(ParameterDictTest, InsertLookupAndPrintAsPyTorch) {
  ParameterDict dict({{"x", Variable(zeros({3}))}});
  EXPECT_EQ(printed(dict), "ParameterDict(  (x): Parameter containing: [torch.FloatTensor of size 3])");
  dict->insert("y", zeros({2, 2}, kFloat64));
  EXPECT_EQ(printed(dict),
            "ParameterDict(\n"
            "    (x): Parameter containing: [torch.FloatTensor of size 3]\n"
            "    (y): Parameter containing: [torch.DoubleTensor of size 2x2]\n"
            ")");
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(dict->contains("y"));
  EXPECT_TRUE(dict["x"].requires_grad());
  EXPECT_THROW_MSG(dict["z"], "ParameterDict: no parameter under the key 'z'");
}

// Every dtype's legacy type name, as PyTorch 1.13 prints a ParameterDict
// holding a 2-element parameter of it (float16 and bfloat16 once read past
// the end of a name table).
TEST(ParameterDictTest, PrintsTheLegacyTypeNameOfEveryDtypeAsPyTorch) {
  const std::vector<std::pair<DType, std::string>> cases = {
      {kBool, "BoolTensor"},       {kUInt8, "ByteTensor"},   {kInt32, "IntTensor"},
      {kInt64, "LongTensor"},      {kFloat16, "HalfTensor"}, {kBFloat16, "BFloat16Tensor"},
      {kFloat32, "FloatTensor"},   {kFloat64, "DoubleTensor"},
  };
  for (const auto& [dtype, name] : cases) {
    ParameterDict dict;
    // Only floating point parameters may require grad (PyTorch's
    // nn.Parameter(..., requires_grad=False) for the others).
    dict->register_parameter("b", ones({2}, dtype), is_floating_point(dtype));
    EXPECT_EQ(printed(dict), "ParameterDict(  (b): Parameter containing: [torch." + name +
                                 " of size 2])")
        << dtype;
  }
}

// PyTorch 1.13 prints a ParameterList entry's dtype as "torch.<dtype>".
TEST(ParameterListTest, PrintsEveryDtypeAsPyTorch) {
  for (DType dtype : {kBool, kUInt8, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64}) {
    ParameterList list;
    list->register_parameter("0", ones({2}, dtype), is_floating_point(dtype));
    EXPECT_EQ(printed(list), "ParameterList(  (0): Parameter containing: [torch." +
                                 std::string(dtype_name(dtype)) + " of size 2])");
  }
}

TEST(ContainersTest, NestedContainersPrintAsPyTorch) {
  struct M : Module {
    M() {
      register_module("l", ModuleDict({{"a", ReLU()}}));
      register_module("p", ParameterList({Variable(zeros({2}))}));
    }
  };
  EXPECT_EQ(M().repr(),
            "M(\n"
            "  (l): ModuleDict(\n"
            "    (a): ReLU()\n"
            "  )\n"
            "  (p): ParameterList(  (0): Parameter containing: [torch.float32 of size 2])\n"
            ")");
}

}  // namespace
}  // namespace torchlet::nn
