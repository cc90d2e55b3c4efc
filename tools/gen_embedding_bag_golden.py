#!/usr/bin/python3
"""Writes the fixtures of embedding_bag (nn/functional/embedding_bag_test.cc)
and of the EmbeddingBag module (nn/embedding_bag_test.cc):

  nn/functional/testdata/embedding_bag_golden.txt
  nn/testdata/embedding_bag_golden.txt

what torch 1.13 computes in float64, as `name|dim0,dim1,...|v0 v1 ...` (see
golden.py) to 17 digits, one case per call (the call's options are in the
test that replays it):
  <case>.in.input, <case>.in.offsets   the indices and offsets (as floats);
  <case>.in.weight, <case>.in.psw      the weight and per_sample_weights;
  <case>.out, <case>.cot               the output and the gradient it is
                                       seeded with;
  <case>.grad.weight, <case>.grad.psw  the gradients;
  <case>.weight_after                  the weight after the call (max_norm).

With scale_grad_by_freq, 1.13's CPU embedding_bag divides a row's gradient
by the count of another index (it reads counts[indices[i]] with i counting
unique indices: input [1, 1, 3] gives row 3 a gradient of 0.5). Those cases take their gradients
from the documented definition instead, F.embedding(scale_grad_by_freq=True)
reduced bag by bag, whose output is checked equal to embedding_bag's.

Run with Debian's python3-torch (1.13):
/usr/bin/python3 tools/gen_embedding_bag_golden.py
"""
import torch
import torch.nn.functional as F
from torch import nn

from golden import write_golden

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
functional_cases = {}
module_cases = {}


def record(cases, name, call, input, weight, offsets=None, psw=None):
    """Runs call(input, weight, offsets, psw) and stores its inputs, output
    and the gradients of the output seeded with a random cot."""
    cases[name + ".in.input"] = input.double()
    if offsets is not None:
        cases[name + ".in.offsets"] = offsets.double()
    cases[name + ".in.weight"] = weight.detach().clone()
    leaves = {"weight": weight}
    if psw is not None:
        psw = psw.clone().requires_grad_()
        cases[name + ".in.psw"] = psw.detach().clone()
        leaves["psw"] = psw
    out = call(input, weight, offsets, psw)
    cot = torch.randn(out.shape)
    cases[name + ".out"] = out.detach().clone()
    cases[name + ".cot"] = cot
    grads = torch.autograd.grad(out, list(leaves.values()), cot)
    for key, grad in zip(leaves, grads):
        cases["%s.grad.%s" % (name, key)] = grad
    cases[name + ".weight_after"] = weight.detach().clone()


def by_frequency(input, weight, offsets, psw, mode, include_last_offset=False):
    """embedding_bag for 1-D input, sum or mean, with the gradient divided by
    each index's true frequency."""
    rows = F.embedding(input, weight, scale_grad_by_freq=True)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    bounds = offsets.tolist() + ([] if include_last_offset else [len(input)])
    bags = []
    for start, end in zip(bounds[:-1], bounds[1:]):
        bag = rows[start:end].sum(0)
        bags.append(bag / max(end - start, 1) if mode == "mean" else bag)
    out = torch.stack(bags)
    expected = F.embedding_bag(input, weight.detach(), offsets, mode=mode,
                               per_sample_weights=None if psw is None else psw.detach(),
                               include_last_offset=include_last_offset)
    assert torch.allclose(out, expected, rtol=1e-12, atol=1e-14)
    return out


def functional(name, input, offsets=None, psw=None, rows=10, **kwargs):
    weight = torch.randn(rows, 3, requires_grad=True)
    if kwargs.get("scale_grad_by_freq"):
        kwargs.pop("scale_grad_by_freq")
        call = lambda i, w, o, p: by_frequency(i, w, o, p, **kwargs)
    else:
        call = lambda i, w, o, p: F.embedding_bag(i, w, o, per_sample_weights=p, **kwargs)
    record(functional_cases, name, call, input, weight, offsets, psw)


# 1-D input with an empty bag in the middle and at the end.
flat = torch.tensor([4, 2, 9, 0, 2, 2, 7, 1, 5])
cuts = torch.tensor([0, 3, 3, 7, 9])
for mode in ("sum", "mean", "max"):
    functional("flat_" + mode, flat, cuts, mode=mode)
    functional("fixed_" + mode, torch.tensor([[1, 3, 3, 8], [0, 6, 2, 5], [9, 9, 4, 1]]),
               mode=mode)
    functional("last_offset_" + mode, flat, torch.tensor([0, 2, 2, 6, 9]), mode=mode,
               include_last_offset=True)
    # padding_idx 2: left out of the bags; the second bag holds only padding.
    functional("padding_" + mode, torch.tensor([3, 2, 5, 2, 2, 7, 1, 2]),
               torch.tensor([0, 3, 5, 5]), mode=mode, padding_idx=2)
    functional("fixed_padding_" + mode, torch.tensor([[2, 2, 2], [0, 2, 6], [1, 1, 8]]),
               mode=mode, padding_idx=-8)
    functional("max_norm_" + mode, torch.tensor([1, 3, 3, 5, 0]), torch.tensor([0, 2]),
               rows=6, mode=mode, max_norm=1.0, norm_type=1.5)
for mode in ("sum", "mean"):
    functional("scale_grad_" + mode, torch.tensor([1, 3, 3, 5, 3, 1, 2]),
               torch.tensor([0, 4, 4]), mode=mode, scale_grad_by_freq=True)
functional("per_sample_weights", flat, cuts, psw=torch.randn(9), mode="sum")
functional("per_sample_weights_fixed_padding", torch.tensor([[1, 0, 4], [0, 0, 7]]),
           psw=torch.randn(2, 3), mode="sum", padding_idx=0)
functional("per_sample_weights_last_offset_scale_grad", flat, torch.tensor([0, 4, 9]),
           psw=torch.randn(9), mode="sum", include_last_offset=True, scale_grad_by_freq=True)
functional("int32", flat.int(), cuts.int(), mode="mean")


def module_case(name, module, input, offsets=None, psw=None):
    record(module_cases, name, lambda i, w, o, p: module(i, o, p), input, module.weight,
           offsets, psw)


module_case("bag_mean", nn.EmbeddingBag(10, 3), flat, cuts)
module_case("bag_max_padding", nn.EmbeddingBag(10, 3, mode="max", padding_idx=2),
            torch.tensor([[2, 5, 2], [2, 2, 2], [0, 9, 2]]))
module_case("bag_sum_weighted_last_offset",
            nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True), flat,
            torch.tensor([0, 5, 5, 9]), torch.randn(9))
module_case("bag_max_norm", nn.EmbeddingBag(6, 3, max_norm=1.2, mode="sum"),
            torch.tensor([0, 5, 5, 2]), torch.tensor([0, 1]))

write_golden("embedding_bag_golden.txt", functional_cases, directory="nn/functional/testdata",
             digits=17)
write_golden("embedding_bag_golden.txt", module_cases, directory="nn/testdata", digits=17)
