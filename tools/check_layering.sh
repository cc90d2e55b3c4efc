#!/usr/bin/env bash
# Proves that layering is enforced by visibility: a target in a layer that
# depends on a layer above it must fail to build with a visibility error.
# It adds throwaway packages (removed on exit): an "upper layer" target
# visible only above tensor, and in each of //tensor, //autograd and //nn a
# probe target depending on it (tensor only) and on every real layer above.
set -euo pipefail
cd "$(dirname "$0")/.."

upper=tools/layering_probe_upper
probes=(tensor/layering_probe autograd/layering_probe nn/layering_probe)
trap 'rm -rf "$upper" "${probes[@]}"' EXIT
mkdir -p "$upper"
cat > "$upper/BUILD.bazel" <<'BUILD'
cc_library(name = "layering_probe_upper", visibility = ["//:above_tensor"])
BUILD

# The layers above each probed one.
declare -A above=(
  [tensor]="//$upper //autograd //nn //parallel"
  [autograd]="//nn //parallel"
  [nn]="//parallel"
)

status=0
for layer in tensor autograd nn; do
  probe="$layer/layering_probe"
  mkdir -p "$probe"
  for dep in ${above[$layer]}; do
    [ -f "${dep#//}/BUILD.bazel" ] || continue
    printf 'cc_library(name = "probe", deps = ["%s"])\n' "$dep" > "$probe/BUILD.bazel"
    if out=$(bazel build "//$probe:probe" 2>&1); then
      echo "FAIL: a //$layer target may depend on $dep" >&2
      status=1
    elif grep -q "is not visible from target" <<<"$out"; then
      echo "ok: a //$layer target cannot depend on $dep"
    else
      echo "$out" >&2
      echo "FAIL: the probe on $dep failed for a reason other than visibility" >&2
      status=1
    fi
  done
  rm -rf "$probe"
done
exit $status
