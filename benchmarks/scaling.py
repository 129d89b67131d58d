#!/usr/bin/env python3
"""How each stage's cost grows with the program: generated programs of N equations through
parse, elaboration, rml-check, rml run (the oracle and --backend stream) and rml compile,
each a whole process timed on the wall clock with its peak memory; then the scaling
exponent of each stage (the slope of log time against log N between successive sizes,
and a least-squares fit over every size measured at least 0.05 s).

  benchmarks/scaling.py BUILD/src [--sizes 1000,3000,10000,30000,100000]
                        [--family chain|calls] [--cycles 1000] [--timeout 300] [--json FILE]

Families:
  chain  `v_k = 0.5 * v_{k-1} + (0.0 fby v_{k-1})`: bench_stream's chain, N / 4 lines
         (each line elaborates to about four equations: a constant, two applications, a fby);
  calls  a node of three equations called N / 5 times in a chain of instances (elaboration
         inlines each instance: names, frames and renaming per call).
A stage that runs past --timeout is reported as such (and the larger sizes of that stage are
skipped); one that fails prints its error. Timing assertions belong nowhere: this script
reports figures, it does not judge them.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time


def chain(n_eq):
    lines = max(2, n_eq // 4)
    out = ["node chain(x: real) -> (o: real)", "  v0 = x;"]
    for k in range(1, lines):
        out.append(f"  v{k} = 0.5 * v{k - 1} + (0.0 fby v{k - 1});")
    out.append(f"  o = v{lines - 1};")
    return "\n".join(out) + "\n", "chain"


def calls(n_eq):
    n = max(2, n_eq // 5)
    out = ["node cell(a: real) -> (b: real)", "  m = 0.0 fby a;", "  b = 0.5 * a + m;", "",
           "node chain(x: real) -> (o: real)", "  v0 = x;"]
    for k in range(1, n):
        out.append(f"  v{k} = cell(v{k - 1});")
    out.append(f"  o = v{n - 1};")
    return "\n".join(out) + "\n", "chain"


FAMILIES = {"chain": chain, "calls": calls}


def stages(bin_dir, src, main, trace, out_dir):
    rml, check = os.path.join(bin_dir, "rml"), os.path.join(bin_dir, "rml-check")
    return [
        ("front end", [check, src, "--main", main, "--frontend-only"]),
        ("elaborate", [rml, "parse", src, "--normalized"]),
        ("rml-check", [check, src, "--main", main, "--no-cex-files"]),
        ("run (oracle)", [rml, "run", src, "--main", main, "--inputs", trace, "--format", "csv", "--show", "o", "-q"]),
        ("run (stream)", [rml, "run", src, "--main", main, "--inputs", trace, "--format", "csv", "--show", "o",
                          "--backend", "stream", "-q"]),
        ("compile", [rml, "compile", src, "--main", main, "-o", out_dir, "--force", "-q"]),
    ]


def timed(cmd, timeout):
    """Wall seconds and peak resident KiB of one process (GNU time), or why it did not end well."""
    wrapped = ["/usr/bin/time", "-f", "%e %M", "-o", "/dev/stderr"] + cmd
    start = time.perf_counter()
    try:
        p = subprocess.run(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"over {timeout} s"
    wall = time.perf_counter() - start
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    try:
        _, kib = last.split()
        kib = int(kib)
    except ValueError:
        kib = None
    if p.returncode != 0:
        return wall, kib, "exit %d: %s" % (p.returncode, " | ".join(p.stderr.strip().splitlines()[-4:-1])[:300])
    return wall, kib, None


def slope(points):
    pts = [(math.log(n), math.log(t)) for n, t in points if t >= 0.05]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin_dir", help="the folder holding rml and rml-check (BUILD/src)")
    ap.add_argument("--sizes", default="1000,3000,10000,30000,100000")
    ap.add_argument("--family", choices=sorted(FAMILIES), default="chain")
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--stages", default="", help="comma-separated stage names to run (default: all)")
    ap.add_argument("--json", help="write every figure to this file as JSON")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    work = tempfile.mkdtemp(prefix="rml-scaling-")
    trace = os.path.join(work, "trace.csv")
    with open(trace, "w") as f:
        f.write("x\n" + "".join(f"{k % 7}.0\n" for k in range(a.cycles)))
    rows, gave_up = [], set()
    print(f"family {a.family}, {a.cycles} cycles, timeout {a.timeout:g} s; wall seconds (peak MiB)")
    for n in sizes:
        text, main_node = FAMILIES[a.family](n)
        src = os.path.join(work, f"{a.family}_{n}.rml")
        with open(src, "w") as f:
            f.write(text)
        for name, cmd in stages(a.bin_dir, src, main_node, trace, os.path.join(work, f"gen_{n}")):
            if a.stages and name not in a.stages.split(","):
                continue
            if name in gave_up:
                rows.append({"n": n, "stage": name, "skipped": True})
                print(f"  N={n:>7} {name:<13} skipped (a smaller size ran past the timeout)")
                continue
            wall, kib, err = timed(cmd, a.timeout)
            rows.append({"n": n, "stage": name, "seconds": wall, "peak_kib": kib, "error": err})
            mib = f"{kib / 1024:.0f}" if kib else "?"
            shown = f"{wall:8.2f} s ({mib:>5} MiB)" if wall is not None else "        -"
            print(f"  N={n:>7} {name:<13} {shown}" + (f"  {err}" if err else ""), flush=True)
            if err and err.startswith("over"):
                gave_up.add(name)
    print("\nscaling exponents (d log t / d log N between successive sizes; fit over sizes >= 0.05 s):")
    by_stage = {}
    for r in rows:
        if r.get("seconds") is not None and not r.get("error"):
            by_stage.setdefault(r["stage"], []).append((r["n"], r["seconds"]))
    for stage, pts in by_stage.items():
        steps = []
        for (n0, t0), (n1, t1) in zip(pts, pts[1:]):
            steps.append(f"{math.log(t1 / t0) / math.log(n1 / n0):.2f}" if t0 > 0 and t1 > 0 else "?")
        fit = slope(pts)
        print(f"  {stage:<13} " + " ".join(steps) + (f"   fit {fit:.2f}" if fit is not None else ""))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"family": a.family, "cycles": a.cycles, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
