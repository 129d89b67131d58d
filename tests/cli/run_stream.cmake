# rml run --backend stream (src/stream): the same chronogram as the oracle in every format,
# bounded by the window rml-check's horizon gives, and every refusal with its exit code:
# a node rml-check does not accept (2 falsified, 3 unknown), oracle-only options and bad
# traces (2), a trace that breaks the assumption beyond the window (3, the output said
# incomplete).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# The examples, in each format: stdout byte for byte the oracle's.
foreach(ex "backfill;backfill.csv" "backfill;backfill_gap.csv" "movavg;movavg.csv" "sensor;sensor.csv")
  list(GET ex 0 prog)
  list(GET ex 1 trace)
  foreach(fmt table csv json)
    expect_exit(0 ${RML} run ${SRC}/examples/${prog}.rml --inputs ${SRC}/examples/${trace} --format ${fmt})
    set(want "${LAST_OUT}")
    expect_exit(0 ${RML} run ${SRC}/examples/${prog}.rml --inputs ${SRC}/examples/${trace} --format ${fmt} --backend stream)
    expect_equal(OUT "${want}")
    expect_text(ERR "note: stream backend: [0-9]+ cycles, horizon [0-9]+")
  endforeach()
endforeach()
# Post-free scalar nodes run on the clock-directed machine, the others on the runner.
expect_exit(0 ${RML} run ${SRC}/examples/movavg.rml --inputs ${SRC}/examples/movavg.csv --backend stream)
expect_text(ERR "note: stream backend: [0-9]+ cycles, horizon 0, on the clock-directed machine \\([0-9]+ instructions a cycle, no frame held\\)")
expect_exit(0 ${RML} run ${SRC}/examples/backfill.rml --inputs ${SRC}/examples/backfill.csv --backend stream)
expect_text(ERR "at most [0-9]+ frames? held \\(window")
# A trace leaving the clocks at cycle 2 (b absent where a is present): the machine stops,
# the runner replays the trace from its start and writes the rows from cycle 2 on; the
# output is the oracle's, the error value and the warning included.
file(WRITE ${WORK}/two.rml "node two(a: real, b: real) -> (o: real)\n  o = a + (0.5 fby b);\n")
file(WRITE ${WORK}/two.csv "a,b\n1,2\n3,4\n5,_\n7,8\n")
foreach(fmt table csv json)
  expect_exit(1 ${RML} run ${WORK}/two.rml --inputs ${WORK}/two.csv --format ${fmt})
  set(want "${LAST_OUT}")
  if(fmt STREQUAL "csv")
    set(want_csv "${want}")
  endif()
  expect_exit(1 ${RML} run ${WORK}/two.rml --inputs ${WORK}/two.csv --format ${fmt} --backend stream)
  expect_equal(OUT "${want}")
  expect_text(ERR "on the window runtime[^\n]* from cycle 2 \\(the trace leaves the clocks there\\)")
  expect_text(ERR "warning\\[input.clock\\]: input b at cycle 2")
endforeach()
# From standard input (which cannot be read twice): the runner, the same output.
execute_process(COMMAND ${RML} run ${WORK}/two.rml --inputs - --backend stream --format csv
  INPUT_FILE ${WORK}/two.csv RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out STREQUAL "${want_csv}" OR NOT err MATCHES "at most 1 frame held")
  message(FATAL_ERROR "post-free node from stdin: ${rc}\n${out}\n${err}")
endif()

# The gap trace breaks the assumption inside the window: the warning as the oracle's.
expect_exit(0 ${RML} run ${SRC}/examples/backfill.rml --inputs ${SRC}/examples/backfill_gap.csv --backend stream)
expect_text(ERR "backfill.rml:5:3: warning\\[run.assume\\]: the input trace breaks 'assume always eventually bp within 3': the condition does not hold at any of the 4 cycles 0..3")
expect_exit(1 ${RML} run ${SRC}/examples/backfill.rml --inputs ${SRC}/examples/backfill_gap.csv --backend stream --strict-assume)

# A long trace under the assumption: horizon 4, window 10, at most 9 frames held.
set(rows "i,bp\n")
foreach(n RANGE 0 499)
  math(EXPR m "${n} % 4")
  if(m EQUAL 3)
    string(APPEND rows "${n},T\n")
  else()
    string(APPEND rows "${n},F\n")
  endif()
endforeach()
file(WRITE ${WORK}/long.csv "${rows}")
expect_exit(0 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/long.csv --backend stream --format csv)
expect_text(ERR "note: stream backend: 500 cycles, horizon 4, at most [1-9] frames held \\(window 10\\)")
expect_text(OUT "^i,bp,o\n0,F,3\n1,F,3\n2,F,3\n3,T,3\n4,F,7\n")
expect_text(OUT "496,F,499\n497,F,499\n498,F,499\n499,T,499\n$")

# bp false for 12 cycles: beyond the window of 10, the run stops (exit 3) and says the CSV
# above is incomplete; the oracle runs it.
file(WRITE ${WORK}/gap.csv "i,bp\n1,F\n2,F\n3,F\n4,F\n5,F\n6,F\n7,F\n8,F\n9,F\n10,F\n11,F\n12,F\n13,T\n")
expect_exit(3 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/gap.csv --backend stream --format csv)
expect_text(ERR "error\\[stream.window\\]: the stream backend holds 11 cycles, more than its window of 10: 'o' at cycle 0 is still unknown")
expect_text(ERR "the output above is incomplete: it has no cycle")
expect_exit(3 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/gap.csv --backend stream --format json)
expect_text(ERR "\\(the JSON list is not closed\\)")
expect_exit(0 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/gap.csv)

# Nodes rml-check does not accept: falsified is 2, unknown 3.
file(WRITE ${WORK}/loop.rml "node f(x: int) -> (o: int)\n  o = post o;\n")
file(WRITE ${WORK}/x.csv "x\n1\n2\n")
expect_exit(2 ${RML} run ${WORK}/loop.rml --inputs ${WORK}/x.csv --backend stream)
expect_text(ERR "loop.rml: error\\[stream.unchecked\\]: 'f' cannot run on the stream path: productivity is falsified \\(rml-check ")
file(WRITE ${WORK}/clash.rml "node f(x: int, c: bool) -> (o: int)\n  o = x + (x when c);\n")
file(WRITE ${WORK}/xc.csv "x,c\n1,T\n")
expect_exit(2 ${RML} run ${WORK}/clash.rml --inputs ${WORK}/xc.csv --backend stream)
expect_text(ERR "error\\[stream.unchecked\\]: 'f' cannot run on the stream path: clocks is falsified")

# Options of the oracle, --cycles with inputs, bad traces: 2, with the located error.
foreach(opt "--solver;kleene" "--lazy-if" "--strict-when-merge" "--require-known;o@0" "--int-overflow;error")
  expect_exit(2 ${RML} run ${SRC}/examples/backfill.rml --inputs ${SRC}/examples/backfill.csv --backend stream ${opt})
  expect_text(ERR "is an option of the oracle, not of --backend stream")
endforeach()
expect_exit(2 ${RML} run ${SRC}/examples/backfill.rml --inputs ${SRC}/examples/backfill.csv --backend stream --cycles 3)
expect_text(ERR "--cycles with --backend stream is for nodes without inputs")
file(WRITE ${WORK}/cols.csv "i,nope\n1,T\n")
expect_exit(2 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/cols.csv --backend stream)
expect_text(ERR "cols.csv:1:3: error\\[trace.header\\]: 'nope' is not an input of 'backfill'\n 1 \\| i,nope\n   \\|   \\^")
file(WRITE ${WORK}/cell.csv "i,bp\n1,T\n2,X\n")
expect_exit(2 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/cell.csv --backend stream --format csv)
expect_text(ERR "cell.csv:3:3: error\\[trace.cell\\]: input 'bp' \\(bool\\): 'X' is not a bool")
expect_text(ERR "the output above is incomplete")
file(WRITE ${WORK}/unknown.csv "i,bp\n1,T\n?,T\n")
expect_exit(2 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/unknown.csv --backend stream)
expect_text(ERR "error\\[stream.input\\]: the input 'i' is unknown \\(\\?\\) at cycle 1")
# An input absent where its clock ticks: a warning, as in the oracle.
file(WRITE ${WORK}/absent.csv "i,bp\n1,T\n_,T\n3,T\n")
expect_exit(1 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/absent.csv)
set(want "${LAST_OUT}")
expect_exit(1 ${RML} run ${SRC}/examples/backfill.rml --inputs ${WORK}/absent.csv --backend stream)
expect_equal(OUT "${want}")
expect_text(ERR "warning\\[input.clock\\]: input i at cycle 1: absent where its clock base is true")
# Standard input, a directory, an endless file.
execute_process(COMMAND ${RML} run ${SRC}/examples/backfill.rml --inputs - --backend stream --format csv
  INPUT_FILE ${SRC}/examples/backfill.csv RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^i,bp,o\n2,F,8\n")
  message(FATAL_ERROR "stdin trace: ${rc}\n${out}\n${err}")
endif()
expect_exit(2 ${RML} run ${SRC}/examples/backfill.rml --inputs ${SRC}/examples --backend stream)
expect_text(ERR "is a directory")
expect_exit(2 ${RML} run ${SRC}/examples/backfill.rml --inputs /dev/zero --backend stream)
expect_text(ERR "a line longer than 16 MiB")
# A node without inputs: --cycles (default 10).
expect_exit(0 ${RML} run ${SRC}/reference/paper/fig07_counter.rml --cycles 4 --format csv --backend stream)
expect_equal(OUT "o\n0\n1\n2\n3\n")
