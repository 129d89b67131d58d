// An IR program's output written back as an R(ML)² `fun`: the inverse of lowering
// (array/lower) for every IR construct, so that a gradient the symbolic AD derives is
// ordinary source that the front end checks and every back end runs.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "array/ir/program.hpp"

namespace rml::adjoint {

// A construct the surface cannot spell (an IR-only operator, a non-finite constant).
struct IrSourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The surface spelling of an IR type: "real", "real[2, 3]", "int", "bool[4]".
std::string surface_type(const ir::Type &t);

// `fun NAME(in1: T1, ...) : T = let ... in e;` computing p.outputs[output]: the binds it
// needs become nested lets, binders are renamed to plain identifiers (the passes' names
// hold '$'), the inputs keep their names. Throws IrSourceError.
std::string fun_source(const std::string &name, const ir::Program &p, size_t output);

}  // namespace rml::adjoint
