#!/usr/bin/env python3
# Agreement of rml-check's user-property verdicts with Kind 2's regression suite.
# Usage: kind2_agreement.py RML_CHECK KIND2_CHECKOUT [--machine-integers] [BUDGET...]
# Reads KIND2_CHECKOUT/tests/regression/{falsifiable,success}/*.lus (top level only; the
# suite is not copied here) -- with --machine-integers, KIND2_CHECKOUT/tests/machine_integers/
# instead, whose file names say the expected result (`...-valid.lus` success,
# `...-invalid.lus` falsifiable) -- picks the main node as Kind 2 does (--%MAIN, else the last
# node), runs rml-check --json and counts, per expected result: not read (front-end exit
# 2), no property in the main node, falsified (some property), valid (all), unknown;
# with --int-overflow error among the budget's options, "valid, overflow not proved" when
# every property is valid but the overflow property is not.
# The budget is passed on to rml-check (default: --timeout 20); the wall time of each
# file is in the rows, and with --timeout the files past 1.1 T + 1 s are counted.
# Writes one row per file to kind2_rows.tsv.
import json, os, re, subprocess, sys, collections, time
R = sys.argv[1]
ROOT = sys.argv[2]  # a checkout of Kind 2: ROOT/tests/regression/{falsifiable,success}
machine = sys.argv[3:4] == ["--machine-integers"]
budget = sys.argv[4 if machine else 3:] or ["--timeout", "20"]
T = float(budget[1]) if budget[0] == "--timeout" else None
out = collections.Counter(); rows = []
def suite():
    if machine:
        folder = f"{ROOT}/tests/machine_integers"
        for f in sorted(x for x in os.listdir(folder) if x.endswith('.lus')):
            label = "falsifiable" if f.endswith("-invalid.lus") else "success" if f.endswith("-valid.lus") else "unlabelled"
            yield label, f, f"{folder}/{f}"
        return
    for d in ["falsifiable", "success"]:
        for f in sorted(x for x in os.listdir(f"{ROOT}/tests/regression/{d}") if x.endswith('.lus')):
            yield d, f, f"{ROOT}/tests/regression/{d}/{f}"
for d, f, p in suite():
    if True:
        text = open(p, errors="replace").read()
        m = re.search(r"--%MAIN", text)
        nodes = re.findall(r"^\s*(?:node|function)\s+(?:imported\s+)?([A-Za-z_][A-Za-z0-9_]*)", text, re.M)
        main = None
        if m:
            # the node whose body holds --%MAIN: the last node header before it
            before = [n for n in re.finditer(r"^\s*(?:node|function)\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.M) if n.start() < m.start()]
            if before: main = before[-1].group(1)
        if main is None and nodes: main = nodes[-1]
        args = [R, p, "--json"] + budget + (["--main", main] if main else [])
        t0 = time.time()
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=(3 * T + 60) if T else 600)
        except subprocess.TimeoutExpired:
            rows.append((d, f, "timeout", "")); out[(d, "timeout")] += 1; continue
        if r.returncode == 2:
            rows.append((d, f, "not read", "")); out[(d, "not read")] += 1; continue
        try:
            j = json.loads(r.stdout)
        except Exception:
            rows.append((d, f, "bad json", r.stderr[:100])); out[(d, "bad json")] += 1; continue
        props = [p for rep in j.get("reports", []) for p in rep["properties"] if p["kind"] == "property"]
        if not props:
            rows.append((d, f, "no property", "")); out[(d, "no property")] += 1; continue
        wall = time.time() - t0
        if T is not None and wall > 1.1 * T + 1: out[(d, "over 1.1T+1 s")] += 1
        vs = [p["verdict"] for p in props]
        if "falsified" in vs: v = "falsified"
        elif all(x == "valid" for x in vs): v = "valid"
        else: v = "unknown"
        # With --int-overflow error in the budget, a proof holds for Kind 2's unbounded ints
        # only if no int overflows (README, "Checking a program"): said apart otherwise.
        ovf = [p["verdict"] for rep in j.get("reports", []) for p in rep["properties"] if p["kind"] == "overflow"]
        if v == "valid" and any(x != "valid" for x in ovf): v = "valid, overflow not proved"
        rows.append((d, f, v, ",".join(vs), "%.2f" % wall)); out[(d, v)] += 1
for k, n in sorted(out.items()): print(k, n)
with open("kind2_rows.tsv", "w") as fh:
    for r in rows: fh.write("\t".join(r) + "\n")
