# README "Limits and exit codes": one block per row of the table, each at the limit and
# just past it, with the exit code and the key words of the diagnostic pinned.
#   cmake -DRML=... -DRMLCHECK=... -DSRC=... -DWORK=<scratch dir> [-DSANITIZE=ON] [-DPART=name] -P limits.cmake
# PART selects one block (default: all but 'equations', slow, and 'json_depth', which
# are their own tests).
cmake_policy(VERSION 3.20)
if(NOT PART)
  set(PART all)
endif()
# expect_exit, expect_text, expect_no_text (and the emptied WORK folder).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

function(part name out)
  if(PART STREQUAL name OR (PART STREQUAL "all" AND NOT name MATCHES "^(equations|json_depth)$"))
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

set(COUNTER ${SRC}/reference/paper/fig07_counter.rml)
set(BACKFILL ${SRC}/reference/paper/fig16_backfill.rml)
set(PCOUNTER ${SRC}/reference/paper/fig15_pcounter.rml)
set(ADD_SAMPLED ${SRC}/tests/check/ko/01_add_sampled.rml)

# ---- source file size: 16 MiB (16777216 bytes); larger -> exit 2 "larger than 16 MiB"
part(file_size selected)
if(selected)
  set(head "node n(x: int) -> (o: int)\n  o = x;\n//")
  string(LENGTH "${head}" hl)
  math(EXPR pad "16777216 - ${hl} - 1")
  string(REPEAT "x" ${pad} padding)
  file(WRITE ${WORK}/at_limit.rml "${head}${padding}\n")
  file(WRITE ${WORK}/past_limit.rml "${head}${padding}x\n")
  file(SIZE ${WORK}/at_limit.rml size)
  if(NOT size EQUAL 16777216)
    message(FATAL_ERROR "at_limit.rml has ${size} bytes")
  endif()
  expect_exit(0 ${RMLCHECK} --frontend-only ${WORK}/at_limit.rml)
  expect_exit(2 ${RMLCHECK} --frontend-only ${WORK}/past_limit.rml)
  expect_text(ERR "past_limit.rml.* is larger than 16 MiB")
  expect_exit(2 ${RML} run ${COUNTER} --inputs ${WORK}/past_limit.rml)  # traces too
  expect_text(ERR "larger than 16 MiB")
  file(REMOVE ${WORK}/at_limit.rml ${WORK}/past_limit.rml)
endif()

# ---- nesting of the source: expressions 256 levels (255 parentheses inside an equation),
# block comments 256 levels; deeper -> exit 2 parse.limit / lex.limit
part(source_depth selected)
if(selected)
  foreach(k 255 256)
    string(REPEAT "(" ${k} open)
    string(REPEAT ")" ${k} close)
    file(WRITE ${WORK}/paren${k}.rml "node d(x: int) -> (o: int)\n  o = ${open}x${close};\n")
  endforeach()
  expect_exit(0 ${RMLCHECK} --frontend-only ${WORK}/paren255.rml)
  expect_exit(2 ${RMLCHECK} --frontend-only ${WORK}/paren256.rml)
  expect_text(ERR "paren256.rml:2:[0-9]+: error\\[parse.limit\\]: expression nested deeper than 256 levels")
  foreach(k 256 257)
    string(REPEAT "(*" ${k} open)
    string(REPEAT "*)" ${k} close)
    file(WRITE ${WORK}/comment${k}.rml "${open}${close}\nnode d(x: int) -> (o: int)\n  o = x;\n")
  endforeach()
  expect_exit(0 ${RMLCHECK} --frontend-only ${WORK}/comment256.rml)
  expect_exit(2 ${RMLCHECK} --frontend-only ${WORK}/comment257.rml)
  expect_text(ERR "comment257.rml:1:[0-9]+: error\\[lex.limit\\]: comments nested deeper than 256 levels")
endif()

# ---- nesting of JSON (traces, rml grad --at): 256 levels; deeper -> exit 2.
# A rank-254 tensor cell inside the per-cycle object inside the list is 256 levels.
part(json_depth selected)
if(selected)
  foreach(r 254 255)
    string(REPEAT "1, " ${r} dims)
    string(REGEX REPLACE ", $" "" dims "${dims}")
    string(REPEAT "[" ${r} open)
    string(REPEAT "]" ${r} close)
    file(WRITE ${WORK}/rank${r}.rml "node t(x: real[${dims}]) -> (o: real[${dims}])\n  o = x;\n")
    file(WRITE ${WORK}/rank${r}.json "[{\"x\": ${open}2.5${close}}]\n")
  endforeach()
  expect_exit(0 ${RML} run ${WORK}/rank254.rml --main t --inputs ${WORK}/rank254.json --format csv)
  expect_text(OUT "2.5")
  expect_exit(2 ${RML} run ${WORK}/rank255.rml --main t --inputs ${WORK}/rank255.json)
  expect_text(ERR "rank255.json:1:262: error\\[trace.syntax\\]: JSON nested deeper than 256 levels of lists and objects \\(the limit\\)")
  # Far deeper (a crash of a recursive reader before the limit): still exit 2.
  string(REPEAT "[" 100000 open)
  string(REPEAT "]" 100000 close)
  file(WRITE ${WORK}/deep_at.json "{\"a\": ${open}${close}, \"k\": 3}\n")
  expect_exit(2 ${RML} grad ${SRC}/tests/array/lower/grad_funs.rml --fun scaled_norm --at ${WORK}/deep_at.json)
  expect_text(ERR "deep_at.json:1:262: error\\[grad.arguments\\]: JSON nested deeper than 256 levels")
  file(WRITE ${WORK}/deep_trace.json "[{\"i\": ${open}${close}, \"bp\": true}]\n")
  expect_exit(2 ${RML} run ${BACKFILL} --inputs ${WORK}/deep_trace.json)
  expect_text(ERR "deep_trace.json:1:262: error\\[trace.syntax\\]: JSON nested deeper than 256 levels")
endif()

# ---- equations of the elaborated program: 1000000; more -> exit 2 error[elab] (slow: its
# own test, cli.limit_equations). n0 has 1001 equations and n(k) two instances of n(k-1).
part(equations selected)
if(selected)
  set(vars "a0")
  set(body "  a0 = x;\n")
  foreach(i RANGE 1 999)
    math(EXPR j "${i} - 1")
    string(APPEND vars ", a${i}")
    string(APPEND body "  a${i} = a${j};\n")
  endforeach()
  set(text "node n0(x: int) -> (o: int)\nvar ${vars}: int;\nlet\n${body}  o = a999;\ntel\n")
  foreach(k RANGE 1 10)
    math(EXPR j "${k} - 1")
    string(APPEND text "node n${k}(x: int) -> (o: int)\n  o = n${j}(n${j}(x));\n")
  endforeach()
  file(WRITE ${WORK}/equations.rml "${text}")
  # The accepted side (512 x 1001 equations, printed) takes 35 s under the sanitizers for
  # code the refusal below runs too: there only the refusal; the Release run checks both.
  if(NOT SANITIZE)
    expect_exit(0 ${RML} parse --normalized --main n9 ${WORK}/equations.rml)  # 512 x 1001 equations
  endif()
  expect_exit(2 ${RML} parse --normalized --main n10 ${WORK}/equations.rml)  # 1024 x 1001
  expect_text(ERR "equations.rml:[0-9]+:[0-9]+: error\\[elab\\]: the elaborated program exceeds 1000000 equations")
endif()

# ---- tensor elements: 2^31 per shape (static check); more -> exit 2. A shape at the
# limit passes the front end and meets the oracle's memory cap (below), never an abort.
part(tensor_elements selected)
if(selected)
  file(WRITE ${WORK}/elems_at.rml "node t(x: real[65536, 32768]) -> (o: real[65536, 32768])\n  o = x;\n")
  file(WRITE ${WORK}/elems_past.rml "node t(x: real[65536, 32769]) -> (o: real[65536, 32769])\n  o = x;\n")
  expect_exit(0 ${RMLCHECK} --frontend-only ${WORK}/elems_at.rml)
  expect_exit(2 ${RMLCHECK} --frontend-only ${WORK}/elems_past.rml)
  expect_text(ERR "elems_past.rml:1:[0-9]+: error\\[[a-z.]+\\]: .*more than 2\\^31 elements")
  file(WRITE ${WORK}/elems.csv "x\n_\n")
  expect_exit(2 ${RML} run ${WORK}/elems_at.rml --main t --inputs ${WORK}/elems.csv)
  expect_text(ERR "error\\[run.memory\\]: the oracle would need about 48.0 GiB to run 't' for 1 cycle .*'x': real\\[65536, 32768\\], takes 16.0 GiB per cycle.*memory limit of 2.0 GiB; raise the limit with --max-memory \\(e.g. --max-memory 49G\\) or use smaller tensors")
  # rml-check: the oracle's cap reached -> unknown (3), never falsified.
  expect_exit(3 ${RMLCHECK} ${WORK}/elems_at.rml)
  expect_text(ERR "memory limit of 2.0 GiB.*the properties of 't' are unknown")
  # A constant of 2^31 elements is refused before it is evaluated.
  file(WRITE ${WORK}/zeros.rml "node z() -> (o: real[65536, 32768])\n  o = zeros([65536, 32768]);\n")
  expect_exit(2 ${RML} run ${WORK}/zeros.rml --main z --cycles 1)
  expect_text(ERR "error\\[run.memory\\].*'o': real\\[65536, 32768\\]")
endif()

# ---- cycles: --cycles 1..100000000; else exit 2 naming the option and the range
part(cycles selected)
if(selected)
  expect_exit(0 ${RML} run ${COUNTER} --cycles 1 --format csv)
  expect_text(OUT "^o\n0\n$")
  foreach(bad 0 -1 100000001 12345678901234567890 1.5 1e3 abc " 5")
    expect_exit(2 ${RML} run ${COUNTER} --cycles "${bad}")
    expect_text(ERR "--cycles: expected an integer from 1 to 100000000, got '${bad}'")
  endforeach()
  # 10^8 is a valid count: what stops it is the memory cap, at once.
  expect_exit(2 ${RML} run ${COUNTER} --cycles 100000000)
  expect_no_text(ERR "--cycles:")
  expect_text(ERR "error\\[run.memory\\]: .* for 100000000 cycles")
endif()

# ---- the oracle's memory cap: --max-memory, default 2 GiB, 1M..1T; the estimate for
# fig07 (no inputs, 6 streams, 6 rules, one shown variable) is 322 bytes a cycle: 3256
# cycles fit in 1 MiB (1048576 bytes), 3257 do not.
part(oracle_memory selected)
if(selected)
  expect_exit(0 ${RML} run ${COUNTER} --cycles 3256 --max-memory 1M --format csv)
  expect_exit(2 ${RML} run ${COUNTER} --cycles 3257 --max-memory 1M)
  expect_text(ERR "^rml: error\\[run.memory\\]: the oracle would need about 1.0 MiB to run 'counter' for 3257 cycles \\(it keeps every cell of 6 streams\\), more than its memory limit of 1.0 MiB; raise the limit with --max-memory \\(e.g. --max-memory 1G\\) or run fewer cycles\n$")
  expect_exit(2 ${RML} run ${COUNTER} --cycles 10000000)  # the default cap, 2 GiB
  expect_text(ERR "about 3.0 GiB .* memory limit of 2.0 GiB; raise the limit with --max-memory \\(e.g. --max-memory 3G\\)")
  # A 10^8-element real input: refused before the trace is read.
  file(WRITE ${WORK}/big.rml "node big(x: real[10000, 10000]) -> (o: real[10000, 10000])\n  o = x;\n")
  file(WRITE ${WORK}/big.csv "x\n_\n")
  expect_exit(2 ${RML} run ${WORK}/big.rml --main big --inputs ${WORK}/big.csv)
  expect_text(ERR "'x': real\\[10000, 10000\\], takes 762.9 MiB per cycle.*memory limit of 2.0 GiB")
  # The stream back end's window (2H + 2 frames) under the same cap, before a frame is
  # allocated: 200000-element streams take about 3 MiB a frame, 2 frames at H = 0.
  file(WRITE ${WORK}/wide.rml "node wide(x: real[200000]) -> (o: real[200000])\n  o = x fby x;\n")
  expect_exit(2 ${RML} run ${WORK}/wide.rml --backend stream --inputs ${WORK}/big.csv --max-memory 1M -q)
  expect_text(ERR "^rml: error\\[run.memory\\]: the stream window of 2 frames needs about 6.1 MiB, more than --max-memory 1 MiB\n$")
  foreach(ok 1M 1048576 4G 1T 1024G)
    expect_exit(0 ${RML} run ${COUNTER} --cycles 3 --max-memory ${ok})
  endforeach()
  foreach(bad 0 1023K 1048575 1025G 2T 1.5G -1 4X " ")
    expect_exit(2 ${RML} run ${COUNTER} --cycles 3 --max-memory "${bad}")
    expect_text(ERR "--max-memory: expected a size from 1M to 1T")
  endforeach()
endif()

# ---- out of memory (std::bad_alloc): a diagnostic and exit 3, never an abort. The address
# space is capped with ulimit -v (not under the sanitizers, which reserve far more).
part(out_of_memory selected)
if(selected AND NOT SANITIZE)
  file(WRITE ${WORK}/oom.rml "node z() -> (o: real[65536, 32768])\n  o = zeros([65536, 32768]);\n")
  expect_exit(3 sh -c "ulimit -v 2000000 && exec \"$0\" run \"$1\" --main z --cycles 1 --max-memory 1T" ${RML} ${WORK}/oom.rml)
  expect_text(ERR "rml: error: out of memory while running 'z' in the oracle")
endif()

# ---- solver time: --timeout seconds for the whole check, (0, 86400]; else exit 2
part(timeout selected)
if(selected)
  expect_exit(0 ${RMLCHECK} --timeout 86400 ${COUNTER})
  expect_exit(0 ${RML} check --timeout 86400 ${COUNTER})
  foreach(bad 0 -1 nan inf -inf 1e10 86400.5 86401 x " ")
    expect_exit(2 ${RMLCHECK} --timeout "${bad}" ${COUNTER})
    expect_text(ERR "--timeout: expected a number of seconds greater than 0 and at most 86400, got '${bad}'")
    expect_exit(2 ${RML} check --timeout "${bad}" ${COUNTER})
  endforeach()
endif()

# ---- solver resources: --rlimit Z3 resource units for the whole check, 1..10^12; else exit 2.
# The count is deterministic: a budget of 1 unit ends at the first query, on any machine.
part(rlimit selected)
if(selected)
  expect_exit(0 ${RMLCHECK} --rlimit 1000000000000 ${COUNTER})
  expect_exit(0 ${RML} check --rlimit 1000000000000 --timeout 86400 ${COUNTER})
  foreach(bad 0 -1 1.5 1e6 1000000000001 x " ")
    expect_exit(2 ${RMLCHECK} --rlimit "${bad}" ${COUNTER})
    expect_text(ERR "--rlimit: expected a number of Z3 resource units from 1 to 1000000000000, got '${bad}'")
    expect_exit(2 ${RML} check --rlimit "${bad}" ${COUNTER})
  endforeach()
  expect_exit(3 ${RMLCHECK} --rlimit 1 ${BACKFILL})
  expect_text(OUT "productivity: unknown -- the resource budget of the check \\(1 Z3 resource units\\) ran out \\(raise it with --rlimit\\)")
  expect_exit(3 ${RML} run ${BACKFILL} --backend stream --check-rlimit 1 --inputs ${SRC}/examples/backfill.csv)
  expect_text(ERR "productivity is unknown")
endif()

# ---- nothing to check: a file without a node (or with generic nodes only) exits 2
part(no_node selected)
if(selected)
  expect_exit(2 ${RMLCHECK} /dev/null)
  expect_text(ERR "rml-check: error: /dev/null: no node to check: the file declares no node")
  expect_exit(2 ${RMLCHECK} --json /dev/null)
  expect_text(OUT "\"rule\": \"check.no-node\"")
  file(WRITE ${WORK}/generic.rml "node g(const n: int; x: real[n]) -> (o: real[n])\n  o = x;\n")
  expect_exit(2 ${RMLCHECK} ${WORK}/generic.rml)
  expect_text(ERR "no node to check: 1 node, generic")
  expect_exit(0 ${RMLCHECK} --frontend-only /dev/null)
  expect_exit(0 ${RMLCHECK} --frontend-only ${WORK}/generic.rml)
endif()

# ---- counterexamples are never lost (--cex-dir)
part(cex selected)
if(selected)
  # A missing folder is created; an input-less node's trace replays with --cycles N.
  expect_exit(1 ${RMLCHECK} ${PCOUNTER} --cex-dir ${WORK}/cex/new)
  set(trace ${WORK}/cex/new/pcounter.productivity.1.csv)
  if(NOT EXISTS ${trace})
    message(FATAL_ERROR "no trace written in the created folder:\n${LAST_OUT}")
  endif()
  if(NOT LAST_OUT MATCHES "replay: rml run ([^ ]+) --main pcounter --inputs ([^ ]+) --cycles ([0-9]+) --require-known (o@[0-9]+)\n")
    message(FATAL_ERROR "replay command:\n${LAST_OUT}")
  endif()
  set(n ${CMAKE_MATCH_3})
  set(cell ${CMAKE_MATCH_4})
  if(NOT CMAKE_MATCH_2 STREQUAL trace OR n LESS 1)
    message(FATAL_ERROR "replay names '${CMAKE_MATCH_2}' for ${n} cycles")
  endif()
  # The replay as printed fails where the counterexample says (a productivity failure is
  # an unknown cell, which --require-known turns into exit 1)...
  expect_exit(1 ${RML} run ${PCOUNTER} --main pcounter --inputs ${trace} --cycles ${n} --require-known ${cell})
  expect_text(ERR "error\\[run.unknown\\]: 'o' at cycle [0-9]+ is unknown, but --require-known asks for its value")
  # ... a known cell passes, a malformed one is a usage error ...
  expect_exit(0 ${RML} run ${SRC}/reference/paper/fig07_counter.rml --cycles 3 --require-known o@2,u@0)
  expect_exit(2 ${RML} run ${PCOUNTER} --main pcounter --cycles 2 --require-known o)
  expect_text(ERR "--require-known: expected VAR@CYCLE")
  expect_exit(2 ${RML} run ${PCOUNTER} --main pcounter --cycles 2 --require-known nosuch@1)
  expect_exit(1 ${RML} run ${PCOUNTER} --main pcounter --cycles 2 --require-known o@5)
  expect_text(ERR "'o' at cycle 5 is past the run's 2 cycles")
  # ... and without it the replay shows the unknown cells (exit 0: nothing was required).
  expect_exit(0 ${RML} run ${PCOUNTER} --main pcounter --inputs ${trace} --cycles ${n} --format csv)
  string(REGEX MATCHALL "\n\\?" cells "${LAST_OUT}")
  list(LENGTH cells replayed)
  if(NOT replayed EQUAL n)
    message(FATAL_ERROR "the replay shows ${replayed} cycles, the counterexample has ${n}:\n${LAST_OUT}")
  endif()
  # With inputs: the trace file replays the counterexample.
  expect_exit(1 ${RMLCHECK} ${ADD_SAMPLED} --cex-dir ${WORK}/cex/new)
  expect_text(OUT "--inputs ${WORK}/cex/new/main.clocks.1.csv --cycles 1\n")
  file(READ ${WORK}/cex/new/main.clocks.1.csv csv)
  if(NOT csv STREQUAL "x,c\n0,F\n")
    message(FATAL_ERROR "trace file:\n${csv}")
  endif()
  # A folder that cannot be made: exit 2 before checking, with the path.
  file(WRITE ${WORK}/cex/afile "")
  expect_exit(2 ${RMLCHECK} ${ADD_SAMPLED} --cex-dir ${WORK}/cex/afile/sub)
  expect_text(ERR "rml-check: error: --cex-dir '${WORK}/cex/afile/sub': cannot create the folder")
  expect_no_text(OUT "node main")
  # A trace that cannot be written: said with its path, and printed inline instead.
  file(MAKE_DIRECTORY ${WORK}/cex/blocked/main.clocks.1.csv)
  expect_exit(1 ${RMLCHECK} ${ADD_SAMPLED} --cex-dir ${WORK}/cex/blocked)
  expect_text(ERR "rml-check: error: cannot write the counterexample trace to '${WORK}/cex/blocked/main.clocks.1.csv': ")
  expect_text(OUT "--inputs <this trace> --cycles 1\n  trace \\(CSV; save it and pass it with --inputs\\):\n    x,c\n    0,F\n")
  # Links already in the folder are replaced by the files, never followed: their targets
  # (the user's files) are not written.
  file(WRITE ${WORK}/cex/precious.txt "mine\n")
  file(MAKE_DIRECTORY ${WORK}/cex/linked)
  foreach(ext csv svg vcd)
    file(CREATE_LINK ${WORK}/cex/precious.txt ${WORK}/cex/linked/main.clocks.1.${ext} SYMBOLIC)
  endforeach()
  expect_exit(1 ${RMLCHECK} ${ADD_SAMPLED} --cex-dir ${WORK}/cex/linked)
  file(READ ${WORK}/cex/precious.txt precious)
  file(READ ${WORK}/cex/linked/main.clocks.1.csv csv)
  if(NOT precious STREQUAL "mine\n" OR NOT csv STREQUAL "x,c\n0,F\n" OR IS_SYMLINK ${WORK}/cex/linked/main.clocks.1.csv
     OR IS_SYMLINK ${WORK}/cex/linked/main.clocks.1.svg)
    message(FATAL_ERROR "--cex-dir wrote through a link: precious.txt now '${precious}', trace '${csv}'")
  endif()
endif()

# ---- --assume: each option is a source of its own, located in the option's text
part(assume selected)
if(selected)
  expect_exit(0 ${RMLCHECK} ${BACKFILL} --assume "assume always eventually bp within 5")
  expect_text(OUT "horizon 6")
  expect_exit(2 ${RMLCHECK} ${BACKFILL} --assume "always eventually bp within 5" --assume "always eventually nope within 5")
  expect_text(ERR "<--assume 2>:1:19: error\\[name.unknown\\]: unknown variable 'nope'\n 1 \\| always eventually nope within 5\n   \\|                   \\^~~~")
  expect_exit(2 ${RMLCHECK} ${BACKFILL} --assume "always bp within 5")
  expect_text(ERR "<--assume 1>:1:11: error\\[parse.expected\\]: 'within' bounds 'always eventually'")
  expect_exit(2 ${RMLCHECK} ${BACKFILL} --assume "always eventually bp within 5 o")
  expect_text(ERR "<--assume 1>:1:31: error\\[parse.expected\\]: expected ';' after the assumption, found identifier 'o'")
  expect_exit(2 ${RMLCHECK} ${BACKFILL} --assume "always eventually bp within 0")
  expect_text(ERR "<--assume 1>:1:1: error\\[static.eval\\]: the bound of 'within' must be between 1 and 1000000 cycles")
  expect_exit(2 ${RMLCHECK} ${BACKFILL} --assume " ")
  expect_text(ERR "<--assume 1>:1:2: error\\[parse.expected\\]: expected 'always'")
  expect_no_text(ERR "fig16_backfill.rml:[0-9]")  # nothing points past the user's file
endif()

# ---- non-finite reals in rml run: a warning naming the variable and the first cycle, exit 0
part(non_finite selected)
if(selected)
  file(WRITE ${WORK}/nan.rml "node n(x: real) -> (o: real; p: real[2]; q: real)\n  o = x / 0.0;\n  p = [1.0, x] / [1.0, 0.0];\n  q = x + 1.0;\n")
  file(WRITE ${WORK}/nan.csv "x\n2.0\n0.0\n")
  expect_exit(0 ${RML} run ${WORK}/nan.rml --main n --inputs ${WORK}/nan.csv)
  expect_text(ERR "warning\\[run.non-finite\\]: 'o' is inf at cycle 0, its first non-finite value")
  expect_text(ERR "warning\\[run.non-finite\\]: 'p' is inf at cycle 0 \\(element 1\\)")
  expect_no_text(ERR "'q' is|'x' is")
  file(WRITE ${WORK}/nan1.csv "x\n0.0\n")
  expect_exit(0 ${RML} run ${WORK}/nan.rml --main n --inputs ${WORK}/nan1.csv --show q,o)
  expect_text(ERR "'o' is nan at cycle 0")
endif()

# ---- numbers in traces and --at files: a double (nonzero magnitudes 4.9e-324 ..
# 1.7976931348623157e308) and a 64-bit int; past either, an error at the value, exit 2,
# never a rounded-away value (1e-400 is not 0). A NUL byte in a CSV trace is an error too.
part(numbers selected)
if(selected)
  file(WRITE ${WORK}/num.rml "node t(x: real, i: int) -> (o: real; j: int)\n  o = x;\n  j = i;\n")
  file(WRITE ${WORK}/at_bound.csv "x,i\n4.9e-324,9223372036854775807\n-1.7976931348623157e308,-9223372036854775808\n")
  expect_exit(0 ${RML} run ${WORK}/num.rml --main t --inputs ${WORK}/at_bound.csv --format csv --show o,j)
  expect_text(OUT "o,j\n5e-324,9223372036854775807\n-1\\.797[0-9]*e\\+308,-9223372036854775808\n")
  file(WRITE ${WORK}/at_bound.json "[{\"x\": 4.9e-324, \"i\": 9223372036854775807}, {\"x\": -1.7976931348623157e308, \"i\": -9223372036854775808}]")
  expect_exit(0 ${RML} run ${WORK}/num.rml --main t --inputs ${WORK}/at_bound.json --format csv --show o,j)
  expect_text(OUT "o,j\n5e-324,9223372036854775807\n-1\\.797[0-9]*e\\+308,-9223372036854775808\n")
  foreach(case "tiny;1e-400,1;2:1: error\\[trace.cell\\]: input 'x' \\(real\\): '1e-400' is not 0 but is too small for a 64-bit float"
               "huge;1e400,1;2:1: error\\[trace.cell\\]: input 'x' \\(real\\): '1e400' is out of the range of a 64-bit float"
               "wide;1,9223372036854775808;2:3: error\\[trace.cell\\]: input 'i' \\(int\\): '9223372036854775808' is not a 64-bit integer")
    list(GET case 0 name)
    list(GET case 1 row)
    list(GET case 2 want)
    file(WRITE ${WORK}/${name}.csv "x,i\n${row}\n")
    expect_exit(2 ${RML} run ${WORK}/num.rml --main t --inputs ${WORK}/${name}.csv)
    expect_text(ERR "${name}.csv:${want}")
  endforeach()
  foreach(case "tiny;1e-400, \"i\": 1;1:8: error\\[trace.syntax\\]: 1e-400 is not 0 but is too small for a double"
               "huge;1e400, \"i\": 1;1:8: error\\[trace.syntax\\]: 1e400 is beyond the range of a double"
               "wide;1, \"i\": 9223372036854775808;1:16: error\\[trace.cell\\]: cycle 0, input 'i' \\(int\\): the integer 9223372036854775808 does not fit in 64 bits")
    list(GET case 0 name)
    list(GET case 1 row)
    list(GET case 2 want)
    file(WRITE ${WORK}/${name}.json "[{\"x\": ${row}}]")
    expect_exit(2 ${RML} run ${WORK}/num.rml --main t --inputs ${WORK}/${name}.json)
    expect_text(ERR "${name}.json:${want}")
  endforeach()
  file(WRITE ${WORK}/tiny_at.json "{\"k\": 1, \"a\": [2, -3e-330]}")
  expect_exit(2 ${RML} grad ${SRC}/tests/array/lower/grad_funs.rml --fun scaled_norm --at ${WORK}/tiny_at.json)
  expect_text(ERR "tiny_at.json:1:19: error\\[grad.arguments\\]: -3e-330 is not 0 but is too small for a double")
  # CMake strings hold no NUL byte: printf writes it.
  execute_process(COMMAND printf "x,i\\n2.5,1\\n1\\0002,1\\n" OUTPUT_FILE ${WORK}/nul.csv)
  file(SIZE ${WORK}/nul.csv size)
  if(NOT size EQUAL 16)
    message(FATAL_ERROR "nul.csv has ${size} bytes, not 16")
  endif()
  expect_exit(2 ${RML} run ${WORK}/num.rml --main t --inputs ${WORK}/nul.csv)
  expect_text(ERR "nul.csv:3:2: error\\[trace.syntax\\]: a NUL byte: a trace is text \\(NUL bytes are not allowed\\)")
endif()
