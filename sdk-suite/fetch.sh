#!/usr/bin/env bash
# Fetches the test folder of Microsoft's azure-cosmos 4.17.1 source release from PyPI (MIT,
# Copyright (c) Microsoft Corporation) into $1 (default target/sdk-suite/tests-4.17.1) and
# checks every file against tests.sha256, so the suite that judges the gateway is exactly the
# one the SDK's maintainers ship. Nothing in it is changed. Prints the folder.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION=4.17.1
DEST="${1:-$HERE/../target/sdk-suite/tests-$VERSION}"
PY="${PYTHON:-python3}"
if [ -f "$DEST/.verified" ]; then echo "$DEST"; exit 0; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$PY" -m pip download -q "azure-cosmos==$VERSION" --no-binary :all: --no-deps -d "$work" >&2
tar -xzf "$work/azure_cosmos-$VERSION.tar.gz" -C "$work"
(cd "$work/azure_cosmos-$VERSION/tests" && sha256sum --quiet -c "$HERE/tests.sha256") >&2 \
  || { echo "azure-cosmos $VERSION tests differ from tests.sha256" >&2; exit 1; }
rm -rf "$DEST"; mkdir -p "$(dirname "$DEST")"
cp -r "$work/azure_cosmos-$VERSION/tests" "$DEST"
touch "$DEST/.verified"
echo "$DEST"
