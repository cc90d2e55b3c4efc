"""CUDA support: `cuda_library` compiles .cu files with nvcc; `if_cuda` selects.

Everything here is active only under `--config=cuda` (which sets
`--define=cuda=true`); the default build never runs nvcc.
"""

# Real code for the H100/H200 (sm_90) and A100 (sm_80), plus PTX for newer
# GPUs; with --define=cuda_archs=sm_90, sm_90 alone: CI's compile check
# (which runs no kernel) at half the nvcc time.
def _nvcc_arch_flags():
    return select({
        str(Label("//tools:cuda_sm90_only")): "-gencode=arch=compute_90,code=sm_90",
        "//conditions:default": " ".join([
            "-gencode=arch=compute_80,code=sm_80",
            "-gencode=arch=compute_90,code=[sm_90,compute_90]",
        ]),
    })

def if_cuda(if_true, if_false = []):
    """`if_true` when building with --config=cuda, else `if_false`."""
    return select({
        str(Label("//tools:cuda")): if_true,
        "//conditions:default": if_false,
    })

def _include_root():
    repo = native.repository_name()
    return "." if repo == "@" else "external/" + repo[1:]

def cuda_library(name, srcs, hdrs = [], deps = [], nvcc_flags = [], **kwargs):
    """A cc_library whose sources are .cu files compiled by nvcc.

    Tagged `manual`: it is built only when a target selected by `if_cuda`
    depends on it. The .cu files may include `hdrs` and CUDA headers only.
    """
    objects = []
    for src in srcs:
        obj = "_%s_%s.pic.o" % (name, src.replace("/", "_").replace(".cu", ""))
        native.genrule(
            name = obj.replace(".", "_") + "_nvcc",
            srcs = [src] + hdrs,
            outs = [obj],
            tools = ["@local_cuda//:nvcc"],
            # nvcc names its temporary files after its process id, which
            # is the same in every sandbox's PID namespace while /tmp may be
            # shared: each compile gets a temporary folder of its own.
            cmd = " ".join([
                "tmp=$$(mktemp -d) && trap 'rm -rf \"$$tmp\"' EXIT &&",
                "TMPDIR=$$tmp",
                "$(location @local_cuda//:nvcc)",
                "-c $(location %s) -o $@" % src,
                "-std=c++17 -O3 -Xcompiler -fPIC --expt-relaxed-constexpr",
                "-I" + _include_root(),
            ] + nvcc_flags) + " " + _nvcc_arch_flags(),
            tags = ["manual"],
        )
        objects.append(obj)
    native.cc_library(
        name = name,
        srcs = objects,
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart"],
        tags = kwargs.pop("tags", []) + ["manual"],
        **kwargs
    )
