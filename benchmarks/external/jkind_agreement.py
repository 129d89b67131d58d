#!/usr/bin/env python3
# Agreement of rml-check's property verdicts with the expected results that JKind's
# `testing/*.lus` files state in their header ("-- VALID PROPERTIES: [a, b]",
# "-- INVALID PROPERTIES: [c]"; the suite is not copied here).
# Usage: jkind_agreement.py RML_CHECK JKIND_CHECKOUT [--rlimit N | --timeout S]
# A JKind property `--%PROPERTY p;` names a variable, so rml-check's property text is the
# name. Prints, over the labelled properties of the files rml reads: decided, unknown,
# wrong (a verdict opposite to the label: must be 0); per file the wall time (with
# --timeout, how far past 1.1 T + 1 s it went). Writes one row per property to
# jkind_rows.tsv.
import json, os, re, subprocess, sys, time, collections

R, ROOT = sys.argv[1], sys.argv[2]
budget = sys.argv[3:] or ["--rlimit", "20000000"]
T = float(budget[1]) if budget[0] == "--timeout" else None


def names(text, label):
    m = re.search(r"--\s*" + label + r" PROPERTIES:\s*\[([^\]]*)\]", text, re.S)
    # A label may carry the depth JKind needs: "prop1 (k = 14)" names prop1.
    return [] if not m else [re.sub(r"\(.*?\)", "", n).strip() for n in re.sub(r"--", " ", m.group(1)).split(",") if n.strip()]


count = collections.Counter()
rows, over = [], []
d = os.path.join(ROOT, "testing")
for f in sorted(x for x in os.listdir(d) if x.endswith(".lus")):
    text = open(os.path.join(d, f), errors="replace").read()
    want = {n: "valid" for n in names(text, "VALID")}
    want.update({n: "falsified" for n in names(text, "INVALID")})
    if not want:
        continue
    t = time.time()
    try:
        r = subprocess.run([R, os.path.join(d, f), "--json", "--no-cex-files"] + budget, capture_output=True, text=True,
                           timeout=(10 * T + 60) if T else 300)
        rc, out = r.returncode, r.stdout
    except subprocess.TimeoutExpired:
        rc, out = "killed", ""
    dt = time.time() - t
    if T and dt > 1.1 * T + 1:
        over.append((f, round(dt, 1)))
    if rc == 2:
        count["file not read"] += 1
        continue
    got = {}
    try:
        for rep in json.loads(out).get("reports", []):
            for p in rep["properties"]:
                if p["kind"] == "property":
                    got.setdefault(p["name"], p["verdict"])
    except (ValueError, KeyError):
        pass
    for n, w in want.items():
        v = got.get(n, "missing")
        k = "decided" if v == w else "wrong" if v in ("valid", "falsified") else v
        count[(w, k)] += 1
        rows.append((f, n, w, v, f"{dt:.1f}"))
    print(f"{dt:7.1f}s rc={rc} {f}", flush=True)

for k, n in sorted(count.items(), key=str):
    print(k, n)
if T:
    print(f"over 1.1*T+1 s: {len(over)}", sorted(over, key=lambda x: -x[1]))
with open("jkind_rows.tsv", "w") as fh:
    for r in rows:
        fh.write("\t".join(r) + "\n")
