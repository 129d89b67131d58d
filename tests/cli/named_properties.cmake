# Named properties (tests/cli/named_properties.lus): every report of rml-check calls a
# named property by its name and keeps its text -- the text report, --json (name and
# text), SARIF (message and properties.name), JUnit (the test case), Kind 2 JSON (the
# property's name) -- and a counterexample's files are named after it, made file-safe
# ("../up" gives MAIN.property._up.csv, in --cex-dir), while an unnamed property keeps
# today's report and file (MAIN.property.1.csv). Verdicts under --rlimit (deterministic).
# Negative control: the same checks on the file with its names removed must each fail,
# so a report that dropped a name would be caught.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(BUDGET --rlimit 3000000)

# named_checks(DIR FILE): runs rml-check on DIR/FILE in every format and appends to
# FAILED (in the caller) the label of each named-property check that does not hold.
# The checks of what does not depend on names (exit codes, the unnamed property) stop
# the test at once.
function(named_checks dir file)
  set(failed)
  # Text, with counterexample files in --cex-dir.
  expect_exit_in(${dir} 1 ${RMLCHECK} ${file} ${BUDGET} --cex-dir cex)
  set(text "${LAST_OUT}")
  foreach(line
      "  property \"bounded\" 'y <= 5 and y >= 0' \\(line 7\\): valid -- "
      "  property \"P1\" 'y <= 4' \\(line 8\\): falsified -- "
      "  property \"../up\" 'y <= 3' \\(line 9\\): falsified -- "
      "  replay: rml run [^ ]+ --main sat --inputs cex/sat.property.P1.csv "
      "  replay: rml run [^ ]+ --main sat --inputs cex/sat.property._up.csv ")
    if(NOT text MATCHES "\n${line}")
      list(APPEND failed "text: ${line}")
    endif()
  endforeach()
  foreach(f sat.property.P1.csv sat.property.P1.vcd sat.property.P1.svg sat.property._up.csv)
    if(NOT EXISTS ${dir}/cex/${f})
      list(APPEND failed "file: cex/${f}")
    endif()
  endforeach()
  set(svg)
  if(EXISTS ${dir}/cex/sat.property.P1.svg)
    file(READ ${dir}/cex/sat.property.P1.svg svg)
  endif()
  if(NOT svg MATCHES "<title>sat: property &quot;P1&quot; falsified</title>")
    list(APPEND failed "svg title")
  endif()
  # The unnamed property: today's line and file, whatever the names around it.
  expect_text(OUT "\n  property 'y <> 5' \\(line 10\\): falsified -- ")
  expect_text(OUT "  replay: rml run [^ ]+ --main sat --inputs cex/sat.property.1.csv ")
  if(NOT EXISTS ${dir}/cex/sat.property.1.csv)
    message(FATAL_ERROR "no cex/sat.property.1.csv for the unnamed property:\n${text}")
  endif()
  # Nothing was written outside --cex-dir (no "../up" path).
  file(GLOB_RECURSE outside ${WORK}/*.csv)
  list(FILTER outside EXCLUDE REGEX "/(named|bare)/cex/[^/]+$")
  if(outside)
    message(FATAL_ERROR "counterexample files outside --cex-dir: ${outside}")
  endif()

  # JSON: name and text of each property (entries 4.. after clocks, causality,
  # productivity and initialisation).
  expect_exit_in(${dir} 1 ${RMLCHECK} ${file} ${BUDGET} --json --cex-dir cex)
  set(json "${LAST_OUT}")
  set(k 4)
  foreach(want "bounded|y <= 5 and y >= 0" "P1|y <= 4" "../up|y <= 3")
    string(REPLACE "|" ";" want "${want}")
    list(GET want 0 name)
    list(GET want 1 text)
    string(JSON got_name ERROR_VARIABLE e1 GET "${json}" reports 0 properties ${k} name)
    string(JSON got_text ERROR_VARIABLE e2 GET "${json}" reports 0 properties ${k} text)
    if(NOT got_name STREQUAL name OR NOT got_text STREQUAL text)
      list(APPEND failed "json ${k}: name '${got_name}' text '${got_text}'")
    endif()
    math(EXPR k "${k} + 1")
  endforeach()
  string(JSON got ERROR_VARIABLE e GET "${json}" reports 0 properties 5 counterexample trace_file)
  if(NOT got STREQUAL "cex/sat.property.P1.csv")
    list(APPEND failed "json trace_file '${got}'")
  endif()
  string(JSON got GET "${json}" reports 0 properties 7 name)
  string(JSON none ERROR_VARIABLE no_text GET "${json}" reports 0 properties 7 text)
  if(NOT got STREQUAL "y <> 5" OR NOT no_text)
    message(FATAL_ERROR "the unnamed property's JSON changed:\n${json}")
  endif()

  # SARIF: the verdict's message and properties.name.
  expect_exit_in(${dir} 1 ${RMLCHECK} ${file} ${BUDGET} --format sarif --no-cex-files)
  set(sarif "${LAST_OUT}")
  string(JSON n LENGTH "${sarif}" runs 0 results)
  set(found_message OFF)
  set(found_name OFF)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON rule GET "${sarif}" runs 0 results ${i} ruleId)
    string(JSON message GET "${sarif}" runs 0 results ${i} message text)
    if(rule STREQUAL "rml-check.property" AND message MATCHES "^node sat: property \"P1\" 'y <= 4': falsified -- ")
      set(found_message ON)
      string(JSON pname ERROR_VARIABLE e GET "${sarif}" runs 0 results ${i} properties name)
      if(pname STREQUAL "P1")
        set(found_name ON)
      endif()
    endif()
  endforeach()
  if(NOT found_message)
    list(APPEND failed "sarif message")
  endif()
  if(NOT found_name)
    list(APPEND failed "sarif properties.name")
  endif()

  # JUnit: the test case and its failure.
  expect_exit_in(${dir} 1 ${RMLCHECK} ${file} ${BUDGET} --format junit --no-cex-files)
  if(NOT LAST_OUT MATCHES "<testcase classname=\"[^\"]*\\.sat\" name=\"property &quot;P1&quot; 'y &lt;= 4'\">\n      <failure type=\"falsified\" message=\"property &quot;P1&quot; 'y &lt;= 4' is falsified\">")
    list(APPEND failed "junit")
  endif()

  # Kind 2 JSON: a property object by name.
  expect_exit_in(${dir} 1 ${RMLCHECK} ${file} ${BUDGET} --format kind2 --no-cex-files)
  set(k2 "${LAST_OUT}")
  string(JSON n LENGTH "${k2}")
  math(EXPR last "${n} - 1")
  set(names)
  foreach(i RANGE ${last})
    string(JSON type GET "${k2}" ${i} objectType)
    if(type STREQUAL "property")
      string(JSON pname GET "${k2}" ${i} name)
      list(APPEND names "${pname}")
    endif()
  endforeach()
  string(REPLACE ";" ", " names "${names}")
  if(NOT names STREQUAL "clocks, causality, productivity, initialisation, bounded, P1, ../up, y <> 5")
    list(APPEND failed "kind2 names: ${names}")
  endif()
  set(FAILED "${failed}" PARENT_SCOPE)
endfunction()

set(named_dir ${WORK}/named)
file(MAKE_DIRECTORY ${named_dir})
configure_file(${SRC}/tests/cli/named_properties.lus ${named_dir}/named_properties.lus COPYONLY)
named_checks(${named_dir} named_properties.lus)
if(FAILED)
  string(REPLACE ";" "\n  " FAILED "${FAILED}")
  message(FATAL_ERROR "named properties are not reported by name:\n  ${FAILED}")
endif()
# A rerun rewrites the same files (the names do not move to -2).
expect_exit_in(${named_dir} 1 ${RMLCHECK} named_properties.lus ${BUDGET} --cex-dir cex)
file(GLOB written RELATIVE ${named_dir}/cex ${named_dir}/cex/*.csv)
list(SORT written)
if(NOT written STREQUAL "sat.property.1.csv;sat.property.P1.csv;sat.property._up.csv")
  message(FATAL_ERROR "counterexample files: ${written}")
endif()

# Negative control: without their names, every named check fails.
set(bare_dir ${WORK}/bare)
file(MAKE_DIRECTORY ${bare_dir})
file(READ ${SRC}/tests/cli/named_properties.lus source)
string(REGEX REPLACE "(PROPERTY|check) \"[^\"\n]*\" " "\\1 " bare "${source}")
if(bare STREQUAL source)
  message(FATAL_ERROR "the negative control removed no name")
endif()
file(WRITE ${bare_dir}/named_properties.lus "${bare}")
named_checks(${bare_dir} named_properties.lus)
list(LENGTH FAILED n)
if(NOT n EQUAL 18)
  string(REPLACE ";" "\n  " FAILED "${FAILED}")
  message(FATAL_ERROR "without names, 18 checks must fail, ${n} did:\n  ${FAILED}")
endif()

# Unique file names: names that are equal once file-safe ("a b", "a_b", and "A B" on a
# file system that ignores case) or that spell an unnamed one's number ("1") get -2, -3;
# the unnamed property keeps MAIN.property.1.
set(d ${WORK}/unique)
file(MAKE_DIRECTORY ${d})
file(WRITE ${d}/u.lus "node sat(x: int) returns (y: int);\nlet\n  y = if x > 5 then 5 else if x < 0 then 0 else x;\n"
                      "  check \"1\" y <= 4;\n  check \"a b\" y <= 3;\n  check \"a_b\" y <= 2;\n  check \"A B\" y <= 1;\n"
                      "  check y <> 5;\ntel\n")
expect_exit_in(${d} 1 ${RMLCHECK} u.lus ${BUDGET} --cex-dir cex)
file(GLOB written RELATIVE ${d}/cex ${d}/cex/*.csv)
list(SORT written)
if(NOT written STREQUAL "sat.property.1-2.csv;sat.property.1.csv;sat.property.A_B-3.csv;sat.property.a_b-2.csv;sat.property.a_b.csv")
  message(FATAL_ERROR "counterexample files: ${written}\n${LAST_OUT}")
endif()
expect_text(OUT "property 'y <> 5' \\(line 8\\): falsified[^\n]*\n(.*\n)*  replay: [^\n]* --inputs cex/sat.property.1.csv ")
