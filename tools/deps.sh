#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Ona needs to build, test and run, skipping those already
# installed. Uses sudo when not root. Safe to run again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libluajit-5.1-dev libuv1-dev libsdl2-dev libglew-dev libegl-dev libstb-dev check libjansson-dev
  libgl1-mesa-dri libegl1 libegl-mesa0
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "ona: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
