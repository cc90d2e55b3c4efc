# Sourced by the examples' tests: writes a tiny random Fashion-MNIST (100
# training and 100 test images, labels 0-9 in turn) as IDX files under $1.

# Writes an IDX file: magic 0x0000080<ndim>, the sizes (big-endian), bytes.
write_idx() {
  local path=$1 ndim=$2 n=$3
  {
    printf '\x00\x00\x08'"\\x0$ndim"
    printf '\x00\x00\x00'"\\x$(printf %02x "$n")"
    if [ "$ndim" = 3 ]; then printf '\x00\x00\x00\x1c\x00\x00\x00\x1c'; fi
    cat
  } >"$path"
}

fake_fashion_mnist() {
  local data=$1 prefix
  mkdir -p "$data"
  for prefix in train t10k; do
    head -c $((100 * 784)) /dev/urandom | write_idx "$data/$prefix-images-idx3-ubyte" 3 100
    for i in $(seq 0 99); do printf "\\x0$((i % 10))"; done |
      write_idx "$data/$prefix-labels-idx1-ubyte" 1 100
  done
}
