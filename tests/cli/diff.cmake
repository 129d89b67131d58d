# rml gen and rml diff (issue 14), in parts run as separate tests (PART):
#   gen       generated programs are accepted by rml-check, reproducible from the seed, in both dialects
#   builtin   the oracle's other solver, the compiled and stream paths equal the oracle on generated programs
#   bad       back ends that crash, hang, print malformed output or omit cycles are reported, never "equal";
#             usage errors and a program rml-check does not accept
#   fby-init, merge-swap, post-late
#             a faulty back end (tests/diff/faulty_backend.py) is caught and shrunk to a few equations,
#             and the replay command fails the same way
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

if(PART STREQUAL "gen")
  foreach(dialect rml lustre)
    set(ext rml)
    if(dialect STREQUAL "lustre")
      set(ext lus)
    endif()
    expect_exit(0 ${RML} gen --seed 11 --count 4 --dialect ${dialect} -o ${WORK}/${dialect})
    expect_text(OUT "rml gen: 4 programs \\(seed 11\\)")
    foreach(k 0 1 2 3)
      # Re-read and re-checked by the command users run.
      expect_exit(0 ${RMLCHECK} ${WORK}/${dialect}/prog_${k}.${ext} --main main)
      expect_text(OUT "productivity: valid")
      expect_exit(0 ${RML} run ${WORK}/${dialect}/prog_${k}.${ext} --main main --inputs ${WORK}/${dialect}/prog_${k}.csv --format csv)
    endforeach()
    # The same seed: the same files; another seed: other programs.
    expect_exit(0 ${RML} gen --seed 11 --count 4 --dialect ${dialect} -o ${WORK}/${dialect}_again)
    foreach(k 0 3)
      file(READ ${WORK}/${dialect}/prog_${k}.${ext} a)
      file(READ ${WORK}/${dialect}_again/prog_${k}.${ext} b)
      file(READ ${WORK}/${dialect}/prog_${k}.csv ta)
      file(READ ${WORK}/${dialect}_again/prog_${k}.csv tb)
      if(NOT a STREQUAL b OR NOT ta STREQUAL tb)
        message(FATAL_ERROR "rml gen --seed 11 is not reproducible (prog_${k})")
      endif()
    endforeach()
    expect_exit(0 ${RML} gen --seed 12 --count 1 --dialect ${dialect} -o ${WORK}/${dialect}_other)
    file(READ ${WORK}/${dialect}_other/prog_0.${ext} c)
    file(READ ${WORK}/${dialect}/prog_0.${ext} a)
    if(a STREQUAL c)
      message(FATAL_ERROR "seeds 11 and 12 drew the same program")
    endif()
  endforeach()
  file(READ ${WORK}/lustre/prog_0.lus lus)
  if(NOT lus MATCHES "returns \\(" OR lus MATCHES "post|fby|every")
    message(FATAL_ERROR "the Lustre dialect is not plain Lustre:\n${lus}")
  endif()
  # Features left out are left out.
  expect_exit(0 ${RML} gen --seed 3 --count 8 --without post,clocks,instances -o ${WORK}/plain)
  foreach(k 0 1 2 3 4 5 6 7)
    file(READ ${WORK}/plain/prog_${k}.rml t)
    if(t MATCHES "post|merge|when|acc_")
      message(FATAL_ERROR "--without post,clocks,instances drew one of them:\n${t}")
    endif()
  endforeach()
  expect_exit(0 ${RML} gen --seed 3 --count 1 --print -o ${WORK}/printed)
  expect_text(OUT "node main\\(")
  expect_exit(2 ${RML} gen --without tensors)
  expect_text(ERR "--without: unknown feature 'tensors'")
  expect_exit(2 ${RML} gen --dialect kind2)
  expect_text(ERR "--dialect: expected rml or lustre")

elseif(PART STREQUAL "builtin")
  foreach(b kleene compiled stream)
    expect_exit(0 ${RML} diff --count 3 --seed 2 --backend ${b} -o ${WORK}/${b})
    expect_text(OUT "rml diff: 3 programs, all equal \\([0-9]+ output cells compared")
  endforeach()
  # rml compile's C++ class, built and run (funs are not generated into C++ yet).
  expect_exit(0 ${RML} diff --count 3 --seed 2 --without funs --backend cpp -o ${WORK}/cpp)
  expect_text(OUT "rml diff: 3 programs, all equal")
  expect_exit(0 ${RML} diff --count 4 --seed 5 --dialect lustre --backend worklist -o ${WORK}/lus)
  expect_text(OUT "rml diff: 4 programs, all equal")
  # A given program and trace; the back end writes {outputs}.
  expect_exit(0 ${RML} diff ${SRC}/examples/backfill.rml --inputs ${SRC}/examples/backfill.csv --backend stream -o ${WORK}/given)
  expect_text(OUT "rml diff: 1 program, all equal \\(6 output cells compared, 0 unknown")
  expect_exit(0 ${RML} diff ${SRC}/examples/movavg.rml --inputs ${SRC}/examples/movavg.csv -o ${WORK}/given2
    --backend-cmd "${RML} run {program} --inputs {inputs} --format csv > {outputs}")
  expect_text(OUT "all equal")

elseif(PART STREQUAL "bad")
  set(prog ${SRC}/examples/movavg.rml)
  set(tr ${SRC}/examples/movavg.csv)
  set(ok "${RML} run {program} --main {main} --inputs {inputs} --format csv")
  # The crash is shrunk (a failure of the back end stays one while shrinking); the others
  # are reported as found (a hang would cost a second per candidate).
  function(bad_backend name cmd want)
    set(shrink --no-shrink)
    if(name STREQUAL "crash")
      set(shrink --shrink-time 30)
    endif()
    expect_exit(1 ${RML} diff ${prog} --inputs ${tr} --backend-cmd "${cmd}" --timeout 1 ${shrink} -o ${WORK}/${name})
    expect_text(OUT "${want}")
    expect_no_text(OUT "all equal")
    if(name STREQUAL "crash")  # it crashes on any program: the smallest is left
      expect_text(OUT "shrunk from 3 equations and 5 cycles to [0-9]+ equations and 1 cycles")
    endif()
    if(NOT EXISTS ${WORK}/${name}/cex.rml OR NOT EXISTS ${WORK}/${name}/cex.csv)
      message(FATAL_ERROR "${name}: no counterexample files")
    endif()
  endfunction()
  bad_backend(crash "kill -SEGV $$" "the back end was killed by signal 11")
  bad_backend(status "echo no licence >&2 && exit 3" "the back end exited with status 3: no licence")
  bad_backend(hang "sleep 20" "did not finish within the time limit")
  bad_backend(garbage "printf 'avg\\n1.0\\n2.0,3.0\\n'" "not a chronogram \\(CSV: a header, a row per cycle\\): line 3: 2 cells")
  bad_backend(column "printf 'mean\\n1.0\\n'" "has no column 'avg'")
  bad_backend(short "${ok} | head -n 3" "the back end's output stops after 2 cycles of 5")
  bad_backend(long "${ok} && echo 1.0,2.0" "the back end's output has 6 cycles, the trace 5")
  bad_backend(value "${ok} | sed 's/^6.0,3.0$/6.0,3.5/'" "'avg' at cycle 1: the oracle says 3.0, the back end 3.5")
  # Reals: --ulps and --rel-tol decide, integers are exact.
  set(off "${ok} | sed 's/^6.0,3.0$/6.0,3.0000000000000004/'")
  expect_exit(0 ${RML} diff ${prog} --inputs ${tr} --backend-cmd "${off}" -o ${WORK}/ulp1)
  expect_exit(1 ${RML} diff ${prog} --inputs ${tr} --backend-cmd "${off}" --ulps 0 --no-shrink -o ${WORK}/ulp0)
  expect_text(OUT "'avg' at cycle 1: the oracle says 3.0, the back end 3.0000000000000004")
  set(rel "${ok} | sed 's/^6.0,3.0$/6.0,3.01/'")
  expect_exit(0 ${RML} diff ${prog} --inputs ${tr} --backend-cmd "${rel}" --rel-tol 0.01 -o ${WORK}/rel)
  expect_exit(1 ${RML} diff ${SRC}/examples/backfill.rml --inputs ${SRC}/examples/backfill.csv --no-shrink -o ${WORK}/int
    --backend-cmd "${ok} | sed 's/^8,T,8$/8,T,8.0/'")
  expect_text(OUT "'o' at cycle 2: the oracle says 8, the back end 8.0")
  # Usage: one back end, a trace with a given program, a known built-in.
  expect_exit(2 ${RML} diff --count 1)
  expect_text(ERR "give one back end")
  expect_exit(2 ${RML} diff --count 1 --backend stream --backend-cmd cat)
  expect_exit(2 ${RML} diff --count 1 --backend gpu)
  expect_text(ERR "--backend: expected worklist, kleene, compiled, stream or cpp, got 'gpu'")
  expect_exit(2 ${RML} diff ${prog} --backend stream)
  expect_text(ERR "needs its trace")
  # A program rml-check does not accept has no one meaning to compare: refused.
  file(WRITE ${WORK}/cyc.rml "node cyc(x: int) -> (o: int)\n  o = o + x;\n")
  file(WRITE ${WORK}/cyc.csv "x\n1\n")
  expect_exit(2 ${RML} diff ${WORK}/cyc.rml --inputs ${WORK}/cyc.csv --backend stream -o ${WORK}/cyc)
  expect_text(ERR "error\\[diff.unchecked\\]")

else()  # a faulty back end
  expect_exit(1 ${RML} diff --count 20 --seed 1 --size 3 --cycles 8 -o ${WORK}/cex
    --backend-cmd "python3 ${SRC}/tests/diff/faulty_backend.py ${RML} ${PART} {program} {inputs} {main}")
  set(report "${LAST_OUT}")
  expect_text(OUT "the back end differs from the oracle")
  expect_text(OUT "shrunk from [0-9]+ equations and [0-9]+ cycles to [0-9]+ equations")
  expect_text(OUT "first difference: '[a-z0-9]+' at cycle [0-9]+")
  # A few equations: the main node's three outputs and at most two more (locals, helper).
  file(STRINGS ${WORK}/cex/cex.rml eqs REGEX " = ")
  list(LENGTH eqs n)
  if(n GREATER 5)
    message(FATAL_ERROR "${PART}: shrunk to ${n} equations:\n${report}")
  endif()
  # The replay command fails the same way.
  string(REGEX MATCH "first difference: [^\n]*" first "${report}")
  expect_exit(1 ${RML} diff ${WORK}/cex/cex.rml --inputs ${WORK}/cex/cex.csv --main main --no-shrink -o ${WORK}/replay
    --backend-cmd "python3 ${SRC}/tests/diff/faulty_backend.py ${RML} ${PART} {program} {inputs} {main}")
  expect_text(OUT "${first}")
endif()
