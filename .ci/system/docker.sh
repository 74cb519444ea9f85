#!/usr/bin/env bash
# Docker Engine for the docker() provider suite (spec/providers/docker.spec.ts): Debian's docker.io.
# No daemon is started here: the suite starts its own `dockerd --storage-driver=vfs --iptables=false
# --bridge=none` (as root, no registry) when none is running, and stops it by pid at the end.
set -euo pipefail
if command -v dockerd >/dev/null 2>&1 || [ -x /usr/sbin/dockerd ]; then
  exit 0
fi
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io
