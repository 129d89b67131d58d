// librml.so: rml_api linked whole (src/CMakeLists.txt), exporting rml::api only
// (exports.map). This file gives the shared library a source of its own.
#include "rml/rml.hpp"
