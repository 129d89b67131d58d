#pragma once
#include <memory>
#include <optional>

#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Parses a whole file. Errors are reported to `diags`; the parser recovers at the next
// equation or declaration, so the returned program holds everything that parsed.
Program parse_program(const SourceFile &file, Diagnostics &diags);

// Parses a single expression (tests and tools).
ExprPtr parse_expression(const SourceFile &file, Diagnostics &diags);

// Parses one environment assumption given on its own (rml-check --assume):
// `[assume] always [eventually] e [within N] [;]`, nothing after it. nullopt after an
// error (reported to `diags`, located in `file`).
std::optional<Assumption> parse_assumption(const SourceFile &file, Diagnostics &diags);

// Maximum AST height of an expression or type; deeper input gets `parse.limit`.
inline constexpr uint32_t kMaxExprHeight = 512;

}  // namespace rml
