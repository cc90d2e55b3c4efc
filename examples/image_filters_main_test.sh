#!/usr/bin/env bash
# Smoke test of //examples:image_filters on examples/testdata/photo.png
# (40 x 30): it writes <prefix>_sharpened.png (38 x 28), _avg_pooled.png and
# _max_pooled.png (20 x 15) as valid PNGs, defaults the prefix to --input
# without .png, and a missing --input or an unreadable file is an error
# with a message naming it.
set -euo pipefail

bin="$TEST_SRCDIR/$TEST_WORKSPACE/examples/image_filters"
photo="$TEST_SRCDIR/$TEST_WORKSPACE/examples/testdata/photo.png"
cd "$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }

# The file's first 8 bytes, then the width and height of its IHDR chunk
# (bytes 16 to 23, big-endian), in hex.
signature() { od -An -tx1 -N8 "$1" | tr -d ' \n'; }
ihdr_size() { od -An -tx1 -j16 -N8 "$1" | tr -d ' \n'; }

# check_png FILE WIDTH_HEX HEIGHT_HEX
check_png() {
  [ -s "$1" ] || fail "$1 was not written"
  [ "$(signature "$1")" = 89504e470d0a1a0a ] || fail "$1 has no PNG signature: $(signature "$1")"
  [ "$(od -An -c -j12 -N4 "$1" | tr -d ' \n')" = IHDR ] || fail "$1 does not start with IHDR"
  [ "$(ihdr_size "$1")" = "000000$2000000$3" ] || fail "$1 has size $(ihdr_size "$1")"
}

prefix="$TEST_TMPDIR/out/photo"
mkdir -p out
out=$("$bin" --input="$photo" --output="$prefix")
echo "$out"
grep -qx "$photo: 3 channels, 40 x 30" <<<"$out" || fail "no input line"
check_png "${prefix}_sharpened.png" 26 1c
check_png "${prefix}_avg_pooled.png" 14 0f
check_png "${prefix}_max_pooled.png" 14 0f
grep -qx "wrote ${prefix}_sharpened.png (38 x 28)" <<<"$out" || fail "no sharpened line"
grep -qx "wrote ${prefix}_avg_pooled.png (20 x 15)" <<<"$out" || fail "no avg_pooled line"
grep -qx "wrote ${prefix}_max_pooled.png (20 x 15)" <<<"$out" || fail "no max_pooled line"
cmp -s "${prefix}_avg_pooled.png" "${prefix}_max_pooled.png" &&
  fail "average and max pooling wrote the same picture"

cp "$photo" copy.png
"$bin" --input="$TEST_TMPDIR/copy.png" >/dev/null
for suffix in sharpened avg_pooled max_pooled; do
  cmp "copy_$suffix.png" "${prefix}_$suffix.png" ||
    fail "the default prefix wrote a different copy_$suffix.png"
done

if "$bin" --output="$TEST_TMPDIR/none" 2>error.txt; then fail "no --input accepted"; fi
grep -qx 'image_filters: --input is required (a PNG file)' error.txt ||
  fail "missing --input message: $(cat error.txt)"
if "$bin" --input="$TEST_TMPDIR/missing.png" --output="$TEST_TMPDIR/none" 2>error.txt; then
  fail "a missing file accepted"
fi
grep -qF "image_filters: read_png: cannot read $TEST_TMPDIR/missing.png" error.txt ||
  fail "missing file message: $(cat error.txt)"
ls none_* 2>/dev/null && fail "a failed run wrote files"
echo PASS
