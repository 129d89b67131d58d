# Writes the prelude source into a C++ translation unit as a raw string literal.
file(READ ${IN} TEXT)
string(FIND "${TEXT}" ")RMLPRELUDE\"" CLASH)
if(NOT CLASH EQUAL -1)
  message(FATAL_ERROR "prelude.rml contains the raw-string delimiter")
endif()
file(WRITE ${OUT} "// Generated from src/prelude/prelude.rml. Do not edit.\n"
  "namespace rml { extern const char *const kPreludeSource; extern const char *const kPreludePath;\n"
  "const char *const kPreludePath = \"<prelude>\";\n"
  "const char *const kPreludeSource = R\"RMLPRELUDE(${TEXT})RMLPRELUDE\"; }\n")
