// A library chronogram printed as `rml run` prints one (driver/chronogram.hpp): its
// streams named as `show` names them, enumeration values by their constructors' names.
// For `rml run` on the oracle, rml-check's counterexamples and rml diff's oracle side.
#pragma once
#include <ostream>

#include "oracle/trace_io.hpp"
#include "rml/rml.hpp"

namespace rml::api {

void write_chronogram(const Program &p, const Chronogram &ch, oracle::Format f, std::ostream &out);

}  // namespace rml::api
