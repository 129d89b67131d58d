# CTest downstream.find_package: install the build under test into a scratch prefix,
# configure tests/downstream against it with find_package(rml), build it and run its
# tests. -DBUILD= the build folder, -DSRC= the sources, -DWORK= a scratch folder.
include(${SRC}/tests/cli/common.cmake)
expect_exit(0 ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(f include/rml/oracle/oracle.hpp include/rml/gen/rapidcheck_gen.hpp include/rml/diff/rapidcheck_case.hpp include/rml/diff/compare.hpp
        lib/cmake/rml/rmlConfig.cmake lib/cmake/rml/rmlConfigVersion.cmake bin/rml bin/rml-check)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "cmake --install did not put ${f} in place")
  endif()
endforeach()
expect_exit(0 ${CMAKE_COMMAND} -S ${SRC}/tests/downstream -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${WORK}/prefix)
expect_exit(0 ${CMAKE_COMMAND} --build ${WORK}/build)
# A smoke run of the consumer's property (each case is a check); a seed the caller set is kept.
string(REGEX MATCH "seed=[0-9]+" seed "$ENV{RC_PARAMS}")
set(ENV{RC_PARAMS} "max_success=15 ${seed}")
expect_exit(0 ${WORK}/build/downstream_tests)
expect_text(OUT "PASSED.*3 tests")
