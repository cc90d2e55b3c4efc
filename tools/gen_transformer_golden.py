#!/usr/bin/python3
"""Writes the fixtures of multi-head attention and the Transformer layers
(nn/functional/attention_test.cc, nn/attention_test.cc, nn/transformer_test.cc):

  nn/functional/testdata/attention_golden.txt
      cases of torch.nn.functional.multi_head_attention_forward;
  nn/testdata/attention_golden.txt
      cases of nn.MultiheadAttention;
  nn/testdata/transformer_golden.txt
      cases of the Transformer layers;

each what torch 1.13 computes in float64, as `name|dim0,dim1,...|v0 v1 ...`
(see golden.py) to 12 digits (the tests compare to 1e-9):
  <case>.in.<input>      the inputs (x for self-attention, else q, k, v;
                         src, tgt, memory), the masks (bool masks as 0/1) and
                         every parameter under its state_dict name (or its
                         argument name for the functional cases);
  <case>.output, <case>.weights   the outputs (weights when returned);
  <case>.cot_output, <case>.cot_weights   fixed weights of the scalar loss
                         sum(output * cot_output) [+ sum(weights * cot_weights)];
  <case>.out             that loss;
  <case>.grad.<input>    its gradient wrt each floating input and parameter
                         that it depends on.
Modules run in eval mode (no dropout) with autograd on, so that PyTorch takes
its ordinary (not its fused inference) path.

  nn/testdata/transformer_state.safetensors
      a float32 Transformer's state_dict, saved with Python's safetensors; its
      inputs and eval output are the `checkpoint.*` entries of
      transformer_golden.txt.

Needs `safetensors` beside Debian's torch (1.13): run it with the venv that
tools/safetensors_roundtrip.sh makes,
  ~/.cache/torchlet/safetensors-venv/bin/python tools/gen_transformer_golden.py
"""
import os

import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from torch import nn

from golden import ROOT, write_golden

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def finish(cases, name, leaves, outputs):
    """Stores the outputs, the loss and its gradients wrt `leaves`."""
    loss = 0
    for key, value in outputs.items():
        cot = torch.randn(value.shape)
        cases["%s.%s" % (name, key)] = value.detach().clone()
        cases["%s.cot_%s" % (name, key)] = cot
        loss = loss + (value * cot).sum()
    cases[name + ".out"] = loss.detach()
    grads = torch.autograd.grad(loss, list(leaves.values()), allow_unused=True)
    for key, grad in zip(leaves, grads):
        if grad is not None:  # static_k and static_v leave key and value unused
            cases["%s.grad.%s" % (name, key)] = grad


def leaf(cases, name, leaves, key, value):
    value = value.clone().requires_grad_()
    cases["%s.in.%s" % (name, key)] = value.detach().clone()
    leaves[key] = value
    return value


def constant(cases, name, key, value):
    if value is not None:
        cases["%s.in.%s" % (name, key)] = value.detach().clone()
    return value


def parameters(cases, name, leaves, module):
    module.train(False)
    for key, value in module.named_parameters():
        cases["%s.in.%s" % (name, key)] = value.detach().clone()
        leaves[key] = value


def causal(n):
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


def padding(batch, length, padded):
    """[batch, length] bool, True at the last `padded[b]` steps of sample b."""
    mask = torch.zeros(batch, length, dtype=torch.bool)
    for b, p in enumerate(padded):
        if p:
            mask[b, length - p:] = True
    return mask


# ---- torch.nn.functional.multi_head_attention_forward ----------------------------------

functional = {}


def record_functional(name, q, k, v, num_heads, weights, self_attention=False, **kwargs):
    """Calls F.multi_head_attention_forward with the tensors `weights` (by
    argument name) as leaves; `kwargs` are its other arguments."""
    leaves = {}
    if self_attention:
        q = k = v = leaf(functional, name, leaves, "x", q)
    else:
        q = leaf(functional, name, leaves, "q", q)
        k = leaf(functional, name, leaves, "k", k)
        v = leaf(functional, name, leaves, "v", v)
    args = {key: leaf(functional, name, leaves, key, value) for key, value in weights.items()}
    for key in ("attn_mask", "key_padding_mask"):
        constant(functional, name, key, kwargs.get(key))
    output, attn = F.multi_head_attention_forward(
        q, k, v, q.size(-1), num_heads, args.get("in_proj_weight"), args.get("in_proj_bias"),
        args.get("bias_k"), args.get("bias_v"), kwargs.pop("add_zero_attn", False), 0.0,
        args["out_proj_weight"], args.get("out_proj_bias"), training=False,
        q_proj_weight=args.get("q_proj_weight"), k_proj_weight=args.get("k_proj_weight"),
        v_proj_weight=args.get("v_proj_weight"), static_k=args.get("static_k"),
        static_v=args.get("static_v"), **kwargs)
    outputs = {"output": output}
    if attn is not None:
        outputs["weights"] = attn
    finish(functional, name, leaves, outputs)


E = 4
record_functional("packed_self", torch.randn(3, 2, E), None, None, 2,
                  {"in_proj_weight": torch.randn(3 * E, E), "in_proj_bias": torch.randn(3 * E),
                   "out_proj_weight": torch.randn(E, E), "out_proj_bias": torch.randn(E)},
                  self_attention=True)
record_functional("separate_per_head", torch.randn(3, 2, E), torch.randn(5, 2, 3),
                  torch.randn(5, 2, 6), 2,
                  {"q_proj_weight": torch.randn(E, E), "k_proj_weight": torch.randn(E, 3),
                   "v_proj_weight": torch.randn(E, 6), "in_proj_bias": torch.randn(3 * E),
                   "out_proj_weight": torch.randn(E, E)},
                  use_separate_proj_weight=True, average_attn_weights=False,
                  attn_mask=causal(5)[1:4])
record_functional("static_kv_zero_attn", torch.randn(3, 2, E), torch.randn(5, 2, E),
                  torch.randn(5, 2, E), 2,
                  {"in_proj_weight": torch.randn(3 * E, E), "out_proj_weight": torch.randn(E, E),
                   "out_proj_bias": torch.randn(E), "static_k": torch.randn(4, 6, 2),
                   "static_v": torch.randn(4, 6, 2)},
                  add_zero_attn=True, key_padding_mask=padding(2, 6, [0, 2]))
record_functional("bias_kv_unbatched", torch.randn(3, E), torch.randn(5, E), torch.randn(5, E),
                  1,
                  {"in_proj_weight": torch.randn(3 * E, E), "in_proj_bias": torch.randn(3 * E),
                   "bias_k": torch.randn(1, 1, E), "bias_v": torch.randn(1, 1, E),
                   "out_proj_weight": torch.randn(E, E), "out_proj_bias": torch.randn(E)},
                  key_padding_mask=torch.tensor([False, False, True, False, False]),
                  attn_mask=torch.randn(3, 5))
record_functional("need_weights_false", torch.randn(3, 2, E), torch.randn(5, 2, E),
                  torch.randn(5, 2, E), 4,
                  {"in_proj_weight": torch.randn(3 * E, E), "in_proj_bias": torch.randn(3 * E),
                   "out_proj_weight": torch.randn(E, E), "out_proj_bias": torch.randn(E)},
                  need_weights=False)

write_golden("attention_golden.txt", functional, directory="nn/functional/testdata", digits=12)

# ---- nn.MultiheadAttention -------------------------------------------------------------

modules = {}


def record_mha(name, module, q, k=None, v=None, shared_kv=False, **kwargs):
    """Calls `module` on q, k, v (q alone: self-attention with one tensor;
    shared_kv: k is v) with the masks and flags in `kwargs`."""
    leaves = {}
    if k is None:
        q = k = v = leaf(modules, name, leaves, "x", q)
    elif shared_kv:
        q = leaf(modules, name, leaves, "q", q)
        k = v = leaf(modules, name, leaves, "k", k)
    else:
        q = leaf(modules, name, leaves, "q", q)
        k = leaf(modules, name, leaves, "k", k)
        v = leaf(modules, name, leaves, "v", v)
    parameters(modules, name, leaves, module)
    for key in ("attn_mask", "key_padding_mask"):
        constant(modules, name, key, kwargs.get(key))
    output, attn = module(q, k, v, **kwargs)
    outputs = {"output": output}
    if attn is not None:
        outputs["weights"] = attn
    finish(modules, name, leaves, outputs)


def with_biases(module):
    """Non-zero biases (PyTorch starts them at zero), so that their use shows."""
    with torch.no_grad():
        for key, value in module.named_parameters():
            if "bias" in key:
                value.normal_()
    return module


record_mha("mha_cross", with_biases(nn.MultiheadAttention(4, 2)), torch.randn(3, 2, 4),
           torch.randn(5, 2, 4), torch.randn(5, 2, 4))
record_mha("mha_self", with_biases(nn.MultiheadAttention(4, 2)), torch.randn(3, 2, 4))
record_mha("mha_shared_kv_nobias", nn.MultiheadAttention(4, 4, bias=False),
           torch.randn(3, 2, 4), torch.randn(5, 2, 4), shared_kv=True)
record_mha("mha_bool_masks", with_biases(nn.MultiheadAttention(4, 2)), torch.randn(4, 2, 4),
           attn_mask=causal(4) != 0, key_padding_mask=padding(2, 4, [0, 1]))
record_mha("mha_float_masks", with_biases(nn.MultiheadAttention(4, 2)), torch.randn(3, 2, 4),
           torch.randn(5, 2, 4), torch.randn(5, 2, 4), attn_mask=torch.randn(4, 3, 5),
           key_padding_mask=padding(2, 5, [2, 0]))
record_mha("mha_float_padding", with_biases(nn.MultiheadAttention(4, 2)), torch.randn(3, 2, 4),
           torch.randn(5, 2, 4), torch.randn(5, 2, 4), key_padding_mask=torch.randn(2, 5))
record_mha("mha_float_mask_bool_2d", with_biases(nn.MultiheadAttention(4, 2)),
           torch.randn(3, 2, 4), torch.randn(5, 2, 4), torch.randn(5, 2, 4),
           attn_mask=torch.randn(3, 5), key_padding_mask=padding(2, 5, [1, 3]))
record_mha("mha_kdim_vdim_per_head", with_biases(nn.MultiheadAttention(4, 2, kdim=3, vdim=5)),
           torch.randn(3, 2, 4), torch.randn(5, 2, 3), torch.randn(5, 2, 5),
           average_attn_weights=False)
record_mha("mha_bias_kv_zero_attn",
           with_biases(nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True)),
           torch.randn(3, 2, 4), torch.randn(5, 2, 4), torch.randn(5, 2, 4),
           attn_mask=torch.randn(3, 5) > 1, key_padding_mask=padding(2, 5, [0, 2]))
record_mha("mha_batch_first", with_biases(nn.MultiheadAttention(4, 2, batch_first=True)),
           torch.randn(2, 4, 4), key_padding_mask=padding(2, 4, [1, 0]))
record_mha("mha_batch_first_cross",
           with_biases(nn.MultiheadAttention(4, 2, batch_first=True, kdim=3, vdim=3)),
           torch.randn(2, 3, 4), torch.randn(2, 5, 3), shared_kv=True)
record_mha("mha_unbatched_per_head", with_biases(nn.MultiheadAttention(4, 2, batch_first=True)),
           torch.randn(3, 4), torch.randn(5, 4), torch.randn(5, 4), attn_mask=torch.randn(2, 3, 5),
           key_padding_mask=torch.tensor([False, True, False, False, False]),
           average_attn_weights=False)
record_mha("mha_no_weights", with_biases(nn.MultiheadAttention(4, 2)), torch.randn(3, 2, 4),
           need_weights=False)

write_golden("attention_golden.txt", modules, directory="nn/testdata", digits=12)
modules = {}

# ---- Transformer layers ---------------------------------------------------------------


def record_layer(name, module, inputs, **masks):
    """Calls `module` on the leaves `inputs` (by name) and the masks."""
    leaves = {}
    args = [leaf(modules, name, leaves, key, value) for key, value in inputs.items()]
    parameters(modules, name, leaves, module)
    for key, value in masks.items():
        constant(modules, name, key, value)
    finish(modules, name, leaves, {"output": module(*args, **masks)})


def randomized(module):
    """Random affine norms and biases, so that every parameter's use shows."""
    with torch.no_grad():
        for key, value in module.named_parameters():
            if value.dim() == 1:
                value.normal_()
    return module


record_layer("enc_post_relu", randomized(nn.TransformerEncoderLayer(4, 2, 5)),
             {"src": torch.randn(4, 2, 4)}, src_mask=causal(4),
             src_key_padding_mask=padding(2, 4, [0, 1]))
record_layer("enc_pre_gelu_batch_first",
             randomized(nn.TransformerEncoderLayer(4, 2, 3, activation="gelu", batch_first=True,
                                                   norm_first=True, layer_norm_eps=1e-3)),
             {"src": torch.randn(2, 4, 4)}, src_key_padding_mask=padding(2, 4, [2, 0]))
record_layer("enc_unbatched", randomized(nn.TransformerEncoderLayer(4, 1, 5)),
             {"src": torch.randn(3, 4)}, src_mask=torch.randn(3, 3))
record_layer("dec_post_relu", randomized(nn.TransformerDecoderLayer(4, 2, 3)),
             {"tgt": torch.randn(3, 2, 4), "memory": torch.randn(5, 2, 4)}, tgt_mask=causal(3),
             memory_key_padding_mask=padding(2, 5, [1, 0]))
record_layer("dec_pre_gelu_batch_first",
             randomized(nn.TransformerDecoderLayer(4, 2, 3, activation="gelu", batch_first=True,
                                                   norm_first=True)),
             {"tgt": torch.randn(2, 3, 4), "memory": torch.randn(2, 5, 4)},
             tgt_key_padding_mask=padding(2, 3, [0, 1]), memory_mask=torch.randn(3, 5) > 1)
record_layer("encoder_norm",
             randomized(nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 3), 2,
                                              norm=nn.LayerNorm(4))),
             {"src": torch.randn(4, 2, 4)}, mask=causal(4),
             src_key_padding_mask=padding(2, 4, [1, 0]))
record_layer("decoder_norm_first",
             randomized(nn.TransformerDecoder(
                 nn.TransformerDecoderLayer(4, 2, 3, norm_first=True), 2, norm=nn.LayerNorm(4))),
             {"tgt": torch.randn(3, 2, 4), "memory": torch.randn(4, 2, 4)}, tgt_mask=causal(3),
             memory_key_padding_mask=padding(2, 4, [0, 2]))
record_layer("transformer",
             randomized(nn.Transformer(4, 2, num_encoder_layers=1, num_decoder_layers=1,
                                       dim_feedforward=3)),
             {"src": torch.randn(5, 2, 4), "tgt": torch.randn(3, 2, 4)}, tgt_mask=causal(3),
             src_key_padding_mask=padding(2, 5, [0, 2]),
             memory_key_padding_mask=padding(2, 5, [0, 2]))
record_layer("transformer_batch_first_norm_first_gelu",
             randomized(nn.Transformer(2, 2, num_encoder_layers=1, num_decoder_layers=1,
                                       dim_feedforward=3, activation="gelu", batch_first=True,
                                       norm_first=True)),
             {"src": torch.randn(2, 5, 2), "tgt": torch.randn(2, 3, 2)}, tgt_mask=causal(3),
             src_mask=torch.randn(5, 5))

# A float32 checkpoint of a Transformer, as PyTorch users save one, and what
# the model computes in eval mode.
model = randomized(nn.Transformer(4, 2, num_encoder_layers=2, num_decoder_layers=1,
                                  dim_feedforward=3)).float().eval()
src, tgt = torch.randn(5, 2, 4, dtype=torch.float32), torch.randn(3, 2, 4, dtype=torch.float32)
modules["checkpoint.in.src"], modules["checkpoint.in.tgt"] = src, tgt
with torch.no_grad():
    modules["checkpoint.output"] = model(src, tgt, tgt_mask=causal(3).float())
save_file(model.state_dict(), os.path.join(ROOT, "nn/testdata/transformer_state.safetensors"))

write_golden("transformer_golden.txt", modules, directory="nn/testdata", digits=12)
