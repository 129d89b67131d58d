# rml run --show takes the names `rml parse --normalized` prints for inlined instances
# (movavg_1_x1), or the elaborator's own (movavg$1.x1); the output labels them the
# printed way; an unknown name is an error (exit 2) listing the nearest names.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(WRITE ${WORK}/m.rml "node movavg(x: real) -> (o: real)\nvar x1: real;\nlet\n  x1 = 0.0 fby x;\n  o = (x + x1) / 2.0;\ntel\nnode top(a: real) -> (o: real)\n  o = movavg(movavg(a));\n")
file(WRITE ${WORK}/a.csv "a\n1\n2\n4\n")
expect_exit(0 ${RML} parse --normalized --main top ${WORK}/m.rml)
expect_text(OUT "  movavg_1_x1: real;")
expect_exit(0 ${RML} run ${WORK}/m.rml --main top --inputs ${WORK}/a.csv --show movavg_1_x1,o --format csv)
expect_equal(OUT "movavg_1_x1,o\n0.0,0.25\n0.5,1.0\n1.5,2.25\n")
expect_exit(0 ${RML} run ${WORK}/m.rml --main top --inputs ${WORK}/a.csv --show "movavg$1.x1" --format csv)
expect_equal(OUT "movavg_1_x1\n0.0\n0.5\n1.5\n")
# --all labels every variable as the normalized program names it.
expect_exit(0 ${RML} run ${WORK}/m.rml --main top --inputs ${WORK}/a.csv --all --format csv)
expect_text(OUT "^a,o,movavg_2_t1,movavg_2_x1,")
expect_no_text(OUT "[$]")
# Unknown: exit 2 before running, with the nearest names.
expect_exit(2 ${RML} run ${WORK}/m.rml --main top --inputs ${WORK}/a.csv --show movavg_1_x2)
expect_text(ERR "m.rml: error\\[run.show\\]: --show movavg_1_x2: no variable 'movavg_1_x2' in the elaborated 'top'; near names: movavg_1_x1, ")
expect_exit(2 ${RML} run ${WORK}/m.rml --main top --inputs ${WORK}/a.csv --show zzz)
expect_text(ERR "no variable 'zzz' in the elaborated 'top' \\(rml run --all")
