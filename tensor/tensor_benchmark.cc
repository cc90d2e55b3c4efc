#include "benchmark/benchmark.h"
