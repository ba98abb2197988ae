# Shared by tools/check, tools/demo and tools/install: packages, nvcc, meson set-up.
# shellcheck shell=bash

# Debian packages by purpose.  `gh_install_packages build|test|demo` installs the missing ones.
GH_PACKAGES_BUILD="meson ninja-build pkg-config gcc g++ libgimp2.0-dev gettext"
GH_PACKAGES_RUN="gimp"
GH_PACKAGES_TEST="python3 xvfb xauth xdotool imagemagick netpbm debootstrap clang libclang-rt-14-dev"

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
