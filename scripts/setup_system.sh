#!/usr/bin/env bash
# Install the system packages colony's browser, PDF and gateway checks need (Debian/Ubuntu, as root).
# Without root or apt-get it only reports what is missing; the Python set-up does not depend on it.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)  # the real MCP servers of the gateway tests (scripts/setup_npm.sh)
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
else
    echo "setup: missing system packages: ${need[*]} (install them to run the browser and PDF checks)" >&2
fi
