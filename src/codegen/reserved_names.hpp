// Names a generated class cannot use as written: the macros the standard and platform
// headers define (reserved_names.cpp holds the list and says how it is checked).
#pragma once

#include <string_view>

namespace rml::codegen {

// Whether `name` is a macro of the headers generated code includes (EOF, errno, NAN, ...).
bool is_predefined_macro(std::string_view name);

}  // namespace rml::codegen
