# rml adjoint (src/adjoint): the derived program of Figure 3's app_pipe and of the LSTM of
# Figure 19 is written whole to -o, checked by rml-check (productive), and runs on the
# oracle (rml run) with ADBench's LSTM gradient at cycle 0; bad input exits 2.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# Figure 3: the derived node, its parameters as gradient steps, the delay's adjoint a post.
expect_exit(0 ${RML} adjoint ${SRC}/reference/paper/fig03_gradient_descent.rml --node app_pipe -o ${WORK}/app_pipe_train.rml)
expect_text(ERR "wrote app_pipe_adjoint")
file(READ ${WORK}/app_pipe_train.rml text)
foreach(want "node app_pipe_adjoint\\(i: real, bp: bool, d_o: real when bp\\)" "-> \\(o: real, d_i: real when bp\\)"
        "dense_1_k = dense_1_t2 fby \\(dense_1_k \\+ adj_dense_1_k\\)" "adj_x = post adj_y;")
  if(NOT text MATCHES "${want}")
    message(FATAL_ERROR "the derived program lacks /${want}/:\n${text}")
  endif()
endforeach()
expect_exit(0 ${RMLCHECK} ${WORK}/app_pipe_train.rml --main app_pipe_adjoint)
expect_text(OUT "productivity: valid")
# The larger rml-check runs below are Release only (~10x slower under the sanitizers; the
# derivations themselves run there, in adjoint_tests).
# Without -o: the same text on stdout.
expect_exit(0 ${RML} adjoint ${SRC}/reference/paper/fig03_gradient_descent.rml --node app_pipe)
if(NOT LAST_OUT STREQUAL text)
  message(FATAL_ERROR "stdout and -o differ")
endif()

# The LSTM of Figure 19 (lazy fby_end): productive under its `within 4` assumption.
expect_exit(0 ${RML} adjoint ${SRC}/tests/adjoint/lstm_end_lazy.rml -o ${WORK}/lstm_train.rml)
if(NOT SANITIZE)
  expect_exit(0 ${RMLCHECK} ${WORK}/lstm_train.rml --main check_lstm_end_adjoint)
  expect_text(OUT "clocks: valid")
  expect_text(OUT "productivity: valid")
endif()

# --params gradient: FractalTensor's vanilla RNN keeps its parameters, their gradients are
# outputs; productive when sequences end within 4 cycles (with --params update a parameter
# read at every cycle of a recurrence is not: semantics/adjoint.md §4).
expect_exit(0 ${RML} adjoint ${SRC}/reference/fractaltensor/vanilla_rnn.rml --params gradient -o ${WORK}/rnn_grad.rml)
file(READ ${WORK}/rnn_grad.rml text)
if(NOT text MATCHES "d_rnn_end_1_rnn_cell_1_bias: real\\[2\\] when bp")
  message(FATAL_ERROR "no gradient output for the bias param:\n${text}")
endif()
if(NOT SANITIZE)
  expect_exit(0 ${RMLCHECK} ${WORK}/rnn_grad.rml --main check_rnn_end_adjoint --assume "always eventually end within 4")
  expect_text(OUT "productivity: valid")
endif()
expect_exit(2 ${RML} adjoint ${SRC}/reference/fractaltensor/vanilla_rnn.rml --params sometimes)

# ADBench's LSTM: the derived program's gradient at cycle 0 (first entries of ADBench's).
# Release only: 1023 cycles of tensors take ~20x longer under the sanitizers, and
# adjoint_tests checks the whole gradient there too.
if(NOT SANITIZE)
find_program(PYTHON3 python3 REQUIRED)
expect_exit(0 ${PYTHON3} ${SRC}/benchmarks/adbench/to_json lstm ${SRC}/data/adbench/lstm/lstm_l2_c1024.txt --derived)
file(WRITE ${WORK}/lstm.json "${LAST_OUT}")
expect_exit(0 ${RML} adjoint ${SRC}/reference/adbench/lstm.rml -o ${WORK}/adbench_train.rml)
expect_exit(0 ${RML} run ${WORK}/adbench_train.rml --main adbench_lstm_l2_adjoint --inputs ${WORK}/lstm.json
            --format csv --show d_extra)
# ADBench's entries 224, 225, 226 (extra_params' in_weight): 8.95056656284422921e-06, 0, 0.
expect_text(OUT "^d_extra\n\"\\[\\[8\\.95056656284[0-9]*e-06, 0\\.0, 0\\.0, ")
# A trace cut before the sequence's end leaves the gradient unknown (the chain waits for it).
expect_exit(0 ${RML} run ${WORK}/adbench_train.rml --main adbench_lstm_l2_adjoint --inputs ${WORK}/lstm.json
            --format csv --show d_extra --cycles 5)
expect_text(OUT "^d_extra\n\\?\n")
endif()

# Bad input: a missing file, a node that is not there, a real input on a sampled clock,
# an -o folder that does not exist (nothing written).
expect_exit(2 ${RML} adjoint ${WORK}/nonexistent.rml)
expect_exit(2 ${RML} adjoint ${SRC}/reference/paper/fig03_gradient_descent.rml --node no_such_node)
expect_text(ERR "main.unknown")
file(WRITE ${WORK}/clocked.rml "node f(c: bool, x: real when c) -> (y: real when c)\n  y = 2.0 * x;\n")
expect_exit(2 ${RML} adjoint ${WORK}/clocked.rml)
expect_text(ERR "clocked.rml:1:6: error\\[adjoint.interface-clock\\]: 'x' is a real input on a sampled clock")
expect_exit(2 ${RML} adjoint ${SRC}/reference/paper/fig03_gradient_descent.rml --node app -o ${WORK}/no/such/dir/out.rml)
expect_text(ERR "cannot write")
# An imported function (no body) has no derivative: a located refusal (2), not rml's own
# internal error (it once wrote a wrapper fun calling the node and failed to check it).
file(WRITE ${WORK}/imported.lus "function f(x: real) returns (y: real);\nnode main(x: real) returns (o: real);\nlet\n  o = f(x) * x;\ntel\n")
expect_exit(2 ${RML} adjoint ${WORK}/imported.lus --node main)
expect_text(ERR "imported.lus:4:7: error\\[adjoint.lowering\\]: 'f' is imported")
expect_no_text(ERR "adjoint.internal")
