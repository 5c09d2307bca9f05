#!/usr/bin/env python3
"""A/B runs of one rewrite across two warpsmith builds, on the same GPU in the same run.

    python3 bench/gpu/stash_variants.py save  --glob 'regdem-*' --to /tmp/old   (old build's cases)
    ... rebuild warpsmith, rerun bench/gpu/prepare.py ...
    python3 bench/gpu/stash_variants.py merge --from /tmp/old --suffix unsched

`save` copies every variant file matching --glob of every case under bench/gpu/cases (and the
variant names) to a folder; `merge` adds each saved variant back to the case of the same name as
`<variant>-<suffix>` (file copied beside the new ones, entry added to case.json), where the case
still has the variant itself — so h100_run.sh times both builds' variants against the same
reference, and compares both against ptxas alone's bytes. A saved variant whose case no longer
has it is reported and skipped. The saved variants were proved on the emulator when their case
was prepared; merge does not prove them again.
"""
import argparse
import fnmatch
import json
import os
import shutil
import sys

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")


def case_files(root):
    for dirpath, _, files in os.walk(root):
        if "case.json" in files:
            yield dirpath


def save(pattern, dest):
    n = 0
    for d in case_files(CASES):
        meta = json.load(open(os.path.join(d, "case.json")))
        keep = {v: f for v, f in meta.get("variants", {}).items() if fnmatch.fnmatch(v, pattern)}
        if not keep:
            continue
        out = os.path.join(dest, os.path.relpath(d, CASES))
        os.makedirs(out, exist_ok=True)
        for f in keep.values():
            shutil.copy2(os.path.join(d, f), os.path.join(out, f))
        with open(os.path.join(out, "saved.json"), "w") as fh:
            json.dump(keep, fh, indent=1)
        n += len(keep)
    print("saved %d variant files to %s" % (n, dest))


def merge(src, suffix):
    added = skipped = 0
    for dirpath, _, files in os.walk(src):
        if "saved.json" not in files:
            continue
        rel = os.path.relpath(dirpath, src)
        case = os.path.join(CASES, rel)
        meta_path = os.path.join(case, "case.json")
        if not os.path.exists(meta_path):
            print("%s: no such case now, skipped" % rel, file=sys.stderr)
            skipped += 1
            continue
        meta = json.load(open(meta_path))
        saved = json.load(open(os.path.join(dirpath, "saved.json")))
        for v, f in saved.items():
            if v not in meta["variants"]:
                print("%s: %s is not a variant of the new case, skipped" % (rel, v), file=sys.stderr)
                skipped += 1
                continue
            base, ext = os.path.splitext(f)
            name = "%s-%s%s" % (base, suffix, ext)
            shutil.copy2(os.path.join(dirpath, f), os.path.join(case, name))
            meta["variants"]["%s-%s" % (v, suffix)] = name
            added += 1
        with open(meta_path, "w") as fh:
            json.dump(meta, fh, indent=1)
    print("merged %d saved variants (%d skipped)" % (added, skipped))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save")
    s.add_argument("--glob", required=True)
    s.add_argument("--to", required=True)
    m = sub.add_parser("merge")
    m.add_argument("--from", dest="src", required=True)
    m.add_argument("--suffix", required=True)
    a = ap.parse_args()
    if a.cmd == "save":
        save(a.glob, a.to)
    else:
        merge(a.src, a.suffix)


if __name__ == "__main__":
    main()
