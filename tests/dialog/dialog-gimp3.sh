#!/bin/bash
# The dialog test in GIMP 3.0, from the Debian 12 build: inside the Debian 13 root
# (tools/debian13-root), build the plug-in for GIMP 3 in BUILDDIR (tests/gimp/gimp3-build.sh, the
# build the GIMP 3.0 tests share), run the histogram widget's own test (tests/view) in GTK 3, then
# dialog-tests.py.  The screenshot lands in WORKDIR.
#
#   dialog-gimp3.sh SRCDIR BUILDDIR WORKDIR CUDA(enabled|disabled) [--script NAME] [its options...]
#
# --script follow-tests.py (or follow-busy-tests.py) runs that script of tests/dialog instead of
# dialog-tests.py (and skips the widget's own test, which the dialog suite runs).
#
# Exit 77 (skipped) when the root cannot be made.
set -u
src=$1 builddir=$2 work=$3 cuda=$4
shift 4
script=dialog-tests.py
if [[ ${1:-} == --script ]]; then script=$2; shift 2; fi
tool=$src/tools/debian13-root
[[ -x $tool ]] || { echo "tools/debian13-root is missing: skipped"; exit 77; }
if ! "$tool" status >/dev/null 2>&1 && ! "$tool" ensure; then
  echo "the Debian 13 root cannot be made: skipped"
  exit 77
fi
mkdir -p "$work" "$builddir"
export GPUHIST_ROOT_BIND="$work $builddir"
exec "$tool" run --cwd "$src" -- bash -c '
set -e
src=$1 builddir=$2 cuda=$3 work=$4 script=$5
build=$builddir/build
bash "$src/tests/gimp/gimp3-build.sh" "$src" "$builddir" "$cuda" \
  plugin/gpu-histogram tests/view/test-histogram-view
# the histogram widget on its own, in GTK 3 (tests/view)
rc=0
if [[ $script == dialog-tests.py ]]; then
  xvfb-run -a "$build/tests/view/test-histogram-view" || rc=$?
fi
[[ $rc == 0 || $rc == 77 ]] || exit 1
exec python3 "$src/tests/dialog/$script" --gimp-version 3 --gimp "$(command -v gimp-3.0)" \
  --plugin "$build/plugin/gpu-histogram" --outdir "$work" "${@:6}"
' dialog-gimp3 "$src" "$builddir" "$cuda" "$work" "$script" "$@"
