#!/usr/bin/python3
"""Writes the fixture of nn's recurrent layers (nn/rnn_test.cc):

  nn/testdata/rnn_golden.txt  what torch.nn 1.13 computes in float64, as
      `name|dim0,dim1,...|v0 v1 ...` (see golden.py) to 17 digits:
      <case>.in.<input>    the inputs: x, h0 and c0 when given, and every
                           parameter under its state_dict name;
      <case>.output, <case>.h_n, <case>.c_n   the layer's outputs (a cell's
                           h' and c' under h_n and c_n);
      <case>.cot_output, <case>.cot_h_n, <case>.cot_c_n   fixed weights of
                           the scalar loss sum(output * cot_output) +
                           sum(h_n * cot_h_n) [+ sum(c_n * cot_c_n)];
      <case>.out           that loss;
      <case>.grad.<input>  the loss's gradient wrt each input and parameter.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_rnn_golden.py
"""
import torch
from torch import nn

from golden import write_golden

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
cases = {}


def record(name, module, x, hx=None):
    """Runs `module` on x (and hx: a tensor or an (h, c) tuple), storing the
    inputs, parameters, outputs and the gradients of a weighted sum of the
    outputs."""
    module.train(False)
    x = x.clone().requires_grad_()
    leaves = {"x": x}
    cases["%s.in.x" % name] = x.detach().clone()
    if isinstance(hx, tuple):
        hx = tuple(h.clone().requires_grad_() for h in hx)
        leaves["h0"], leaves["c0"] = hx
    elif hx is not None:
        hx = hx.clone().requires_grad_()
        leaves["h0"] = hx
    for key in ("h0", "c0"):
        if key in leaves:
            cases["%s.in.%s" % (name, key)] = leaves[key].detach().clone()
    for key, value in module.named_parameters():
        cases["%s.in.%s" % (name, key)] = value.detach().clone()
        leaves[key] = value
    result = module(x) if hx is None else module(x, hx)
    if isinstance(module, (nn.RNNBase)):
        output, state = result
        outputs = {"output": output}
        if isinstance(state, tuple):
            outputs["h_n"], outputs["c_n"] = state
        else:
            outputs["h_n"] = state
    elif isinstance(result, tuple):
        outputs = {"h_n": result[0], "c_n": result[1]}
    else:
        outputs = {"h_n": result}
    loss = 0
    for key, value in outputs.items():
        cot = torch.randn(value.shape)
        cases["%s.%s" % (name, key)] = value.detach().clone()
        cases["%s.cot_%s" % (name, key)] = cot
        loss = loss + (value * cot).sum()
    cases[name + ".out"] = loss.detach()
    grads = torch.autograd.grad(loss, list(leaves.values()))
    for key, grad in zip(leaves, grads):
        cases["%s.grad.%s" % (name, key)] = grad


# ---- LSTM ----
record("lstm", nn.LSTM(3, 4), torch.randn(5, 2, 3))
record("lstm_2layer_bidir_hx", nn.LSTM(3, 4, num_layers=2, bidirectional=True),
       torch.randn(5, 2, 3), (torch.randn(4, 2, 4), torch.randn(4, 2, 4)))
record("lstm_batch_first_nobias", nn.LSTM(3, 4, batch_first=True, bias=False),
       torch.randn(2, 5, 3))
record("lstm_unbatched_hx", nn.LSTM(3, 4, num_layers=2), torch.randn(5, 3),
       (torch.randn(2, 4), torch.randn(2, 4)))
record("lstm_proj", nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2,
                            batch_first=True),
       torch.randn(2, 4, 3), (torch.randn(4, 2, 2), torch.randn(4, 2, 5)))

# ---- GRU ----
record("gru", nn.GRU(3, 4), torch.randn(5, 2, 3))
record("gru_2layer_bidir_hx", nn.GRU(3, 4, num_layers=2, bidirectional=True),
       torch.randn(5, 2, 3), torch.randn(4, 2, 4))
record("gru_batch_first_nobias", nn.GRU(3, 4, batch_first=True, bias=False),
       torch.randn(2, 5, 3))
record("gru_unbatched_hx", nn.GRU(3, 4, num_layers=2), torch.randn(5, 3), torch.randn(2, 4))

# ---- RNN ----
record("rnn", nn.RNN(3, 4), torch.randn(5, 2, 3))
record("rnn_relu_2layer_bidir_hx", nn.RNN(3, 4, num_layers=2, bidirectional=True,
                                          nonlinearity="relu"),
       torch.randn(5, 2, 3), torch.randn(4, 2, 4))
record("rnn_batch_first_nobias", nn.RNN(3, 4, batch_first=True, bias=False),
       torch.randn(2, 5, 3))
record("rnn_unbatched_batch_first", nn.RNN(3, 4, batch_first=True), torch.randn(5, 3))

# ---- Cells ----
record("rnn_cell_hx", nn.RNNCell(3, 4), torch.randn(2, 3), torch.randn(2, 4))
record("rnn_cell_relu_unbatched", nn.RNNCell(3, 4, nonlinearity="relu"), torch.randn(3))
record("lstm_cell_hx", nn.LSTMCell(3, 4), torch.randn(2, 3),
       (torch.randn(2, 4), torch.randn(2, 4)))
record("lstm_cell_unbatched_nobias", nn.LSTMCell(3, 4, bias=False), torch.randn(3))
record("gru_cell_hx", nn.GRUCell(3, 4), torch.randn(2, 3), torch.randn(2, 4))
record("gru_cell_unbatched_nobias", nn.GRUCell(3, 4, bias=False), torch.randn(3),
       torch.randn(4))

write_golden("rnn_golden.txt", cases, directory="nn/testdata", digits=17)
