#include "gtest/gtest.h"
int hello();
TEST(C, Works) { EXPECT_EQ(hello(), 1); }
