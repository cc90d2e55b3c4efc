#!/usr/bin/env bash
# Builds the CUDA test suite and benchmarks for a machine that has a GPU but
# no Bazel, into one directory to copy there with a script that runs them.
#
#   tools/gpu_suite.sh build [DIR]   # here: bazel build --config=cuda, static
#                                    # binaries into DIR (default gpu_suite/)
#   DIR/run.sh                       # on the GPU machine: every CUDA test, then
#                                    # the suite under compute-sanitizer when
#                                    # it is installed
#
# The binaries link cudart, cuBLAS and cuBLASLt dynamically; run.sh finds
# them in the CUDA toolkit or in a Python environment's nvidia/*/lib
# packages (PyTorch's wheels ship them there).
set -euo pipefail

cmd="${1:-}"
dir="${2:-gpu_suite}"
targets=(
  //tensor:cuda_runtime_test
  //tensor:cuda_ops_test
  //tensor:cuda_elementwise_ops_test
  //nn/optim:cuda_training_test
)

case "$cmd" in
  build)
    bazel build --config=cuda --dynamic_mode=off "${targets[@]}"
    rm -rf "$dir"
    mkdir -p "$dir"
    bin="$(bazel info --config=cuda bazel-bin)"
    for t in "${targets[@]}"; do
      path="${t#//}"
      cp "$bin/${path%%:*}/${path##*:}" "$dir/"
    done
    cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the CUDA suite on this machine's GPUs (see tools/gpu_suite.sh).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
libs="/usr/local/cuda/lib64"
for py in python3 /usr/bin/python3; do
  site="$($py -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true)"
  for s in $site; do
    for d in "$s"/nvidia/*/lib; do [ -d "$d" ] && libs="$libs:$d"; done
  done
done
export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"
status=0
for t in cuda_runtime_test cuda_ops_test cuda_elementwise_ops_test cuda_training_test; do
  echo "== $t"
  "$here/$t" || status=1
done
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool cuda_ops_test"
    compute-sanitizer --tool "$tool" --error-exitcode 1 "$here/cuda_ops_test" || status=1
  done
fi
exit $status
RUN
    chmod +x "$dir/run.sh"
    du -sh "$dir"
    ;;
  *)
    echo "usage: $0 build [DIR]" >&2
    exit 2
    ;;
esac
