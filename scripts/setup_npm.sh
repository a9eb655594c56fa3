#!/usr/bin/env bash
# Install the pinned npm packages the tests run against — the real MCP filesystem server and the MCP
# Inspector CLI — into the project-local, git-ignored .cache/npm (exact versions and hashes from
# scripts/npm/package-lock.json; install scripts are not run). Skipped when that lock is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
src=scripts/npm
dest=.cache/npm
if [ -d "$dest/node_modules" ] && cmp -s "$src/package-lock.json" "$dest/package-lock.json"; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "setup: npm is missing: install Node.js (>= 20) and npm to run the gateway tests against real MCP servers" >&2
    exit 0
fi
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
echo "setup: installing the pinned MCP test servers into $dest"
npm ci --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error
