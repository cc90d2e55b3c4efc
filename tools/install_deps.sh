#!/usr/bin/env bash
# Installs every Debian package torchlet needs to build, run and test.
# Idempotent: packages already present are left alone. Run as root (or with sudo).
set -euo pipefail

packages=(
  bazel-bootstrap   # Bazel 4.2.3
  g++
  libeigen3-dev
  libabsl-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  zlib1g-dev
  libminizip-dev      # the zip container of PyTorch's .pt checkpoints (nn/serialize)
  libpng-dev          # PNG images (examples/image_filters)
  nlohmann-json3-dev  # the safetensors header (nn/serialize)
  clang               # the safetensors loader fuzzer (tools/fuzz_safetensors.sh)
  libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes for clang's -fsanitize=fuzzer
  python3-venv        # the Python safetensors round trip (tools/safetensors_roundtrip.sh)
  python3-torch     # the reference for golden values (tools/gen_*.py)
  dataset-fashion-mnist  # Fashion-MNIST under /usr/share/datasets/fashion-mnist
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The CUDA toolkit (nvcc, cudart, cuBLAS, NCCL) is expected under
# ${CUDA_PATH:-/usr/local/cuda}; it is needed only for --config=cuda.
if [ ! -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]; then
  echo "note: no CUDA toolkit at ${CUDA_PATH:-/usr/local/cuda}; --config=cuda will not build" >&2
fi
echo "torchlet dependencies are installed."
