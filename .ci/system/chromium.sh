#!/usr/bin/env bash
# Chromium for the browser suites (driven through playwright-core, which downloads no browser).
# Idempotent; run as root on Debian. Suites find it on PATH (chromium) or at $CHROMIUM_PATH.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-dejavu-core
