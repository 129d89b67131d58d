# CTest downstream.find_package: install the build under test into a scratch prefix,
# configure tests/downstream against it with find_package(rml), build it and run its
# tests. -DBUILD= the build folder, -DSRC= the sources, -DWORK= a scratch folder.
include(${SRC}/tests/cli/common.cmake)
file(REMOVE_RECURSE ${WORK})
expect_exit(0 ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(f include/rml/rml.hpp include/rml/rapidcheck.hpp lib/librml.so lib/cmake/rml/rmlConfig.cmake
        lib/cmake/rml/rmlConfigVersion.cmake bin/rml bin/rml-check)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "cmake --install did not put ${f} in place")
  endif()
endforeach()
# Private stays private: no internal header, no static library of a stage.
file(GLOB_RECURSE private RELATIVE ${WORK}/prefix ${WORK}/prefix/include/rml/*/* ${WORK}/prefix/lib/*.a)
if(private)
  message(FATAL_ERROR "cmake --install put rml's internals in the package: ${private}")
endif()
expect_exit(0 ${CMAKE_COMMAND} -S ${SRC}/tests/downstream -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${WORK}/prefix)
expect_exit(0 ${CMAKE_COMMAND} --build ${WORK}/build)
# No flag of rml's imposed on the consumer (rml is built with -march=x86-64-v3), and none
# of rml's dependencies on its include path.
file(READ ${WORK}/build/compile_commands.json commands)
foreach(forbidden "-march" "z3" "eigen3" "sleef" "boost" "nlohmann" "fmt")
  string(FIND "${commands}" "${forbidden}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the consumer's compile command holds '${forbidden}':\n${commands}")
  endif()
endforeach()
# A smoke run of the consumer's property (each case is a check); a seed the caller set is kept.
string(REGEX MATCH "seed=[0-9]+" seed "$ENV{RC_PARAMS}")
set(ENV{RC_PARAMS} "max_success=15 ${seed}")
expect_exit(0 ${WORK}/build/downstream_tests)
expect_text(OUT "PASSED.*6 tests")
