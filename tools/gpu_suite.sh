#!/usr/bin/env bash
# Builds the CUDA test suite and benchmarks for a machine that has a GPU but
# no Bazel: three binaries (//tests:cuda_suite, every package's GPU tests;
# //tests:cuda_benchmark; //examples:fashion_mnist), the shared libraries
# they need beyond glibc, libstdc++ and CUDA's (Abseil, Google Benchmark,
# zlib) under lib/, and a script that runs them.
#
#   tools/gpu_suite.sh [DIR]   # here: bazel build --config=cuda into DIR
#                              # (default gpu_suite/)
#   DIR/run.sh                 # on the GPU machine: the suite, the kernel
#                              # tests under compute-sanitizer (memcheck,
#                              # racecheck) when it is installed, then the
#                              # benchmarks beside the machine's PyTorch
#   DIR/run.sh tests|sanitize|bench|example [DATA]
#                              # one part; example trains LeNet-5 for one
#                              # epoch on cuda:0 from Fashion-MNIST under
#                              # DATA (default: a random stand-in)
#
# Each part runs under a time limit (PART_LIMIT=SECONDS caps them all) and
# writes DIR/logs/PART.log (or $LOG_DIR/PART.log); SANITIZE_FILTER, a gtest
# filter, narrows what the sanitizers run.
#
# The binaries link cudart, cuBLAS and cuBLASLt dynamically; run.sh finds
# them in the CUDA toolkit or in a Python environment's nvidia/*/lib
# packages (PyTorch's wheels ship them there).
set -euo pipefail

dir="${1:-gpu_suite}"
bazel build --config=cuda --dynamic_mode=off //tests:cuda_suite //tests:cuda_benchmark \
  //examples:fashion_mnist
bin="$(bazel info --config=cuda bazel-bin)"
rm -rf "$dir"
mkdir -p "$dir/lib"
for t in tests/cuda_suite tests/cuda_benchmark examples/fashion_mnist; do
  cp "$bin/$t" "$dir/"
  chmod u+w "$dir/${t#*/}"
  strip "$dir/${t#*/}"
  # System libraries the GPU machine may lack: all but glibc's, the C++
  # runtime's and CUDA's (cudart, cuBLAS, NCCL: the GPU machine's
  # PyTorch ships them).
  ldd "$dir/${t#*/}" | awk '$3 ~ /^\// {print $3}' |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcu[A-Za-z]*|libnccl)\.so' |
    xargs -r cp -Lu -t "$dir/lib/"
done
here="$(dirname "$0")"
cp "$here/bench_pytorch_cuda.py" "$here/../examples/fake_fashion_mnist.sh" "$dir/"
cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs torchlet's CUDA suite, benchmarks and LeNet example on this machine's
# GPU (tools/gpu_suite.sh).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
what="${1:-all}"
data="${2:-}"
logs="${LOG_DIR:-$here/logs}"
mkdir -p "$logs"
libs="$here/lib:/usr/local/cuda/lib64"
for py in python3 /usr/bin/python3; do
  site="$("$py" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true)"
  for s in $site; do
    for d in "$s"/nvidia/*/lib; do [ -d "$d" ] && libs="$libs:$d"; done
  done
done
export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"
status=0
# part NAME SECONDS COMMAND...: runs COMMAND with a time limit into logs/NAME.log.
# PART_LIMIT, when set, caps every part's limit (seconds).
part() {
  local name=$1 limit=$2
  shift 2
  if [ -n "${PART_LIMIT:-}" ] && [ "$PART_LIMIT" -lt "$limit" ]; then limit=$PART_LIMIT; fi
  echo "== $name: $*"
  local start=$SECONDS
  timeout --kill-after=5 "$limit" "$@" 2>&1 | tee "$logs/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc after $((SECONDS - start)) s"
  [ "$rc" = 0 ] || status=1
}
want() { [ "$what" = all ] || [ "$what" = "$1" ]; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv 2>&1 | tee "$logs/gpu.log"
if want tests; then
  part tests 300 "$here/cuda_suite" --gtest_brief=1
fi
if want bench; then
  part bench 240 "$here/cuda_benchmark" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true
  part bench_pytorch 180 python3 "$here/bench_pytorch_cuda.py"
fi
if want example; then
  work="$(mktemp -d)"  # checkpoints, TensorBoard events, stand-in data
  if [ -z "$data" ]; then
    data="$work/data"
    # shellcheck source=/dev/null
    source "$here/fake_fashion_mnist.sh" && fake_fashion_mnist "$data"
  fi
  pushd "$work" >/dev/null
  part example 300 "$here/fashion_mnist" --devices=cuda:0 --epochs=1 --data="$data" \
    --logdir="$work/runs"
  popd >/dev/null
fi
if want sanitize && command -v compute-sanitizer >/dev/null; then
  # Every kernel test and the stream tests (SANITIZE_FILTER narrows them);
  # racecheck leaves out the sorting test, whose CUB radix sorts it did not
  # finish checking in 150 s on an H200.
  filter="${SANITIZE_FILTER:-CudaOpsTest.*:CudaNewerOpsTest.*:CudaNewerGradTest.*:CudaModulesTest.*:CudaStreamTest.*:CudaEngineTest.*}"
  part memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$here/cuda_suite" --gtest_brief=1 --gtest_filter="$filter"
  part racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 1 \
    "$here/cuda_suite" --gtest_brief=1 --gtest_filter="$filter:-CudaOpsTest.SortingMatchesTheCpuExactly"
fi
exit $status
RUN
chmod +x "$dir/run.sh"
du -sh "$dir"
