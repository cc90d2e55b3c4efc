#!/usr/bin/env bash
# Side by side with the anchors, in rounds: each round runs torchlet's
# benchmark binary, then libtorch 1.13's and PyTorch 2's builds of the same
# benchmarks (run_libtorch_bench.sh, run_pytorch2_bench.sh beside
# libtorch_bench.cc), and prints every round's ratio of torchlet to the
# faster anchor, then the median over the rounds. On a shared machine wall
# times drift 10-30% within minutes, so one round proves little; the median
# of many, each taken in one window, does.
#
#   tools/bench_rounds.sh ANCHORS_DIR ROUNDS BINARY 'BM_MlpStep|BM_TinyMlpStep'
#
# BINARY is a built torchlet benchmark (e.g. bazel-bin/nn/nn_benchmark);
# the filter is a Google Benchmark regex naming benchmarks the anchors have.
set -euo pipefail
if [ $# -ne 4 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
anchors=$1 rounds=$2 binary=$3 filter=$4
# JSON, not CSV: Google Benchmark's CSV reporter aborts when one row has a
# counter the first lacks (BM_GemmTwoDevices beside the other BM_Gemm rows).
args=(--benchmark_filter="$filter" --benchmark_repetitions=3
      --benchmark_report_aggregates_only=true --benchmark_format=json)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# One run; a failure (an anchor that cannot build here) is reported with
# the end of its output, and its rows are left out of the comparison.
run() {
  local who=$1
  shift
  if ! "$@" "${args[@]}" >"$dir/$round.$who.json" 2>"$dir/$round.$who.err"; then
    echo "round $round: $who failed:" >&2
    tail -n 5 "$dir/$round.$who.err" >&2
  fi
}
for round in $(seq 1 "$rounds"); do
  run torchlet "$binary"
  run libtorch bash "$anchors/run_libtorch_bench.sh"
  run pytorch2 bash "$anchors/run_pytorch2_bench.sh"
done
python3 - "$dir" "$rounds" <<'EOF'
import collections, json, os, statistics, sys
unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
directory, rounds = sys.argv[1], int(sys.argv[2])
times = collections.defaultdict(dict)  # (benchmark, round) -> who -> median ms
for rnd in range(1, rounds + 1):
    for who in ("torchlet", "libtorch", "pytorch2"):
        try:
            with open(os.path.join(directory, f"{rnd}.{who}.json")) as f:
                report = json.load(f)
        except (OSError, ValueError):
            continue  # that binary failed or printed nothing this round
        for b in report.get("benchmarks", []):
            if b.get("aggregate_name") != "median":
                continue
            name = b["run_name"].replace("/real_time", "")
            times[(name, rnd)][who] = b["real_time"] * unit[b["time_unit"]]
for name in sorted({n for n, _ in times}):
    rows = [(r, t) for (n, r), t in sorted(times.items()) if n == name and len(t) == 3]
    if not rows:
        print(f"{name}: not in every run")
        continue
    ratios = [t["torchlet"] / min(t["libtorch"], t["pytorch2"]) for _, t in rows]
    print(f"{name}: torchlet / faster anchor, median of {len(ratios)} rounds "
          f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
    for (r, t), ratio in zip(rows, ratios):
        print(f"  round {r}: torchlet {t['torchlet']:.4g} ms, libtorch {t['libtorch']:.4g} ms, "
              f"PyTorch 2 {t['pytorch2']:.4g} ms -> {ratio:.3f}")
EOF
