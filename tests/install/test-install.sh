#!/usr/bin/env bash
# The user-level install (tools/install, tools/uninstall) and the system-wide meson install.
#
#   test-install.sh SOURCE-ROOT BUILD-ROOT GIMP-VERSION(2|3) GIMPLIBDIR gimp|no-gimp
#
# 1. tools/install --builddir BUILD-ROOT into throwaway profiles (GIMP2_DIRECTORY and
#    GIMP3_DIRECTORY set to temporary folders): the plug-in is where that GIMP looks for it
#    (3.0: plug-ins/gpu-histogram/gpu-histogram; 2.10: plug-ins/gpu-histogram), executable, in
#    the manifest, and the other version's profile is untouched;
# 2. with "gimp": headless GIMP of that version, with that profile, finds the procedure
#    plug-in-gpu-histogram in its PDB;
# 3. tools/uninstall removes every file install put there (GIMP's own files stay);
# 4. install twice and uninstall into a profile that did not exist: nothing is left, not even
#    the folder;
# 5. meson install --destdir puts the plug-in at GIMPLIBDIR/plug-ins/... and says so.
set -uo pipefail
src=$1 build=$2 version=$3 gimplibdir=$4 run_gimp=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-histogram-install-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

passed=0 failed=0
quiet () { "$@" >/dev/null; }
check () { # description, command...
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok: $what"
  else failed=$((failed + 1)); echo "FAILED: $what"; fi
}

if [ "$version" = 3 ]; then
  profile=$tmp/gimp3 other=$tmp/gimp2 exe=$tmp/gimp3/plug-ins/gpu-histogram/gpu-histogram
  console=gimp-console-3.0
  query='(gimp-pdb-procedure-exists "plug-in-gpu-histogram")'
  sysdest=$gimplibdir/plug-ins/gpu-histogram/gpu-histogram
else
  profile=$tmp/gimp2 other=$tmp/gimp3 exe=$tmp/gimp2/plug-ins/gpu-histogram
  console=gimp-console-2.10
  query='(gimp-procedural-db-proc-exists "plug-in-gpu-histogram")'
  sysdest=$gimplibdir/plug-ins/gpu-histogram
fi
export GIMP2_DIRECTORY=$tmp/gimp2 GIMP3_DIRECTORY=$tmp/gimp3

# 1
check "tools/install --builddir" "$src/tools/install" --builddir "$build"
check "plug-in installed at $exe" test -f "$exe" -a -x "$exe"
check "the manifest lists it" grep -qxF "file $exe" "$profile/gpu-histogram.manifest"
# shellcheck disable=SC2016
check "every file in the manifest exists" \
  bash -c 'sed -n "s/^file //p" "$1" | while IFS= read -r f; do test -f "$f" || exit 1; done' \
  sh "$profile/gpu-histogram.manifest"
check "the other GIMP's profile is untouched" test ! -e "$other"
# as many files as meson installs into GIMP's plug-ins folder (the executable, catalogues, icons)
want=$(meson introspect --installed "$build" | python3 -c '
import json, sys
print(sum(1 for d in json.load(sys.stdin).values() if d.startswith(sys.argv[1] + "/plug-ins/")))
' "$gimplibdir")
got=$(grep -c '^file ' "$profile/gpu-histogram.manifest")
check "all $want file(s) meson installs under plug-ins/ are installed (got $got)" test "$got" = "$want"
listed=$(sed -n 's/^file //p' "$profile/gpu-histogram.manifest")

# 2
if [ "$run_gimp" = gimp ] && command -v "$console" >/dev/null; then
  argv=("$console" -i -d -f)
  [ "$version" = 3 ] && argv+=(--quit --batch-interpreter=plug-in-script-fu-eval)
  argv+=(-b "(let ((p (open-output-file \"$tmp/exists\"))) (write (car $query) p) (close-output-port p))"
         -b '(gimp-quit 0)')
  env -u DISPLAY LC_ALL=C.UTF-8 timeout 300 "${argv[@]}" >"$tmp/gimp.log" 2>&1 </dev/null
  answer=$(cat "$tmp/exists" 2>/dev/null)
  check "headless $console finds plug-in-gpu-histogram (answered '${answer}')" \
    test "$answer" = 1 -o "$answer" = "#t"
  [ "$answer" = 1 ] || [ "$answer" = "#t" ] || tail -20 "$tmp/gimp.log"
else
  echo "skipped: headless GIMP ($console not installed or gimp-tests disabled)"
fi

# 3
check "tools/uninstall" "$src/tools/uninstall"
# shellcheck disable=SC2016
check "no installed file is left" \
  bash -c 'echo "$1" | while IFS= read -r f; do test ! -e "$f" || exit 1; done' sh "$listed"
check "the manifest is gone" test ! -e "$profile/gpu-histogram.manifest"
if [ "$version" = 3 ]; then
  check "the plug-in's folder is gone" test ! -e "$profile/plug-ins/gpu-histogram"
else
  check "the plug-in's data folder is gone" test ! -e "$profile/plug-ins/gpu-histogram-data"
fi

# 4
export GIMP2_DIRECTORY=$tmp/fresh/gimp2 GIMP3_DIRECTORY=$tmp/fresh/gimp3
check "install into a new profile" quiet "$src/tools/install" --builddir "$build"
check "install again over it" quiet "$src/tools/install" --builddir "$build"
check "uninstall" quiet "$src/tools/uninstall"
check "nothing is left of the new profile" test ! -e "$tmp/fresh/gimp2" -a ! -e "$tmp/fresh/gimp3"

# 5
meson install -C "$build" --no-rebuild --destdir "$tmp/dest" >"$tmp/meson-install.log" 2>&1
check "meson install --destdir" test $? -eq 0
check "meson install put the plug-in at $sysdest" test -f "$tmp/dest$sysdest" -a -x "$tmp/dest$sysdest"
check "meson install lists it there" grep -qF "$tmp/dest$(dirname "$sysdest")" "$tmp/meson-install.log"
[ $failed -eq 0 ] || cat "$tmp/meson-install.log"

echo "$passed checks passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
