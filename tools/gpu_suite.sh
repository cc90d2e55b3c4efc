#!/usr/bin/env bash
# Builds the CUDA test suite for a machine that has a GPU but no Bazel: one
# static binary (//tests:cuda_suite, every package's GPU tests) and a script
# that runs it.
#
#   tools/gpu_suite.sh [DIR]   # here: bazel build --config=cuda into DIR
#                              # (default gpu_suite/)
#   DIR/run.sh [gtest flags]   # on the GPU machine: the suite, then the
#                              # kernels' tests under compute-sanitizer
#                              # (memcheck, racecheck) when it is installed
#
# The binary links cudart, cuBLAS and cuBLASLt dynamically; run.sh finds
# them in the CUDA toolkit or in a Python environment's nvidia/*/lib
# packages (PyTorch's wheels ship them there).
set -euo pipefail

dir="${1:-gpu_suite}"
bazel build --config=cuda --dynamic_mode=off //tests:cuda_suite
rm -rf "$dir"
mkdir -p "$dir"
cp "$(bazel info --config=cuda bazel-bin)/tests/cuda_suite" "$dir/"
chmod u+w "$dir/cuda_suite"
strip --strip-debug "$dir/cuda_suite"
cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs torchlet's CUDA suite on this machine's GPUs (tools/gpu_suite.sh).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
libs="/usr/local/cuda/lib64"
for py in python3 /usr/bin/python3; do
  site="$("$py" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true)"
  for s in $site; do
    for d in "$s"/nvidia/*/lib; do [ -d "$d" ] && libs="$libs:$d"; done
  done
done
export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"
status=0
"$here/cuda_suite" "$@" || status=1
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 1 "$here/cuda_suite" \
      --gtest_filter='CudaOpsTest.*' || status=1
  done
fi
exit $status
RUN
chmod +x "$dir/run.sh"
du -sh "$dir"
