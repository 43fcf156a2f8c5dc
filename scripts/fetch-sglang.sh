#!/usr/bin/env bash
# Downloads the SGLang 0.5.23 wheel from PyPI and unpacks it (a wheel is a zip) into
# target/testbeds/sglang-0.5.23, the tree the SGLang integration test and the benchmark read.
# Prints the tree's path on success. Exits 3 (and says why) when it cannot download: offline
# machines skip the SGLang checks instead of failing.
set -euo pipefail
version="${SGLANG_VERSION:-0.5.23}"
top="$(cd "$(dirname "$0")/.." && pwd)"
dest="${SGLANG_TREE:-$top/target/testbeds/sglang-$version}"
if [ -f "$dest/sglang/srt/models/deepseek_v4.py" ]; then
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
mkdir -p "$dest.partial"
"$python" -m zipfile -e "$wheel" "$dest.partial"
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "$dest"
