# The main node of rml run / parse --normalized / rml-check: --main, else the '// main:'
# header, else the file's only node without static parameters; otherwise a located error
# listing the candidates. Misspelt names get suggestions from the user's file first.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(WRITE ${WORK}/one.rml "node movavg(x: real) -> (o: real)\n  o = (x + (0.0 fby x)) / 2.0;\n")
file(WRITE ${WORK}/x.csv "x\n1\n2\n4\n")
# One node: it is the main, for run, parse --normalized and rml-check.
expect_exit(0 ${RML} run ${WORK}/one.rml --inputs ${WORK}/x.csv --format csv)
expect_text(OUT "^x,o\n")
expect_exit(0 ${RML} parse --normalized ${WORK}/one.rml)
expect_text(OUT "^node movavg\\(")
expect_exit(0 ${RMLCHECK} ${WORK}/one.rml)
expect_text(OUT "node movavg")

# A generic node (static parameter) is not a candidate: the other one is the main.
file(WRITE ${WORK}/generic.rml "node scale(const k: int, x: real) -> (o: real)\n  o = x * real(k);\nnode top(x: real) -> (o: real)\n  o = scale(2, x);\n")
expect_exit(0 ${RML} run ${WORK}/generic.rml --inputs ${WORK}/x.csv --format csv)
expect_text(OUT "^x,o\n")

# Two candidates: exit 2, located at the first, a note at each other, and what to write.
file(WRITE ${WORK}/two.rml "node a(x: real) -> (o: real)\n  o = x;\nnode b(x: real) -> (o: real)\n  o = a(x) + x;\n")
expect_exit(2 ${RML} run ${WORK}/two.rml --inputs ${WORK}/x.csv)
expect_text(ERR "two.rml:1:6: error\\[main.ambiguous\\]: 2 nodes of this file can be the main node \\(a, b\\): choose one with --main NODE")
expect_text(ERR "two.rml:3:6: note: candidate 'b'")
expect_text(ERR "\\^")
# ... which --main or the header settles.
expect_exit(0 ${RML} run ${WORK}/two.rml --main b --inputs ${WORK}/x.csv)
file(WRITE ${WORK}/two_header.rml "// main: b\nnode a(x: real) -> (o: real)\n  o = x;\nnode b(x: real) -> (o: real)\n  o = a(x) + x;\n")
expect_exit(0 ${RML} run ${WORK}/two_header.rml --inputs ${WORK}/x.csv --format csv)

# No candidate at all.
file(WRITE ${WORK}/none.rml "node scale(const k: int, x: real) -> (o: real)\n  o = x * real(k);\n")
expect_exit(2 ${RML} run ${WORK}/none.rml --inputs ${WORK}/x.csv)
expect_text(ERR "none.rml:1:6: error\\[main.none\\]: no node of this file can be a main: scale has static parameters")
file(WRITE ${WORK}/empty.rml "const k: int = 3;\n")
expect_exit(2 ${RML} run ${WORK}/empty.rml --inputs ${WORK}/x.csv)
expect_text(ERR "error\\[main.none\\]: the file declares no node to run")

# --main naming no node: the file's nodes and the nearest, for every command with --main.
expect_exit(2 ${RML} run ${WORK}/one.rml --main movag --inputs ${WORK}/x.csv)
expect_text(ERR "error\\[main.unknown\\]: --main movag: no node 'movag' in .*one.rml \\(its nodes: movavg\\)")
expect_text(ERR "one.rml:1:6: note: did you mean 'movavg'\\?")
expect_exit(2 ${RML} parse --normalized --main movag ${WORK}/one.rml)
expect_text(ERR "error\\[main.unknown\\]")
expect_exit(2 ${RMLCHECK} --main movag ${WORK}/one.rml)
expect_text(ERR "error\\[main.unknown\\]")

# Suggestions: the user's names first. 'dotz' is one edit from the user's 'dots' and from
# the prelude's 'dot'; the user's wins (variables: 'xs' in scope).
file(WRITE ${WORK}/near.rml "fun dots(a: real[3]) : real = sumOuter(a);\nnode f(xs: real[3]) -> (o: real)\n  o = dotz(xz);\n")
expect_exit(2 ${RML} parse ${WORK}/near.rml)
expect_text(ERR "near.rml:3:7: error\\[name.unknown\\]: unknown node or function 'dotz' \\(did you mean 'dots'\\?\\)")
expect_text(ERR "near.rml:3:12: error\\[name.unknown\\]: unknown variable 'xz' \\(did you mean 'xs'\\?\\)")
# Without a near user name, the prelude's is suggested.
file(WRITE ${WORK}/prelude_near.rml "node f(a: real[3]) -> (o: real)\n  o = dott(a, a);\n")
expect_exit(2 ${RML} parse ${WORK}/prelude_near.rml)
expect_text(ERR "unknown node or function 'dott' \\(did you mean 'dot'\\?\\)")
# rml grad --fun: the same order.
file(WRITE ${WORK}/funs.rml "fun dots(a: real[3]) : real = sumOuter(a);\n")
expect_exit(2 ${RML} grad ${WORK}/funs.rml --fun dotz)
expect_text(ERR "error\\[grad.unknown-fun\\]")
expect_text(ERR "funs.rml:1:5: note: did you mean 'dots'\\?")

# rml-check --json: an unknown --main is a JSON error object (stdout stays JSON).
expect_exit(2 ${RMLCHECK} --json --main movag ${WORK}/one.rml)
expect_text(OUT "^{\n  \"diagnostics\": \\[\n")
expect_text(OUT "\"rule\": \"main.unknown\"")
