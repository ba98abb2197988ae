#!/bin/bash
# A build without gettext's tools (msgfmt and its kin hidden from PATH) must configure with one
# warning that names the gettext package, and build a plug-in without translations.
#
#   no-gettext.sh SRCDIR WORKDIR [MESON-OPTION]...
#
# meson test runs it with this machine's meson (suite i18n, test no-gettext) and, inside the
# Debian 13 root, with that meson (test no-gettext-debian13):
#   tools/debian13-root run -- bash tests/i18n/no-gettext.sh "$PWD" /tmp/no-gettext -Dgimp=3
set -eu
src=$1 work=$2
shift 2

rm -rf "$work"
mkdir -p "$work/bin"
# Everything on PATH but gettext's tools, through a folder of links.
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
    for tool in "$dir"/*; do
        name=${tool##*/}
        case $name in msgfmt | msgmerge | msginit | xgettext | msgcmp | msgattrib | msgcat) continue ;; esac
        [[ -e $work/bin/$name || ! -x $tool ]] || ln -s "$tool" "$work/bin/$name"
    done
done
export PATH=$work/bin
if command -v msgfmt >/dev/null; then
    echo "FAIL: msgfmt is still on PATH"; exit 1
fi

if ! meson setup "$work/build" "$src" -Dcuda=disabled -Dgimp-tests=disabled "$@" \
    >"$work/setup.log" 2>&1; then
    cat "$work/setup.log"; echo "FAIL: configuring without msgfmt failed"; exit 1
fi
warnings=$(grep -c 'WARNING:.*gettext' "$work/setup.log" || true)
if [[ $warnings != 1 ]] || ! grep -q 'Install the gettext package' "$work/setup.log"; then
    grep -n 'WARNING' "$work/setup.log"; echo "FAIL: expected one warning naming gettext, got $warnings"
    exit 1
fi
if ! grep -Eiq 'GIMP plug-in *: *(yes|true)' "$work/setup.log"; then
    echo "FAIL: the plug-in is not configured"; exit 1
fi
ninja -C "$work/build" plugin/gpu-histogram >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; echo "FAIL: the plug-in did not build"; exit 1; }
if [[ -n $(find "$work/build/po" -name '*.mo' 2>/dev/null) ]]; then
    echo "FAIL: catalogues were built without msgfmt"; exit 1
fi
grep 'WARNING:.*gettext' "$work/setup.log"
echo "OK: configured with one warning and built the plug-in without translations ($(meson --version))"
