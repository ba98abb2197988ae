#!/usr/bin/env python3
"""In headless GIMP with LANGUAGE=LANG, the plug-in's menu label comes back translated.

    menu-label-tests.py --gimp 2|3 --plugin BUILT-PLUGIN --locale-dir BUILD/po --po po/de.po
                       [--lang de] [--layout folder|data-folder] [--icons-dir icons]
                       [--check label|icon] --workdir DIR

Installs the built plug-in into a throwaway GIMP profile the way `meson install` lays it out (its
own folder plug-ins/gpu-histogram/ with locale/ and icons/ in it; for a 2.10 plug-in installed
straight into plug-ins/, --layout data-folder: the data in plug-ins/gpu-histogram-data/), with
the catalogues built in BUILD/po/LANG/LC_MESSAGES/, and starts GIMP headless in LANG:

  GIMP 3.0  (gimp-console-3.0, Python batch interpreter): the plug-in translates its own
            strings when GIMP queries it, so the procedure's menu label and blurb as the PDB
            gives them (GimpProcedure.get_menu_label/get_blurb) must be the .po's msgstrs.
  GIMP 2.10 (gimp-console-2.10, Script-Fu): GIMP translates plug-in menu labels itself, with
            the domain and folder the plug-in registered (gimp_plugin_domain_register), and only
            when it builds the menus; the PDB hands out the untranslated label.  So the test
            reads the registration GIMP recorded in the profile's pluginrc (locale-def), checks
            that the label there is the msgid, and translates it exactly as GIMP does
            (dgettext(domain, label) after bindtextdomain(domain, folder)).
  Both:     the plug-in's own messages at run time: a call on an empty selection must fail
            with the .po's translation of the error.

--check icon instead checks that the icon is registered (pluginrc's icon entry names one of
the installed PNGs, and the file is there).

The expected strings come from the .po (parsed here), not from the .mo under test.
Exit status: 0 passed, 1 failed, 77 skipped (this GIMP is not installed).
"""

import argparse
import ast
import gettext
import json
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
PROC = "plug-in-gpu-histogram"
LABEL = "GPU Histogram…"
BLURB = ("Count the levels of each channel on the GPU and compare how fast different methods "
         "do it")
EMPTY_SELECTION = ("The selection does not intersect the drawable: there are no pixels to "
                   "count.")


def read_po(path):
    """msgid -> msgstr of the translated, non-fuzzy entries (no contexts or plurals here)."""
    entries, cur, fuzzy = {}, None, False
    msg = {"msgid": [], "msgstr": []}

    def flush():
        if msg["msgid"] and not fuzzy:
            mid, mstr = "".join(msg["msgid"]), "".join(msg["msgstr"])
            if mid and mstr:
                entries[mid] = mstr

    for line in open(path, encoding="utf-8").read().split("\n") + [""]:
        line = line.strip()
        if not line or (line.startswith("#") and cur == "msgstr"):
            flush()
            msg, cur, fuzzy = {"msgid": [], "msgstr": []}, None, False
        if line.startswith("#,") and "fuzzy" in line:
            fuzzy = True
        m = re.match(r"^(msgid|msgstr|msgctxt)\s+(\".*\")$", line)
        if m:
            cur = m.group(1)
            if cur in msg:
                msg[cur].append(ast.literal_eval(m.group(2)))
        elif line.startswith('"') and cur in msg:
            msg[cur].append(ast.literal_eval(line))
    return entries


def locale_available(name):
    try:
        out = subprocess.run(["locale", "-a"], stdout=subprocess.PIPE, text=True).stdout
    except OSError:
        return False
    want = name.lower().replace("utf-8", "utf8")
    return any(l.strip().lower().replace("utf-8", "utf8") == want for l in out.splitlines())


def make_profile(args):
    profile = os.path.join(args.workdir, "profile")
    shutil.rmtree(profile, ignore_errors=True)
    for sub in ["brushes", "dynamics", "fonts", "gradients", "palettes", "patterns",
                "tool-presets", "scripts", "modules", "interpreters", "environ", "templates",
                "themes", "icons", "tmp"]:
        os.makedirs(os.path.join(profile, sub), exist_ok=True)
    folder = os.path.join(profile, "plug-ins", "gpu-histogram")
    if args.gimp == "2" and args.layout == "data-folder":
        exe_dir, data = os.path.join(profile, "plug-ins"), folder + "-data"
    else:
        exe_dir, data = folder, folder
    os.makedirs(exe_dir, exist_ok=True)
    os.makedirs(data, exist_ok=True)
    shutil.copy(args.plugin, os.path.join(exe_dir, "gpu-histogram"))
    for lang in sorted(os.listdir(args.locale_dir)) if args.locale_dir else []:
        mo = os.path.join(args.locale_dir, lang, "LC_MESSAGES", "gpu-histogram.mo")
        if os.path.isfile(mo):
            os.makedirs(os.path.join(data, "locale", lang, "LC_MESSAGES"), exist_ok=True)
            shutil.copy(mo, os.path.join(data, "locale", lang, "LC_MESSAGES"))
    if args.icons_dir:
        os.makedirs(os.path.join(data, "icons"), exist_ok=True)
        for f in os.listdir(args.icons_dir):
            if f.endswith((".png", ".svg")):
                shutil.copy(os.path.join(args.icons_dir, f), os.path.join(data, "icons"))
    return profile, data


def gimp_env(args, profile):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    env["GIMP2_DIRECTORY" if args.gimp == "2" else "GIMP3_DIRECTORY"] = profile
    env["LANGUAGE"] = args.lang
    # GIMP 3.0 ignores LANGUAGE under a C locale; GIMP 2.10 and gettext follow it under C.UTF-8.
    full = {"de": "de_DE.UTF-8", "fr": "fr_FR.UTF-8", "es": "es_ES.UTF-8",
            "ja": "ja_JP.UTF-8"}.get(args.lang, args.lang)
    env["LANG"] = full if locale_available(full) else "C.UTF-8"
    return env


SCRIPT_2 = r"""
(let* ((img (car (gimp-image-new 100 100 RGB)))
       (layer (car (gimp-layer-new img 40 40 RGB-IMAGE "L" 100 LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer img layer 0 0)
  (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 60 60 30 30)
  (let ((p (open-output-file "%(ready)s"))) (write img p) (newline p) (close-output-port p))
  (plug-in-gpu-histogram RUN-NONINTERACTIVE img layer "" 0 FALSE 256 0 0))
"""

SCRIPT_3 = r"""
import json
from gi.repository import Gimp
pdb = Gimp.get_pdb()
proc = pdb.lookup_procedure("plug-in-gpu-histogram")
out = {"menu_label": proc.get_menu_label(), "blurb": proc.get_blurb()}
img = Gimp.Image.new(100, 100, Gimp.ImageBaseType.RGB)
layer = Gimp.Layer.new(img, "L", 40, 40, Gimp.ImageType.RGB_IMAGE, 100, Gimp.LayerMode.NORMAL)
img.insert_layer(layer, None, 0)
img.select_rectangle(Gimp.ChannelOps.REPLACE, 60, 60, 30, 30)
config = proc.create_config()
config.set_property("run-mode", Gimp.RunMode.NONINTERACTIVE)
config.set_property("image", img)
config.set_core_object_array("drawables", [layer])
result = proc.run(config)
out["status"] = int(result.index(0))
out["success"] = result.index(0) == Gimp.PDBStatusType.SUCCESS
out["error"] = result.index(1) if result.length() > 1 and isinstance(result.index(1), str) else None
try:
    out["last_error"] = pdb.get_last_error()
except Exception as e:
    out["last_error"] = None
img.delete()
with open(%(out)r, "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False)
"""


def run_gimp(args, profile, log):
    env = gimp_env(args, profile)
    if args.gimp == "2":
        ready = os.path.join(args.workdir, "ready.txt")
        argv = ["gimp-console-2.10", "-i", "-d", "-f",
                "-b", SCRIPT_2 % {"ready": ready}, "-b", "(gimp-quit 0)"]
    else:
        out = os.path.join(args.workdir, "result.json")
        argv = ["gimp-console-3.0", "-i", "-d", "-f", "--quit",
                "--batch-interpreter=python-fu-eval", "-b", SCRIPT_3 % {"out": out}]
    print("LANGUAGE=%s LANG=%s %s" % (env["LANGUAGE"], env["LANG"], " ".join(argv[:5])))
    with open(log, "w") as f:
        try:
            subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=240,
                           cwd=args.workdir)
        except subprocess.TimeoutExpired:
            f.write("\n*** timed out\n")
    return open(log, encoding="utf-8", errors="replace").read()


def sexp_strings(text):
    return [ast.literal_eval('"' + s + '"') for s in re.findall(r'"((?:[^"\\]|\\.)*)"', text)]


def plugin_def(profile):
    """The text of the gpu-histogram plug-in-def in the profile's pluginrc ('' if none)."""
    try:
        rc = open(os.path.join(profile, "pluginrc"), encoding="utf-8", errors="replace").read()
    except OSError:
        return ""
    start = rc.find("(plug-in-def ")
    while start >= 0:
        end = rc.find("(plug-in-def ", start + 1)
        block = rc[start:end if end >= 0 else len(rc)]
        if '"%s"' % PROC in block:
            return block
        start = end
    return ""


class Checker:
    def __init__(self):
        self.failed = 0

    def check(self, ok, what):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            self.failed += 1
        return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gimp", choices=["2", "3"], required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--locale-dir", help="required for --check label")
    p.add_argument("--po", help="required for --check label")
    p.add_argument("--lang", default="de")
    p.add_argument("--layout", choices=["folder", "data-folder"], default="folder")
    p.add_argument("--icons-dir")
    p.add_argument("--check", choices=["label", "icon"], default="label")
    p.add_argument("--workdir", required=True)
    args = p.parse_args()

    exe = "gimp-console-2.10" if args.gimp == "2" else "gimp-console-3.0"
    if not shutil.which(exe):
        print("SKIP: %s is not installed" % exe)
        return SKIP
    args.workdir = os.path.abspath(args.workdir)
    os.makedirs(args.workdir, exist_ok=True)
    for f in ("ready.txt", "result.json"):
        if os.path.exists(os.path.join(args.workdir, f)):
            os.remove(os.path.join(args.workdir, f))

    chk = Checker()
    if args.check == "label":
        if not args.po or not args.locale_dir:
            p.error("--check label needs --po and --locale-dir")
        po = read_po(args.po)
        want = {k: po.get(k) for k in (LABEL, BLURB, EMPTY_SELECTION)}
        for k, v in want.items():
            chk.check(v is not None and v != k, "%s translates %r: %r" % (args.po, k, v))
        if chk.failed:
            return 1
    elif not args.icons_dir:
        p.error("--check icon needs --icons-dir")

    profile, data = make_profile(args)
    log = run_gimp(args, profile, os.path.join(args.workdir, "gimp.log"))
    rc_def = plugin_def(profile)
    chk.check(rc_def != "", "GIMP registered %s (pluginrc; log: %s)"
              % (PROC, os.path.join(args.workdir, "gimp.log")))

    if args.check == "icon":
        m = re.search(r'\(icon image-file -?\d+ "((?:[^"\\]|\\.)*)"\)', rc_def)
        chk.check(m is not None, "pluginrc has an image-file icon for %s" % PROC)
        if m:
            path = m.group(1)
            path = path[len("file://"):] if path.startswith("file://") else path
            chk.check(os.path.isfile(path) and path.startswith(os.path.join(data, "icons")),
                      "the icon %s is one of the installed icons in %s"
                      % (path, os.path.join(data, "icons")))
        return 1 if chk.failed else 0

    if args.gimp == "3":
        try:
            res = json.load(open(os.path.join(args.workdir, "result.json"), encoding="utf-8"))
        except (OSError, ValueError):
            chk.check(False, "the Python batch command ran (see %s)" % log[-2000:])
            return 1
        chk.check(res["menu_label"] == want[LABEL],
                  "menu label in %s: %r (want %r)" % (args.lang, res["menu_label"], want[LABEL]))
        chk.check(res["blurb"] == want[BLURB],
                  "blurb in %s: %r (want %r)" % (args.lang, res["blurb"], want[BLURB]))
        message = (res.get("error") or "") + " " + (res.get("last_error") or "")
        chk.check(not res["success"] and want[EMPTY_SELECTION] in message,
                  "the plug-in's own error comes back in %s: %r" % (args.lang, message.strip()))
    else:
        m = re.search(r'\(locale-def\s+("(?:[^"\\]|\\.)*")(?:\s+("(?:[^"\\]|\\.)*"))?\)', rc_def)
        chk.check(m is not None, "the plug-in registered a locale domain: %s"
                  % (m.group(0) if m else None))
        label_ok = re.search(r'\n\s*"%s"\n' % re.escape(LABEL), rc_def) is not None
        chk.check(label_ok, "pluginrc holds the untranslated label %r for GIMP to translate"
                  % LABEL)
        if m:
            domain = sexp_strings(m.group(1))[0]
            folder = sexp_strings(m.group(2))[0] if m.group(2) else ""
            folder = folder.replace("${gimp_dir}", profile)
            chk.check(domain == "gpu-histogram", "domain %r is gpu-histogram" % domain)
            chk.check(os.path.isdir(folder) and os.path.realpath(folder).startswith(
                os.path.realpath(data)), "catalogue folder %r is the installed %s/locale"
                % (folder, data))
            try:
                t = gettext.translation(domain, localedir=folder, languages=[args.lang])
                got = t.gettext(LABEL)
                blurb = t.gettext(BLURB)
            except OSError as e:
                got = blurb = "(no catalogue: %s)" % e
            chk.check(got == want[LABEL], "menu label GIMP shows in %s: %r (want %r)"
                      % (args.lang, got, want[LABEL]))
            chk.check(blurb == want[BLURB], "blurb in %s: %r" % (args.lang, blurb))
        chk.check(os.path.exists(os.path.join(args.workdir, "ready.txt")),
                  "the Script-Fu ran up to the plug-in call")
        chk.check(want[EMPTY_SELECTION] in log,
                  "the plug-in's own error comes back in %s (%r in GIMP's output)"
                  % (args.lang, want[EMPTY_SELECTION]))
    if chk.failed:
        print("--- GIMP's output (end) ---\n" + log[-3000:])
    return 1 if chk.failed else 0


if __name__ == "__main__":
    sys.exit(main())
