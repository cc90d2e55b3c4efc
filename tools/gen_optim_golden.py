#!/usr/bin/python3
"""Writes nn/optim/testdata/: optimizer and LR-scheduler results from PyTorch 1.13.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/gen_optim_golden.py
- optim_golden.txt: the initial parameters and the gradients of three steps
  (17 significant digits, so the C++ test starts from the same float32
  values), and every optimizer configuration's parameters after the steps.
- optim_state_golden.txt: the state_dicts of the optimizers from Adadelta on
  after the steps (flattened as torchlet names the entries), and some of
  their parameters after 8 steps of other gradients.
- lbfgs_golden.txt: LBFGS on the Rosenbrock function and a least-squares
  problem: the parameters after each step(closure), the losses it returned,
  and the state_dict after the last.
- optim_reprs.txt: optimizer reprs, each as `=== name` followed by the text.
- lr_scheduler_golden.txt: each scheduler's lr (and momentum) per epoch over
  12 epochs (25 for LambdaLR and the schedulers after it), shape
  [epochs, groups].
The configurations are rebuilt by nn/optim/optimizer_test.cc and
nn/optim/lr_scheduler_test.cc (more_optimizers_test.cc, lbfgs_test.cc) under
the same names.
"""
import os

import torch

from golden import ROOT, write_golden

OUT = "nn/optim/testdata"
STEPS = 3

torch.manual_seed(0)
SHAPES = {"w1": (4, 3), "b1": (4,), "w2": (2, 4), "b2": (2,)}
INIT = {k: torch.randn(s) for k, s in SHAPES.items()}
GRADS = [{k: torch.randn(s) for k, s in SHAPES.items()} for _ in range(STEPS)]

O = torch.optim
CONFIGS = {
    "sgd_plain": (O.SGD, dict(lr=0.1)),
    "sgd_momentum": (O.SGD, dict(lr=0.1, momentum=0.9)),
    "sgd_nesterov_wd": (O.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "sgd_maximize": (O.SGD, dict(lr=0.1, maximize=True)),
    "sgd_dampening": (O.SGD, dict(lr=0.1, momentum=0.9, dampening=0.5)),
    "adam": (O.Adam, dict(lr=0.01)),
    "adam_amsgrad_wd": (O.Adam, dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    "adam_maximize_betas": (O.Adam, dict(lr=0.01, betas=(0.8, 0.99), maximize=True)),
    "adamw": (O.AdamW, dict(lr=0.01)),
    "adamw_amsgrad": (O.AdamW, dict(lr=0.01, amsgrad=True, weight_decay=0.05)),
    "rmsprop": (O.RMSprop, dict(lr=0.01)),
    "rmsprop_centered_momentum": (O.RMSprop, dict(lr=0.01, centered=True, momentum=0.9,
                                                  weight_decay=0.01)),
    "adagrad": (O.Adagrad, dict(lr=0.1)),
    "adagrad_lr_decay": (O.Adagrad, dict(lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                         initial_accumulator_value=0.1)),
    "adadelta": (O.Adadelta, dict()),
    "adadelta_wd_maximize": (O.Adadelta, dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1,
                                              maximize=True)),
    "adamax": (O.Adamax, dict(lr=0.01)),
    "adamax_wd_maximize": (O.Adamax, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1,
                                          maximize=True)),
    "nadam": (O.NAdam, dict(lr=0.01)),
    "nadam_wd_momentum_decay": (O.NAdam, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1,
                                              momentum_decay=0.01)),
    "radam": (O.RAdam, dict(lr=0.01)),
    "radam_wd": (O.RAdam, dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    "asgd": (O.ASGD, dict(lr=0.01)),
    "asgd_t0_wd_maximize": (O.ASGD, dict(lr=0.05, lambd=0.01, alpha=0.5, t0=0, weight_decay=0.1,
                                         maximize=True)),
    "rprop": (O.Rprop, dict(lr=0.01)),
    "rprop_etas_maximize": (O.Rprop, dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.08),
                                          maximize=True)),
}
# The optimizers added with optim_state_golden.txt: their state_dicts after the
# steps, and runs of LONG_STEPS steps (RAdam rectifies from its sixth step).
NEW_CONFIGS = [name for name in CONFIGS if name.split("_")[0] in
               ("adadelta", "adamax", "nadam", "radam", "asgd", "rprop")]
LONG_STEPS = 8
LONG_GRADS = [{k: torch.randn(s) for k, s in SHAPES.items()} for _ in range(LONG_STEPS)]
LONG_CONFIGS = ["radam", "radam_wd", "nadam_wd_momentum_decay", "asgd_t0_wd_maximize",
                "rprop_etas_maximize"]


def run(cls, kwargs, grad_steps=None):
    params = {k: v.clone().requires_grad_() for k, v in INIT.items()}
    opt = cls(list(params.values()), **kwargs)
    for grads in grad_steps or GRADS:
        for k, p in params.items():
            p.grad = grads[k].clone()
        opt.step()
    run.last_optimizer = opt
    return params


def flat_state_dict(sd):
    """PyTorch's optimizer state_dict flattened as torchlet names it (Note
    [Optimizer state_dict] in nn/optim/optimizer_state_dict.cc), every value
    as a tensor: numbers 0-dim, None as [0], a pair as its two elements
    (<option>.0 and <option>.1), a string as its bytes, LBFGS's lists
    stacked (al up to its first None)."""
    out = {}
    for index, state in sd["state"].items():
        for name, v in state.items():
            if isinstance(v, list):
                v = [x for x in v if x is not None] if name != "al" else \
                    v[:next((i for i, x in enumerate(v) if x is None), len(v))]
                v = torch.stack(v) if v else torch.zeros(0)
            elif not torch.is_tensor(v):
                v = torch.tensor(float(v), dtype=torch.float64)
            out["state.%d.%s" % (index, name)] = v
    for g, group in enumerate(sd["param_groups"]):
        for name, v in group.items():
            if name == "params":
                v = torch.tensor(v, dtype=torch.float64)
            elif v is None:
                v = torch.zeros(0)
            elif isinstance(v, tuple):
                for i, x in enumerate(v):
                    out["param_groups.%d.%s.%d" % (g, name, i)] = torch.tensor(
                        float(x), dtype=torch.float64)
                continue
            elif isinstance(v, str):
                v = torch.tensor(list(v.encode()), dtype=torch.uint8)
            else:
                v = torch.tensor(float(v), dtype=torch.float64)
            out["param_groups.%d.%s" % (g, name)] = v
    return out


def new_optimizer_cases():
    cases = {}
    for step, grads in enumerate(LONG_GRADS):
        cases.update({"long_grad%d.%s" % (step, k): v for k, v in grads.items()})
    for name in NEW_CONFIGS:
        cls, kwargs = CONFIGS[name]
        run(cls, kwargs)
        for key, v in flat_state_dict(run.last_optimizer.state_dict()).items():
            cases["%s/%s" % (name, key)] = v.detach()
    for name in LONG_CONFIGS:
        cls, kwargs = CONFIGS[name]
        for k, v in run(cls, kwargs, LONG_GRADS).items():
            cases["long.%s.%s" % (name, k)] = v.detach()
    return cases


def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


# Least squares: loss = mean((x w^T + b - y)^2).
LSQ_X = torch.randn(6, 3)
LSQ_Y = torch.randn(6, 2)
LSQ_W = torch.randn(2, 3)
LSQ_B = torch.randn(2)
LBFGS_STEPS = 4
# (The defaults without a line search take fixed steps of 1 on the Rosenbrock
# function, which amplify round-off chaotically within a few steps: no
# fixture for them.)
LBFGS_CONFIGS = {
    "rosenbrock_wolfe": ("rosenbrock", torch.float64, dict(line_search_fn="strong_wolfe")),
    "rosenbrock_short_history": ("rosenbrock", torch.float64,
                                 dict(lr=0.5, max_iter=7, history_size=2)),
    "rosenbrock_wolfe_short_history": ("rosenbrock", torch.float64,
                                       dict(max_iter=6, history_size=3,
                                            line_search_fn="strong_wolfe")),
    "lsq": ("lsq", torch.float64, dict(lr=0.5, max_iter=5, history_size=3)),
    "lsq_wolfe": ("lsq", torch.float64, dict(max_iter=5, history_size=3,
                                             line_search_fn="strong_wolfe")),
    # Two iterations a step, so that float32 runs stay away from the minimum,
    # where whether an iteration runs turns on the rounding of the loss.
    "lsq_float32": ("lsq", torch.float32, dict(lr=0.5, max_iter=2, history_size=3)),
    "lsq_float32_wolfe": ("lsq", torch.float32, dict(max_iter=2, history_size=3,
                                                     line_search_fn="strong_wolfe")),
    "lsq_max_eval": ("lsq", torch.float64, dict(max_iter=10, max_eval=4, tolerance_grad=1e-3,
                                                tolerance_change=1e-4,
                                                line_search_fn="strong_wolfe")),
}


def lbfgs_cases():
    cases = {"lsq.x": LSQ_X, "lsq.y": LSQ_Y, "lsq.init.w": LSQ_W, "lsq.init.b": LSQ_B}
    for name, (problem, dtype, kwargs) in LBFGS_CONFIGS.items():
        if problem == "rosenbrock":
            params = [torch.tensor([-1.5, 2.0], dtype=dtype, requires_grad=True)]
            loss_fn = lambda: rosenbrock(params[0])
        else:
            params = [LSQ_W.to(dtype).clone().requires_grad_(), LSQ_B.to(dtype).clone().requires_grad_()]
            x, y = LSQ_X.to(dtype), LSQ_Y.to(dtype)
            loss_fn = lambda: (x @ params[0].t() + params[1] - y).pow(2).mean()
        opt = O.LBFGS(params, **kwargs)

        def closure():
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            return loss
        losses = []
        for step in range(LBFGS_STEPS):
            losses.append(opt.step(closure).item())
            for i, p in enumerate(params):
                cases["%s.step%d.%d" % (name, step, i)] = p.detach().clone()
        cases[name + ".losses"] = torch.tensor(losses, dtype=torch.float64)
        for key, v in flat_state_dict(opt.state_dict()).items():
            cases["%s/%s" % (name, key)] = v.detach()
    return cases


def optimizer_cases():
    cases = {"init." + k: v for k, v in INIT.items()}
    for step, grads in enumerate(GRADS):
        cases.update({"grad%d.%s" % (step, k): v for k, v in grads.items()})
    for name, (cls, kwargs) in CONFIGS.items():
        cases.update({"%s.%s" % (name, k): v.detach() for k, v in run(cls, kwargs).items()})
    return cases


def reprs():
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    out = {
        # The tutorial's two groups: the second overrides the default lr.
        "sgd_two_groups": O.SGD([{"params": [w]}, {"params": [b], "lr": 1e-2}], lr=1e-5,
                                momentum=0.9),
        "sgd_int_lr": O.SGD([w], lr=1),
        "sgd_nesterov": O.SGD([w], lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4),
        "adam": O.Adam([w]),
        "adam_options": O.Adam([w], lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.5,
                               amsgrad=True, maximize=True),
        "adamw": O.AdamW([w]),
        "rmsprop": O.RMSprop([w], centered=True, momentum=0.5),
        "adagrad": O.Adagrad([w], lr_decay=1e-3, initial_accumulator_value=0.1),
        "adadelta": O.Adadelta([w]),
        "adadelta_options": O.Adadelta([w], lr=0.5, rho=0.95, eps=1e-7, weight_decay=0.01,
                                       maximize=True),
        "adamax": O.Adamax([w]),
        "nadam": O.NAdam([w]),
        "radam": O.RAdam([w], betas=(0.8, 0.99), weight_decay=1e-4),
        "asgd": O.ASGD([w]),
        "rprop": O.Rprop([w]),
        "lbfgs": O.LBFGS([w]),
        "lbfgs_strong_wolfe": O.LBFGS([w], line_search_fn="strong_wolfe"),
        "lbfgs_options": O.LBFGS([w], lr=0.1, max_iter=7, tolerance_grad=1e-5,
                                 tolerance_change=1e-8, history_size=10),
        "lbfgs_float_max_iter": O.LBFGS([w], max_iter=10.0),
    }
    scheduled = O.SGD([w], lr=0.1)
    O.lr_scheduler.StepLR(scheduled, step_size=2)
    out["sgd_with_step_lr"] = scheduled
    return {k: repr(v) for k, v in out.items()}


def two_group_sgd(momentum=0.0):
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    return O.SGD([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1, momentum=momentum)


def two_group_adam():
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    return O.Adam([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1)


PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.8, 0.85, 0.85, 0.85, 0.85, 0.85, 0.7]
S = O.lr_scheduler


def scheduler_cases():
    cases = {}

    def record(name, opt, step, momentum=None, epochs=12):
        lrs, moms = [], []
        for epoch in range(epochs):
            lrs.append([g["lr"] for g in opt.param_groups])
            if momentum:
                moms.append([momentum(g) for g in opt.param_groups])
            opt.step()
            step(epoch)
        cases[name] = torch.tensor(lrs, dtype=torch.float64)
        if momentum:
            cases[name + ".momentum"] = torch.tensor(moms, dtype=torch.float64)

    def simple(name, make, epochs=12):
        opt = two_group_sgd()
        sched = make(opt)
        record(name, opt, lambda e: sched.step(), epochs=epochs)

    simple("step_lr", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
    simple("multi_step_lr", lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.1))
    simple("exponential_lr", lambda o: S.ExponentialLR(o, gamma=0.9))
    simple("cosine_annealing_lr", lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.001))
    simple("linear_lr", lambda o: S.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4))

    opt = two_group_sgd()
    cosine = S.CosineAnnealingLR(opt, T_max=5, eta_min=0.01)
    decay = S.ExponentialLR(opt, gamma=0.8)
    record("chained_cosine_exponential", opt, lambda e: (cosine.step(), decay.step()))

    opt = two_group_sgd(momentum=0.9)
    one_cycle = S.OneCycleLR(opt, max_lr=[1.0, 0.5], total_steps=12)
    record("one_cycle_lr", opt, lambda e: one_cycle.step() if e < 11 else None,
           momentum=lambda g: g["momentum"])

    opt = two_group_adam()
    one_cycle = S.OneCycleLR(opt, max_lr=0.1, epochs=3, steps_per_epoch=4, pct_start=0.25,
                             anneal_strategy="linear", three_phase=True, div_factor=10.0,
                             final_div_factor=100.0, base_momentum=0.8, max_momentum=0.9)
    record("one_cycle_lr_linear_three_phase", opt,
           lambda e: one_cycle.step() if e < 11 else None, momentum=lambda g: g["betas"][0])

    opt = two_group_sgd()
    plateau = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, cooldown=1,
                                  threshold=0.01)
    record("reduce_lr_on_plateau", opt, lambda e: plateau.step(PLATEAU_METRICS[e]))

    opt = two_group_sgd()
    plateau = S.ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=1, threshold=0.05,
                                  threshold_mode="abs", min_lr=[0.002, 0.0])
    record("reduce_lr_on_plateau_max_abs", opt, lambda e: plateau.step(PLATEAU_METRICS[e]))

    # 25 epochs from here on.
    simple("lambda_lr", lambda o: S.LambdaLR(o, lambda e: 1.0 / (1 + 0.1 * e)), epochs=25)
    simple("lambda_lr_per_group",
           lambda o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 0.5 ** (e // 5) + e % 3]),
           epochs=25)
    simple("multiplicative_lr", lambda o: S.MultiplicativeLR(o, lambda e: 0.9), epochs=25)
    simple("multiplicative_lr_per_group",
           lambda o: S.MultiplicativeLR(o, [lambda e: 0.95, lambda e: 0.5 if e % 4 == 0 else 1.1]),
           epochs=25)
    simple("constant_lr", lambda o: S.ConstantLR(o, factor=0.3, total_iters=6), epochs=25)
    simple("constant_lr_total_iters_0", lambda o: S.ConstantLR(o, factor=0.5, total_iters=0),
           epochs=25)
    simple("polynomial_lr", lambda o: S.PolynomialLR(o, total_iters=10, power=2.0), epochs=25)
    simple("polynomial_lr_default", lambda o: S.PolynomialLR(o), epochs=25)
    simple("cosine_annealing_warm_restarts",
           lambda o: S.CosineAnnealingWarmRestarts(o, T_0=5, eta_min=0.001), epochs=25)
    simple("cosine_annealing_warm_restarts_t_mult",
           lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=3, eta_min=0.002), epochs=25)

    # SequentialLR: each later scheduler starts with step(0), the closed form
    # where the scheduler has one.
    opt = two_group_sgd()
    seq = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.1, total_iters=3),
                               S.CosineAnnealingLR(opt, T_max=6, eta_min=0.001),
                               S.MultiplicativeLR(opt, lambda e: 0.9)], milestones=[4, 12])
    record("sequential_constant_cosine_multiplicative", opt, lambda e: seq.step(), epochs=25)

    opt = two_group_sgd()
    seq = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.25, total_iters=4),
                               S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001),
                               S.StepLR(opt, step_size=3, gamma=0.5),
                               S.MultiStepLR(opt, milestones=[0, 2, 2, 5], gamma=0.5)],
                         milestones=[5, 12, 18])
    record("sequential_linear_warm_restarts_step_multi_step", opt, lambda e: seq.step(),
           epochs=25)

    opt = two_group_sgd()
    seq = S.SequentialLR(opt, [S.LambdaLR(opt, [lambda e: 0.1 * (e + 1), lambda e: 0.2]),
                               S.PolynomialLR(opt, total_iters=6, power=0.5),
                               S.ExponentialLR(opt, gamma=0.8),
                               S.LinearLR(opt, start_factor=0.5, end_factor=0.1,
                                          total_iters=3)],
                         milestones=[3, 10, 16])
    record("sequential_lambda_polynomial_exponential_linear", opt, lambda e: seq.step(),
           epochs=25)

    opt = two_group_sgd()
    chained = S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2),
                                  S.ExponentialLR(opt, gamma=0.9)])
    record("chained_constant_exponential", opt, lambda e: chained.step(), epochs=25)

    opt = two_group_sgd()
    chained = S.ChainedScheduler([S.CosineAnnealingWarmRestarts(opt, T_0=4, eta_min=0.01),
                                  S.MultiplicativeLR(opt, lambda e: 0.97),
                                  S.PolynomialLR(opt, total_iters=8, power=1.5)])
    record("chained_warm_restarts_multiplicative_polynomial", opt, lambda e: chained.step(),
           epochs=25)
    return cases


def main():
    write_golden("optim_golden.txt", optimizer_cases(), directory=OUT, digits=17)
    write_golden("lr_scheduler_golden.txt", scheduler_cases(), directory=OUT, digits=17)
    write_golden("optim_state_golden.txt", new_optimizer_cases(), directory=OUT, digits=17)
    write_golden("lbfgs_golden.txt", lbfgs_cases(), directory=OUT, digits=17)
    with open(os.path.join(ROOT, OUT, "optim_reprs.txt"), "w") as f:
        for name, text in reprs().items():
            f.write("=== %s\n%s\n" % (name, text))


if __name__ == "__main__":
    main()
