"""torchlet's cc_test: Bazel's, with the test's own sources at -O1 in `-c opt`.

Load it in place of the native rule (`load("//tools:test.bzl", "cc_test")`).
A test's sources are gtest assertions and fixtures around calls into the
libraries, which keep their own optimization (-O2, the kernels -O3); at -O1
they compile in about two thirds of the time, and they are most of what
`bazel test //...` compiles.
"""

_TEST_OPTIMIZATION = select({
    # The sanitizer configs compile everything at -O1 already.
    "//tools:sanitizer": [],
    "//tools:opt": ["-O1"],
    "//conditions:default": [],
})

def cc_test(name, copts = [], **kwargs):
    native.cc_test(name = name, copts = copts + _TEST_OPTIMIZATION, **kwargs)
