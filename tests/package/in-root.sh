#!/usr/bin/env bash
# The steps of tests/package/test-package.sh that run inside a disposable root (an overlay).
#
#   in-root.sh build WORKDIR PROFILES   apt-get build-dep ./ and dpkg-buildpackage -us -uc -b
#                                       (-P PROFILES unless empty) in WORKDIR/src; the .debs, the
#                                       .changes and the .buildinfo go to WORKDIR/out
#   in-root.sh test WORKDIR GIMP        apt-get install WORKDIR/out/*.deb; checks; headless GIMP
#                                       (package-gimp.py); apt-get purge; nothing left
#
# GPUHIST_PACKAGE_CUDA (enabled|disabled): which build the packages must say they are.
# Exit 77 when the archive cannot be reached for what the root lacks.
set -euo pipefail
mode=$1 work=$2
SKIP=77
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

# apt-get ARGS... with the root's package lists, then with fresh ones when those fail (old lists
# name versions the archive no longer has); 77 when the archive cannot be reached.  One at a
# time: the download cache is shared with other runs of this test (apt-get fails at once on a
# cache another apt holds).
apt_get () {
  local log=$work/apt.log lock=/var/cache/apt/archives/gpu-histogram-test.lock
  flock "$lock" apt-get -q -y --no-install-recommends "$@" >>"$log" 2>&1 && return 0
  flock "$lock" apt-get -q update >>"$log" 2>&1 ||
    { tail -5 "$log"; echo "no archive: skipped"; exit $SKIP; }
  flock "$lock" apt-get -q -y --no-install-recommends "$@" >>"$log" 2>&1 ||
    { tail -30 "$log"; return 1; }
}

# The overlay shows the root as it was when mounted: where a dpkg run on the real root was
# half-way then (another user's apt-get), finish it here first, as apt asks, in the overlay only.
if [ -n "$(ls -A /var/lib/dpkg/updates 2>/dev/null)" ]; then
  dpkg --configure -a >>"$work/apt.log" 2>&1 || true
fi

if [ "$mode" = build ]; then
  profiles=$3
  cd "$work/src"
  t0=$SECONDS
  apt_get build-dep ./
  echo "apt-get build-dep ./: $((SECONDS - t0)) s"
  t0=$SECONDS
  dpkg-buildpackage -us -uc -b ${profiles:+-P"$profiles"} >"$work/build.log" 2>&1 ||
    { tail -60 "$work/build.log"; exit 1; }
  echo "dpkg-buildpackage -us -uc -b${profiles:+ -P$profiles}: $((SECONDS - t0)) s"
  mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$work/out/"
  exit 0
fi

[ "$mode" = test ] || exit 2
gimp=$3
passed=0 failed=0
check () { # description, command...
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok: $what"
  else failed=$((failed + 1)); echo "FAILED: $what"; fi
}
if [ "$gimp" = 3 ]; then
  plugin=/usr/lib/x86_64-linux-gnu/gimp/3.0/plug-ins/gpu-histogram/gpu-histogram
  data=$(dirname "$plugin") release=deb13
else
  plugin=/usr/lib/gimp/2.0/plug-ins/gpu-histogram
  data=/usr/lib/gimp/2.0/plug-ins/gpu-histogram-data release=deb12
fi
packages=(gimp-plugin-gpu-histogram gpuhist)
ends_with () { [[ $1 == *"$2" ]]; }
# (grep reads a string, not a pipe: with pipefail, a writer cut short by grep -q would fail)
description_says () { grep -q "$2" <<<"$(dpkg-query -W -f='${Description}' "$1")"; }
version_says () { grep -q "$1" <<<"$(gpuhist --version | sed -n 2p)"; }
not_known () { ! dpkg-query -W "$1" >/dev/null 2>&1; }

# Everything a package could leave behind: every path under these, but the package system's
# own records and the bytecode GIMP 3.0's own Python plug-ins (python-console) compile at start.
snapshot () {
  find /usr /etc /opt /srv /var -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o \
    -path /var/cache -o -path /var/log -o -path /var/tmp -o -name __pycache__ \) -prune -o \
    -print | sort
}
snapshot >"$work/before.list"

apt_get install "$work"/out/gimp-plugin-gpu-histogram_*.deb "$work"/out/gpuhist_*.deb
for p in "${packages[@]}"; do
  version=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
  check "$p $version installed, its version ending in ~$release" \
    ends_with "$version" "~$release"
done
check "the plug-in at $plugin" test -x "$plugin"
check "its German catalogue" test -f "$data/locale/de/LC_MESSAGES/gpu-histogram.mo"
check "its icon" test -f "$data/icons/gpu-histogram-16.png"
# the snapshot sees what a package puts there (else the purge check below would prove nothing)
snapshot >"$work/installed.list"
check "the snapshot holds the installed plug-in" \
  grep -qxF "$plugin" <(comm -13 "$work/before.list" "$work/installed.list")

# The description and gpuhist --version say the same build.
if [ "${GPUHIST_PACKAGE_CUDA:-disabled}" = enabled ]; then said="CUDA build"; else said="CPU-only build"; fi
for p in "${packages[@]}"; do
  check "$p's description says \"$said\"" \
    description_says "$p" "$said"
done
check "gpuhist --version says \"$said\"" version_says "$said"

# gpuhist reads a PNG through libvips (its runtime dependency) and counts it: 3 x 2 pixels,
# gray, values 7 7 7 200 200 9.
python3 - "$work/tiny.png" <<'PY'
import struct, sys, zlib
rows = [b"\x00\x07\x07\x07", b"\x00\xc8\xc8\x09"]
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
ihdr = struct.pack(">IIBBBBB", 3, 2, 8, 0, 0, 0, 0)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
counts=$(gpuhist --quiet "$work/tiny.png" 2>&1 | awk -F, '$1 == 7 || $1 == 9 || $1 == 200 { printf "%s=%s ", $1, $2 }')
check "gpuhist counts a PNG through libvips (got: $counts)" test "$counts" = "7=3 9=1 200=2 "

# The procedure in headless GIMP, from the system folder; then with a copy in the profile.
rc=0
python3 "$work/src/tests/package/package-gimp.py" --gimp "$gimp" --plugin "$plugin" \
  --workdir "$work/gimp" || rc=$?
check "package-gimp.py: the installed plug-in in headless GIMP $gimp (exit $rc)" test $rc -eq 0

apt_get purge "${packages[@]}"
# and the dependencies the packages brought in
apt_get autoremove --purge
for p in "${packages[@]}"; do
  check "$p is purged (no dpkg record)" not_known "$p"
done
snapshot >"$work/after.list"
left=$(comm -13 "$work/before.list" "$work/after.list")
check "apt-get purge left nothing new under /usr /etc /opt /srv /var" test -z "$left"
[ -z "$left" ] || echo "$left" | head -20

echo "$passed checks passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
