#!/usr/bin/env bash
# The Debian packages (debian/) for one GIMP, built, installed, run, purged in disposable roots.
#
#   test-package.sh SRCDIR WORKDIR GIMP(2|3) CUDA(enabled|disabled) [nocheck]
#
# GIMP 2: this machine's root (Debian 12, GIMP 2.10); GIMP 3: the Debian 13 root
# (tools/debian13-root, GIMP 3.0).  Each step runs in an overlay over that root, with its upper
# layer on a tmpfs, in a mount namespace of this script's own: the build dependencies, the
# packages and whatever a failed step leaves behind vanish with the namespace when the script
# ends, however it ends, and never reach the real root or later tests.
#
# 1. WORKDIR/src: a copy of the files git tracks (as they are in the working tree), as a clean
#    checkout holds them: no build folder, obj-*/ or other leftover of the tree gets in.
# 2. The build root (an overlay): apt-get build-dep ./, then dpkg-buildpackage -us -uc -b
#    (-Pnocuda unless CUDA is enabled; DEB_BUILD_OPTIONS=nocheck with nocheck, which skips
#    dh_auto_test); the .debs land in WORKDIR/out.
# 3. The test root (a fresh overlay): tests/package/in-root.sh install (apt-get install ./*.deb,
#    the runtime dependencies from the archive), tests/package/package-gimp.py (the procedure
#    in headless GIMP, a profile without plug-ins, the counts against an independent count; a
#    profile with its own copy: only one registers), then apt-get purge and nothing left.
# 4. lintian, where installed here: no errors.
#
# Downloaded .debs are kept in /var/cache/gpu-histogram/apt-archives-debNN between runs.  Exit 77
# (skipped) when it cannot run here: not root, no git checkout, no overlayfs or mount namespace,
# the Debian 13 root cannot be made, or the archive cannot be reached.
set -euo pipefail
src=$(readlink -f "$1") work=$2 gimp=$3
# GPUHIST_PACKAGE_TEST_CUDA=enabled builds the CUDA packages (nvcc needed; CI builds CPU-only)
cuda=${GPUHIST_PACKAGE_TEST_CUDA:-$4} nocheck=${5:-}
SKIP=77

if [ "${GPUHIST_PACKAGE_NS:-}" != 1 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "not root: the package test is skipped"; exit $SKIP; }
  unshare --mount --propagation private true 2>/dev/null ||
    { echo "no mount namespace here: skipped"; exit $SKIP; }
  # Everything below runs in a private mount namespace: its mounts end with it.
  GPUHIST_PACKAGE_NS=1 exec unshare --mount --propagation private -- bash "$0" "$@"
fi

tool=$src/tools/debian13-root
if [ "$gimp" = 3 ]; then
  "$tool" status >/dev/null 2>&1 || "$tool" ensure ||
    { echo "the Debian 13 root cannot be made: skipped"; exit $SKIP; }
  base=$("$tool" path) release=deb13
  # a shared lock, as `debian13-root run` holds: `ensure` does not change the root under the overlays
  exec {lockfd}>>"$base.lock"
  flock -s "$lockfd"
else
  base=/ release=deb12
fi
cache=/var/cache/gpu-histogram/apt-archives-$release
mkdir -p "$cache/partial"

rm -rf "$work"
mkdir -p "$work/src" "$work/out" "$work/layers"
work=$(readlink -f "$work")
started=$SECONDS

# 1
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || { echo "$src is no git checkout: skipped"; exit $SKIP; }
(cd "$src" && git ls-files -z |
  while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done |
  tar --null -T - -cf - | tar -xf - -C "$work/src")

mount -t tmpfs -o mode=0755 tmpfs "$work/layers"

# overlay NAME: a fresh overlay over $base at $work/layers/NAME/root, with the apt cache bound in
overlay () {
  local dir=$work/layers/$1
  mkdir -p "$dir/upper" "$dir/work" "$dir/root"
  mount -t overlay overlay -o "lowerdir=$base,upperdir=$dir/upper,workdir=$dir/work" "$dir/root" ||
    return 1
  mount --bind "$cache" "$dir/root/var/cache/apt/archives"
  # a CUDA build in the Debian 13 root: this machine's CUDA toolkit, where debian/rules looks
  if [ "$cuda" = enabled ] && [ ! -x "$dir/root/usr/local/cuda/bin/nvcc" ] && [ -d /usr/local/cuda ]; then
    mkdir -p "$dir/root/usr/local/cuda"
    mount --bind "$(readlink -f /usr/local/cuda)" "$dir/root/usr/local/cuda"
  fi
  # the name server as this machine has it (its resolv.conf may point into /run)
  rm -f "$dir/root/etc/resolv.conf"
  cp -L /etc/resolv.conf "$dir/root/etc/resolv.conf" 2>/dev/null || true
}

# in_root ROOT CMD...: CMD as root inside ROOT, WORKDIR at its own path, a private /tmp
in_root () {
  local root=$1; shift
  GPUHIST_SRC=$work GPUHIST_ROOT_TMP=private \
    GPUHIST_ROOT_ENV="GPUHIST_TEST_BUILD GPUHIST_PACKAGE_CUDA DEB_BUILD_OPTIONS" \
    "$tool" run-in "$root" --cwd "$work/src" -- "$@"
}

step () { echo "== $* ($((SECONDS - started)) s)"; }

# 2
step "build root (overlay over $base)"
overlay build || { echo "no overlayfs here: skipped"; exit $SKIP; }
profiles=nocuda
[ "$cuda" = enabled ] && profiles=
DEB_BUILD_OPTIONS="parallel=$(nproc)${nocheck:+ nocheck}"
export GPUHIST_PACKAGE_CUDA=$cuda DEB_BUILD_OPTIONS
rc=0
in_root "$work/layers/build/root" bash "$work/src/tests/package/in-root.sh" build "$work" "$profiles" || rc=$?
[ $rc -eq 0 ] || { echo "the build failed (exit $rc)"; exit $rc; }
ls -l "$work/out"

# 3
step "test root (a fresh overlay over $base)"
overlay test
rc=0
in_root "$work/layers/test/root" bash "$work/src/tests/package/in-root.sh" test "$work" "$gimp" || rc=$?
[ $rc -eq 0 ] || { echo "the installed package failed (exit $rc)"; exit $rc; }

# 4
if command -v lintian >/dev/null; then
  step "lintian"
  # errors fail the test; warnings are printed (the accepted ones are listed in debian/README.source)
  lintian --fail-on error "$work"/out/*.changes || { echo "lintian found errors"; exit 1; }
else
  echo "lintian is not installed: not run"
fi
step "done"
