#!/usr/bin/python3
"""Writes nn/functional/testdata/functional_golden.txt: outputs and gradients of
torch.nn.functional's activations, linear maps, layer norm, embedding and losses,
in float32, from PyTorch.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_functional_golden.py
For a case `c` (format of tools/golden.py):
  c.in.<x>    an input (float32 leaves from torch.manual_seed(0); index inputs
              stored as numbers),
  c.out       the output,
  c.cot       the output's gradient seed, when the output is not a scalar,
  c.grad.<x>  the gradient of every float input.
nn/functional/golden_test.cc rebuilds each case from the stored inputs.
"""
import torch
import torch.nn.functional as F

from golden import write_golden

torch.manual_seed(0)
cases = {}


def randn(*shape):
    return torch.randn(*shape)


def record(case, fn, leaves, consts=None):
    consts = consts or {}
    xs = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    out = fn(**xs, **consts)
    for k, v in leaves.items():
        cases["%s.in.%s" % (case, k)] = v
    for k, v in consts.items():
        cases["%s.in.%s" % (case, k)] = v
    cases[case + ".out"] = out.detach()
    cot = None
    if out.dim() > 0:
        cot = randn(*out.shape)
        cases[case + ".cot"] = cot
    grads = torch.autograd.grad(out, list(xs.values()), cot)
    for k, g in zip(xs, grads):
        cases["%s.grad.%s" % (case, k)] = g


# Activations: random values plus each edge point (0, the bounds, the
# softplus threshold).
edges = torch.tensor([-2.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 6.0, 7.0, 25.0])
act_x = torch.cat([randn(14) * 2, edges])
activations = {
    "relu": lambda x: F.relu(x),
    "relu6": lambda x: F.relu6(x),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "elu": lambda x: F.elu(x, 1.5),
    "selu": lambda x: F.selu(x),
    "celu": lambda x: F.celu(x, 0.7),
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": lambda x: F.silu(x),
    "mish": lambda x: F.mish(x),
    "sigmoid": lambda x: torch.sigmoid(x),
    "tanh": lambda x: torch.tanh(x),
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 2.0),
    "softplus": lambda x: F.softplus(x, beta=2.0, threshold=3.0),
}
for name, fn in activations.items():
    record(name, fn, dict(x=act_x))
record("softmax", lambda x: F.softmax(x, 1), dict(x=randn(3, 4, 2)))
record("log_softmax", lambda x: F.log_softmax(x, 0), dict(x=randn(3, 4)))
record("prelu", lambda x, w: F.prelu(x, w), dict(x=randn(2, 3, 4), w=torch.rand(3)))
record("prelu_scalar", lambda x, w: F.prelu(x, w), dict(x=randn(5), w=torch.rand(1)))

# Linear maps.
record("linear", lambda x, w, b: F.linear(x, w, b), dict(x=randn(4, 5), w=randn(3, 5), b=randn(3)))
record("linear_nd", lambda x, w: F.linear(x, w), dict(x=randn(2, 3, 5), w=randn(4, 5)))
record("bilinear", lambda x1, x2, w, b: F.bilinear(x1, x2, w, b),
       dict(x1=randn(2, 3, 4), x2=randn(2, 3, 5), w=randn(6, 4, 5), b=randn(6)))

# Layer norm.
record("layer_norm", lambda x, w, b: F.layer_norm(x, [3, 4], w, b, 1e-5),
       dict(x=randn(2, 3, 4), w=randn(3, 4), b=randn(3, 4)))
record("layer_norm_plain", lambda x: F.layer_norm(x, [5], eps=1e-3), dict(x=randn(4, 5)))

# Embedding.
emb_idx = torch.tensor([[0, 2, 2], [5, 1, 0]])
record("embedding_padding", lambda w, idx: F.embedding(idx, w, padding_idx=2),
       dict(w=randn(6, 3)), dict(idx=emb_idx))
record("embedding_freq", lambda w, idx: F.embedding(idx, w, scale_grad_by_freq=True),
       dict(w=randn(6, 3)), dict(idx=emb_idx))
renorm_w = randn(6, 3) * 2
cases["embedding_max_norm.in.w"] = renorm_w.clone()
renormed = renorm_w.clone()
F.embedding(emb_idx, renormed, max_norm=1.5, norm_type=2.0)
cases["embedding_max_norm.renormed"] = renormed

# Regression losses.
for reduction in ["none", "mean", "sum"]:
    x, y = randn(3, 4), randn(3, 4)
    record("mse_" + reduction, lambda x, y: F.mse_loss(x, y, reduction=reduction), dict(x=x, y=y))
    record("l1_" + reduction, lambda x, y: F.l1_loss(x, y, reduction=reduction), dict(x=x, y=y))
    record("smooth_l1_" + reduction,
           lambda x, y: F.smooth_l1_loss(x, y, reduction=reduction, beta=0.5), dict(x=x, y=y))
    record("huber_" + reduction, lambda x, y: F.huber_loss(x, y, reduction=reduction, delta=0.7),
           dict(x=x, y=y))
    record("kl_div_" + reduction, lambda x, y: F.kl_div(x, y, reduction=reduction),
           dict(x=F.log_softmax(randn(3, 4), 1), y=F.softmax(randn(3, 4), 1)))
    record("bce_" + reduction,
           lambda x, y, w: F.binary_cross_entropy(x, y, w, reduction=reduction),
           dict(x=torch.rand(3, 4) * 0.9 + 0.05, y=torch.rand(3, 4)), dict(w=torch.rand(4)))
    record("bce_logits_" + reduction,
           lambda x, y, w, pw: F.binary_cross_entropy_with_logits(x, y, w, reduction=reduction,
                                                                  pos_weight=pw),
           dict(x=randn(3, 4) * 3, y=torch.rand(3, 4)), dict(w=torch.rand(4), pw=torch.rand(4) * 2))
record("smooth_l1_beta0", lambda x, y: F.smooth_l1_loss(x, y, beta=0.0),
       dict(x=randn(3, 4), y=randn(3, 4)))
record("kl_div_batchmean", lambda x, y: F.kl_div(x, y, reduction="batchmean"),
       dict(x=F.log_softmax(randn(3, 4), 1), y=F.softmax(randn(3, 4), 1)))
record("kl_div_log_target", lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True),
       dict(x=F.log_softmax(randn(3, 4), 1), y=F.log_softmax(randn(3, 4), 1)))
record("bce_logits_plain", lambda x, y: F.binary_cross_entropy_with_logits(x, y),
       dict(x=randn(5) * 4, y=torch.rand(5)))

# Classification losses.
t = torch.tensor([1, 0, 4, 2, 3, 1])
t_ignored = torch.tensor([1, -100, 4, 2, -100, 1])
cls_w = torch.rand(5) + 0.5
for reduction in ["none", "mean", "sum"]:
    record("ce_" + reduction, lambda x, t: F.cross_entropy(x, t, reduction=reduction),
           dict(x=randn(6, 5)), dict(t=t))
    record("ce_weight_ignore_" + reduction,
           lambda x, w, t: F.cross_entropy(x, t, weight=w, reduction=reduction),
           dict(x=randn(6, 5)), dict(w=cls_w, t=t_ignored))
    record("ce_smoothing_" + reduction,
           lambda x, w, t: F.cross_entropy(x, t, weight=w, reduction=reduction,
                                           label_smoothing=0.2),
           dict(x=randn(6, 5)), dict(w=cls_w, t=t_ignored))
    record("ce_smoothing_plain_" + reduction,
           lambda x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.3),
           dict(x=randn(6, 5)), dict(t=t_ignored))
    record("ce_nd_" + reduction, lambda x, t: F.cross_entropy(x, t, reduction=reduction),
           dict(x=randn(2, 3, 4, 2)), dict(t=torch.randint(0, 3, (2, 4, 2))))
    record("ce_probs_" + reduction,
           lambda x, w, p: F.cross_entropy(x, p, weight=w, reduction=reduction,
                                           label_smoothing=0.1),
           dict(x=randn(4, 5), p=F.softmax(randn(4, 5), 1)), dict(w=cls_w))
    record("nll_" + reduction,
           lambda x, w, t: F.nll_loss(x, t, weight=w, reduction=reduction),
           dict(x=F.log_softmax(randn(6, 5), 1)), dict(w=cls_w, t=t_ignored))
    record("nll_nd_" + reduction, lambda x, t: F.nll_loss(x, t, reduction=reduction, ignore_index=0),
           dict(x=randn(2, 3, 4)), dict(t=torch.randint(0, 3, (2, 4))))
record("ce_ignore_index_1", lambda x, t: F.cross_entropy(x, t, ignore_index=1),
       dict(x=randn(6, 5)), dict(t=t))
record("ce_unbatched", lambda x, t: F.cross_entropy(x, t), dict(x=randn(5)),
       dict(t=torch.tensor(3)))

# Margin, embedding and likelihood losses (targets of +-1 and the sizes of
# var that gaussian_nll_loss broadcasts).
signs = torch.tensor([1.0, -1.0, -1.0, 1.0, 1.0, -1.0])
for reduction in ["none", "mean", "sum"]:
    record("margin_ranking_" + reduction,
           lambda x1, x2, t: F.margin_ranking_loss(x1, x2, t, margin=0.3, reduction=reduction),
           dict(x1=randn(6), x2=randn(6)), dict(t=signs))
    record("hinge_embedding_" + reduction,
           lambda x, t: F.hinge_embedding_loss(x, t, margin=1.5, reduction=reduction),
           dict(x=randn(2, 6) * 2), dict(t=signs))
    record("soft_margin_" + reduction,
           lambda x, t: F.soft_margin_loss(x, t, reduction=reduction),
           dict(x=randn(3, 6) * 2), dict(t=signs.repeat(3, 1)))
    record("multilabel_soft_margin_" + reduction,
           lambda x, y, w: F.multilabel_soft_margin_loss(x, y, weight=w, reduction=reduction),
           dict(x=randn(3, 5) * 2, y=torch.rand(3, 5)), dict(w=torch.rand(5) + 0.5))
    record("cosine_embedding_" + reduction,
           lambda x1, x2, t: F.cosine_embedding_loss(x1, x2, t, margin=-0.2, reduction=reduction),
           dict(x1=randn(6, 4), x2=randn(6, 4)), dict(t=signs))
    record("triplet_margin_" + reduction,
           lambda a, p, n: F.triplet_margin_loss(a, p, n, reduction=reduction),
           dict(a=randn(5, 4), p=randn(5, 4), n=randn(5, 4)))
    record("poisson_nll_" + reduction,
           lambda x, y: F.poisson_nll_loss(x, y, reduction=reduction),
           dict(x=randn(3, 4), y=torch.rand(3, 4) * 3))
    record("poisson_nll_full_" + reduction,
           lambda x, y: F.poisson_nll_loss(x, y, log_input=False, full=True, reduction=reduction),
           dict(x=torch.rand(3, 4) * 3 + 0.1),
           dict(y=torch.tensor([[0.0, 0.5, 1.0, 1.5], [2.0, 3.0, 4.5, 7.0],
                                [0.0, 1.0, 2.5, 10.0]])))
    record("gaussian_nll_" + reduction,
           lambda x, y, var: F.gaussian_nll_loss(x, y, var, reduction=reduction),
           dict(x=randn(4, 3), y=randn(4, 3), var=torch.rand(4, 3) + 0.1))
record("cosine_embedding_1d_similar", lambda x1, x2, t: F.cosine_embedding_loss(x1, x2, t),
       dict(x1=randn(5), x2=randn(5)), dict(t=torch.tensor(1.0)))
record("cosine_embedding_1d_dissimilar",
       lambda x1, x2, t: F.cosine_embedding_loss(x1, x2, t, margin=-0.5),
       dict(x1=randn(5), x2=randn(5)), dict(t=torch.tensor(-1.0)))
record("triplet_margin_swap_p1",
       lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=1, eps=1e-3, swap=True,
                                             reduction="none"),
       dict(a=randn(6, 3), p=randn(6, 3), n=randn(6, 3)))
record("triplet_margin_p3_1d", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0, p=3),
       dict(a=randn(4), p=randn(4), n=randn(4)))
record("poisson_nll_eps", lambda x, y: F.poisson_nll_loss(x, y, log_input=False, eps=0.1),
       dict(x=torch.rand(6) * 2 + 0.01, y=torch.rand(6) * 4))
record("gaussian_nll_homoscedastic",
       lambda x, y, var: F.gaussian_nll_loss(x, y, var, full=True, reduction="none"),
       dict(x=randn(4, 3), y=randn(4, 3), var=torch.rand(4) + 0.1))
record("gaussian_nll_last_dim_one_clamped",
       lambda x, y, var: F.gaussian_nll_loss(x, y, var, eps=0.05, reduction="sum"),
       dict(x=randn(4, 3), y=randn(4, 3), var=torch.tensor([[0.01], [0.5], [0.0], [1.2]])))
record("gaussian_nll_broadcast_target",
       lambda x, y, var: F.gaussian_nll_loss(x, y, var),
       dict(x=randn(4, 3), y=randn(3), var=torch.rand(4, 3) + 0.1))


# ---- More activations, distances (nn/functional/activation_test.cc,
# distance_test.cc). Seeded on their own, with the generator's state restored
# after, so these cases neither change nor depend on the others.
def more_activation_and_distance_cases():
    rng_state = torch.get_rng_state()
    torch.manual_seed(1213)
    kinks = torch.tensor([-25.0, -4.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 25.0])
    # The kinks first and 32 values in all, so that every element goes
    # through PyTorch's vectorized kernels (their scalar tail loop differs
    # at some kinks: hardswish's gradient at 3 is 1.5 there, 1 otherwise).
    x = torch.cat([kinks, randn(19) * 3])
    unary = {
        "hardswish": lambda x: F.hardswish(x),
        "hardsigmoid": lambda x: F.hardsigmoid(x),
        "logsigmoid": lambda x: F.logsigmoid(x),
        "softsign": lambda x: F.softsign(x),
        "tanhshrink": lambda x: F.tanhshrink(x),
        "threshold": lambda x: F.threshold(x, 1.0, -2.0),
        "softshrink": lambda x: F.softshrink(x, 0.5),
        "hardshrink": lambda x: F.hardshrink(x, 2.0),
    }
    for name, fn in unary.items():
        record(name, fn, dict(x=x))
    record("softmin", lambda x: F.softmin(x, 1), dict(x=randn(3, 4, 2)))
    record("glu", lambda x: F.glu(x), dict(x=randn(3, 4)))
    record("glu_dim1", lambda x: F.glu(x, 1), dict(x=randn(2, 6, 3)))

    # A zero row and a tiny one: the norm clamps at eps.
    rows = randn(4, 5)
    rows[1] = 0
    rows[2] *= 1e-10
    record("normalize", lambda x: F.normalize(x), dict(x=rows))
    record("normalize_p1_dim0", lambda x: F.normalize(x, p=1.0, dim=0), dict(x=randn(3, 4)))
    record("normalize_p3_eps", lambda x: F.normalize(x, p=3.0, dim=-1, eps=0.8),
           dict(x=randn(2, 3, 4) * 0.5))
    record("cosine_similarity", lambda x1, x2: F.cosine_similarity(x1, x2),
           dict(x1=rows, x2=randn(4, 5)))
    record("cosine_similarity_broadcast_eps",
           lambda x1, x2: F.cosine_similarity(x1, x2, dim=-1, eps=0.5),
           dict(x1=randn(2, 3, 4) * 0.3, x2=randn(3, 4)))
    record("cosine_similarity_1d", lambda x1, x2: F.cosine_similarity(x1, x2, dim=0),
           dict(x1=randn(6), x2=randn(6)))
    record("pairwise_distance", lambda x1, x2: F.pairwise_distance(x1, x2),
           dict(x1=randn(4, 5), x2=randn(4, 5)))
    record("pairwise_distance_p1_keepdim",
           lambda x1, x2: F.pairwise_distance(x1, x2, p=1.0, eps=1e-3, keepdim=True),
           dict(x1=randn(2, 3, 4), x2=randn(3, 4)))
    record("pairwise_distance_p3_1d", lambda x1, x2: F.pairwise_distance(x1, x2, p=3.0),
           dict(x1=randn(5), x2=randn(5)))
    torch.set_rng_state(rng_state)


more_activation_and_distance_cases()
# ---- End of more activations and distances.

write_golden("functional_golden.txt", cases, directory="nn/functional/testdata")
