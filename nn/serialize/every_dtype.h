#pragma once

// A state_dict holding one tensor of every dtype torchlet has, each with the
// values that stress a serializer (signed zero, infinities, NaN, float32
// subnormals, integer extremes, float16's largest and smallest values), in
// an order that is not sorted. safetensors_test checks the reader and writer
// with it, and safetensors_tool writes it for the round trip with Python's
// safetensors (tools/safetensors_roundtrip.py holds the same values).
// The round-trip tools print tensors with tensor_line().

#include <string>

#include "nn/serialize/state_dict.h"

namespace torchlet::testing {

/// The tensors "f32", "f64", "i64", "i32", "u8", "bool", "f16" and "bf16".
StateDict every_dtype();

/// `name<TAB>dtype<TAB>d0,d1<TAB>hex bytes` of `t`: the raw bytes in hex make
/// a comparison exact for every dtype (NaN and -0 included).
std::string tensor_line(const std::string& name, const Tensor& t);

}  // namespace torchlet::testing
