# rml compile: the files of a step class (and their CMake project builds), a node with post
# (the window class), the refusals with their exit codes: a node beyond what is generated
# (3, error[codegen.*] located),
# one rml-check does not accept (2), an output path that is a file (2).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
# The generated classes are built with the system's compiler, and compared with rml run,
# in the Release configuration's run. Under the sanitizers rml compile writes the same files
# (checked here as in Release) and rml run's side of each comparison runs, but the build of
# the generated code, which is the same build in both, is not repeated.
if(SANITIZE)
  set(BUILD_GENERATED OFF)
else()
  set(BUILD_GENERATED ON)
endif()

# Configures and builds the generated CMake project in ${WORK}/DIR (into DIR/build).
function(build_generated dir)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/${dir} -B ${WORK}/${dir}/build RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE e)
  if(rc EQUAL 0)
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/${dir}/build RESULT_VARIABLE rc OUTPUT_VARIABLE e ERROR_VARIABLE e)
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the generated CMake project in ${dir} does not build:\n${e}")
  endif()
endfunction()

expect_exit(0 ${RML} compile ${SRC}/examples/movavg.rml -o ${WORK}/movavg)
expect_text(OUT "rml compile: movavg -> .*movavg.hpp, movavg.cpp, rml_cell.hpp, rml_csv_main.cpp, rml_abi.cpp, runtime/, CMakeLists.txt \\(class rml_generated::movavg\\)")
foreach(f movavg.hpp movavg.cpp rml_cell.hpp CMakeLists.txt runtime/ops/scalar_ops.hpp runtime/ops/special.cpp)
  if(NOT EXISTS ${WORK}/movavg/${f})
    message(FATAL_ERROR "rml compile did not write ${f}")
  endif()
endforeach()
file(READ ${WORK}/movavg/movavg.hpp hpp)
if(NOT hpp MATCHES "class movavg {" OR NOT hpp MATCHES "rml::Cell<double> avg;" OR NOT hpp MATCHES "kOutputDelay = 0")
  message(FATAL_ERROR "movavg.hpp:\n${hpp}")
endif()
# The generated project builds as it is.
if(BUILD_GENERATED)
  build_generated(movavg)
endif()
# Its command movavg_csv runs the class on rml run's CSV trace and prints what rml run
# prints for the outputs.
expect_exit(0 ${RML} run ${SRC}/examples/movavg.rml --inputs ${SRC}/examples/movavg.csv --show avg --format csv)
set(want "${LAST_OUT}")
if(BUILD_GENERATED)
  expect_exit(0 ${WORK}/movavg/build/movavg_csv ${SRC}/examples/movavg.csv)
  expect_equal(OUT "${want}")
  expect_exit(2 ${WORK}/movavg/build/movavg_csv ${SRC}/examples/backfill.csv)
  expect_text(ERR "the trace has no column 'x'")
endif()
# Reals are printed as rml run prints them: nan whatever its sign (inf - inf is a negative
# NaN on x86), the shortest digits that read back, fixed from 1e-5 to below 1e16 and with
# an exponent outside, -0.0, the smallest subnormal.
file(WRITE ${WORK}/numbers.rml "node numbers(x: real) -> (o: real, p: real, q: real)\n  o = x;\n  p = x - x;\n  q = - x;\n")
file(WRITE ${WORK}/numbers.csv "x\n1.0\n1e16\n18446744073709551616.0\n0.00001\n0.0001\n123456789012345.6\n1234567890123456.0\n"
  "9999999999999998.0\nnan\ninf\n-inf\n-0.0\n5e-324\n0.1\n-2.5e-7\n1.7976931348623157e308\n")
expect_exit(0 ${RML} compile ${WORK}/numbers.rml -o ${WORK}/numbers)
file(GLOB numbers_cpp ${WORK}/numbers/*.cpp)
if(BUILD_GENERATED)
  execute_process(COMMAND c++ -std=c++20 -O0 -I${WORK}/numbers -I${WORK}/numbers/runtime ${numbers_cpp} ${WORK}/numbers/runtime/ops/special.cpp
    -o ${WORK}/numbers/run RESULT_VARIABLE rc ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the generated numbers driver does not build:\n${e}")
  endif()
endif()
expect_exit(0 ${RML} run ${WORK}/numbers.rml --inputs ${WORK}/numbers.csv --show o,p,q --format csv)
set(want "${LAST_OUT}")
expect_text(OUT "\n1.8446744073709552e\\+19,")
expect_text(OUT "\nnan,nan,nan\n")
if(BUILD_GENERATED)
  expect_exit(0 ${WORK}/numbers/run ${WORK}/numbers.csv)
  expect_equal(OUT "${want}")
endif()
# Again into the same folder: the generated files are replaced, the others stay, and a
# folder of the user's next to it that looks like a temporary one is not touched.
file(WRITE ${WORK}/movavg/mine.txt "kept")
file(WRITE ${WORK}/movavg.rml-compile-tmp/user.txt "kept")
expect_exit(0 ${RML} compile ${SRC}/examples/movavg.rml -o ${WORK}/movavg --namespace plant)
file(READ ${WORK}/movavg/movavg.hpp hpp)
file(GLOB leftovers ${WORK}/movavg.rml-compile-*)
if(NOT hpp MATCHES "namespace plant {" OR NOT EXISTS ${WORK}/movavg/mine.txt OR NOT EXISTS ${WORK}/movavg.rml-compile-tmp/user.txt
   OR NOT leftovers STREQUAL "${WORK}/movavg.rml-compile-tmp")
  message(FATAL_ERROR "a second compile into the folder: ${hpp}")
endif()
# Into a project's own folder: its CMakeLists.txt (not written by rml compile) is not
# replaced, nothing is written, and the error names it; a link to a file elsewhere is the
# user's too (its target is never written). --force replaces them.
file(MAKE_DIRECTORY ${WORK}/project)
file(WRITE ${WORK}/project/CMakeLists.txt "project(mine)\n")
file(WRITE ${WORK}/elsewhere.txt "the link's target\n")
file(MAKE_DIRECTORY ${WORK}/project/runtime)
file(CREATE_LINK ${WORK}/elsewhere.txt ${WORK}/project/runtime/rml_window.hpp SYMBOLIC)
expect_exit(2 ${RML} compile ${SRC}/examples/movavg.rml -o ${WORK}/project)
expect_text(ERR "holds files that rml compile did not write, which it would replace:\n")
expect_text(ERR "\n  [^\n]*project/CMakeLists.txt\n")
expect_text(ERR "\n  [^\n]*project/runtime/rml_window.hpp\n")
expect_text(ERR "nothing was written; [^\n]*--force")
file(READ ${WORK}/project/CMakeLists.txt mine)
file(GLOB written ${WORK}/project/*.hpp)
file(GLOB leftovers ${WORK}/project.rml-compile-*)
if(NOT mine STREQUAL "project(mine)\n" OR written OR leftovers)
  message(FATAL_ERROR "a refused compile wrote into the folder: ${written} ${leftovers}")
endif()
expect_exit(0 ${RML} compile ${SRC}/examples/movavg.rml -o ${WORK}/project --force)
file(READ ${WORK}/project/CMakeLists.txt generated)
file(READ ${WORK}/elsewhere.txt target)
if(NOT generated MATCHES "Generated by rml compile" OR NOT target STREQUAL "the link's target\n" OR IS_SYMLINK ${WORK}/project/runtime/rml_window.hpp)
  message(FATAL_ERROR "--force did not replace the files (or wrote through the link)")
endif()
# The manifest lets a later compile replace what this one wrote (another node, other files).
expect_exit(0 ${RML} compile ${SRC}/examples/backfill.rml -o ${WORK}/project)

# post: the window class (rml_window.hpp), sized by the horizon rml-check proved.
expect_exit(0 ${RML} compile ${SRC}/examples/backfill.rml -o ${WORK}/backfill)
# A backward recurrence cannot be retimed: the worklist runs it, and rml compile says why.
expect_text(OUT "a window class run by the worklist \\(not retimed: a cycle through post \\(a backward recurrence\\)\\)")
file(READ ${WORK}/backfill/backfill.hpp hpp)
if(NOT hpp MATCHES "kHorizon = 4;" OR NOT hpp MATCHES "kWindow = 10;" OR NOT hpp MATCHES "bool pop\\(Outputs &out\\);"
   OR NOT EXISTS ${WORK}/backfill/runtime/rml_window.hpp)
  message(FATAL_ERROR "backfill.hpp:\n${hpp}")
endif()
# On a trace that breaks the assumption (bp false for longer than the window) its command
# names the status in words (exit 3); the header was written.
if(BUILD_GENERATED)
  file(GLOB backfill_cpp ${WORK}/backfill/*.cpp)
  execute_process(COMMAND c++ -std=c++20 -O0 -I${WORK}/backfill -I${WORK}/backfill/runtime ${backfill_cpp}
    ${WORK}/backfill/runtime/ops/special.cpp -o ${WORK}/backfill/run RESULT_VARIABLE rc ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the generated backfill driver does not build:\n${e}")
  endif()
  file(WRITE ${WORK}/never.csv "i,bp\n1,T\n2,F\n3,F\n4,F\n5,F\n6,F\n7,F\n8,F\n9,F\n10,F\n11,F\n12,F\n13,F\n14,F\n")
  expect_exit(3 ${WORK}/backfill/run ${WORK}/never.csv)
  expect_text(ERR "cycle [0-9]+: status Window \\(a cell stayed unknown past the window: the inputs break the node's assumptions\\)\n")
  expect_text(OUT "^o\n")
endif()
# Tensors and funs (a post-free node): the class builds with its CMake project, and its
# command prints what rml run prints, a matrix output's nested brackets included.
file(WRITE ${WORK}/vec.rml "node f(x: real[2], w: real[2, 2], c: bool) -> (o: real[2], m: real[2, 2], s: real)
  o = sigmoid(matvec(w, x)) + ([0.0, 1.0] fby o);
  m = outer(x, o);
  s = merge c (dot(o, x) when c) (sum(x) when not c);
")
file(WRITE ${WORK}/vec.csv "x,w,c
\"[1.0, 2.0]\",\"[[0.5, -1.0], [2.0, 0.25]]\",T
\"[-3.0, 0.5]\",\"[[1.5, 1.0], [-2.0, 0.75]]\",F
\"[0.25, 4.0]\",\"[[0.0, 1.0], [1.0, 0.0]]\",T
")
expect_exit(0 ${RML} compile ${WORK}/vec.rml -o ${WORK}/vec)
file(READ ${WORK}/vec/f.hpp hpp)
if(NOT hpp MATCHES "rml::Cell<std::array<double, 4>> m;  // real\\[2,2\\]")
  message(FATAL_ERROR "f.hpp:\n${hpp}")
endif()
if(BUILD_GENERATED)
  build_generated(vec)
endif()
expect_exit(0 ${RML} run ${WORK}/vec.rml --inputs ${WORK}/vec.csv --show o,m,s --format csv)
set(want "${LAST_OUT}")
if(BUILD_GENERATED)
  expect_exit(0 ${WORK}/vec/build/f_csv ${WORK}/vec.csv)
  expect_equal(OUT "${want}")
endif()
# Figure 20's training node (tensors, funs, post: the window class), under the assumptions
# that make it productive (reference/VERDICTS.md): its command prints rml run's chronogram
# of the reference trace, byte for byte.
set(fig20 ${SRC}/reference/paper/fig20_diff_lstm_end.rml)
set(fig20_trace ${SRC}/reference/verdicts/fig20_check_diff_lstm_end.csv)
set(fig20_assume --assume "always eventually (end and bp) within 4" --assume "always (bp or not end)")
expect_exit(0 ${RML} compile ${fig20} --main check_diff_lstm_end ${fig20_assume} -o ${WORK}/fig20)
file(READ ${WORK}/fig20/check_diff_lstm_end.hpp hpp)
if(NOT hpp MATCHES "kHorizon = 5;" OR NOT hpp MATCHES "rml::Cell<std::array<double, 3>> dx;  // real\\[3\\]")
  message(FATAL_ERROR "check_diff_lstm_end.hpp:\n${hpp}")
endif()
if(BUILD_GENERATED)
  build_generated(fig20)
endif()
expect_exit(0 ${RML} run ${fig20} --main check_diff_lstm_end --inputs ${fig20_trace} --show h_next,dx --format csv)
set(want "${LAST_OUT}")
if(BUILD_GENERATED)
  expect_exit(0 ${WORK}/fig20/build/check_diff_lstm_end_csv ${fig20_trace})
  expect_equal(OUT "${want}")
endif()
# Without the assumptions rml-check cannot prove productivity: not compiled (3), said.
expect_exit(3 ${RML} compile ${fig20} --main check_diff_lstm_end -o ${WORK}/fig20_unproved)
expect_text(ERR "cannot be compiled: productivity is unknown")
# A 1024 x 1024 input (8 MB, as large as a thread's whole stack): the class keeps its
# tensors and state on the heap and the command its cells, so nothing overflows the
# stack (it crashed before). The sum of 3 * x is rml run's.
string(REPEAT "0.5, " 1023 row)
set(row "[${row}0.5]")
string(REPEAT "${row}, " 1023 rows)
file(WRITE ${WORK}/big.csv "x\n\"[${rows}${row}]\"\n")
file(WRITE ${WORK}/big.rml "node f(x: real[1024, 1024]) -> (o: real)\n  v = x * 2.0;\n  w = v + x;\n  o = sum(w) + (0.0 fby o);\n")
expect_exit(0 ${RML} compile ${WORK}/big.rml -o ${WORK}/big)
if(BUILD_GENERATED)
  build_generated(big)
  expect_exit(0 ${WORK}/big/build/f_csv ${WORK}/big.csv)
  expect_equal(OUT "o\n1572864.0\n")
endif()
# A post-free node with an instantaneous cycle through exclusive branches has no static
# order: it becomes a window class (kHorizon 0, each cycle run to its fixpoint) whose
# command prints rml run's chronogram (it was refused, codegen.cycle).
file(WRITE ${WORK}/cyc.rml "node main(c: bool, x: int) -> (o: int, p: int)\n  a = merge c ((x + 1) when c) (b when not c);\n  b = merge c (a when c) ((x * 2) when not c);\n  o = a + b;\n  p = 0 fby o;\n")
file(WRITE ${WORK}/cyc.csv "c,x\nT,1\nF,2\nT,3\nF,-4\n")
expect_exit(0 ${RML} compile ${WORK}/cyc.rml -o ${WORK}/cyc)
file(READ ${WORK}/cyc/main_.hpp hpp)
if(NOT hpp MATCHES "instantaneous cycle through exclusive when/merge branches" OR NOT hpp MATCHES "kHorizon = 0")
  message(FATAL_ERROR "main_.hpp:\n${hpp}")
endif()
if(BUILD_GENERATED)
  build_generated(cyc)
endif()
expect_exit(0 ${RML} run ${WORK}/cyc.rml --inputs ${WORK}/cyc.csv --show o,p --format csv)
set(want "${LAST_OUT}")
expect_text(OUT "o,p\n4,0\n8,4\n8,8\n-16,8\n")
if(BUILD_GENERATED)
  expect_exit(0 ${WORK}/cyc/build/main__csv ${WORK}/cyc.csv)
  expect_equal(OUT "${want}")
endif()
# A tensor of bools held in a variable: not generated (3).
file(WRITE ${WORK}/bvec.rml "node f(x: real[2]) -> (o: bool)\n  b = x > 0.0;\n  o = b[0] and b[1];\n")
expect_exit(3 ${RML} compile ${WORK}/bvec.rml -o ${WORK}/bvec)
expect_text(ERR "bvec.rml:2:7: error\\[codegen.tensor\\]: 'b' is a tensor of bools")
# One read only by the application indexing it is computed inside that application's
# function (fuse_applications.hpp), where bools are words: generated, and it prints
# rml run's chronogram.
file(WRITE ${WORK}/bfused.rml "node f(x: real[2]) -> (o: bool)\n  b = x > 0.0;\n  o = b[1];\n")
file(WRITE ${WORK}/bfused.csv "x\n\"[1.0, -1.0]\"\n\"[-1.0, 2.0]\"\n")
expect_exit(0 ${RML} compile ${WORK}/bfused.rml -o ${WORK}/bfused)
if(BUILD_GENERATED)
  build_generated(bfused)
endif()
expect_exit(0 ${RML} run ${WORK}/bfused.rml --inputs ${WORK}/bfused.csv --show o --format csv)
set(want "${LAST_OUT}")
expect_text(OUT "o\nF\nT\n")
if(BUILD_GENERATED)
  expect_exit(0 ${WORK}/bfused/build/f_csv ${WORK}/bfused.csv)
  expect_equal(OUT "${want}")
endif()
# An imported function (no body): not generated (3), located; rml run refuses it on both
# back ends (2), before running; nothing is written.
file(WRITE ${WORK}/imp.lus "function f(x: int) returns (y: int);\nnode main(x: int) returns (y: int);\nlet\n  y = 1 + f(x);\ntel\n")
file(WRITE ${WORK}/imp.csv "x\n1\n")
expect_exit(3 ${RML} compile ${WORK}/imp.lus -o ${WORK}/imp)
expect_text(ERR "imp.lus:4:11: error\\[codegen.imported\\]: 'f' is imported")
if(EXISTS ${WORK}/imp)
  message(FATAL_ERROR "rml compile wrote a folder for a node it refused")
endif()
expect_exit(2 ${RML} run ${WORK}/imp.lus --inputs ${WORK}/imp.csv)
expect_text(ERR "imp.lus:4:11: error\\[run.imported\\]: 'f' is imported")
expect_no_text(OUT ".")
expect_exit(2 ${RML} run ${WORK}/imp.lus --backend stream --inputs ${WORK}/imp.csv)
expect_text(ERR "imp.lus:4:11: error\\[run.imported\\]: 'f' is imported")
# The oracle runs it on the outputs a trace gives (a column named as rml parse --normalized
# prints the call's output, t2 here: rml-check's counterexamples write them so); a function
# given two outputs for one argument, or none where it runs, is refused at the call.
expect_exit(2 ${RML} run ${WORK}/imp.lus --inputs ${WORK}/imp.csv)
expect_text(ERR "as a column 't2'")
file(WRITE ${WORK}/imp_given.csv "x,t2\n1,5\n2,5\n")
expect_exit(0 ${RML} run ${WORK}/imp.lus --inputs ${WORK}/imp_given.csv --format csv)
expect_text(OUT "x,y\n1,6\n2,6\n")
file(WRITE ${WORK}/imp_twice.csv "x,t2\n1,5\n1,6\n")
expect_exit(2 ${RML} run ${WORK}/imp.lus --inputs ${WORK}/imp_twice.csv)
expect_text(ERR "imp.lus:4:11: error\\[run.imported\\]: 'f' is imported: a function, given two different outputs 't2' for equal arguments \\(at cycle 1\\)")
file(WRITE ${WORK}/imp_none.csv "x,t2\n1,_\n")
expect_exit(2 ${RML} run ${WORK}/imp.lus --inputs ${WORK}/imp_none.csv)
expect_text(ERR "its output 't2' is given no value at cycle 0")
expect_exit(2 ${RML} run ${WORK}/imp.lus --backend stream --inputs ${WORK}/imp_given.csv)
expect_text(ERR "run.imported.*the stream path cannot run it")
# Not accepted by rml-check (2): a nil output (initialisation falsified).
file(WRITE ${WORK}/nil.rml "node f(x: int) -> (o: int)\n  o = pre x;\n")
expect_exit(2 ${RML} compile ${WORK}/nil.rml -o ${WORK}/nil)
expect_text(ERR "error\\[stream.unchecked\\]: 'f' cannot be compiled: initialisation is falsified")
# The output is a file (2); a missing -o is a usage error (2).
file(WRITE ${WORK}/afile "x")
expect_exit(2 ${RML} compile ${SRC}/examples/movavg.rml -o ${WORK}/afile)
expect_text(ERR "'.*afile' exists and is not a folder")
expect_exit(2 ${RML} compile ${SRC}/examples/movavg.rml)

# Figure 3's train retimes (bp is the constant true): rml compile says so, and the class's
# header gives the lag.
expect_exit(0 ${RML} compile ${SRC}/reference/paper/fig03_gradient_descent.rml --main train -o ${WORK}/train)
expect_text(OUT "a window class, retimed: each cell computed once, at most 1 cycle after its own, without the worklist")
file(READ ${WORK}/train/train.hpp hpp)
if(NOT hpp MATCHES "kMaxLag = 1;" OR NOT hpp MATCHES "bool retimed\\(\\) const")
  message(FATAL_ERROR "train.hpp:\n${hpp}")
endif()
