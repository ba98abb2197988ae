#!/bin/bash
# GIMP 3.0 tests, from the Debian 12 build: inside the Debian 13 root (tools/debian13-root),
# build the plug-in for GIMP 3 in BUILDDIR (gimp3-build.sh, the build the GIMP 3.0 tests share),
# then run the tests there: gimp-tests.py for SUITE generated, photo or python; bins-tests.py for
# bins; pyfu-tests.py for pyfu; resident-tests.py for resident; counts-tests.py for counts;
# parallel-tests.py for parallel; scopes-tests.py for scopes.
#
#   gimp3-tests.sh SRCDIR BUILDDIR WORKDIR CUDA(enabled|disabled) SUITE [CACHE]
#
# Exit 77 (skipped) when the root cannot be made (no root tool, not root, no network).
set -u
src=$1 builddir=$2 work=$3 cuda=$4 suite=$5 cache=${6:-$3/cache}
tool=$src/tools/debian13-root
if [[ ! -x $tool ]]; then
    echo "tools/debian13-root is missing: GIMP 3 tests skipped"; exit 77
fi
if ! "$tool" status >/dev/null 2>&1; then
    echo "making the Debian 13 root (minutes the first time)"
    if ! "$tool" ensure; then
        echo "the Debian 13 root cannot be made: GIMP 3 tests skipped"; exit 77
    fi
fi
mkdir -p "$work" "$builddir"
export GPUHIST_ROOT_BIND="$work $cache $builddir"
mkdir -p "$cache"
exec "$tool" run --cwd "$src" -- bash -c '
set -e
src=$1 builddir=$2 cuda=$3 suite=$4 work=$5 cache=$6
bash "$src/tests/gimp/gimp3-build.sh" "$src" "$builddir" "$cuda" plugin/gpu-histogram
plugin=$builddir/build/plugin/gpu-histogram
case $suite in
bins) exec python3 "$src/tests/gimp/bins-tests.py" --gimp 3 --plugin "$plugin" --workdir "$work" ;;
pyfu) exec python3 "$src/tests/gimp/pyfu-tests.py" --gimp 3 --plugin "$plugin" --workdir "$work" ;;
resident) exec python3 "$src/tests/gimp/resident-tests.py" --gimp 3 --plugin "$plugin" --workdir "$work" ;;
counts) exec python3 "$src/tests/gimp/counts-tests.py" --gimp 3 --plugin "$plugin" --workdir "$work" ;;
scopes) exec python3 "$src/tests/gimp/scopes-tests.py" --gimp 3 --plugin "$plugin" --workdir "$work" ;;
parallel) exec python3 "$src/tests/gimp/parallel-tests.py" --gimp 3 --plugin "$plugin" --workdir "$work" ;;
esac
exec python3 "$src/tests/gimp/gimp-tests.py" --gimp 3 --plugin "$plugin" \
    --workdir "$work" --suite "$suite" --cache "$cache"
' gimp3-tests "$src" "$builddir" "$cuda" "$suite" "$work" "$cache"
