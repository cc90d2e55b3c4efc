#pragma once

// torchlet's nn package: include this to use it.

#include "autograd/autograd.h"      // IWYU pragma: export  Variable and autograd
#include "nn/activation.h"          // IWYU pragma: export  ReLU, GELU, PReLU, …, Softmax, LogSoftmax
#include "nn/attention.h"           // IWYU pragma: export  MultiheadAttention
#include "nn/batchnorm.h"           // IWYU pragma: export  BatchNorm1d, BatchNorm2d, BatchNorm3d
#include "nn/cloneable.h"           // IWYU pragma: export  Cloneable<Derived>: deep copies
#include "nn/conv.h"             // IWYU pragma: export  Conv1d/2d/3d, ConvTranspose1d/2d/3d
#include "nn/distance.h"            // IWYU pragma: export  CosineSimilarity, PairwiseDistance
#include "nn/dropout.h"             // IWYU pragma: export  Dropout, Dropout1d/2d/3d, AlphaDropout
#include "nn/embedding.h"           // IWYU pragma: export  Embedding, EmbeddingBag
#include "nn/flatten.h"             // IWYU pragma: export  Flatten, Unflatten
#include "nn/fold.h"             // IWYU pragma: export  Fold, Unfold
#include "nn/functional/functional.h"  // IWYU pragma: export  nn::functional: stateless ops, losses
#include "nn/init.h"                // IWYU pragma: export  nn::init: parameter initialization
#include "nn/layer_norm.h"          // IWYU pragma: export  LayerNorm
#include "nn/linear.h"              // IWYU pragma: export  Linear, Bilinear, Identity
#include "nn/loss.h"                // IWYU pragma: export  MSELoss, CrossEntropyLoss, …
#include "nn/module.h"              // IWYU pragma: export  Module: registration, state_dict, hooks
#include "nn/module_holder.h"       // IWYU pragma: export  ModuleHolder, TORCHLET_MODULE, call
#include "nn/module_list.h"         // IWYU pragma: export  ModuleList, ModuleDict
#include "nn/normalization.h"       // IWYU pragma: export  InstanceNorm1d/2d/3d, GroupNorm, LocalResponseNorm
#include "nn/padding.h"          // IWYU pragma: export  ZeroPad2d, ConstantPad, ReflectionPad, ReplicationPad
#include "nn/parameter.h"           // IWYU pragma: export  Parameter
#include "nn/parameter_list.h"      // IWYU pragma: export  ParameterList, ParameterDict
#include "nn/pooling.h"             // IWYU pragma: export  Max/Avg/AdaptivePool, MaxUnpool2d, LPPool2d
#include "nn/rnn.h"                 // IWYU pragma: export  RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell
#include "nn/sequential.h"          // IWYU pragma: export  Sequential
#include "nn/serialize/pytorch_checkpoint.h"  // IWYU pragma: export  save_pytorch/load_pytorch: .pt files
#include "nn/serialize/safetensors.h"  // IWYU pragma: export  save/load: safetensors checkpoints
#include "nn/serialize/state_dict.h"   // IWYU pragma: export  StateDict
#include "nn/transformer.h"         // IWYU pragma: export  Transformer, its encoder and decoder
#include "nn/upsampling.h"          // IWYU pragma: export  Upsample, PixelShuffle, PixelUnshuffle
#include "nn/utils/utils.h"            // IWYU pragma: export  nn::utils: clip_grad_norm_, …
