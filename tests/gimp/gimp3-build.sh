#!/bin/bash
# Inside the Debian 13 root: the plug-in for GIMP 3 in DIR/build, the one build that every GIMP
# 3.0 test of a Debian 12 build shares (gimp3-tests.sh, reliability-tests.py, dialog-gimp3.sh):
# a CUDA build compiles for minutes, so it is made once, not once per caller.  Configures DIR/build
# when it holds no build, then builds TARGETs; the logs are DIR/setup.log and DIR/compile.log.
#
#   gimp3-build.sh SRCDIR DIR CUDA(enabled|disabled) TARGET...
#
# One build at a time in DIR (a lock in it): meson test runs these tests one by one, but nothing
# else stops two callers from compiling into one folder at once.
set -eu
src=$1 dir=$2 cuda=$3
shift 3
build=$dir/build
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$dir"
exec {lock}>"$dir/lock"
flock "$lock"
if [[ ! -f $build/build.ninja ]]; then
  meson setup "$build" "$src" -Dgimp=3 -Dcuda="$cuda" -Dgimp-tests=disabled >"$dir/setup.log" 2>&1 ||
    { cat "$dir/setup.log"; exit 1; }
fi
# ninja, not meson compile: it regenerates a build folder made before a target was added
ninja -C "$build" "$@" >"$dir/compile.log" 2>&1 || { tail -50 "$dir/compile.log"; exit 1; }
