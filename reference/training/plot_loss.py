#!/usr/bin/env python3
"""plot_loss.py CSV COLUMN [--window K] [--title T] > loss.svg

Draws a loss curve as SVG: the column COLUMN of a chronogram written by
`rml run ... --format csv`, averaged over consecutive windows of K cycles (default 1),
on a log scale. Unknown (`?`) and absent (`_`) cells are skipped. Python 3 standard
library only. Bad input: a message on stderr, exit 1; bad usage: 2.
"""
import csv
import math
import sys


def main(argv):
    args = argv[1:]
    window, title = 1, ""
    try:
        if "--window" in args:
            k = args.index("--window")
            window = int(args[k + 1])
            del args[k:k + 2]
        if "--title" in args:
            k = args.index("--title")
            title = args[k + 1]
            del args[k:k + 2]
    except (IndexError, ValueError):
        print(__doc__, file=sys.stderr)
        return 2
    if len(args) != 2 or window < 1:
        print(__doc__, file=sys.stderr)
        return 2
    path, column = args
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"plot_loss: {path}: {e.strerror}", file=sys.stderr)
        return 1
    if not rows or column not in rows[0]:
        print(f"plot_loss: {path}: no column '{column}'", file=sys.stderr)
        return 1
    vals = []
    for r in rows:
        try:
            vals.append(float(r[column]))
        except ValueError:
            continue
    pts = [sum(vals[k:k + window]) / len(vals[k:k + window]) for k in range(0, len(vals), window)]
    pts = [p for p in pts if p > 0 and math.isfinite(p)]
    if len(pts) < 2:
        print(f"plot_loss: {path}: fewer than two positive values in '{column}'", file=sys.stderr)
        return 1
    W, H, L, R, T, B = 640, 360, 70, 20, 40, 50
    lo, hi = math.floor(math.log10(min(pts))), math.ceil(math.log10(max(pts)))
    hi = max(hi, lo + 1)
    x = lambda i: L + (W - L - R) * i / (len(pts) - 1)
    y = lambda v: T + (H - T - B) * (hi - math.log10(v)) / (hi - lo)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{escape(title or column)}</text>']
    for e in range(lo, hi + 1):
        out.append(f'<line x1="{L}" y1="{y(10 ** e):.1f}" x2="{W - R}" y2="{y(10 ** e):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y(10 ** e) + 4:.1f}" text-anchor="end">1e{e}</text>')
    out.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>')
    out.append(f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>')
    # x ticks: about six round cycle numbers (a point k stands for cycles k*window ..).
    last = (len(pts) - 1) * window
    step = nice_step(last / 6) if last > 0 else 1
    for c in range(0, last + 1, step):
        xc = x(c / window)
        out.append(f'<line x1="{xc:.1f}" y1="{H - B}" x2="{xc:.1f}" y2="{H - B + 5}" stroke="black"/>')
        out.append(f'<text x="{xc:.1f}" y="{H - B + 18}" text-anchor="middle">{c}</text>')
    unit = "cycle" if window == 1 else f"cycle (mean over windows of {window} cycles)"
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 8}" text-anchor="middle">{unit}</text>')
    out.append(f'<text transform="translate(16,{(T + H - B) / 2}) rotate(-90)" text-anchor="middle">'
               f'{escape(column)} (log scale)</text>')
    poly = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(pts))
    out.append(f'<polyline points="{poly}" fill="none" stroke="#c0392b" stroke-width="1.5"/>')
    out.append("</svg>")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def nice_step(raw):
    """The smallest of 1, 2, 5 times a power of ten that is at least raw (at least 1)."""
    if raw <= 1:
        return 1
    p = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * p >= raw:
            return int(m * p)
    return int(10 * p)


def escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
