// Random factories and in-place random fills. Each device has its own
// generator; manual_seed reseeds them all. A CPU device's is a Mersenne
// Twister whose values are drawn on the host, in row-major order, by the
// kernels in tensor/cpu/random_kernels.cc. A GPU's is Philox (seed and
// offset, tensor/cuda/philox.h), drawn by the GPU: uniform, normal and
// integer fills, and bernoulli from them; randperm is drawn on the host.
#include "tensor/random.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "tensor/cpu/random_kernels.h"
#include "tensor/cuda/kernels.h"
#include "tensor/factories.h"
#include "tensor/op_utils.h"

namespace torchlet {
namespace {

using Engine = cpu::RandomEngine;

constexpr uint64_t kDefaultSeed = 67280421310721ULL;

struct Generator {
  std::mutex mutex;
  Engine engine;
  // A GPU's Philox state: the seed, and the next unused block.
  uint64_t seed = kDefaultSeed;
  uint64_t philox_offset = 0;
};

// The generator of every device that has drawn a number, created on first
// use with the current seed.
class Generators {
 public:
  static Generators& instance() {
    static Generators* generators = new Generators;  // never destroyed
    return *generators;
  }

  Generator& of(Device device) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<Generator>& gen = by_device_[{static_cast<int>(device.type), device.index}];
    if (!gen) {
      gen = std::make_unique<Generator>();
      gen->engine.seed(seed_);
      gen->seed = seed_;
    }
    return *gen;
  }

  void seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = seed;
    for (auto& [device, gen] : by_device_) {
      std::lock_guard<std::mutex> gen_lock(gen->mutex);
      gen->engine.seed(seed);
      gen->seed = seed;
      gen->philox_offset = 0;
    }
  }

 private:
  std::mutex mutex_;
  uint64_t seed_ = kDefaultSeed;
  std::map<std::pair<int, int>, std::unique_ptr<Generator>> by_device_;
};

void check_floating(const char* op, DType dtype) {
  TORCHLET_CHECK(is_floating_point(dtype), op, ": expected a floating-point dtype, got ", dtype);
}

void check_probability(const char* op, double p) {
  TORCHLET_CHECK(p >= 0 && p <= 1, op, ": expected p to be in [0, 1], but got p=", p);
}

// Calls `fill(buffer, engine)` under the generator of t's device, where
// `buffer` is a contiguous host tensor of t's shape and dtype (t itself when
// it is a contiguous CPU tensor), then writes the buffer into t and bumps
// t's version.
template <typename Fill>
void random_fill(Tensor& t, const char* op, Fill&& fill) {
  check_no_internal_overlap(op, t);
  // float16 and bfloat16 draw float32 values and round them.
  const bool reduced = is_reduced_floating_point(t.dtype());
  const bool direct = t.device().is_cpu() && t.is_contiguous() && !reduced;
  const Tensor buffer = direct ? t
                               : empty(t.sizes(), TensorOptions(reduced ? kFloat32 : t.dtype())
                                                      .device(Device(kCPU, 0)));
  Generator& gen = Generators::instance().of(t.device());
  {
    std::lock_guard<std::mutex> lock(gen.mutex);
    fill(buffer, gen.engine);
  }
  if (direct) {
    t.bump_version();
  } else {
    t.copy_(buffer);
  }
}

// The GPU's fill of t, when t is a CUDA tensor: the Philox blocks it uses are
// reserved under the generator's lock, then drawn by the kernel.
bool cuda_fill(Tensor& t, const char* op, cuda::RandomFill kind, double a, double b,
               int64_t low = 0, uint64_t range = 1) {
  if (!t.is_cuda()) return false;
  check_no_internal_overlap(op, t);
  const Tensor target = t.is_contiguous() ? t : empty(t.sizes(), t.options());
  Generator& gen = Generators::instance().of(t.device());
  uint64_t seed, offset;
  {
    std::lock_guard<std::mutex> lock(gen.mutex);
    seed = gen.seed;
    offset = gen.philox_offset;
    gen.philox_offset += cuda::random_blocks(target, kind);
  }
  cuda::random_fill(target, kind, a, b, low, range, seed, offset);
  if (target.is_same(t)) {
    t.bump_version();
  } else {
    t.copy_(target);
  }
  return true;
}

}  // namespace

void manual_seed(uint64_t seed) { Generators::instance().seed(seed); }

Tensor& Tensor::uniform_(double from, double to) {
  check_floating("uniform_", dtype());
  TORCHLET_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but found from=",
                 from, " > to=", to);
  if (cuda_fill(*this, "uniform_", cuda::RandomFill::kUniform, from, to)) return *this;
  random_fill(*this, "uniform_", [&](const Tensor& buffer, Engine& engine) {
    cpu::uniform_fill(buffer, from, to, engine);
  });
  return *this;
}

Tensor& Tensor::normal_(double mean, double std) {
  check_floating("normal_", dtype());
  TORCHLET_CHECK(std >= 0, "normal_: expects std >= 0.0, but found std=", std);
  if (cuda_fill(*this, "normal_", cuda::RandomFill::kNormal, mean, std)) return *this;
  random_fill(*this, "normal_", [&](const Tensor& buffer, Engine& engine) {
    cpu::normal_fill(buffer, mean, std, engine);
  });
  return *this;
}

Tensor rand(IntArrayRef sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(kFloat32);
  check_floating("rand", dtype);
  return empty(sizes, options.dtype(dtype)).uniform_(0, 1);
}

Tensor randn(IntArrayRef sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(kFloat32);
  check_floating("randn", dtype);
  return empty(sizes, options.dtype(dtype)).normal_(0, 1);
}

namespace {

// The values an integral dtype holds, and its C type's name as PyTorch's
// messages spell it; floating dtypes hold every int64 here.
struct IntRange {
  int64_t lo, hi;
  const char* c_name;
};
IntRange int_range(DType dtype) {
  switch (dtype) {
    case kUInt8: return {0, 255, "unsigned char"};
    case kBool: return {0, 1, "bool"};
    case kInt32: return {INT32_MIN, INT32_MAX, "int"};
    case kInt64: return {INT64_MIN, INT64_MAX, "long"};
    default: return {INT64_MIN, INT64_MAX, ""};
  }
}

}  // namespace

Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, TensorOptions options) {
  TORCHLET_CHECK(low < high, "randint: expects 'from' to be less than 'to', but got from=", low,
                 " >= to=", high);
  const DType dtype = options.dtype_or(kInt64);
  const IntRange range = int_range(dtype);
  TORCHLET_CHECK(low >= range.lo && low <= range.hi, "randint: from is out of bounds for ",
                 range.c_name, " (from=", low, ", dtype ", dtype, ")");
  TORCHLET_CHECK(high - 1 >= range.lo && high - 1 <= range.hi,
                 "randint: to - 1 is out of bounds for ", range.c_name, " (to=", high, ", dtype ",
                 dtype, ")");
  Tensor t = empty(sizes, options.dtype(dtype));
  TORCHLET_CHECK(!t.is_cuda() || !is_reduced_floating_point(dtype),
                 "\"randint\" not implemented for '", scalar_type_name(dtype), "'");
  if (cuda_fill(t, "randint", cuda::RandomFill::kInteger, 0, 0, low,
                static_cast<uint64_t>(high) - static_cast<uint64_t>(low))) {
    return t;
  }
  random_fill(t, "randint", [&](const Tensor& buffer, Engine& engine) {
    cpu::randint_fill(buffer, low, high, engine);
  });
  return t;
}

Tensor randint(int64_t high, IntArrayRef sizes, TensorOptions options) {
  return randint(0, high, sizes, options);
}

Tensor bernoulli(const Tensor& p) {
  check_defined("bernoulli", p);
  check_floating("bernoulli", p.dtype());
  if (p.is_cuda()) {
    // Checked with the GPU's reductions; only a bad probability comes back
    // to the host, for the message.
    const Tensor bad = p.lt(0).logical_or(p.gt(1)).logical_or(p.isnan());
    if (bad.any().item<bool>()) {
      const std::optional<double> first =
          cpu::find_invalid_probability(p.to(Device(kCPU, 0)).to_vector<double>());
      check_probability("bernoulli", first.value_or(-1));
    }
    return rand(p.sizes(), p.options()).lt(p).to(p.dtype());
  }
  const std::vector<double> probs = p.to_vector<double>();
  if (const std::optional<double> bad = cpu::find_invalid_probability(probs)) {
    check_probability("bernoulli", *bad);
  }
  Tensor out = empty_like(p);
  random_fill(out, "bernoulli", [&](const Tensor& buffer, Engine& engine) {
    cpu::bernoulli_fill(buffer, probs, engine);
  });
  return out;
}

Tensor bernoulli(IntArrayRef sizes, double p, TensorOptions options) {
  check_probability("bernoulli", p);
  const DType dtype = options.dtype_or(kFloat32);
  check_floating("bernoulli", dtype);
  return bernoulli(full(sizes, p, options.dtype(dtype)));
}

Tensor randperm(int64_t n, TensorOptions options) {
  TORCHLET_CHECK(n >= 0, "randperm: n must be non-negative, got n=", n);
  const DType dtype = options.dtype_or(kInt64);
  TORCHLET_CHECK(n == 0 || n - 1 <= int_range(dtype).hi, "randperm: n is too large for result "
                 "tensor type ", dtype, " (n=", n, ", the largest value would be ", n - 1, ")");
  Tensor t = empty({n}, options.dtype(dtype));
  random_fill(t, "randperm", [&](const Tensor& buffer, Engine& engine) {
    cpu::randperm_fill(buffer, engine);
  });
  return t;
}

Tensor rand_like(const Tensor& t) {
  check_defined("rand_like", t);
  check_floating("rand_like", t.dtype());
  return rand(t.sizes(), t.options());
}

Tensor randn_like(const Tensor& t) {
  check_defined("randn_like", t);
  check_floating("randn_like", t.dtype());
  return randn(t.sizes(), t.options());
}

}  // namespace torchlet
