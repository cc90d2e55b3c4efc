#!/usr/bin/python3
"""Writes the fixtures of packed sequences (see golden.py for the format),
what torch 1.13 computes in float64, to 17 digits:

  nn/utils/testdata/rnn_golden.txt  torch.nn.utils.rnn (nn/utils/rnn_test.cc):
      <case>.in.<input>    the inputs (x, data, s0, s1, ...);
      <case>.lengths       the lengths passed (pack_padded_sequence);
      <case>.data, <case>.batch_sizes, <case>.sorted_indices,
      <case>.unsorted_indices   a PackedSequence returned;
      <case>.padded, <case>.lengths_out   a padded tensor and lengths returned;
      <case>.cot_<key>     fixed weights of the scalar loss sum(value * cot)
                           over the returned floating values;
      <case>.out           that loss;
      <case>.grad.<input>  the loss's gradient wrt each input.

  nn/testdata/packed_golden.txt  RNN, LSTM and GRU on a PackedSequence
      (nn/rnn_packed_test.cc): <case>.in.x (padded), <case>.lengths,
      <case>.in.h0/c0 when given and every parameter under its state_dict
      name; <case>.output (the output's packed data), <case>.batch_sizes,
      <case>.h_n, <case>.c_n; <case>.cot_<key>, <case>.out and
      <case>.grad.<input> as above.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_packed_golden.py
"""
import torch
from torch import nn
from torch.nn.utils import rnn as rnn_utils

from golden import write_golden

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def finish(cases, name, leaves, outputs):
    """Stores the outputs, their cotangents, the loss and the gradients."""
    loss = 0
    for key, value in outputs.items():
        cases["%s.%s" % (name, key)] = value.detach().clone()
        if value.is_floating_point():
            cot = torch.randn(value.shape)
            cases["%s.cot_%s" % (name, key)] = cot
            loss = loss + (value * cot).sum()
    cases[name + ".out"] = loss.detach()
    grads = torch.autograd.grad(loss, list(leaves.values()))
    for key, grad in zip(leaves, grads):
        cases["%s.grad.%s" % (name, key)] = grad


def packed_outputs(packed):
    outputs = {"data": packed.data, "batch_sizes": packed.batch_sizes}
    if packed.sorted_indices is not None:
        outputs["sorted_indices"] = packed.sorted_indices
        outputs["unsorted_indices"] = packed.unsorted_indices
    return outputs


# ---- torch.nn.utils.rnn ----
utils = {}


def leaf(cases, name, key, value):
    value = value.clone().requires_grad_()
    cases["%s.in.%s" % (name, key)] = value.detach().clone()
    return value


def pack_case(name, shape, lengths, batch_first, enforce_sorted):
    x = leaf(utils, name, "x", torch.randn(shape))
    utils[name + ".lengths"] = torch.tensor(lengths)
    packed = rnn_utils.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    finish(utils, name, {"x": x}, packed_outputs(packed))


pack_case("pack_sorted", (4, 3, 2), [4, 2, 1], False, True)
pack_case("pack_batch_first_unsorted", (3, 4, 2), [2, 4, 1], True, False)
pack_case("pack_no_features_ties", (3, 5), [2, 3, 2, 3, 1], False, False)
pack_case("pack_sorted_unenforced", (3, 2, 2), [3, 3], False, False)


def pad_case(name, lengths, enforce_sorted, batch_first, padding_value, total_length):
    # The PackedSequence of pack_padded_sequence, its data a fresh leaf.
    base = rnn_utils.pack_padded_sequence(torch.randn(max(lengths), len(lengths), 2), lengths,
                                          enforce_sorted=enforce_sorted)
    data = leaf(utils, name, "data", base.data)
    utils[name + ".lengths"] = torch.tensor(lengths)
    packed = rnn_utils.PackedSequence(data, base.batch_sizes, base.sorted_indices,
                                      base.unsorted_indices)
    padded, lengths_out = rnn_utils.pad_packed_sequence(packed, batch_first, padding_value,
                                                        total_length)
    finish(utils, name, {"data": data}, {"padded": padded, "lengths_out": lengths_out})


pad_case("pad_sorted", [4, 2, 1], True, False, 0.0, None)
pad_case("pad_unsorted_batch_first_value", [2, 4, 1, 4], False, True, -1.5, None)
pad_case("pad_total_length", [3, 1], True, False, 2.0, 5)
pad_case("pad_unsorted_total_length_batch_first", [1, 3, 2], False, True, 0.0, 4)


def sequences(name, shapes):
    return {"s%d" % i: leaf(utils, name, "s%d" % i, torch.randn(shape))
            for i, shape in enumerate(shapes)}


def pad_sequence_case(name, shapes, batch_first, padding_value):
    seqs = sequences(name, shapes)
    padded = rnn_utils.pad_sequence(list(seqs.values()), batch_first, padding_value)
    finish(utils, name, seqs, {"padded": padded})


pad_sequence_case("pad_sequence", [(3, 2), (1, 2), (4, 2)], False, 0.0)
pad_sequence_case("pad_sequence_batch_first_value", [(2,), (4,), (1,)], True, 7.0)
pad_sequence_case("pad_sequence_broadcast", [(2, 3), (3, 1)], False, -1.0)


def pack_sequence_case(name, shapes, enforce_sorted):
    seqs = sequences(name, shapes)
    packed = rnn_utils.pack_sequence(list(seqs.values()), enforce_sorted)
    finish(utils, name, seqs, packed_outputs(packed))


pack_sequence_case("pack_sequence", [(4, 2), (3, 2), (1, 2)], True)
pack_sequence_case("pack_sequence_unsorted", [(2, 2), (4, 2), (3, 2)], False)

write_golden("rnn_golden.txt", utils, directory="nn/utils/testdata", digits=17)

# ---- RNN, LSTM, GRU on packed input ----
layers = {}


def record(name, module, x, lengths, enforce_sorted, hx=None):
    """Runs `module` on pack_padded_sequence(x, lengths) (and hx: a tensor or
    an (h, c) tuple), storing the inputs, parameters, outputs and the
    gradients of a weighted sum of the outputs."""
    module.train(False)
    leaves = {"x": leaf(layers, name, "x", x)}
    layers[name + ".lengths"] = torch.tensor(lengths)
    if isinstance(hx, tuple):
        hx = (leaf(layers, name, "h0", hx[0]), leaf(layers, name, "c0", hx[1]))
        leaves["h0"], leaves["c0"] = hx
    elif hx is not None:
        hx = leaf(layers, name, "h0", hx)
        leaves["h0"] = hx
    for key, value in module.named_parameters():
        layers["%s.in.%s" % (name, key)] = value.detach().clone()
        leaves[key] = value
    packed = rnn_utils.pack_padded_sequence(leaves["x"], lengths, module.batch_first,
                                            enforce_sorted)
    output, state = module(packed) if hx is None else module(packed, hx)
    outputs = {"output": output.data, "batch_sizes": output.batch_sizes}
    if isinstance(state, tuple):
        outputs["h_n"], outputs["c_n"] = state
    else:
        outputs["h_n"] = state
    finish(layers, name, leaves, outputs)


record("lstm", nn.LSTM(2, 3), torch.randn(5, 3, 2), [5, 3, 2], True)
record("lstm_2layer_bidir_hx", nn.LSTM(2, 2, num_layers=2, bidirectional=True),
       torch.randn(5, 4, 2), [2, 5, 3, 5], False,
       (torch.randn(4, 4, 2), torch.randn(4, 4, 2)))
record("lstm_batch_first_bidir", nn.LSTM(2, 2, batch_first=True, bidirectional=True),
       torch.randn(3, 4, 2), [1, 4, 2], False)
record("lstm_proj_2layer_bidir_hx", nn.LSTM(2, 2, num_layers=2, bidirectional=True,
                                            proj_size=1),
       torch.randn(4, 3, 2), [3, 4, 1], False, (torch.randn(4, 3, 1), torch.randn(4, 3, 2)))
record("gru", nn.GRU(2, 3), torch.randn(4, 3, 2), [4, 4, 1], True)
record("gru_2layer_bidir_hx", nn.GRU(2, 2, num_layers=2, bidirectional=True),
       torch.randn(5, 3, 2), [3, 5, 1], False, torch.randn(4, 3, 2))
record("gru_batch_first_nobias_hx", nn.GRU(2, 3, batch_first=True, bias=False),
       torch.randn(3, 4, 2), [4, 2, 3], False, torch.randn(1, 3, 3))
record("rnn", nn.RNN(2, 3), torch.randn(4, 2, 2), [4, 3], True)
record("rnn_relu_2layer_bidir_hx", nn.RNN(2, 3, num_layers=2, bidirectional=True,
                                          nonlinearity="relu"),
       torch.randn(4, 3, 2), [2, 4, 3], False, torch.randn(4, 3, 3))
record("rnn_batch_first_2layer", nn.RNN(2, 3, batch_first=True, num_layers=2),
       torch.randn(3, 3, 2), [3, 1, 2], False)

write_golden("packed_golden.txt", layers, directory="nn/testdata", digits=17)
