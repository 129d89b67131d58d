# Counterexamples of rml-check are written as trace files by default (./rml-cex), each
# next to the command that replays it, and every replay fails (exit 1) as the verdict
# does: ‖ for clocks, --require-true for a user property, --require-known for a cell that
# stays unknown (productivity) or an output that is nil (initialisation).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# replay(DIR CODE): runs the replay command of the last rml-check output in DIR.
function(replay dir code)
  if(NOT LAST_OUT MATCHES "\n  replay: rml run ([^\n]+)\n")
    message(FATAL_ERROR "no replay command:\n${LAST_OUT}")
  endif()
  separate_arguments(args UNIX_COMMAND "${CMAKE_MATCH_1}")
  expect_exit_in(${dir} ${code} ${RML} run ${args})
  set(LAST_OUT "${LAST_OUT}" PARENT_SCOPE)
  set(LAST_ERR "${LAST_ERR}" PARENT_SCOPE)
  set(LAST_REPLAY "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

# Clocks: the trace goes to ./rml-cex; the replay shows the error value.
set(d ${WORK}/clocks)
file(MAKE_DIRECTORY ${d})
expect_exit_in(${d} 1 ${RMLCHECK} ${SRC}/tests/check/ko/01_add_sampled.rml)
expect_text(OUT "  replay: rml run [^ ]+ --main main --inputs rml-cex/main.clocks.1.csv --cycles 1")
if(NOT EXISTS ${d}/rml-cex/main.clocks.1.csv)
  message(FATAL_ERROR "no trace in ./rml-cex:\n${LAST_OUT}")
endif()
replay(${d} 1)
expect_text(ERR "error value at cycle 0")

# Clocks, a declaration broken without ‖: the replay reports it located (clock.declared)
# and exits 1 like an error value.
set(d ${WORK}/declared)
file(MAKE_DIRECTORY ${d})
expect_exit_in(${d} 1 ${RMLCHECK} ${SRC}/tests/check/ko/73_declared_output_clock_broken.rml)
expect_text(OUT "counterexample: 'x' is absent at cycle 0, where its declared clock \\(base\\) ticks \\[clock.declared")
replay(${d} 1)
expect_text(ERR "73_declared_output_clock_broken.rml:22:29: error\\[clock.declared\\]: 'x' is absent at cycle 0, where its declared clock \\(base\\) ticks\n 22 \\| node main")
if(LAST_ERR MATCHES "error value")
  message(FATAL_ERROR "a declaration broken is not an error value:\n${LAST_ERR}")
endif()

# A user property: --require-true names the property's variable at the failing cycle.
set(d ${WORK}/property)
file(MAKE_DIRECTORY ${d})
expect_exit_in(${d} 1 ${RMLCHECK} ${SRC}/examples/sat.lus)
expect_text(OUT "--require-true t14@0\n")
replay(${d} 1)
expect_text(ERR "error\\[run.false\\]: 't14' at cycle 0 is false, but --require-true asks for true")
# Negative control: the same replay without the flag exits 0 (rml run checks no property).
string(REPLACE " --require-true t14@0" "" plain "${LAST_REPLAY}")
separate_arguments(args UNIX_COMMAND "${plain}")
expect_exit_in(${d} 0 ${RML} run ${args})

# Initialisation: the output is nil at cycle 0; --require-known fails on nil.
set(d ${WORK}/init)
file(MAKE_DIRECTORY ${d})
file(WRITE ${d}/pre.rml "node n(x: int) -> (o: int)\n  o = pre x;\n")
expect_exit_in(${d} 1 ${RMLCHECK} pre.rml)
expect_text(OUT "initialisation: falsified")
expect_text(OUT "--require-known o@0\n")
replay(${d} 1)
expect_text(ERR "error\\[run.nil\\]: 'o' at cycle 0 is nil")

# Productivity: the cell that stays unknown.
set(d ${WORK}/productivity)
file(MAKE_DIRECTORY ${d})
expect_exit_in(${d} 1 ${RMLCHECK} ${SRC}/reference/paper/fig15_pcounter.rml --main pcounter)
expect_text(OUT "--require-known o@[0-9]+\n")
replay(${d} 1)
expect_text(ERR "error\\[run.unknown\\]")

# --require-true and --require-known on each kind of cell (x > 0 at cycles 0..3 of
# x = 1, 0, _, 2 on the clock c = T, T, F, T; pre at cycle 0 is nil).
set(d ${WORK}/cells)
file(MAKE_DIRECTORY ${d})
file(WRITE ${d}/p.rml "node p(c: bool, x: int when c) -> (o: bool when c; q: bool when c)\n  o = x > 0;\n  q = pre o;\n")
file(WRITE ${d}/p.csv "c,x\nT,1\nT,0\nF,_\nT,2\n")
expect_exit_in(${d} 0 ${RML} run p.rml --inputs p.csv --require-true o@0,o@3,q@1 --require-known o@1,q@1)
expect_exit_in(${d} 1 ${RML} run p.rml --inputs p.csv --require-true o@1)
expect_text(ERR "error\\[run.false\\]: 'o' at cycle 1 is false")
expect_exit_in(${d} 1 ${RML} run p.rml --inputs p.csv --require-true o@2)
expect_text(ERR "error\\[run.false\\]: 'o' at cycle 2 is absent")
expect_exit_in(${d} 1 ${RML} run p.rml --inputs p.csv --require-true q@0)
expect_text(ERR "error\\[run.nil\\]: 'q' at cycle 0 is nil")
expect_exit_in(${d} 1 ${RML} run p.rml --inputs p.csv --require-known q@0)
expect_text(ERR "error\\[run.nil\\]")
expect_exit_in(${d} 1 ${RML} run p.rml --inputs p.csv --cycles 6 --require-true o@5)
expect_text(ERR "error\\[run.false\\]: 'o' at cycle 5 is unknown|error\\[run.unknown\\]: 'o' at cycle 5 is unknown")
expect_exit_in(${d} 1 ${RML} run p.rml --inputs p.csv --require-true o@4)
expect_text(ERR "past the run's 4 cycles")
expect_exit_in(${d} 2 ${RML} run p.rml --inputs p.csv --require-true o)
expect_text(ERR "--require-true: expected VAR@CYCLE")

# --no-cex-files: the trace inline, no folder; with --cex-dir it is a usage error.
set(d ${WORK}/inline)
file(MAKE_DIRECTORY ${d})
expect_exit_in(${d} 1 ${RMLCHECK} ${SRC}/tests/check/ko/01_add_sampled.rml --no-cex-files)
expect_text(OUT "--inputs <this trace> --cycles 1\n  trace \\(CSV; save it and pass it with --inputs\\):\n    x,c\n    0,F\n")
if(EXISTS ${d}/rml-cex)
  message(FATAL_ERROR "--no-cex-files made ./rml-cex")
endif()
expect_exit_in(${d} 2 ${RMLCHECK} ${SRC}/tests/check/ko/01_add_sampled.rml --no-cex-files --cex-dir x)

# A program with no counterexample makes no folder.
expect_exit_in(${d} 0 ${RMLCHECK} ${SRC}/reference/paper/fig07_counter.rml)
if(EXISTS ${d}/rml-cex)
  message(FATAL_ERROR "a valid check made ./rml-cex")
endif()

# The default folder cannot be made (a file of that name): said, the trace inline, and
# the exit code stays the verdict's.
set(d ${WORK}/blocked)
file(MAKE_DIRECTORY ${d})
file(WRITE ${d}/rml-cex "not a folder\n")
expect_exit_in(${d} 1 ${RMLCHECK} ${SRC}/tests/check/ko/01_add_sampled.rml)
expect_text(ERR "rml-check: error: cannot make the folder 'rml-cex' for counterexample traces")
expect_text(OUT "trace \\(CSV; save it and pass it with --inputs\\):\n    x,c\n    0,F\n")

# JSON: the trace file and the replay command.
set(d ${WORK}/json)
file(MAKE_DIRECTORY ${d})
expect_exit_in(${d} 1 ${RMLCHECK} ${SRC}/examples/sat.lus --json)
expect_text(OUT "\"trace_file\": \"rml-cex/sat.property.1.csv\"")
expect_text(OUT "\"replay\": \"rml run [^\"]+ --require-true t14@0\"")
