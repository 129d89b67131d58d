# Progress on standard error for the commands that can run long. The period of the plain
# lines is set to 0 here (RML_PROGRESS_EVERY), so that every update is printed whatever
# the machine's speed; --quiet prints none; stdout is never touched; rml-check --json
# keeps them out of its report.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(EVERY ${CMAKE_COMMAND} -E env RML_PROGRESS_EVERY=0)
file(MAKE_DIRECTORY ${WORK})

# rml gen: programs written so far.
expect_exit(0 ${EVERY} ${RML} gen --seed 3 --count 2 --without post -o ${WORK}/gen)
expect_text(ERR "rml gen: 0/2 programs written\nrml gen: 1/2 programs written\n")
expect_no_text(OUT "programs written")
expect_exit(0 ${EVERY} ${RML} gen --seed 3 --count 2 --without post -o ${WORK}/gen --quiet)
expect_no_text(ERR "programs written")

# rml diff: programs compared, and the rate.
expect_exit(0 ${EVERY} ${RML} diff --seed 3 --count 2 --without post --backend kleene -o ${WORK}/diff)
expect_text(ERR "rml diff: 1/2 programs, 0 failed \\([0-9.]+ programs/s\\)\n")
expect_exit(0 ${EVERY} ${RML} diff --seed 3 --count 2 --without post --backend kleene -o ${WORK}/diff -q)
expect_no_text(ERR "programs, 0 failed")

# rml-check: the property being checked, per node.
expect_exit(1 ${EVERY} ${RMLCHECK} ${SRC}/examples/sat.lus --no-cex-files)
foreach(what causality productivity clocks initialisation "property 1 of [0-9]+: 'y <= 5 and y >= 0'")
  expect_text(ERR "rml-check: node sat: ${what} \\([0-9]+ s\\)\n")
endforeach()
# With several nodes, how many are done.
expect_exit(1 ${EVERY} ${RMLCHECK} ${SRC}/tests/cli/properties_in_other_nodes.lus --no-cex-files)
expect_text(ERR "rml-check: 0/[0-9]+ nodes checked; node [a-z_]+: causality \\([0-9]+ s\\)\n")
expect_text(ERR "rml-check: 1/[0-9]+ nodes checked; node [a-z_]+: causality \\([0-9]+ s\\)\n")
expect_exit(1 ${EVERY} ${RMLCHECK} ${SRC}/examples/sat.lus --no-cex-files --quiet)
expect_no_text(ERR "rml-check: node")
expect_exit(1 ${EVERY} ${RMLCHECK} ${SRC}/examples/sat.lus --json)
expect_no_text(OUT "node sat: causality")
expect_no_text(ERR "node sat: causality")

# rml compile and rml run --backend stream: the proof of the node first.
expect_exit(0 ${EVERY} ${RML} compile ${SRC}/examples/backfill.rml -o ${WORK}/compiled)
expect_text(ERR "rml: proving 'backfill' before it can be compiled: productivity \\([0-9]+ s\\)\n")
expect_exit(0 ${EVERY} ${RML} compile ${SRC}/examples/backfill.rml -o ${WORK}/compiled -q)
expect_no_text(ERR "proving")

# rml run: cycles computed (every 1024), by the oracle and by the stream backend.
set(lines "i,bp\n")
foreach(n RANGE 1 2100)
  string(APPEND lines "${n},T\n")
endforeach()
file(WRITE ${WORK}/long.csv "${lines}")
expect_exit(0 ${EVERY} ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/long.csv --format csv)
expect_text(ERR "rml run: 1024/2100 cycles computed\nrml run: 2048/2100 cycles computed\n")
expect_no_text(OUT "cycles computed")
expect_exit(0 ${EVERY} ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/long.csv --format csv --backend stream)
expect_text(ERR "rml: proving 'backfill' before it can run on the stream path: initialisation \\([0-9]+ s\\)\n")
expect_text(ERR "rml run: 1024 cycles read\nrml run: 2048 cycles read\n")
expect_exit(0 ${EVERY} ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/long.csv --format csv --quiet)
expect_no_text(ERR "cycles computed")
