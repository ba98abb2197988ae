# Shared by tools/check, tools/demo and tools/install: packages, nvcc, meson set-up.
# shellcheck shell=bash

# Debian packages by purpose.  `gh_install_packages build|test|demo` installs the missing ones
# (build and demo: build + run; test: those and the test tools; python3-pyatspi and
# libatk-adaptor let tests/dialog read GIMP 2.10's dialog through at-spi; lintian checks the
# Debian packages tests/package builds).
GH_PACKAGES_BUILD="meson ninja-build pkg-config gcc g++ libgimp2.0-dev gettext libvips-dev"
GH_PACKAGES_RUN="gimp"
GH_PACKAGES_TEST="python3 lintian xvfb xauth xdotool imagemagick netpbm debootstrap clang libclang-rt-14-dev libvips-tools python3-pil python3-numpy python3-pyatspi libatk-adaptor"
# Debian 13 on ships GIMP 3.0 and no libgimp2.0-dev: build against libgimp-3.0 there.
# shellcheck disable=SC1091
if [ -r /etc/os-release ] && (. /etc/os-release && [ "${ID:-}" = debian ] &&
  { [ -z "${VERSION_ID:-}" ] || [ "${VERSION_ID%%.*}" -ge 13 ] 2>/dev/null; }); then
  GH_PACKAGES_BUILD="meson ninja-build pkg-config gcc g++ libgimp-3.0-dev gettext libvips-dev"
fi

gh_install_packages () {
  local wanted="$GH_PACKAGES_BUILD $GH_PACKAGES_RUN"
  [ "${1:-}" = test ] && wanted="$wanted $GH_PACKAGES_TEST"
  local missing=()
  for package in $wanted; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing ${missing[*]}"
  local sudo=
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q >/dev/null &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
      "${missing[@]}" >/tmp/gpu-histogram-apt.log 2>&1 ||
    { tail -20 /tmp/gpu-histogram-apt.log; return 1; }
}

# Puts nvcc on PATH when it is in /usr/local/cuda/bin (meson finds it only through PATH).
gh_find_nvcc () {
  if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  fi
  if command -v nvcc >/dev/null; then
    GH_CUDA_STATE="nvcc found at $(command -v nvcc): building the CUDA backend"
  else
    GH_CUDA_STATE="nvcc not found: building CPU-only"
  fi
  export GH_CUDA_STATE
}

# meson setup, or reconfigure when the directory exists.
gh_configure () {
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >"$dir.setup.log" 2>&1
  else
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1
  fi || { tail -30 "$dir.setup.log"; return 1; }
}

# tools/install and tools/uninstall: the profile folder of GIMP $1 (2 or 3), as GIMP works it out
# (GIMP3_DIRECTORY / GIMP2_DIRECTORY, relative to $HOME when relative; else ~/.config/GIMP/X).
gh_profile_dir () {
  local var dir
  if [ "$1" = 3 ]; then var=${GIMP3_DIRECTORY:-}; dir=GIMP/3.0; else var=${GIMP2_DIRECTORY:-}; dir=GIMP/2.10; fi
  if [ -n "$var" ]; then
    case $var in /*) echo "$var" ;; *) echo "$HOME/$var" ;; esac
  else
    echo "${XDG_CONFIG_HOME:-$HOME/.config}/$dir"
  fi
}

# Removes what the manifest in profile $1 lists: the manifest, the files, then the folders
# install made (where empty).  Returns 1 when there is no manifest.
gh_remove_manifest () {
  local manifest=$1/gpu-histogram.manifest list path
  [ -f "$manifest" ] || return 1
  list=$(cat "$manifest")
  rm -f -- "$manifest"
  echo "$list" | sed -n 's/^file //p' | while IFS= read -r path; do
    rm -f -- "$path"
  done
  # the folders install made, deepest first, where nothing else was put in them since
  echo "$list" | sed -n 's/^dir //p' | sort -r | while IFS= read -r path; do
    rmdir -- "$path" 2>/dev/null || true
  done
  return 0
}
