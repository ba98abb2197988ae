#!/usr/bin/env python3
"""Checks that every translation is complete against the current sources.

    check-po-complete.py --srcdir TOP --potfiles po/POTFILES [--xgettext-preset glib]
                         LANG.po... -- XGETTEXT-ARGS...

Makes a .pot afresh with xgettext (the arguments meson's i18n.gettext() uses: its preset, then
the ones after --), in a temporary folder, and runs `msgcmp LANG.po fresh.pot` on each .po: it
fails when a msgid of the sources has no translation in the .po, or only an untranslated or a
fuzzy one.  Also fails on fuzzy or untranslated entries left anywhere in the .po, and when
merging the fresh .pot into the .po (as gpu-histogram-update-po does) would make an entry fuzzy
or break msgfmt --check-format.
Exit status: 0 complete, 1 not, 77 when the gettext tools are missing.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

# mesonbuild/modules/i18n.py PRESET_ARGS['glib'] (meson 1.0 to 1.7).
GLIB_PRESET = [
    "--from-code=UTF-8", "--add-comments",
    "--keyword=_", "--keyword=N_", "--keyword=C_:1c,2", "--keyword=NC_:1c,2",
    "--keyword=g_dcgettext:2", "--keyword=g_dngettext:2,3", "--keyword=g_dpgettext2:2c,3",
    "--flag=N_:1:pass-c-format", "--flag=C_:2:pass-c-format", "--flag=NC_:2:pass-c-format",
    "--flag=g_dngettext:2:pass-c-format", "--flag=g_strdup_printf:1:c-format",
    "--flag=g_string_printf:2:c-format", "--flag=g_string_append_printf:2:c-format",
    "--flag=g_error_new:3:c-format", "--flag=g_set_error:4:c-format",
    "--flag=g_markup_printf_escaped:1:c-format", "--flag=g_log:3:c-format",
    "--flag=g_print:1:c-format", "--flag=g_printerr:1:c-format", "--flag=g_printf:1:c-format",
    "--flag=g_fprintf:2:c-format", "--flag=g_sprintf:2:c-format",
    "--flag=g_snprintf:3:c-format",
]


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--srcdir", required=True)
    p.add_argument("--potfiles", required=True)
    p.add_argument("--xgettext-preset", choices=["glib", "none"], default="glib")
    p.add_argument("po", nargs="+")
    args = p.parse_args(argv)

    tools = {t: shutil.which(t) for t in ("xgettext", "msgcmp", "msgattrib", "msgmerge", "msgfmt")}
    if not all(tools.values()):
        print("SKIP: gettext tools missing: %s" % [t for t, v in tools.items() if not v])
        return 77

    preset = GLIB_PRESET if args.xgettext_preset == "glib" else []
    failed = False
    with tempfile.TemporaryDirectory(prefix="gpuhist-pot-") as tmp:
        pot = os.path.join(tmp, "fresh.pot")
        cmd = [tools["xgettext"], "--package-name=gpu-histogram", "-f", args.potfiles,
               "-D", args.srcdir, "-k_", "-o", pot] + preset + extra
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            print("FAIL: xgettext: %s\n%s" % (" ".join(cmd), r.stdout))
            return 1
        n = sum(1 for line in open(pot, encoding="utf-8") if line.startswith("msgid ")) - 1
        print("fresh .pot: %d messages from %s" % (n, args.potfiles))

        for po in args.po:
            lang = os.path.splitext(os.path.basename(po))[0]
            ok = True
            r = subprocess.run([tools["msgcmp"], po, pot], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            # msgcmp also warns about entries the sources no longer use: not an error here.
            errors = [l for l in r.stdout.splitlines() if "warning: this message is not used" not in l]
            if r.returncode != 0:
                print("FAIL: %s: messages of the sources without a translation:" % lang)
                print("\n".join("  " + l for l in errors))
                ok = False
            for what, opt in (("fuzzy", "--only-fuzzy"), ("untranslated", "--untranslated")):
                r = subprocess.run([tools["msgattrib"], opt, "--no-obsolete", po],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                left = [l for l in r.stdout.splitlines() if l.startswith("msgid ")]
                left = [l for l in left if l != 'msgid ""']
                if r.returncode != 0 or left:
                    print("FAIL: %s: %s entries:\n  %s" % (lang, what, "\n  ".join(left) or r.stdout))
                    ok = False
            # What `meson compile gpu-histogram-update-po` would make of it: msgmerge marks an
            # entry fuzzy when the sources changed its printf flags (a literal "%" needs
            # /* xgettext:no-c-format */ before it), and formats must still match after.
            merged = os.path.join(tmp, lang + ".po")
            r = subprocess.run([tools["msgmerge"], "--quiet", "--no-fuzzy-matching", "-o", merged,
                                po, pot], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if r.returncode != 0:
                print("FAIL: %s: msgmerge: %s" % (lang, r.stdout))
                ok = False
            else:
                r = subprocess.run([tools["msgattrib"], "--only-fuzzy", "--no-obsolete", merged],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                fuzzy = [l for l in r.stdout.splitlines()
                         if l.startswith(("msgid ", "#,")) and l != 'msgid ""']
                if fuzzy:
                    print("FAIL: %s: merging the fresh .pot makes entries fuzzy (format flags "
                          "differ):\n  %s" % (lang, "\n  ".join(fuzzy)))
                    ok = False
                r = subprocess.run([tools["msgfmt"], "--check", "--check-format", "-o",
                                    os.devnull, merged], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
                if r.returncode != 0:
                    print("FAIL: %s: msgfmt --check on the merged .po:\n%s" % (lang, r.stdout))
                    ok = False
            if ok:
                print("ok: %s: all %d messages translated" % (lang, n))
            failed = failed or not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
