#!/usr/bin/env bash
# Downloads the SGLang 0.5.23 wheel from PyPI and unpacks it (a wheel is a zip) into
# target/testbeds/sglang-0.5.23, the tree the SGLang integration test and the benchmark read.
# Prints the tree's path on success. Exits 3 (and says why) when it cannot download: offline
# machines skip the SGLang checks instead of failing.
set -euo pipefail
version="${SGLANG_VERSION:-0.5.23}"
top="$(cd "$(dirname "$0")/.." && pwd)"
dest="${SGLANG_TREE:-$top/target/testbeds/sglang-$version}"
mkdir -p "$(dirname "$dest")"
# Several tests may ask at once: one downloads, the others wait for it.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dest.lock"
  flock 9
fi
# The marker is written last: a tree without it is incomplete and is fetched again.
if [ -f "$dest/.complete" ]; then
  echo "$dest"
  exit 0
fi
python="$(command -v python3 || command -v python || true)"
if [ -z "$python" ]; then
  echo "fetch-sglang: python3 is needed to download the wheel" >&2
  exit 3
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if ! "$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux_2_34_x86_64 "sglang==$version" -d "$work" >&2; then
  echo "fetch-sglang: could not download sglang==$version from PyPI (offline?)" >&2
  exit 3
fi
wheel="$(ls "$work"/sglang-"$version"-*.whl | head -n 1)"
"$python" -m zipfile -e "$wheel" "$work/tree"
touch "$work/tree/.complete"
rm -rf "$dest"
mv "$work/tree" "$dest"
echo "$dest"
