#!/usr/bin/python3
"""Writes the fixtures of nn's layer and loss modules (nn/modules_test.cc):

  nn/testdata/modules_golden.txt  what torch.nn 1.13 computes in float64, as
      `name|dim0,dim1,...|v0 v1 ...` (see golden.py) to 17 digits:
      <case>.in.<input>   the inputs (parameters included), rebuilt in C++;
      <case>.cot          the gradient the output is seeded with;
      <case>.out          the module's output;
      <case>.grad.<input> the gradient of each input and parameter.
  nn/testdata/modules_repr.txt    `<case>|<repr(module)>`, one per line.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_nn_modules_golden.py
"""
import os

import torch
from torch import nn

from golden import ROOT, write_golden

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
cases = {}
reprs = {}

EDGES = torch.tensor([0.0, 6.0, -1.0, 1.0, 2.0, -0.5, 25.0, -25.0])


def unary_input():
    return torch.cat([torch.randn(24) * 2, EDGES]).reshape(4, 2, 4)


def record(name, module, inputs, out):
    """Stores the inputs, the module's parameters, the output and every
    gradient (seeding non-scalar outputs with a random cotangent)."""
    leaves = dict(inputs)
    leaves.update(dict(module.named_parameters()))
    for key, value in inputs.items():
        cases["%s.in.%s" % (name, key)] = value.detach().clone()
    for key, value in module.named_parameters():
        cases["%s.in.%s" % (name, key)] = value.detach().clone()
    cases[name + ".out"] = out.detach()
    differentiable = {k: v for k, v in leaves.items() if v.requires_grad}
    cot = torch.randn(out.shape) if out.dim() > 0 else torch.tensor(1.0)
    if out.dim() > 0:
        cases[name + ".cot"] = cot
    grads = torch.autograd.grad(out, list(differentiable.values()), cot, allow_unused=True)
    for key, grad in zip(differentiable, grads):
        cases["%s.grad.%s" % (name, key)] = grad if grad is not None else torch.zeros_like(
            differentiable[key])


def unary_case(name, module):
    x = unary_input().requires_grad_()
    record(name, module, {"x": x}, module(x))
    reprs[name] = repr(module)


unary_case("relu", nn.ReLU())
unary_case("relu6", nn.ReLU6())
unary_case("leaky_relu", nn.LeakyReLU(0.2))
unary_case("elu", nn.ELU(alpha=1.5))
unary_case("selu", nn.SELU())
unary_case("gelu", nn.GELU())
unary_case("gelu_tanh", nn.GELU(approximate="tanh"))
unary_case("silu", nn.SiLU())
unary_case("mish", nn.Mish())
unary_case("hardtanh", nn.Hardtanh(-0.5, 2.0))
unary_case("softplus", nn.Softplus(beta=2, threshold=3))
prelu = nn.PReLU(2, init=0.1)
with torch.no_grad():
    prelu.weight.copy_(torch.tensor([0.1, -0.3]))
unary_case("prelu", prelu)
unary_case("prelu_shared", nn.PReLU())

bilinear = nn.Bilinear(2, 3, 4)
x1 = torch.randn(5, 2, requires_grad=True)
x2 = torch.randn(5, 3, requires_grad=True)
record("bilinear", bilinear, {"x1": x1, "x2": x2}, bilinear(x1, x2))

embedding = nn.Embedding(10, 3, padding_idx=0)
idx = torch.tensor([[0, 2, 2, 9], [4, 0, 3, 2]])
record("embedding", embedding, {"idx": idx.double()}, embedding(idx))
renorm = nn.Embedding(6, 3, max_norm=1.0)
renorm_idx = torch.tensor([1, 3, 3, 5])
cases["embedding_max_norm.in.weight"] = renorm.weight.detach().clone()
cases["embedding_max_norm.in.idx"] = renorm_idx.double()
cases["embedding_max_norm.out"] = renorm(renorm_idx).detach()
cases["embedding_max_norm.weight_after"] = renorm.weight.detach().clone()

layer_norm = nn.LayerNorm([3, 4])
with torch.no_grad():
    layer_norm.weight.copy_(torch.randn(3, 4))
    layer_norm.bias.copy_(torch.randn(3, 4))
x = torch.randn(2, 3, 4, requires_grad=True)
record("layer_norm", layer_norm, {"x": x}, layer_norm(x))
plain_norm = nn.LayerNorm(4, eps=1e-3, elementwise_affine=False)
x = torch.randn(5, 4, requires_grad=True)
record("layer_norm_plain", plain_norm, {"x": x}, plain_norm(x))


def loss_case(name, module, x, target):
    x.requires_grad_()
    record(name, module, {"x": x, "target": target}, module(x, target))
    for key, value in module.named_buffers():
        cases["%s.in.%s" % (name, key)] = value.clone()
    reprs[name] = repr(module)


loss_case("mse_sum", nn.MSELoss(reduction="sum"), torch.randn(3, 4), torch.randn(3, 4))
loss_case("l1_none", nn.L1Loss(reduction="none"), torch.randn(3, 4), torch.randn(3, 4))
loss_case("smooth_l1", nn.SmoothL1Loss(beta=0.5), torch.randn(3, 4) * 2, torch.randn(3, 4))
loss_case("huber", nn.HuberLoss(delta=2.0), torch.randn(3, 4) * 3, torch.randn(3, 4))
loss_case("cross_entropy_nd",
          nn.CrossEntropyLoss(weight=torch.rand(3) + 0.5, ignore_index=1, label_smoothing=0.1),
          torch.randn(2, 3, 4), torch.tensor([[0, 1, 2, 2], [1, 0, 0, 2]]))
loss_case("cross_entropy_probs", nn.CrossEntropyLoss(reduction="sum"), torch.randn(4, 5),
          torch.softmax(torch.randn(4, 5), 1))
loss_case("nll", nn.NLLLoss(weight=torch.rand(4) + 0.5), torch.log_softmax(torch.randn(5, 4), 1),
          torch.tensor([0, 3, 1, 1, 2]))
loss_case("bce", nn.BCELoss(weight=torch.rand(3, 2)), torch.rand(3, 2) * 0.9 + 0.05,
          torch.rand(3, 2))
loss_case("bce_with_logits", nn.BCEWithLogitsLoss(pos_weight=torch.rand(2) + 0.5),
          torch.randn(3, 2) * 3, torch.rand(3, 2))
loss_case("kl_div", nn.KLDivLoss(reduction="batchmean", log_target=True),
          torch.log_softmax(torch.randn(3, 4), 1), torch.log_softmax(torch.randn(3, 4), 1))


def loss_case3(name, module, args, constants=()):
    """A loss of three tensors `args`, in forward's order; those named in
    `constants` are not leaves."""
    inputs = {k: v.requires_grad_() for k, v in args.items() if k not in constants}
    record(name, module, inputs, module(*args.values()))
    for key in constants:
        cases["%s.in.%s" % (name, key)] = args[key].clone()
    for key, value in module.named_buffers():
        cases["%s.in.%s" % (name, key)] = value.clone()
    reprs[name] = repr(module)


signs = torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0])
loss_case3("margin_ranking", nn.MarginRankingLoss(margin=0.4, reduction="sum"),
           {"x1": torch.randn(5), "x2": torch.randn(5), "target": signs}, ["target"])
loss_case("hinge_embedding", nn.HingeEmbeddingLoss(margin=2.0), torch.randn(3, 5) * 2,
          signs.repeat(3, 1))
loss_case("soft_margin", nn.SoftMarginLoss(reduction="none"), torch.randn(3, 5) * 2,
          signs.repeat(3, 1))
loss_case("multilabel_soft_margin", nn.MultiLabelSoftMarginLoss(weight=torch.rand(5) + 0.5),
          torch.randn(3, 5) * 2, torch.randint(0, 2, (3, 5)).double())
loss_case3("cosine_embedding", nn.CosineEmbeddingLoss(margin=0.1, reduction="none"),
           {"x1": torch.randn(5, 3), "x2": torch.randn(5, 3), "target": signs}, ["target"])
loss_case3("triplet_margin", nn.TripletMarginLoss(margin=1.5, p=1.5, eps=1e-4, swap=True),
           {"anchor": torch.randn(4, 3), "positive": torch.randn(4, 3),
            "negative": torch.randn(4, 3)})
loss_case("poisson_nll", nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-6),
          torch.rand(3, 4) * 4 + 0.05, torch.floor(torch.rand(3, 4) * 6))
loss_case3("gaussian_nll", nn.GaussianNLLLoss(full=True, eps=1e-3, reduction="sum"),
           {"x": torch.randn(4, 3), "target": torch.randn(4, 3), "var": torch.rand(4, 1) + 0.1})

for name, module in {
    "relu_inplace": nn.ReLU(inplace=True),
    "relu6_inplace": nn.ReLU6(inplace=True),
    "leaky_relu_default": nn.LeakyReLU(),
    "leaky_relu_inplace": nn.LeakyReLU(0.2, inplace=True),
    "elu_default": nn.ELU(),
    "elu_inplace": nn.ELU(inplace=True),
    "selu_inplace": nn.SELU(inplace=True),
    "gelu_default": nn.GELU(),
    "silu_inplace": nn.SiLU(inplace=True),
    "hardtanh_default": nn.Hardtanh(),
    "hardtanh_inplace": nn.Hardtanh(inplace=True),
    "softplus_default": nn.Softplus(),
    "softplus_float": nn.Softplus(beta=2.0, threshold=10.5),
    "prelu_default": nn.PReLU(),
    "embedding_default": nn.Embedding(10, 3),
    "embedding_padding": nn.Embedding(10, 3, padding_idx=0),
    "embedding_negative_padding": nn.Embedding(10, 3, padding_idx=-1),
    "embedding_all": nn.Embedding(10, 3, max_norm=1.5, norm_type=1.0, scale_grad_by_freq=True),
    "layer_norm_default": nn.LayerNorm([4]),
    "layer_norm_2d": nn.LayerNorm([2, 3], eps=1e-3, elementwise_affine=False),
    "bilinear_default": nn.Bilinear(2, 3, 4),
    "bilinear_no_bias": nn.Bilinear(2, 3, 4, bias=False),
    "cross_entropy_default": nn.CrossEntropyLoss(),
    "mse_default": nn.MSELoss(),
    "bce_with_logits_default": nn.BCEWithLogitsLoss(),
    "margin_ranking_default": nn.MarginRankingLoss(),
    "hinge_embedding_default": nn.HingeEmbeddingLoss(),
    "soft_margin_default": nn.SoftMarginLoss(),
    "multilabel_soft_margin_default": nn.MultiLabelSoftMarginLoss(),
    "cosine_embedding_default": nn.CosineEmbeddingLoss(),
    "triplet_margin_default": nn.TripletMarginLoss(),
    "poisson_nll_default": nn.PoissonNLLLoss(),
    "gaussian_nll_default": nn.GaussianNLLLoss(),
}.items():
    reprs[name] = repr(module)


# ---- More activations and the distance layers (nn/activation_test.cc,
# nn/distance_test.cc). Seeded on their own, with the generator's state
# restored after, so these cases neither change nor depend on the others.
def more_activation_and_distance_modules():
    rng_state = torch.get_rng_state()
    torch.manual_seed(1213)
    kinks = torch.tensor([-3.0, 3.0, -25.0, 25.0, 0.0, 0.5, -0.5, 1.0])

    # 32 values, every one through PyTorch's vectorized kernels (their
    # scalar tail loop differs at some kinks: hardswish's gradient at 3).
    def kink_case(name, module):
        x = torch.cat([torch.randn(24) * 3, kinks]).reshape(4, 2, 4).requires_grad_()
        record(name, module, {"x": x}, module(x))
        reprs[name] = repr(module)

    kink_case("hardswish", nn.Hardswish())
    kink_case("hardsigmoid", nn.Hardsigmoid())
    kink_case("logsigmoid", nn.LogSigmoid())
    kink_case("softsign", nn.Softsign())
    kink_case("tanhshrink", nn.Tanhshrink())
    kink_case("threshold", nn.Threshold(0.5, 20))
    kink_case("softshrink", nn.Softshrink(1))
    kink_case("hardshrink", nn.Hardshrink(0.5))
    kink_case("celu", nn.CELU(alpha=0.5))
    kink_case("softmin", nn.Softmin(dim=1))
    kink_case("glu", nn.GLU(dim=1))

    def pair_case(name, module, x1, x2):
        x1.requires_grad_()
        x2.requires_grad_()
        record(name, module, {"x1": x1, "x2": x2}, module(x1, x2))
        reprs[name] = repr(module)

    zero_row = torch.randn(4, 5)
    zero_row[2] = 0
    pair_case("cosine_similarity", nn.CosineSimilarity(), zero_row, torch.randn(4, 5))
    pair_case("cosine_similarity_dim0", nn.CosineSimilarity(dim=0, eps=1e-3),
              torch.randn(5, 3), torch.randn(5, 1))
    pair_case("pairwise_distance", nn.PairwiseDistance(), torch.randn(4, 5), torch.randn(4, 5))
    pair_case("pairwise_distance_p1", nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True),
              torch.randn(2, 3, 4), torch.randn(3, 4))

    for name, module in {
        "hardswish_inplace": nn.Hardswish(inplace=True),
        "hardsigmoid_inplace": nn.Hardsigmoid(inplace=True),
        "threshold_inplace": nn.Threshold(1, 2.5, inplace=True),
        "threshold_float": nn.Threshold(0.1, 20.0),
        "softshrink_default": nn.Softshrink(),
        "hardshrink_default": nn.Hardshrink(),
        "hardshrink_int": nn.Hardshrink(2),
        "glu_default": nn.GLU(),
        "softmin_default": nn.Softmin(),
        "celu_default": nn.CELU(),
        "celu_int_inplace": nn.CELU(2, inplace=True),
        "cosine_similarity_default": nn.CosineSimilarity(),
        "pairwise_distance_default": nn.PairwiseDistance(),
        "dropout1d_default": nn.Dropout1d(),
        "dropout1d_inplace": nn.Dropout1d(0.2, inplace=True),
    }.items():
        reprs[name] = repr(module)
    torch.set_rng_state(rng_state)


more_activation_and_distance_modules()
# ---- End of more activations and the distance layers.

write_golden("modules_golden.txt", cases, directory="nn/testdata", digits=17)
with open(os.path.join(ROOT, "nn/testdata/modules_repr.txt"), "w") as f:
    for name, text in reprs.items():
        f.write("%s|%s\n" % (name, text))
