#!/usr/bin/env python3
"""Decided share and time per property of rml-check on the real-valued specification
properties of tests/check/values (their headers give the exact expected verdicts).

    benchmarks/values_decided.py [--rml-check PATH] [--rlimit N]

Prints one line per property (file, text, expected, got, seconds of its file's check
divided evenly among its properties, Z3 resource units) and the totals: decided share,
wrong verdicts (must be 0), and the time of the whole suite."""
import argparse, glob, json, os, re, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
ap = argparse.ArgumentParser()
ap.add_argument("--rml-check", default=os.path.join(root, "build", "src", "rml-check"))
ap.add_argument("--rlimit", type=int, default=None)
a = ap.parse_args()
total = decided = wrong = 0
t_all = time.time()
for f in sorted(glob.glob(os.path.join(root, "tests", "check", "values", "*.rml"))):
    text = open(f).read()
    main = re.search(r"// main: (\S+)", text).group(1)
    want = re.search(r"// properties:([a-z ]+)", text).group(1).split()
    cmd = [a.rml_check, f, "--main", main, "--json", "--no-cex-files"]
    if a.rlimit: cmd += ["--rlimit", str(a.rlimit)]
    t0 = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.time() - t0
    props = [p for r in json.loads(out.stdout)["reports"] for p in r["properties"] if p["kind"] == "property"]
    for p, w in zip(props, want):
        total += 1
        got = p["verdict"]
        decided += got != "unknown"
        bad = got != "unknown" and got != w
        wrong += bad
        print(f"{os.path.basename(f):32} {p['name'][:40]:40} want {w:9} got {got:9} {dt / len(props):6.2f} s {p['resources']:>10} units{'  WRONG' if bad else ''}")
print(f"decided {decided}/{total} ({100.0 * decided / total:.0f}%), wrong {wrong}, suite {time.time() - t_all:.1f} s")
sys.exit(1 if wrong else 0)
