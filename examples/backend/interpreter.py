#!/usr/bin/env python3
"""An example back end for `rml diff` (docs/backend-protocol.md): an interpreter of
R(ML)^2 written in Python, independent of rml's own oracle.

    interpreter.py RML PROGRAM INPUTS MAIN

It reads PROGRAM (rml or Lustre text, as rml diff writes it) through
`rml parse --normalized`, which leaves one flat node with one primitive per equation
(node instances inlined, `every` made explicit), and INPUTS (the CSV trace). It prints
the main node's outputs as a CSV chronogram on standard output and exits 0; a program or
trace it cannot read makes it print why on standard error and exit 2.

It handles the scalar programs `rml gen --without tensors,funs` draws: bool, int (64-bit,
wrapping) and real (IEEE double) streams; constants, `not`, unary `-`, `+ - * /`, `and or
xor =>`, comparisons, `if`, `when`/`when not`, `merge`, `fby`, `->`, `pre` and `post`.

The semantics is computed as a least fixed point over the whole trace: a cell (a
variable at a cycle) is unknown until its operands are known, and sweeps over all
cells repeat until none changes. `post x` at a cycle is x at the next cycle where x is
present, so a cell may wait on a later one; a `post` that reads past the end of the
trace stays unknown and is printed `?` (rml diff compares no cell the oracle leaves
unknown, and the oracle leaves exactly these).
"""
import math
import re
import subprocess
import sys

UNKNOWN = object()  # not computed (yet)
ABSENT = object()   # the variable's clock does not tick at this cycle
NIL = object()      # `pre x` at the first tick: no value (never reaches an accepted output)


def fail(msg):
    sys.stderr.write("interpreter.py: " + msg + "\n")
    sys.exit(2)


def wrap(i):  # rml's ints are 64-bit two's complement
    return (i + (1 << 63)) % (1 << 64) - (1 << 63)


def parse_decl(text):
    """'x: real when c when not b' -> (name, type, [(clock var, polarity), ...])"""
    m = re.fullmatch(r"\s*(\w+)\s*:\s*(\w+)((?:\s+when\s+(?:not\s+)?\w+)*)\s*", text)
    if not m:
        fail("cannot read the declaration '%s'" % text.strip())
    clock = [(v, not neg) for neg, v in re.findall(r"when\s+(not\s+)?(\w+)", m.group(3))]
    return m.group(1), m.group(2), clock


def read_program(rml, program, main):
    run = subprocess.run([rml, "parse", "--normalized", "--main", main, program], capture_output=True, text=True)
    if run.returncode != 0:
        fail("rml parse --normalized refused the program:\n" + run.stderr)
    text = run.stdout
    head = re.search(r"node\s+\w+\s*\((.*?)\)\s*(?:->|returns)\s*\((.*?)\)", text, re.S)
    if not head:
        fail("no node header in the normalized program")
    split = lambda s: [d for d in s.split(",") if d.strip()]
    decls = {}
    inputs = [parse_decl(d) for d in split(head.group(1))]
    outputs = [parse_decl(d) for d in split(head.group(2))]
    for name, ty, clock in inputs + outputs:
        decls[name] = (ty, clock)
    body = text[head.end():]
    var = re.search(r"\bvar\b(.*?)\blet\b", body, re.S)
    if var:
        for d in var.group(1).split(";"):
            if d.strip():
                name, ty, clock = parse_decl(d)
                decls[name] = (ty, clock)
    let = re.search(r"\blet\b(.*)\btel\b", body, re.S)
    if not let:
        fail("no let ... tel in the normalized program")
    eqs = []
    for stmt in let.group(1).split(";"):
        stmt = stmt.strip()
        if not stmt or stmt.startswith(("assume", "check", "guarantee", "assert", "--")):
            continue
        lhs, rhs = stmt.split("=", 1)
        eqs.append((lhs.strip(), parse_rhs(rhs.strip())))
    return [n for n, _, _ in inputs], [n for n, _, _ in outputs], decls, eqs


BINARY = ["<=", ">=", "<>", "=>", "<", ">", "=", "+", "-", "*", "/", "and", "or", "xor"]


def atom(s):
    s = s.strip()
    if s in ("true", "false"):
        return ("const", s == "true")
    if re.fullmatch(r"-?\d+", s):
        return ("const", wrap(int(s)))
    if re.fullmatch(r"-?(\d+\.\d*|\d*\.\d+)([eE][-+]?\d+)?|-?\d+[eE][-+]?\d+", s):
        return ("const", float(s))
    if re.fullmatch(r"\w+", s):
        return ("var", s)
    fail("cannot read the operand '%s'" % s)


def parse_rhs(s):
    """One primitive of the normalized form, over variables and constants."""
    toks = s.split()
    if toks[0] == "if" and "then" in toks and "else" in toks:
        t, e = toks.index("then"), toks.index("else")
        return ("if", atom(" ".join(toks[1:t])), atom(" ".join(toks[t + 1:e])), atom(" ".join(toks[e + 1:])))
    if toks[0] == "merge" and len(toks) == 4:
        return ("merge", atom(toks[1]), atom(toks[2]), atom(toks[3]))
    if toks[0] in ("pre", "post", "not") and len(toks) == 2:
        return (toks[0], atom(toks[1]))
    if len(toks) == 1 and toks[0].startswith("-") and not re.fullmatch(r"-[\d.eE+-]+", toks[0]):
        return ("neg", atom(toks[0][1:]))
    if len(toks) == 3 and toks[1] == "when":
        return ("when", atom(toks[0]), atom(toks[2]), True)
    if len(toks) == 4 and toks[1] == "when" and toks[2] == "not":
        return ("when", atom(toks[0]), atom(toks[3]), False)
    if len(toks) == 3 and toks[1] in ("fby", "->"):
        return (toks[1], atom(toks[0]), atom(toks[2]))
    if len(toks) == 3 and toks[1] in BINARY:
        return ("bin", toks[1], atom(toks[0]), atom(toks[2]))
    if len(toks) == 1:
        return ("copy", atom(toks[0]))
    fail("cannot read the equation's right-hand side '%s' (a primitive this example does not handle)" % s)


def read_cell(text, ty):
    text = text.strip()
    if text == "_":
        return ABSENT
    if ty == "bool":
        if text in ("T", "true"):
            return True
        if text in ("F", "false"):
            return False
    elif ty == "int" and re.fullmatch(r"-?\d+", text):
        return wrap(int(text))
    elif ty == "real":
        try:
            return float(text)
        except ValueError:
            pass
    fail("cannot read the trace cell '%s' as %s" % (text, ty))


def read_trace(path, inputs, decls):
    rows = [l.rstrip("\r\n") for l in open(path) if l.strip() and not l.lstrip().startswith("#")]
    if not rows:
        fail("the trace is empty")
    header = [h.strip() for h in rows[0].split(",")]
    streams = {}
    for name in inputs:
        if name not in header:
            fail("the trace has no column '%s'" % name)
        col = header.index(name)
        streams[name] = [read_cell(r.split(",")[col], decls[name][0]) for r in rows[1:]]
    return streams, len(rows) - 1


def apply_binary(op, a, b):
    if op == "+": r = a + b
    elif op == "-": r = a - b
    elif op == "*": r = a * b
    elif op == "/":
        if not isinstance(a, float):
            fail("integer division is not handled by this example")
        if b != 0:
            r = a / b
        elif a == 0 or a != a:  # IEEE: 0/0 and nan/0 are nan, x/±0 is ±inf
            r = math.nan
        else:
            r = math.copysign(math.inf, a) * math.copysign(1.0, b)
    elif op == "and": r = a and b
    elif op == "or": r = a or b
    elif op == "xor": r = a != b
    elif op == "=>": r = (not a) or b
    elif op == "=": r = a == b
    elif op == "<>": r = a != b
    elif op == "<": r = a < b
    elif op == "<=": r = a <= b
    elif op == ">": r = a > b
    elif op == ">=": r = a >= b
    return wrap(r) if isinstance(r, int) and not isinstance(r, bool) else r


def run(rml, program, inputs_path, main):
    inputs, outputs, decls, eqs = read_program(rml, program, main)
    streams, cycles = read_trace(inputs_path, inputs, decls)
    for lhs, _ in eqs:
        streams[lhs] = [UNKNOWN] * cycles
    for name in decls:
        if name not in streams:
            fail("'%s' is declared but has no equation" % name)

    def present(name, n):
        """True, False, or UNKNOWN while a clock variable's cell is."""
        for var, polarity in decls[name][1]:
            v = streams[var][n]
            if v is UNKNOWN:
                return UNKNOWN
            if v is ABSENT or v is NIL or v != polarity:
                return False
        return True

    def value(a, n):
        return a[1] if a[0] == "const" else streams[a[1]][n]

    def neighbour(name, n, step):
        """The previous (step -1) or next (+1) cycle where `name`'s clock ticks: a cycle,
        None if there is none, UNKNOWN while a clock between is."""
        m = n + step
        while 0 <= m < cycles:
            p = present(name, m)
            if p is UNKNOWN:
                return UNKNOWN
            if p:
                return m
            m += step
        return None

    def compute(lhs, rhs, n):
        p = present(lhs, n)
        if p is UNKNOWN or not p:
            return UNKNOWN if p is UNKNOWN else ABSENT
        kind = rhs[0]
        if kind in ("fby", "->", "pre"):
            prev = neighbour(lhs, n, -1)
            if prev is UNKNOWN:
                return UNKNOWN
            if prev is None:  # the first tick
                return NIL if kind == "pre" else value(rhs[1], n)
            return value(rhs[1] if kind == "pre" else rhs[2], prev) if kind != "->" else value(rhs[2], n)
        if kind == "post":
            nxt = neighbour(lhs, n, +1)
            if nxt is UNKNOWN or nxt is None:  # past the trace's end: unknown for good
                return UNKNOWN
            return value(rhs[1], nxt)
        if kind == "merge":
            c = value(rhs[1], n)
            if c is UNKNOWN or c is NIL:
                return c
            return value(rhs[2] if c else rhs[3], n)
        if kind == "if":
            c = value(rhs[1], n)
            if c is UNKNOWN or c is NIL:
                return c
            return value(rhs[2] if c else rhs[3], n)
        args = [value(a, n) for a in rhs[1:] if isinstance(a, tuple)]
        if any(a is UNKNOWN for a in args):
            return UNKNOWN
        if any(a is NIL for a in args):
            return NIL
        if kind in ("copy", "when"):
            return args[0]
        if kind == "not":
            return not args[0]
        if kind == "neg":
            return -args[0] if isinstance(args[0], float) else wrap(-args[0])
        if kind == "bin":
            return apply_binary(rhs[1], args[0], args[1])
        fail("unknown primitive " + kind)

    changed = True
    while changed:  # each sweep fills in what its operands allow; stops at the fixed point
        changed = False
        for order in (range(cycles), range(cycles - 1, -1, -1)):
            for n in order:
                for lhs, rhs in eqs:
                    if streams[lhs][n] is UNKNOWN:
                        v = compute(lhs, rhs, n)
                        if v is not UNKNOWN:
                            streams[lhs][n] = v
                            changed = True

    def show(v):
        if v is UNKNOWN:
            return "?"
        if v is ABSENT:
            return "_"
        if v is NIL:
            return "nil"
        if isinstance(v, bool):
            return "T" if v else "F"
        return repr(v) if isinstance(v, float) else str(v)

    out = [",".join(outputs)]
    for n in range(cycles):
        out.append(",".join(show(streams[o][n]) for o in outputs))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        fail("usage: interpreter.py RML PROGRAM INPUTS MAIN")
    run(*sys.argv[1:5])
