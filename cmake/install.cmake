# `cmake --install`: rml as a library for other projects' test suites. It puts
# the headers under include/rml (as the sources include them: "oracle/oracle.hpp",
# "gen/program_gen.hpp"), the static libraries, rml and rml-check, and a CMake package:
#   find_package(rml REQUIRED)
#   target_link_libraries(my_tests PRIVATE rml::rml_diff)   # everything below it too
# tests/downstream is such a project, configured against an installed copy in CI.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RML_LIBRARIES rml_ops rml_syntax rml_sema rml_core rml_array rml_ir rml_lower rml_bot rml_ad rml_exec rml_driver
  rml_grad_args rml_oracle rml_checker rml_stream rml_codegen rml_formats rml_gen rml_diff rml_adjoint rml_tools)
set(RML_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/rml)
# The libraries name their include folders in the source tree; installed, they are one.
foreach(t ${RML_LIBRARIES})
  get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
  set(both "")
  if(dirs)
    foreach(d ${dirs})
      list(APPEND both "$<BUILD_INTERFACE:${d}>")
    endforeach()
  endif()
  list(APPEND both "$<INSTALL_INTERFACE:${RML_INSTALL_INCLUDEDIR}>")
  set_property(TARGET ${t} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${both}")
endforeach()
# Eigen's vectorised layout must match between rml's objects and a consumer's: the same
# -march for code that includes the headers.
if(RML_PORTABLE_ARCH)
  target_compile_options(rml_ops INTERFACE $<INSTALL_INTERFACE:-march=x86-64-v3>)
endif()

install(TARGETS ${RML_LIBRARIES} EXPORT rmlTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS rml rml-check RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY src/ DESTINATION ${RML_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY oracle checker DESTINATION ${RML_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(EXPORT rmlTargets NAMESPACE rml:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rml)
configure_package_config_file(cmake/rmlConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/rmlConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rml)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/rmlConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/rmlConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/rmlConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/rml)
