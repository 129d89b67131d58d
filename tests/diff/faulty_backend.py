#!/usr/bin/env python3
"""A deliberately faulty back end for `rml diff` (tests/diff/README.md).

    faulty_backend.py RML MODE PROGRAM INPUTS MAIN

It elaborates PROGRAM with `rml parse --normalized` (one primitive per equation),
breaks one rule of the language everywhere it is used, and runs the result with
`rml run`, printing the chronogram as CSV on standard output:

    fby-init     `a fby b` starts with b's first value instead of a
    merge-swap   `merge c a b` takes its branches the wrong way round
    post-late    `post a` reads a at the present cycle instead of the next one

Each is a bug a real code generator could have; rml diff must catch it and shrink the
program to a few equations.
"""
import os
import re
import subprocess
import sys
import tempfile

rml, mode, program, inputs, main = sys.argv[1:6]
norm = subprocess.run([rml, "parse", "--normalized", "--main", main, program],
                      capture_output=True, text=True, check=True).stdout

RULES = {
    "fby-init": (r"^(\s*\w+ = )(\S+) fby (\S+);$", r"\1\3 fby \3;"),
    "merge-swap": (r"^(\s*\w+ = merge \S+) (\S+) (\S+);$", r"\1 \3 \2;"),
    "post-late": (r"^(\s*\w+ = )post (\S+);$", r"\1\2;"),
}
pattern, repl = RULES[mode]
broken = re.sub(pattern, repl, norm, flags=re.M)
# A scratch folder removed on the way out: a campaign calls this back end thousands of times.
with tempfile.TemporaryDirectory() as tmp:
    broken_file = os.path.join(tmp, "broken.rml")
    with open(broken_file, "w") as f:
        f.write(broken)
    run = subprocess.run([rml, "run", broken_file, "--main", main, "--inputs", inputs, "--format", "csv"],
                         capture_output=True, text=True)
sys.stdout.write(run.stdout)
# rml run exits 1 when its chronogram holds an error value: the output is still a result.
sys.exit(0 if run.stdout else 2)
