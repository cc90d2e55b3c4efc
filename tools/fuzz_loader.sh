#!/usr/bin/env bash
# Fuzzes one checkpoint loader of nn/serialize with libFuzzer for a bounded
# time; tools/fuzz_safetensors.sh and tools/fuzz_pytorch_checkpoint.sh run it.
#
#   tools/fuzz_loader.sh FORMAT SECONDS CORPUS DICT [LINK_FLAG...]
#
# Builds nn/serialize/FORMAT_fuzzer.cc with the loader (nn/serialize/FORMAT.cc
# and what it shares with the other formats) and the tensor library using
# clang (-fsanitize=fuzzer,address,undefined), outside Bazel's gcc
# toolchain, links LINK_FLAGs (libraries the loader needs, not instrumented),
# then runs it over the checked-in seeds in CORPUS plus the inputs it found
# before (kept in $FUZZ_DIR/corpus, by default
# ~/.cache/torchlet/fuzz_FORMAT), with the dictionary DICT (CORPUS and DICT
# relative to the repository's root). Exits non-zero when the fuzzer finds a
# crash, a sanitizer report, a leak, an input slower than 10 s or an
# allocation over 64 MiB; the input is saved under $FUZZ_DIR.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if (($# < 4)); then
  echo "usage: tools/fuzz_loader.sh FORMAT SECONDS CORPUS DICT [LINK_FLAG...]" >&2
  exit 2
fi
format="$1" seconds="$2" corpus="$3" dict="$4"
shift 4
link_flags=("$@")
fuzz_dir="${FUZZ_DIR:-$HOME/.cache/torchlet/fuzz_$format}"
cxx="${CXX:-clang++}"
# Objects are kept per checkout (two clones' sources may differ while their
# timestamps say otherwise) and shared by the formats, which compile the
# tensor library with the same flags: the second fuzzer compiles only its
# loader.
obj_dir="${FUZZ_OBJ_DIR:-$HOME/.cache/torchlet/fuzz_obj}/$(printf '%s' "$root" | md5sum | cut -c1-12)"
mkdir -p "$obj_dir" "$fuzz_dir/corpus"

# Line tables are enough for reports. The tensor library is compiled
# unoptimized (ASan and UBSan still on): the fuzzer spends its time in the
# loader, and -O1 of the Eigen kernels would take most of this step.
flags=(-std=c++17 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined
       -fno-sanitize-recover=undefined -I"$root" -I/usr/include/eigen3 -DEIGEN_MPL2_ONLY
       -Wall -Wno-sign-compare -MMD)

# Every source of //tensor (whatever files it gains), the loader, the entry point.
sources=()
for f in "$root"/tensor/*.cc "$root"/tensor/cpu/*.cc; do
  case "$f" in *_test.cc | *_benchmark.cc | */tsan_suppressions.cc) continue ;; esac
  sources+=("$f")
done
sources+=("$root/tensor/cuda/no_cuda.cc" "$root/tensor/cuda/no_cuda_kernels.cc"
          "$root/tensor/cuda/matmul_flags.cc"
          "$root/nn/serialize/state_dict.cc" "$root/nn/serialize/file_io.cc"
          "$root/nn/serialize/$format.cc" "$root/nn/serialize/${format}_fuzzer.cc")

# Compiles $1 unless its object is newer than the source and every header it
# read (a file that no longer exists, as after a fresh clone, counts as newer).
compile() {
  local src="$1" rel="${1#"$root"/}"
  local obj="$obj_dir/${rel//\//_}.o"
  local dep="${obj%.o}.d"
  if [[ -f "$obj" && -f "$dep" ]]; then
    local stale=0 f
    for f in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$dep"); do
      [[ ! -e "$f" || "$f" -nt "$obj" ]] && stale=1 && break
    done
    ((stale)) || { echo "$obj"; return; }
  fi
  local extra=()
  case "$rel" in
    # Kernels built for one instruction set (tensor/BUILD.bazel's gemm_<isa>
    # targets) carry it in their file name and get that target's flags.
    tensor/cpu/*avx2*.cc) extra=(-mavx2 -mfma) ;;
    tensor/cpu/*avx512*.cc) extra=(-mavx512f -mavx512dq -mavx512vl -mavx2 -mfma) ;;
    nn/serialize/*) extra=(-O1 -fsanitize=fuzzer-no-link) ;;  # coverage for the loader only
  esac
  [[ "$rel" == nn/serialize/* ]] || extra+=(-O0)
  "$cxx" "${flags[@]}" "${extra[@]}" -c "$src" -o "$obj" -MF "$dep" >&2
  echo "$obj"
}
export -f compile
export root obj_dir cxx
export flags_text="${flags[*]}"

objects=$(printf '%s\n' "${sources[@]}" |
  xargs -P "$(nproc)" -I{} bash -c 'flags=($flags_text); compile "$1"' _ {})

absl_libs=(/usr/lib/x86_64-linux-gnu/libabsl_*.so)
# shellcheck disable=SC2086  # one object per word
"$cxx" -fsanitize=fuzzer,address,undefined $objects "${absl_libs[@]}" ${link_flags[@]+"${link_flags[@]}"} \
  -pthread -o "$fuzz_dir/${format}_fuzzer"

cd "$fuzz_dir"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" "./${format}_fuzzer" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=64 \
  -dict="$root/$dict" -artifact_prefix="$fuzz_dir/" \
  -print_final_stats=1 \
  "$fuzz_dir/corpus" "$root/$corpus"
