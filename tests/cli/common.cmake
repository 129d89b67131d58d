# Helpers of the CLI test scripts (included; WORK is the test's scratch folder, emptied).
cmake_policy(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# expect_exit(CODE cmd args...): the command exits with CODE; LAST_OUT/LAST_ERR keep its output.
function(expect_exit code)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${code}")
    message(FATAL_ERROR "expected exit ${code}, got ${rc}: ${ARGN}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(LAST_OUT "${out}" PARENT_SCOPE)
  set(LAST_ERR "${err}" PARENT_SCOPE)
endfunction()

# expect_text(OUT|ERR regex) / expect_no_text: the last command's stdout or stderr matches (or not).
function(expect_text which regex)
  if(NOT "${LAST_${which}}" MATCHES "${regex}")
    message(FATAL_ERROR "std${which} lacks /${regex}/:\n${LAST_${which}}")
  endif()
endfunction()
function(expect_no_text which regex)
  if("${LAST_${which}}" MATCHES "${regex}")
    message(FATAL_ERROR "std${which} has /${regex}/ but should not:\n${LAST_${which}}")
  endif()
endfunction()

# expect_equal(OUT|ERR text): the last command's stdout or stderr is exactly `text`.
function(expect_equal which text)
  if(NOT "${LAST_${which}}" STREQUAL "${text}")
    message(FATAL_ERROR "std${which} differs.\n--- expected\n${text}--- got\n${LAST_${which}}")
  endif()
endfunction()

# expect_exit_in(DIR CODE cmd args...): expect_exit, run in the folder DIR.
function(expect_exit_in dir code)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${code}")
    message(FATAL_ERROR "expected exit ${code}, got ${rc} in ${dir}: ${ARGN}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(LAST_OUT "${out}" PARENT_SCOPE)
  set(LAST_ERR "${err}" PARENT_SCOPE)
endfunction()
