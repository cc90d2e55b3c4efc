#include "nn/serialize/state_dict.h"

#include <gtest/gtest.h>

#include "tensor/test_util.h"

namespace torchlet {
namespace {

TEST(StateDictTest, KeepsInsertionOrder) {
  StateDict sd;
  sd.insert("b", ones({1}));
  sd.insert("a", zeros({2}));
  sd["c"] = ones({3});
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(sd.at("a").numel(), 2);
}

TEST(StateDictTest, InsertRefusesDuplicateKey) {
  StateDict sd{{"w", ones({1})}};
  EXPECT_THROW_MSG(sd.insert("w", ones({1})), "StateDict: duplicate key \"w\"");
}

TEST(StateDictTest, AtNamesMissingKey) {
  StateDict sd;
  EXPECT_THROW_MSG(sd.at("fc.bias"), "StateDict: no key \"fc.bias\"");
}

TEST(StateDictTest, EraseKeepsOrderAndLookup) {
  StateDict sd{{"a", ones({1})}, {"b", ones({2})}, {"c", ones({3})}};
  EXPECT_TRUE(sd.erase("a"));
  EXPECT_FALSE(sd.erase("a"));
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(sd.at("c").numel(), 3);
  EXPECT_EQ(sd.find("a"), nullptr);
}

}  // namespace
}  // namespace torchlet
