#!/usr/bin/env bash
# Builds the CUDA test suite and benchmarks for a machine that has a GPU but
# no Bazel: two static binaries (//tests:cuda_suite, every package's GPU
# tests; //tests:cuda_benchmark) and a script that runs them.
#
#   tools/gpu_suite.sh [DIR]   # here: bazel build --config=cuda into DIR
#                              # (default gpu_suite/)
#   DIR/run.sh                 # on the GPU machine: the suite, the kernel
#                              # tests under compute-sanitizer (memcheck,
#                              # racecheck) when it is installed, then the
#                              # benchmarks beside the machine's PyTorch
#   DIR/run.sh tests|bench     # one half
#
# The binaries link cudart, cuBLAS and cuBLASLt dynamically; run.sh finds
# them in the CUDA toolkit or in a Python environment's nvidia/*/lib
# packages (PyTorch's wheels ship them there).
set -euo pipefail

dir="${1:-gpu_suite}"
bazel build --config=cuda --dynamic_mode=off //tests:cuda_suite //tests:cuda_benchmark
bin="$(bazel info --config=cuda bazel-bin)"
rm -rf "$dir"
mkdir -p "$dir"
for t in cuda_suite cuda_benchmark; do
  cp "$bin/tests/$t" "$dir/"
  chmod u+w "$dir/$t"
  strip --strip-debug "$dir/$t"
done
cp "$(dirname "$0")/bench_pytorch_cuda.py" "$dir/"
cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs torchlet's CUDA suite and benchmarks on this machine's GPU
# (tools/gpu_suite.sh).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
what="${1:-all}"
libs="/usr/local/cuda/lib64"
for py in python3 /usr/bin/python3; do
  site="$("$py" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true)"
  for s in $site; do
    for d in "$s"/nvidia/*/lib; do [ -d "$d" ] && libs="$libs:$d"; done
  done
done
export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv 2>/dev/null || true
status=0
if [ "$what" = all ] || [ "$what" = tests ]; then
  "$here/cuda_suite" || status=1
  if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
      compute-sanitizer --tool "$tool" --error-exitcode 1 "$here/cuda_suite" \
        --gtest_filter='CudaOpsTest.*' || status=1
    done
  fi
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  "$here/cuda_benchmark" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    || status=1
  python3 "$here/bench_pytorch_cuda.py" || status=1
fi
exit $status
RUN
chmod +x "$dir/run.sh"
du -sh "$dir"
