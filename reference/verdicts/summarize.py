#!/usr/bin/env python3
"""Summarise `rml run --all --format csv` output (one row per cycle).

usage: summarize.py RUN.csv VAR[,VAR...]
Prints the number of cells that are unknown (?) or error (‖) over all variables, and for
each VAR one letter per cycle: v = value, _ = absent, ? = unknown, ‖ = error.
"""
import csv, sys

rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
bad, first = 0, {}
for n, r in enumerate(body):
    for j, c in enumerate(r):
        if c.strip() == '?' or '‖' in c:
            bad += 1
            first.setdefault(head[j], n)
print("cycles", len(body), "cells unknown/error:", bad, "vars affected:", len(first))
for v in sys.argv[2].split(','):
    j = head.index(v)
    def k(c):
        c = c.strip()
        return '?' if c == '?' else '‖' if '‖' in c else '_' if c == '_' else 'v'
    print(v, ' '.join(k(r[j]) for r in body))
