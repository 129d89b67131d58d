# rml run and the main node's `assume` clauses: a trace that breaks one runs, with a
# warning at the assumption (file:line:col, caret, rule run.assume) naming the cycle;
# --strict-assume makes it an error and exit 1. The oracle evaluates the condition.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(WRITE ${WORK}/b.rml "node backfill(i: int, bp: bool) -> (o: int)\n  assume always eventually bp within 2;\n  assume always i >= 0;\n  o = merge bp (i when bp) ((post o) when not bp);\n")
# Keeps both: no warning.
file(WRITE ${WORK}/ok.csv "i,bp\n2,F\n6,T\n8,F\n5,T\n")
expect_exit(0 ${RML} run ${WORK}/b.rml --inputs ${WORK}/ok.csv --strict-assume)
expect_no_text(ERR "run.assume")
# bp false at cycles 0..2 (a window of 3 cycles), i < 0 at cycles 2 and 4.
file(WRITE ${WORK}/bad.csv "i,bp\n2,F\n6,F\n-8,F\n5,T\n-1,F\n4,T\n")
expect_exit(0 ${RML} run ${WORK}/b.rml --inputs ${WORK}/bad.csv)
expect_text(ERR "b.rml:2:3: warning\\[run.assume\\]: the input trace breaks 'assume always eventually bp within 2': the condition does not hold at any of the 3 cycles 0..2 \\(the run continues; --strict-assume makes this an error\\)")
expect_text(ERR "b.rml:3:3: warning\\[run.assume\\]: the input trace breaks 'assume always i >= 0': the condition is false at cycle 2 \\(and 1 other cycle\\)")
expect_text(ERR " 3 \\|   assume always i >= 0;\n   \\|   \\^~~~")
expect_exit(1 ${RML} run ${WORK}/b.rml --inputs ${WORK}/bad.csv --strict-assume)
expect_text(ERR "b.rml:2:3: error\\[run.assume\\]")
expect_text(ERR "b.rml:3:3: error\\[run.assume\\]")
# A window that does not fit in the prefix is not judged (2 cycles < within 2 + 1).
file(WRITE ${WORK}/short.csv "i,bp\n1,F\n2,F\n")
expect_exit(0 ${RML} run ${WORK}/b.rml --inputs ${WORK}/short.csv --strict-assume)
expect_no_text(ERR "run.assume")
