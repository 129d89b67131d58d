// Whether a checked program's first property is false or nil at some cycle of an oracle
// run: how the soundness laws confront a "valid" verdict with the reference semantics.
#pragma once
#include <string>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"

namespace rml::test {

inline bool first_property_fails_in(const CheckedProgram &cp, const core::Program &prog, const oracle::Inputs &in) {
  oracle::Result res = oracle::Oracle(cp, prog).run(in);
  const std::string &var = prog.properties.at(0).var;
  for (size_t n = 0; n < res.cycles; ++n) {
    oracle::Cell cell = res.at(var, n);
    if (cell.tag == oracle::Tag::Nil || (cell.tag == oracle::Tag::Val && cell.value.i.at(0) == 0)) return true;
  }
  return false;
}

}  // namespace rml::test
