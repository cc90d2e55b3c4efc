#!/usr/bin/env bash
# Proves that layering is enforced by visibility: a target in //tensor that
# depends on a layer above it must fail to build with a visibility error.
# It adds two throwaway packages (removed on exit): an "upper layer" target
# visible only above tensor, and a tensor target depending on it and on every
# real upper layer present.
set -euo pipefail
cd "$(dirname "$0")/.."

upper=tools/layering_probe_upper
probe=tensor/layering_probe
trap 'rm -rf "$upper" "$probe"' EXIT
mkdir -p "$upper" "$probe"
cat > "$upper/BUILD.bazel" <<'BUILD'
cc_library(name = "layering_probe_upper", visibility = ["//:above_tensor"])
BUILD

status=0
for dep in "//$upper" //autograd //nn //parallel; do
  [ -f "${dep#//}/BUILD.bazel" ] || continue
  printf 'cc_library(name = "probe", deps = ["%s"])\n' "$dep" > "$probe/BUILD.bazel"
  if out=$(bazel build "//$probe:probe" 2>&1); then
    echo "FAIL: a //tensor target may depend on $dep" >&2
    status=1
  elif grep -q "is not visible from target" <<<"$out"; then
    echo "ok: a //tensor target cannot depend on $dep"
  else
    echo "$out" >&2
    echo "FAIL: the probe on $dep failed for a reason other than visibility" >&2
    status=1
  fi
done
exit $status
