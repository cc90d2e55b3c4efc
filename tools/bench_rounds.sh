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
args=(--benchmark_filter="$filter" --benchmark_repetitions=3
      --benchmark_report_aggregates_only=true --benchmark_format=csv)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# name,iterations,real_time,cpu_time,time_unit,... for the median rows.
medians() { grep '_median"' | cut -d, -f1,3,5 | sed 's|/real_time_median||; s|_median||; s|"||g'; }
for round in $(seq 1 "$rounds"); do
  "$binary" "${args[@]}" 2>/dev/null | medians | sed "s/^/$round,torchlet,/" >>"$log"
  bash "$anchors/run_libtorch_bench.sh" "${args[@]}" 2>/dev/null | medians |
    sed "s/^/$round,libtorch,/" >>"$log"
  bash "$anchors/run_pytorch2_bench.sh" "${args[@]}" 2>/dev/null | medians |
    sed "s/^/$round,pytorch2,/" >>"$log"
done
python3 - "$log" <<'EOF'
import collections, statistics, sys
unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
times = collections.defaultdict(dict)  # (benchmark, round) -> who -> ms
for line in open(sys.argv[1]):
    rnd, who, name, value, u = line.strip().split(",")
    times[(name, int(rnd))][who] = float(value) * unit[u]
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
