#!/usr/bin/env python3
"""Checks that no two controls of the dialog's window share a mnemonic, in every translation.

    check-mnemonics.py --dialog plugin/ui/dialog.c [--help-catalog DOMAIN:LOCALEDIR]... LANG.po...

The window's mnemonics: its labels and buttons (WINDOW below, each checked to be in the
dialog's source, dialog.c, the channel boxes' dialog-channels.c and the charts' files beside it
(chart*.c), so that the list cannot go stale), GIMP's own Help button (translated from each
--help-catalog found; GIMP 2.10's and 3.0's differ), the channel check boxes under the charts
(shown with every chart: the first letter of the channel's translated name, for an RGB(A)
layer and for a gray one; an RGB layer's Value and Luminance boxes, DERIVED, have mnemonics of
their own), and those of the chart shown: the notebook shows one chart's page at a time, and GTK
gives Alt only to the controls on screen.  The histogram's page (HISTOGRAM_PAGE) has its
Logarithmic box; the engine's charts (SCOPE_PAGE) share theirs; their Brightness label has
none (PLAIN: every letter of it is taken).  Two channel boxes may share a
letter (Spanish Azul and Alfa): Alt then moves between them, as GTK does; any other shared
letter is an error.  English (the msgids) is checked too.
Exit status: 0 none shared, 1 some.
"""

import argparse
import gettext
import os
import re
import sys

WINDOW = ["_Close", "Histogra_m", "_Statistics", "_Timing",
          "Compare with _flat and noisy", "Contention b_y input", "Re_petitions:",
          "B_ins per channel:", "R_e-run", "C_opy table", "E_xport CSV/JSON/PNG\u2026", "Ca_ncel",
          "_Weighting:", "Rea_d from:", "_Keep up with the image"]
# The histogram's page (chart-histogram.c) and the page of each chart the engine draws
# (chart-scope.c); "Histogra_m" is the histogram's tab, always shown.
HISTOGRAM_PAGE = ["_Logarithmic"]
SCOPE_PAGE = ["_Logarithmic"]
# Labels without a mnemonic (every letter taken), in every translation too: an underscore there
# would be drawn, not used.
PLAIN = ["Brightness:"]
# Value's and Luminance's check boxes, shown for RGB layers only, have mnemonics of their own.
DERIVED = ["_Value", "L_uminance"]
CHANNEL_SETS = [["Red", "Green", "Blue", "Alpha"], ["Gray", "Alpha"]]


def unquote(text):
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def read_po(path):
    """msgid -> msgstr, for entries without context or plurals."""
    entries, key, current = {}, None, None
    fields = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        m = re.match(r'^(msgid|msgstr|msgctxt) "(.*)"$', line)
        if m:
            if m.group(1) == "msgid" and fields.get("msgstr") is not None:
                if "msgctxt" not in fields:
                    entries[fields["msgid"]] = fields["msgstr"]
                fields = {}
            key = m.group(1)
            fields[key] = unquote(m.group(2))
            continue
        m = re.match(r'^"(.*)"$', line)
        if m and key:
            fields[key] += unquote(m.group(1))
        elif not line:
            if fields.get("msgstr") is not None and "msgctxt" not in fields:
                entries[fields["msgid"]] = fields["msgstr"]
            fields, key = {}, None
    if fields.get("msgstr") is not None and "msgctxt" not in fields:
        entries[fields["msgid"]] = fields["msgstr"]
    return entries


def mnemonic(text):
    m = re.search(r"_(.)", text)
    return m.group(1).lower() if m else None


def check(label, translate, helps, problems):
    for msgid in PLAIN:
        if mnemonic(translate(msgid)) is not None:
            problems.append("%s: %r has a mnemonic, which its label draws as it is"
                            % (label, translate(msgid)))
    window = [(msgid, translate(msgid)) for msgid in WINDOW]
    pages = [("%s, %s" % (page, layer), msgids + derived, channels)
             for page, msgids in [("histogram", HISTOGRAM_PAGE), ("scope chart", SCOPE_PAGE)]
             for layer, derived, channels in [("RGB", DERIVED, CHANNEL_SETS[0]),
                                              ("gray", [], CHANNEL_SETS[1])]]
    for help_name, help_text in helps:
        for page, page_msgids, channels in pages:
            owners = {}
            shown = [(msgid, translate(msgid)) for msgid in page_msgids]
            for msgid, text in window + shown + [("GIMP's Help (%s)" % help_name, help_text)]:
                letter = mnemonic(text)
                if letter is None:
                    problems.append("%s: %r has no mnemonic" % (label, text))
                    continue
                owners.setdefault(letter, []).append(text)
            for name in channels:
                text = translate(name)
                owners.setdefault(text[0].lower(), []).append("channel " + text)
            for letter, texts in sorted(owners.items()):
                others = [t for t in texts if not t.startswith("channel ")]
                if len(texts) > 1 and others:
                    problems.append("%s, %s page, %s: Alt+%s is %s"
                                    % (label, page, help_name, letter,
                                       " and ".join(repr(t) for t in texts)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dialog", required=True)
    ap.add_argument("--help-catalog", action="append", default=[],
                    help="DOMAIN:LOCALEDIR of GIMP's libgimp messages (its Help button)")
    ap.add_argument("po", nargs="+")
    args = ap.parse_args()

    problems = []
    folder = os.path.dirname(os.path.abspath(args.dialog))
    source = "".join(open(os.path.join(folder, name), encoding="utf-8").read()
                     for name in sorted(os.listdir(folder))
                     if name == os.path.basename(args.dialog)
                     or name == "dialog-channels.c"
                     or (name.startswith("chart") and name.endswith(".c")))
    for msgid in WINDOW + HISTOGRAM_PAGE + SCOPE_PAGE + DERIVED + PLAIN:
        if '_ ("%s")' % msgid not in source:
            problems.append("%r is not in %s or its charts: update WINDOW" % (msgid, args.dialog))

    catalogs = []
    for spec in args.help_catalog:
        domain, _, localedir = spec.partition(":")
        if gettext.find(domain, localedir, ["de", "fr", "es", "ja"], all=True):
            catalogs.append((domain, localedir))
    check("en", lambda s: s, [("_Help", "_Help")], problems)
    for path in args.po:
        lang = os.path.splitext(os.path.basename(path))[0]
        entries = read_po(path)
        helps = []
        for domain, localedir in catalogs:
            t = gettext.translation(domain, localedir, [lang], fallback=True)
            helps.append((domain, t.gettext("_Help")))
        if not helps:
            helps = [("_Help", "_Help")]
        check(lang, lambda s: entries.get(s) or s, helps, problems)

    for p in problems:
        print("FAIL: " + p)
    print("%d shared mnemonics or stale entries" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
