#!/usr/bin/env python3
# How much of the Lustre people write rml reads.
# Usage: lustre_reach.py RML_CHECK SUITES_DIR [--rows rows.tsv]
# SUITES_DIR holds checkouts named as fetched: kind2-mc+kind2, loonwerks+jkind,
# INRIA+velus, adrieng+heptagon (any may be missing). Nothing of them is copied here.
#
# Labels (the suites' own, as their test drivers use them):
#   Kind 2  good: tests/regression/{success,falsifiable}, tests/machine_integers,
#                 tests/lustre/typechecking/shouldPass
#           bad:  tests/regression/error, tests/lustre/typechecking/shouldFail,
#                 tests/lustre/syntax-errors
#   JKind   good: every .lus under testing/
#   Vélus   good: tests/ok_*, benchs/, examples/      bad: tests/ko_*
#   Heptagon good: test/good/, examples/              bad: test/bad/
# A good file goes through `rml-check FILE --frontend-only` (lexing, parsing, names, types,
# elaboration) and is "read" on exit 0. A bad file goes through the whole `rml-check FILE`
# (clocks, causality, productivity too: most bad files of the suites are causality or
# clock errors) and is "rejected" on exit 1 or 2 (falsified, or a front-end error; counted
# apart when the error is that rml cannot read it: parse, lex, syntax.unsupported); exit 3
# (unknown) is not a rejection. For good files not read, the first diagnostic's rule is
# counted, so the table says what blocks them.
import collections, os, re, subprocess, sys

RML = sys.argv[1]
ROOT = sys.argv[2]
ROWS = sys.argv[sys.argv.index("--rows") + 1] if "--rows" in sys.argv else None

def files(repo, sub, pred=lambda f: True, exts=(".lus",)):
    base = os.path.join(ROOT, repo, sub)
    if not os.path.isdir(base):
        return []
    out = []
    for d, _, fs in os.walk(base):
        for f in fs:
            if f.endswith(exts) and pred(f):
                out.append(os.path.join(d, f))
    return sorted(out)

def top(repo, sub, pred=lambda f: True, exts=(".lus",)):
    base = os.path.join(ROOT, repo, sub)
    if not os.path.isdir(base):
        return []
    return sorted(os.path.join(base, f) for f in os.listdir(base)
                  if f.endswith(exts) and pred(f) and os.path.isfile(os.path.join(base, f)))

K, J, V, H = "kind2-mc+kind2", "loonwerks+jkind", "INRIA+velus", "adrieng+heptagon"
ept = (".ept", ".lus")
suites = [
    ("Kind 2", "good", top(K, "tests/regression/success") + top(K, "tests/regression/falsifiable")
        + files(K, "tests/machine_integers") + top(K, "tests/lustre/typechecking/shouldPass")),
    ("Kind 2", "bad", top(K, "tests/regression/error") + top(K, "tests/lustre/typechecking/shouldFail")
        + top(K, "tests/lustre/syntax-errors")),
    ("JKind", "good", files(J, "testing")),
    ("Vélus", "good", top(V, "tests", lambda f: f.startswith("ok_"), ept) + files(V, "benchs", exts=ept)
        + files(V, "examples", exts=ept)),
    ("Vélus", "bad", top(V, "tests", lambda f: f.startswith("ko_"), ept)),
    ("Heptagon", "good", files(H, "test/good", exts=ept) + files(H, "examples", exts=ept)),
    ("Heptagon", "bad", files(H, "test/bad", exts=ept)),
]

# Constructs found by a regular expression on the text (comments removed): those of the
# Lustre V6 core rml targets, and those specific to one tool. A good file is
# "core" when it has none of the tool-specific ones; the goal is measured on those.
CORE = {
    "type declaration": r"\btype\b",
    "array T^n / iterators": r"\^|\b(map|red|fill|mapfold)\s*<<",
    "static parameters <<n>>": r"<<",
    "subrange": r"\bsubrange\b",
    "condact": r"\bcondact\b",
    "current": r"\bcurrent\b",
    "#": r"#\s*\(",
    "include": r"\binclude\b",
    "imported / unsafe / extern node": r"\b(imported|unsafe|extern)\b",
    "struct / record": r"\bstruct\b|\{[^}]*:",
}
TOOL = {
    "Kind 2 contract / annotation": r"\(\*@|--@|\bcontract\b|\bguarantee\b|\bassume\b|\bmode\b",
    "Kind 2 datatype / any / choose / frame / check \"..\"": r"\bdatatype\b|\bany\b|\bchoose\b|\bframe\b|check\s*\"|\breachable\b|\bactivate\b|\bprovided\b",
    "machine integers / bit vectors": r"\bu?int(8|16|32|64)\b|\bu?int\s*<",
    "abstract map types / sets": r"\bmap\s*[<\[]|\bset\s*<",
    "Kind 2 refinement types (subtype)": r"\bsubtype\b|\{\s*\w+\s*:[^|}]*\|",
    "Kind 2 polymorphism / ADTs": r"@\s*<|\b(node|function)\s+\w+\s*<\s*\w+\s*>|'\(",
    "quantifiers": r"\bforall\b|\bexists\b",
    "Kind 2 array definitions y[i] = ...": r"(?m)^\s*\w+\s*\[\s*[a-z]\w*\s*\](\s*\[\s*[a-z]\w*\s*\])*\s*=[^=]",
    "automata / switch / last / present / match": r"\bautomaton\b|\bswitch\b|\blast\b|\bpresent\b|\bmatch\b|\bstate\s+[A-Z]",
    "reset block / do..done": r"\breset\b[^;]*\n[^e]*\bevery\b|\bdo\b[\s\S]*\bdone\b",
    "Heptagon float ops (+. *.)": r"[-+*/<>=]\.",
    "Kind 2 merge(c; a; b)": r"\bmerge\s*\([^)]*;",
}
def strip_comments(t):
    t = re.sub(r"\(\*(?!@)[\s\S]*?\*\)", " ", t)
    t = re.sub(r"/\*[\s\S]*?\*/", " ", t)
    return re.sub(r"--(?![@%!]).*", " ", t)
def features(path):
    try:
        t = strip_comments(open(path, errors="replace").read())
    except OSError:
        return set(), set()
    return ({k for k, r in CORE.items() if re.search(r, t)}, {k for k, r in TOOL.items() if re.search(r, t)})

core_files = core_read = 0
core_blockers = collections.Counter()
core_features_unread = collections.Counter()
tool_features = collections.Counter()

rule_re = re.compile(r"error\[([a-z0-9_.-]+)\]: (.*)")
table = collections.OrderedDict()
blockers = collections.Counter()
rejected_how = collections.Counter()
rows = []
for suite, label, fs in suites:
    n = ok = 0
    for f in fs:
        n += 1
        try:
            args = [RML, f, "--frontend-only"] if label == "good" else [RML, f, "--timeout", "10"]
            r = subprocess.run(args, capture_output=True, text=True, timeout=120, errors="replace")
            code = r.returncode
            err = r.stderr
        except subprocess.TimeoutExpired:
            code, err = "timeout", ""
        m = rule_re.search(err)
        rule = m.group(1) if m else ("timeout" if code == "timeout" else (f"exit {code}" if code else ""))
        msg = m.group(2)[:90] if m else err.strip().splitlines()[-1][:90] if err.strip() else ""
        if label == "good":
            core, tool = features(f)
            for k in tool:
                tool_features[k] += 1
            if not tool:
                core_files += 1
                if code == 0:
                    core_read += 1
                else:
                    core_blockers[(rule, msg)] += 1
                    for k in core:
                        core_features_unread[k] += 1
            if code == 0:
                ok += 1
            else:
                blockers[(rule, re.sub(r"'[^']*'", "'…'", msg))] += 1
        elif code in (1, 2):
            ok += 1
            # Rejected for a rule the file breaks, or only because rml cannot read it.
            why = "not read" if re.match(r"(parse\.|lex\.|syntax\.unsupported)", rule) else \
                  "by the checker" if code == 1 else "by a front-end rule"
            rejected_how[(suite, why)] += 1
        rows.append((suite, label, os.path.relpath(f, ROOT), str(code), rule, msg))
    table[(suite, label)] = (ok, n)

print("| suite | label | files | read (good) / rejected (bad) |")
print("|---|---|---|---|")
tg = tn = bg = bn = 0
for (suite, label), (ok, n) in table.items():
    print(f"| {suite} | {label} | {n} | {ok} ({100 * ok / max(n, 1):.0f}%) |")
    if label == "good":
        tg += ok; tn += n
    else:
        bg += ok; bn += n
print(f"| all | good | {tn} | {tg} ({100 * tg / max(tn, 1):.0f}%) |")
print(f"| all | bad | {bn} | {bg} ({100 * bg / max(bn, 1):.0f}%) |")
print()
print("Bad files rejected, by how (a front-end rule or the checker: for a reason of the file's;")
print("not read: a construct rml does not know, which is no verdict on the file):")
for (suite, why), c in sorted(rejected_how.items()):
    print(f"{c:5d}  {suite}: {why}")
print()
print(f"Good files without tool-specific constructs (the Lustre V6 core): {core_files}, "
      f"read {core_read} ({100 * core_read / max(core_files, 1):.0f}%)")
print("Core constructs in those not read (a file counts once per construct):")
for k, c in core_features_unread.most_common():
    print(f"{c:5d}  {k}")
print("Tool-specific constructs in the good files (a file counts once per construct):")
for k, c in tool_features.most_common():
    print(f"{c:5d}  {k}")
print("First diagnostic of the core files not read (most frequent 25):")
for (rule, msg), c in core_blockers.most_common(25):
    print(f"{c:5d}  {rule:22s} {msg}")
print()
print("First diagnostic of the good files not read (most frequent 40):")
for (rule, msg), c in blockers.most_common(40):
    print(f"{c:5d}  {rule:22s} {msg}")
if ROWS:
    with open(ROWS, "w") as fh:
        for r in rows:
            fh.write("\t".join(r) + "\n")
