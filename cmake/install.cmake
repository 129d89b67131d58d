# `cmake --install`: rml as a library for other projects, and its two commands. It puts
# the public headers (include/rml: rml.hpp, rapidcheck.hpp), the shared library librml
# (src/api: it exports rml::api only; its dependencies are its own: header-only ones
# compiled in, Z3, SLEEF and fmt loaded by it at run time), rml and rml-check,
# and a CMake package:
#   find_package(rml REQUIRED)
#   target_link_libraries(my_tests PRIVATE rml::rml)
# The consumer finds and links nothing else (no Z3, Eigen, SLEEF, Boost, fmt or
# nlohmann-json) and gets no compiler flag of rml's. tests/downstream is such a
# project, configured against an installed copy in CI.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS rml rml-check RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(NOT TARGET rml_shared)  # a sanitizer build: the commands only
  return()
endif()
set_property(TARGET rml_shared APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS rml_shared EXPORT rmlTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/rml DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(EXPORT rmlTargets NAMESPACE rml:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rml)
configure_package_config_file(cmake/rmlConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/rmlConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rml)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/rmlConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/rmlConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/rmlConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rml)
