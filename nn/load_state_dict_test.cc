#include <string>

#include "gtest/gtest.h"
#include "nn/nn.h"
#include "tensor/test_util.h"

namespace torchlet::nn {
namespace {

using testing::all_close;

class NetImpl : public Cloneable<NetImpl> {
 public:
  NetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", Linear(3, 4));
    seq = register_module("seq", Sequential(Linear(4, 4), ReLU()));
    steps = register_buffer("steps", zeros({1}));
    cache = register_buffer("cache", zeros({2}), /*persistent=*/false);
  }
  Linear fc{nullptr};
  Sequential seq{nullptr};
  Variable steps;
  Variable cache;
};
TORCHLET_MODULE(Net);

TEST(LoadStateDictTest, StateDictHoldsParametersAndPersistentBuffersSharingStorage) {
  Net net;
  const StateDict state = net->state_dict();
  EXPECT_EQ(state.keys(), (std::vector<std::string>{"steps", "fc.weight", "fc.bias",
                                                    "seq.0.weight", "seq.0.bias"}));
  EXPECT_TRUE(state.at("fc.weight").shares_storage(net->fc->weight.data()));
}

TEST(LoadStateDictTest, LoadCopiesValuesIntoTheExistingTensors) {
  Net source, target;
  const Tensor weight = target->fc->weight.data();
  const IncompatibleKeys keys = target->load_state_dict(source->state_dict());
  EXPECT_TRUE(keys.missing_keys.empty());
  EXPECT_TRUE(keys.unexpected_keys.empty());
  EXPECT_TRUE(target->fc->weight.data().is_same(weight));
  for (const auto& [name, value] : source->state_dict()) {
    EXPECT_TRUE(all_close(target->state_dict().at(name), value)) << name;
  }
}

TEST(LoadStateDictTest, LoadKeepsTheModulesDtypeAndDevice) {
  set_cpu_device_count(2);
  Net source, target;
  target->to(Device("cpu:1"));
  target->to(kFloat64);
  source->fc->weight.set_data(full({4, 3}, 0.5));
  target->load_state_dict(source->state_dict());
  EXPECT_EQ(target->fc->weight.device(), Device("cpu:1"));
  EXPECT_EQ(target->fc->weight.dtype(), kFloat64);
  EXPECT_TRUE(all_close(target->fc->weight.data().to(Device("cpu:0")),
                        full({4, 3}, 0.5, kFloat64)));
}

TEST(LoadStateDictTest, StrictErrorListsEveryProblemAsPyTorch) {
  Net net;
  StateDict state;
  for (const auto& [name, value] : net->state_dict()) {
    if (name == "fc.bias" || name == "seq.0.bias") continue;
    state.insert(name, name == "fc.weight" ? zeros({3, 4}) : value.clone());
  }
  state.insert("extra", zeros({1}));
  state.insert("seq.0.zz", zeros({1}));
  EXPECT_THROW_MSG(
      net->load_state_dict(state),
      "Error(s) in loading state_dict for Net:\n"
      "\tMissing key(s) in state_dict: \"fc.bias\", \"seq.0.bias\". \n"
      "\tUnexpected key(s) in state_dict: \"extra\", \"seq.0.zz\". \n"
      "\tsize mismatch for fc.weight: copying a param with shape torch.Size([3, 4]) from "
      "checkpoint, the shape in current model is torch.Size([4, 3]).");
}

TEST(LoadStateDictTest, FailedLoadChangesNothing) {
  Net net;
  const StateDict before = net->state_dict();
  std::vector<Tensor> values;
  for (const auto& entry : before) values.push_back(entry.second.clone());
  StateDict state;
  for (const auto& [name, value] : before) state.insert(name, full(value.sizes(), 7.0));
  state.insert("extra", zeros({1}));
  EXPECT_THROW(net->load_state_dict(state), Error);
  size_t i = 0;
  for (const auto& entry : net->state_dict()) EXPECT_TRUE(all_close(entry.second, values[i++]));
}

TEST(LoadStateDictTest, NonStrictReturnsMissingAndUnexpectedKeys) {
  Net net;
  StateDict state;
  for (const auto& [name, value] : net->state_dict()) {
    if (name != "fc.bias") state.insert(name, full(value.sizes(), 2.0));
  }
  state.insert("extra", zeros({1}));
  const IncompatibleKeys keys = net->load_state_dict(state, /*strict=*/false);
  EXPECT_EQ(keys.missing_keys, (std::vector<std::string>{"fc.bias"}));
  EXPECT_EQ(keys.unexpected_keys, (std::vector<std::string>{"extra"}));
  EXPECT_TRUE(all_close(net->fc->weight.data(), full({4, 3}, 2.0)));
}

TEST(LoadStateDictTest, NonStrictStillRefusesSizeMismatches) {
  Net net;
  StateDict state = net->state_dict();
  StateDict bad;
  for (const auto& [name, value] : state) bad.insert(name, name == "fc.bias" ? zeros({5}) : value);
  EXPECT_THROW_MSG(net->load_state_dict(bad, /*strict=*/false),
                   "Error(s) in loading state_dict for Net:\n\tsize mismatch for fc.bias: "
                   "copying a param with shape torch.Size([5]) from checkpoint, the shape in "
                   "current model is torch.Size([4]).");
}

TEST(LoadStateDictTest, SizeMismatchWithAZeroDimValuePrintsAnEmptyTorchSize) {
  Net net;
  StateDict bad;
  for (const auto& [name, value] : net->state_dict()) {
    bad.insert(name, name == "fc.bias" ? scalar_tensor(1.0) : value);
  }
  EXPECT_THROW_MSG(net->load_state_dict(bad),
                   "\tsize mismatch for fc.bias: copying a param with shape torch.Size([]) from "
                   "checkpoint, the shape in current model is torch.Size([4]).");
}

TEST(LoadStateDictTest, NonPersistentBufferIsNeitherSavedNorExpected) {
  Net net;
  EXPECT_FALSE(net->state_dict().contains("cache"));
  StateDict state = net->state_dict();
  state.insert("cache", zeros({2}));
  EXPECT_THROW_MSG(net->load_state_dict(state), "Unexpected key(s) in state_dict: \"cache\". ");
}

}  // namespace
}  // namespace torchlet::nn
