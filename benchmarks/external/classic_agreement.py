#!/usr/bin/env python3
# Verdicts of rml-check on the classic single-property model-checking benchmarks of bools
# and integers (Kind 2's benchmark collection: DRAGON, FIREFLY, MESI, PRODUCER_CONSUMER,
# ...; one `--%PROPERTY` and `--%MAIN` per file). A file whose name holds `_e<digit>` is a
# seeded error (falsifiable, though a few mutants are equivalent: car_3_e8_33_e2_1010
# computes `pre(speed) - 1 + 1`); the others are valid. The industrial models' variants
# (Mode_Logic__105) take the label the collection's table gives `Mode_Logic.kind__105`
# (Kind 2 and JKind: valid). The suite is not copied here.
# Usage: classic_agreement.py RML_CHECK DIR [--every K [--offset J]] [--rlimit N | --timeout S]
# --every K measures every K-th file in name order (a fixed sample), starting with the
# J-th (0 by default: another J gives a disjoint sample of the same size). Prints, per expected
# verdict, decided / unknown / opposite / not read, the opposite ones by name (expected
# where ints are 64-bit in rml and unbounded in Kind 2), and the wall time per file
# against the budget; writes classic_rows.tsv.
import collections, csv, json, os, subprocess, sys, time
R, ROOT = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
every, offset = 1, 0
if args[:1] == ["--every"]:
    every, args = int(args[1]), args[2:]
if args[:1] == ["--offset"]:
    offset, args = int(args[1]), args[2:]
budget = args or ["--timeout", "10"]
T = float(budget[1]) if budget[0] == "--timeout" else None
files = sorted(f for f in os.listdir(ROOT) if f.endswith(".lus"))[offset::every]
# The collection's root is the folder above kind2_models/.
table = os.path.join(ROOT.split("/kind2_models")[0], "stats", "benchmarks_combined.csv")
labels = {}
with open(table, encoding="utf-8-sig") as fh:
    for row in csv.reader(fh):
        seen = {v for v in row[1:13:3] if v in ("Valid", "Invalid")}
        if row and len(seen) == 1:
            labels[row[0]] = "valid" if seen == {"Valid"} else "falsified"
out = collections.Counter(); rows = []; opposite = []; worst = 0.0
for f in files:
    want = labels.get(f) or labels.get(f.replace("__", ".kind__", 1), "unlabelled")
    t0 = time.time()
    try:
        r = subprocess.run([R, os.path.join(ROOT, f), "--json", "--no-cex-files"] + budget,
                           capture_output=True, text=True, timeout=(3 * T + 60) if T else 900)
        wall = time.time() - t0
    except subprocess.TimeoutExpired:
        wall = time.time() - t0; got = "killed"
    else:
        if r.returncode == 2: got = "not read"
        else:
            try:
                j = json.loads(r.stdout)
                vs = [p["verdict"] for rep in j.get("reports", []) for p in rep.get("properties", []) if p["kind"] == "property"]
                got = "none" if not vs else "falsified" if "falsified" in vs else "valid" if all(v == "valid" for v in vs) else "unknown"
            except Exception:
                got = "bad json"
    worst = max(worst, wall)
    kind = got if want == "unlabelled" else "decided" if got == want else "opposite" if got in ("valid", "falsified") else got
    if kind == "opposite": opposite.append(f)
    if T is not None and wall > 1.1 * T + 1: out[(want, "over 1.1T+1 s")] += 1
    out[(want, kind)] += 1
    rows.append((f, want, got, "%.2f" % wall))
for k, n in sorted(out.items()): print(k, n)
print("files", len(files), "worst wall %.1f s" % worst)
for f in opposite: print("opposite:", f)
with open("classic_rows.tsv", "w") as fh:
    for row in rows: fh.write("\t".join(row) + "\n")
