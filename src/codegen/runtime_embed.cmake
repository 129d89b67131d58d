# Writes the files the generated step classes include (the operator table's scalar
# meanings, src/ops) into a C++ translation unit as raw string literals.
string(REPLACE "," ";" FILES "${FILES}")
set(BODY "")
foreach(f ${FILES})
  file(READ ${SRC}/${f} TEXT)
  string(FIND "${TEXT}" ")RMLRUNTIME\"" CLASH)
  if(NOT CLASH EQUAL -1)
    message(FATAL_ERROR "${f} contains the raw-string delimiter")
  endif()
  string(APPEND BODY "  {\"${f}\", R\"RMLRUNTIME(${TEXT})RMLRUNTIME\"},\n")
endforeach()
file(WRITE ${OUT} "// Generated from src/ops by src/codegen/runtime_embed.cmake. Do not edit.\n"
  "#include <utility>\n#include <vector>\n"
  "namespace rml::codegen {\n"
  "extern const std::vector<std::pair<const char *, const char *>> kRuntimeFiles;\n"
  "const std::vector<std::pair<const char *, const char *>> kRuntimeFiles = {\n${BODY}};\n}\n")
