#pragma once

// torchlet's nn package: include this to use it.

#include "autograd/autograd.h"      // IWYU pragma: export  Variable and autograd
#include "nn/activation.h"          // IWYU pragma: export  ReLU, Sigmoid, Tanh, Softmax, LogSoftmax
#include "nn/cloneable.h"           // IWYU pragma: export  Cloneable<Derived>: deep copies
#include "nn/conv.h"             // IWYU pragma: export  Conv1d/2d/3d, ConvTranspose1d/2d/3d
#include "nn/flatten.h"             // IWYU pragma: export  Flatten, Unflatten
#include "nn/fold.h"             // IWYU pragma: export  Fold, Unfold
#include "nn/functional/functional.h"  // IWYU pragma: export  nn::functional: stateless ops, losses
#include "nn/init.h"                // IWYU pragma: export  nn::init: parameter initialization
#include "nn/linear.h"              // IWYU pragma: export  Linear, Identity
#include "nn/module.h"              // IWYU pragma: export  Module: registration, state_dict, hooks
#include "nn/module_holder.h"       // IWYU pragma: export  ModuleHolder, TORCHLET_MODULE, call
#include "nn/module_list.h"         // IWYU pragma: export  ModuleList, ModuleDict
#include "nn/padding.h"          // IWYU pragma: export  ZeroPad2d, ConstantPad, ReflectionPad, ReplicationPad
#include "nn/parameter.h"           // IWYU pragma: export  Parameter
#include "nn/parameter_list.h"      // IWYU pragma: export  ParameterList, ParameterDict
#include "nn/sequential.h"          // IWYU pragma: export  Sequential
#include "nn/serialize/safetensors.h"  // IWYU pragma: export  save/load: safetensors checkpoints
#include "nn/serialize/state_dict.h"   // IWYU pragma: export  StateDict
