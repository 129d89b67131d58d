#!/usr/bin/env python3
"""Sanity-check the `// expect-error: LINE:COL RULE` headers of the diag tests.

For every expectation, checks the rule is a §8 tag of semantics/grammar.md, that the
position lies inside the program (after the header) and in source order, and prints the
token found at LINE:COL so a reader can confirm it is the intended offending token.
Usage: check_headers.py [DIR]   (default: this script's directory)
"""
import glob, os, re, sys

TOK = re.compile(r"\(\*@?|/\*|--@|[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]*)?|[A-Za-z_][A-Za-z0-9_']*"
                 r"|->|=>|<=|>=|<>|!=|==|.")
RULES = set("""lex.char lex.comment lex.number lex.limit lex.string parse.expected parse.limit
syntax.unsupported name.unknown name.duplicate name.undefined name.redefined
name.input-defined arity.args arity.outputs type.mismatch type.missing type.not-bool
type.not-numeric type.tuple shape.mismatch shape.rank shape.index static.not-static
static.eval static.undetermined static.kind fun.stream-op fun.lambda-position
fun.recursive node.recursive node.function-stateful reset.not-node clock.cycle clock.merge type.record
type.recursive type.array name.empty type.match""".split())
HDR = re.compile(r"^// expect-error: (\d+):(\d+) (\S+)$")

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
errors = 0
files = sorted(glob.glob(os.path.join(d, "*.rml")))
for fn in files:
    lines = open(fn, encoding="utf-8").read().split("\n")
    exps = []
    for ln in lines:
        m = HDR.match(ln)
        if not m:
            break
        exps.append((int(m[1]), int(m[2]), m[3]))
    prev = (0, 0)
    name = os.path.basename(fn)
    if not exps:
        print("%s: no expect-error header" % name); errors += 1
    for (l, c, r) in exps:
        problems = []
        if r not in RULES: problems.append("unknown rule")
        if (l, c) <= prev: problems.append("not in source order")
        if l <= len(exps) or l > len(lines) or not (1 <= c <= len(lines[l - 1])):
            problems.append("position outside the program")
            tok = None
        else:
            tok = TOK.match(lines[l - 1], c - 1).group(0)
        prev = (l, c)
        errors += bool(problems)
        print("%-45s %4d:%-4d %-23s %r %s" % (name, l, c, r, tok, "; ".join(problems)))
print("%d files, %d problems" % (len(files), errors))
sys.exit(1 if errors else 0)
