// Producer–consumer fusion of applications, for rml compile (emit_cpp.cpp runs it first).
//
// The normal form binds every application to a variable: `dx = matvec(tr(k), do)` is
// `t = tr(k); dx = matvec(t, do)`, and the class would compute t into a buffer (a block,
// in the window class) only for matvec to read it once. Here an application whose
// variable is read exactly once, by another application, on the same clock (the normal
// form's applications read their operands on their own clock), is computed inside its
// reader: the reader's equation reads the producer's operands instead (its "leaves"), and
// its generated function is the reader's lowered term with the producer's substituted for
// that operand (apply_term.hpp's apply_fused), which emit_term then fuses into loops.
//
// Why the class still computes the oracle's values: the fused function computes each
// leaf-to-result term the unfused functions computed, on the same operands (substitution
// of a term for the variable bound to its value); presence and nil of the result are those
// of its leaves, as they were of the chain (an application is present, absent or nil where
// its operands all are); the producer's variable was read nowhere else, and is no output,
// condition, assumption or property. tests/stream/test_compile.cpp checks the fused
// classes against the oracle (CompileEqualsOracle.FusedApplicationsEqualTheOracle and the
// random laws).
#pragma once
#include "stream/window_tables.hpp"
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/normalize.hpp"

namespace rml::codegen {

// An application with the applications fused into it.
struct FusedApplication {
  core::Equation eq;  // as the normal form wrote it (its operands the variables it read)
  // Per operand of eq: the application computing it inside this one, or null for an
  // operand read from its variable (a leaf: an operand of the fused equation).
  std::vector<std::shared_ptr<const FusedApplication>> from;
};

struct FusedProgram {
  core::Program prog;  // producers' equations and variables removed; a consumer reads its leaves
  // Each consumer's tree, by its variable (consumers with at least one producer fused).
  std::unordered_map<std::string, std::shared_ptr<const FusedApplication>> tree_of;
};

// Which applications a function computes (and only those fuse): stream/window_tables.hpp.
using stream::applied_by_function;

// The fused program of p (p itself is left as it is).
FusedProgram fuse_applications(const core::Program &p);

}  // namespace rml::codegen
