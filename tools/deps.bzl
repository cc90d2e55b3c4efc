"""External dependencies of torchlet, all resolved offline from the local machine.

A repository that uses torchlet calls `torchlet_dependencies()` from its
WORKSPACE. Every declaration is wrapped in `maybe()`, so a repository defined
earlier under the same name takes precedence.
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")

_LIB_DIR = "/usr/lib/x86_64-linux-gnu"

def _shim_repository_impl(ctx):
    for src, dest in ctx.attr.files.items():
        ctx.symlink(ctx.path(src), dest)
    if "BUILD.bazel" not in ctx.attr.files.values():
        ctx.file("BUILD.bazel", "")
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)

_shim_repository = repository_rule(
    implementation = _shim_repository_impl,
    attrs = {"files": attr.label_keyed_string_dict(allow_files = True)},
    doc = "A repository made of in-tree files, so that nothing is downloaded.",
)

def _cuda_repository_impl(ctx):
    path = ctx.os.environ.get("CUDA_PATH", ctx.attr.default_path)
    for entry in ["include", "lib64", "bin"]:
        ctx.symlink(path + "/" + entry, entry)
    ctx.symlink(ctx.attr.build_file, "BUILD.bazel")
    ctx.file("nvcc", "#!/bin/sh\nexec \"%s/bin/nvcc\" \"$@\"\n" % path, executable = True)
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)

_cuda_repository = repository_rule(
    implementation = _cuda_repository_impl,
    attrs = {
        "build_file": attr.label(allow_single_file = True),
        "default_path": attr.string(default = "/usr/local/cuda"),
    },
    environ = ["CUDA_PATH"],
    doc = "The CUDA toolkit at $CUDA_PATH (default /usr/local/cuda).",
)

def _third_party(name):
    return Label("//third_party:" + name)

def torchlet_dependencies():
    """Declares every repository torchlet needs to build and test."""
    maybe(
        _shim_repository,
        name = "rules_cc",
        files = {
            _third_party("shims/rules_cc_defs.bzl"): "cc/defs.bzl",
            _third_party("shims/rules_cc_cc.BUILD"): "cc/BUILD.bazel",
        },
    )
    maybe(
        _shim_repository,
        name = "rules_java",
        files = {
            _third_party("shims/rules_java_defs.bzl"): "java/defs.bzl",
            _third_party("shims/empty.BUILD"): "java/BUILD.bazel",
        },
    )
    maybe(
        _shim_repository,
        name = "remote_coverage_tools",
        files = {_third_party("shims/coverage.BUILD"): "BUILD.bazel"},
    )
    maybe(
        native.new_local_repository,
        name = "eigen",
        path = "/usr/include/eigen3",
        build_file = str(_third_party("eigen.BUILD")),
    )
    maybe(
        native.new_local_repository,
        name = "nlohmann_json",
        path = "/usr/include",
        build_file = str(_third_party("nlohmann_json.BUILD")),
    )
    for name in ["absl", "googletest", "benchmark", "libpng", "minizip", "zlib"]:
        maybe(
            native.new_local_repository,
            name = name,
            path = _LIB_DIR,
            build_file = str(_third_party(name + ".BUILD")),
        )
    maybe(
        _cuda_repository,
        name = "local_cuda",
        build_file = _third_party("local_cuda.BUILD"),
    )
