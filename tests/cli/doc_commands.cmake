# The doc-test: every command a README or a program's header shows runs, with the exit
# code the curated list tests/cli/doc_commands.txt gives it, and prints the output lines
# shown.
#   cmake -DRML=... -DRMLCHECK=... -DSRC=... -DWORK=... -P doc_commands.cmake
# In a README, a command to run is a line `$ CMD` inside a ``` block; the lines after it,
# up to the next `$ ` line or the end of the block, are its output as shown: each must be
# a line of the command's stdout or stderr (trailing blanks ignored, reals compared to 10
# decimals), and a shown line ending in `...` only needs its beginning to match. Usage synopses have no `$`.
# In the header comment of a program under reference/ or examples/, a command is a line
# `//   $ CMD` (three spaces) and its output the `//   TEXT` lines right after it; the
# header's prose (`// TEXT`) ends it.
# Commands run in a scratch folder holding links to the source tree's top-level entries,
# with `rml` and `rml-check` the built programs (first on PATH).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# The READMEs: every README.md of the source tree outside build folders.
file(GLOB_RECURSE readmes RELATIVE ${SRC} ${SRC}/*README.md)
list(FILTER readmes EXCLUDE REGEX "^(build|\\.git)")
list(SORT readmes)

# The curated list: "EXIT<TAB>COMMAND" per line; '#' comments.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/doc_commands.txt listed_lines)
set(listed "")
foreach(line IN LISTS listed_lines)
  if(line MATCHES "^#" OR line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^([0-9])(r?)\t(.+)$")
    message(FATAL_ERROR "doc_commands.txt: not 'EXIT<TAB>COMMAND' or 'EXITr<TAB>COMMAND': ${line}")
  endif()
  string(SHA1 key "${CMAKE_MATCH_3}")
  set(EXIT_${key} ${CMAKE_MATCH_1})
  if(CMAKE_MATCH_2 STREQUAL "r")
    set(RELEASE_ONLY_${key} TRUE)
  endif()
  list(APPEND listed "${CMAKE_MATCH_3}")
endforeach()

# The scratch folder: links to the source folders (not to files, nor to cex/: what the
# commands write stays in the scratch folder, even when a reader's run left a.json or
# cex/ in the source tree), and the programs on PATH.
file(GLOB tops RELATIVE ${SRC} ${SRC}/*)
foreach(t IN LISTS tops)
  if(IS_DIRECTORY ${SRC}/${t} AND NOT t MATCHES "^(build.*|\\.git|cex|rml-cex)$")
    file(CREATE_LINK ${SRC}/${t} ${WORK}/${t} SYMBOLIC)
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK}/.bin)
file(CREATE_LINK ${RML} ${WORK}/.bin/rml SYMBOLIC)
file(CREATE_LINK ${RMLCHECK} ${WORK}/.bin/rml-check SYMBOLIC)
# The commands' `python3`: the interpreter the tests found (tests/CMakeLists.txt), not a
# version manager's shim, which takes ten times as long to start.
if(PYTHON3)
  file(CREATE_LINK ${PYTHON3} ${WORK}/.bin/python3 SYMBOLIC)
endif()

# A number's first 10 decimals (CMake's regex has no {n}).
set(digits10 "([0-9]\\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9])")

# The headers' commands, written as README blocks into the scratch folder (.headers/).
set(docs "")
foreach(readme IN LISTS readmes)
  list(APPEND docs "${SRC}/${readme}")
endforeach()
file(GLOB_RECURSE programs RELATIVE ${SRC} ${SRC}/reference/*.rml ${SRC}/reference/*.lus ${SRC}/examples/*.rml ${SRC}/examples/*.lus)
list(SORT programs)
foreach(prog IN LISTS programs)
  file(READ ${SRC}/${prog} header)
  string(REPLACE ";" "<SEMI>" header "${header}")  # kept as text: the README loop unescapes
  string(REPLACE "[" "<LB>" header "${header}")
  string(REPLACE "]" "<RB>" header "${header}")
  string(REPLACE "\n" ";" header "${header}")
  set(block "")
  set(open FALSE)
  foreach(line IN LISTS header)
    if(NOT line MATCHES "^//")
      break()  # the header is the leading comment
    elseif(line MATCHES "^//   \\$ (.*)$")
      if(NOT open)
        string(APPEND block "```\n")
        set(open TRUE)
      endif()
      string(APPEND block "$ ${CMAKE_MATCH_1}\n")
    elseif(open AND line MATCHES "^//   (.*)$")
      string(APPEND block "${CMAKE_MATCH_1}\n")
    elseif(open)
      string(APPEND block "```\n")
      set(open FALSE)
    endif()
  endforeach()
  if(open)
    string(APPEND block "```\n")
  endif()
  if(NOT block STREQUAL "")
    string(MAKE_C_IDENTIFIER "${prog}" id)
    file(WRITE ${WORK}/.headers/${id}.md "${block}")
    set(NAME_${id} "${prog}")
    list(APPEND docs "${WORK}/.headers/${id}.md")
  endif()
endforeach()

set(found "")
set(failures "")
foreach(doc IN LISTS docs)
  file(READ ${doc} text)
  # Named in messages as the README, or as the program whose header it is.
  file(RELATIVE_PATH readme ${SRC} ${doc})
  get_filename_component(id ${doc} NAME_WE)
  if(doc MATCHES "/\\.headers/" AND DEFINED NAME_${id})
    set(readme "${NAME_${id}} (header)")
  endif()
  # One list element per line (';' and '[' ']' escaped so that CMake keeps them).
  string(REPLACE ";" "<SEMI>" text "${text}")
  string(REPLACE "[" "<LB>" text "${text}")
  string(REPLACE "]" "<RB>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(in_block FALSE)
  set(cmd "")
  set(shown "")
  list(APPEND lines "```")  # flush at the end of the file
  foreach(raw IN LISTS lines)
    string(REPLACE "<SEMI>" ";" line "${raw}")
    string(REPLACE "<LB>" "[" line "${line}")
    string(REPLACE "<RB>" "]" line "${line}")
    set(flush FALSE)
    if(line MATCHES "^```")
      set(flush TRUE)
    elseif(in_block AND line MATCHES "^\\$ ")
      set(flush TRUE)
    endif()
    if(flush AND NOT cmd STREQUAL "")
      # Run the command that ended here.
      list(APPEND found "${cmd}")
      string(SHA1 key "${cmd}")
      if(NOT DEFINED EXIT_${key})
        string(APPEND failures "${readme}: '${cmd}' is not in tests/cli/doc_commands.txt (add it with its exit code)\n")
      elseif(SANITIZE AND RELEASE_ONLY_${key})
        # A campaign of programs (each a check and a process: its paths run under the
        # sanitizers in cli.diff_bad and diff_tests), or a build of generated code with the
        # system's compiler: here only in the Release build.
      else()
        execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${WORK}/.bin:$ENV{PATH}" sh -c "${cmd}"
                        WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
        if(NOT rc STREQUAL "${EXIT_${key}}")
          string(APPEND failures "${readme}: '${cmd}' exited ${rc}, the list says ${EXIT_${key}}\n${out}${err}\n")
        endif()
        # Every shown line is a line of the output. Reals are compared to 10 decimals: a
        # compiler that contracts a*b+c into an FMA (clang's default, used by the ASan
        # build) changes the last bits of a gradient.
        set(all "${out}\n${err}")
        string(REGEX REPLACE "[ \t]+\n" "\n" all "${all}")
        string(PREPEND all "\n")
        string(REGEX REPLACE "${digits10}[0-9]+" "\\1" all "${all}")
        foreach(s IN LISTS shown)
          # Kept escaped in the list (a ';' would split it): unescape here.
          string(REPLACE "<SEMI>" ";" s "${s}")
          string(REPLACE "<LB>" "[" s "${s}")
          string(REPLACE "<RB>" "]" s "${s}")
          string(REGEX REPLACE "[ \t]+$" "" s "${s}")
          string(REGEX REPLACE "${digits10}[0-9]+" "\\1" s "${s}")
          if(s STREQUAL "" OR s MATCHES "^ *\\.\\.\\.$")
            continue()
          endif()
          if(s MATCHES "^(.*)\\.\\.\\.$")
            string(FIND "${all}" "\n${CMAKE_MATCH_1}" at)
          else()
            string(FIND "${all}" "\n${s}\n" at)
          endif()
          if(at EQUAL -1)
            string(APPEND failures "${readme}: '${cmd}' does not print the line shown:\n  ${s}\nit printed:\n${out}${err}\n")
          endif()
        endforeach()
      endif()
      set(cmd "")
      set(shown "")
    endif()
    if(line MATCHES "^```")
      if(in_block)
        set(in_block FALSE)
      else()
        set(in_block TRUE)
      endif()
    elseif(in_block AND line MATCHES "^\\$ (.*)$")
      set(cmd "${CMAKE_MATCH_1}")
    elseif(in_block AND NOT cmd STREQUAL "")
      list(APPEND shown "${raw}")
    endif()
  endforeach()
endforeach()

# Completeness the other way: the list names no command the READMEs dropped.
foreach(c IN LISTS listed)
  list(FIND found "${c}" at)
  if(at EQUAL -1)
    string(APPEND failures "tests/cli/doc_commands.txt: '${c}' is in no README or header (remove it)\n")
  endif()
endforeach()
list(LENGTH found n)
if(n LESS 10)
  string(APPEND failures "only ${n} commands found in the READMEs: the extraction is broken\n")
endif()
if(NOT failures STREQUAL "")
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "${n} README commands ran as documented")
