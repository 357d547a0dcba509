#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Ona needs to build, test and run, skipping those already
# installed, then fetches the source of the distribution's own LuaJIT (the `luajit` source
# package, Debian's patches applied) into a cache outside the tree, where CMake builds it with
# LUAJIT_ENABLE_CHECKHOOK (cmake/luajit.cmake). Uses sudo when not root. Safe to run again.
#
#   tools/deps.sh              packages, then the LuaJIT source
#   tools/deps.sh --packages   packages only (a build with -DONA_LUAJIT=system needs no source)
#
# The source goes to ${ONA_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ona}/luajit-<version>,
# <version> being the Debian version of the installed libluajit-5.1-dev. apt-get source needs a
# deb-src line: when there is none, one is added for the Debian mirror already configured
# (/etc/apt/sources.list.d/ona-deb-src.*) and the lists are updated. Only Debian's mirrors are
# used.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config dpkg-dev
  libluajit-5.1-dev libuv1-dev libsdl2-dev libglew-dev libegl-dev libstb-dev check libjansson-dev
  libfreetype-dev libvorbis-dev libpng-dev
  libwebsockets-dev libwebsockets-evlib-uv libedit-dev libphysfs-dev libzip-dev libbox2d-dev
  libgl1-mesa-dri libegl1 libegl-mesa0 fonts-dejavu-core
)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "ona: installing ${missing[*]}" >&2
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
[ "${1:-}" = "--packages" ] && exit 0

# --- The LuaJIT source --------------------------------------------------------------------------
cache="${ONA_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ona}"
version="$(dpkg-query -W -f='${Version}' libluajit-5.1-dev)"
dest="${cache}/luajit-${version#*:}"
if [ -f "${dest}/src/luajit.h" ] && [ -f "${dest}/debian/rules" ]; then
  exit 0
fi

# has_deb_src: some configured source list has a deb-src entry.
has_deb_src() {
  grep -Eqs '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
}
if ! has_deb_src; then
  # The deb-src twin of every Debian entry already configured (same mirror, suites, key).
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    echo "ona: adding deb-src entries (/etc/apt/sources.list.d/ona-deb-src.sources)" >&2
    sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' \
      /etc/apt/sources.list.d/debian.sources |
      $sudo tee /etc/apt/sources.list.d/ona-deb-src.sources >/dev/null
  elif [ -f /etc/apt/sources.list ] && grep -Eq '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
    echo "ona: adding deb-src entries (/etc/apt/sources.list.d/ona-deb-src.list)" >&2
    sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list |
      $sudo tee /etc/apt/sources.list.d/ona-deb-src.list >/dev/null
  else
    echo "ona: no Debian source list found to add a deb-src entry to; add one, or configure" \
      "with -DONA_LUAJIT=system" >&2
    exit 1
  fi
  $sudo apt-get update -q
fi

# apt-get source unpacks with dpkg-source, which applies Debian's patches. The exact version of
# the installed package when the mirror still has it, else the mirror's current one.
mkdir -p "${cache}"
work="$(mktemp -d "${cache}/.luajit-fetch.XXXXXX")"
trap 'rm -rf "${work}"' EXIT
echo "ona: fetching the luajit ${version} source into ${dest}" >&2
(cd "${work}" &&
  { apt-get source -q "luajit=${version}" || apt-get source -q luajit; }) >&2
unpacked="$(find "${work}" -mindepth 2 -maxdepth 3 -path '*/src/luajit.h' -printf '%h\n' | head -n1)"
if [ -z "${unpacked}" ]; then
  echo "ona: apt-get source luajit did not unpack a LuaJIT tree" >&2
  exit 1
fi
rm -rf "${dest}"
mv "$(dirname "${unpacked}")" "${dest}"
echo "ona: LuaJIT source ready: ${dest}" >&2
