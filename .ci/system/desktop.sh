#!/usr/bin/env bash
# The desktop suite's system packages (spec/sandbox/desktop/): what `sandbox-agent install desktop
# --yes` installs, plus xclip (clipboard), xdg-utils (open) and x11-utils (xev, the window the
# typing test reads keystrokes from). Idempotent; run as root. Installs only what is missing.
set -euo pipefail
packages=(xvfb openbox xdotool imagemagick ffmpeg x11-xserver-utils dbus-x11 xauth fonts-dejavu-core xclip xdg-utils x11-utils)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "desktop packages: all present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "desktop packages missing (${missing[*]}); run this script as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y "${missing[@]}"
