#pragma once
#include <string>

#include "syntax/ast.hpp"
#include "syntax/lexer.hpp"

namespace rml {

std::string print_expr(const Expr &e);
std::string print_type(const TypeSyntax &t);
// The canonical print of a program (no comments; declarations separated by one empty
// line). parse_program(print_program(p)) is ast_equal to p.
std::string print_program(const Program &p);

// `rml fmt`: the canonical print of `p`, which parse_program read from `file` without
// errors, keeping every comment of `file`, in order (src/syntax/README.md "Formatting"):
//  - a comment after the last token of a printed line (a declaration header, `var`, a
//    local, `let`, an equation or assumption, `tel`, a fun header or body, a const) and
//    on the same source line stays at the end of that line;
//  - any other comment goes on its own line above the printed line holding the token
//    that follows it, indented like it (a comment inside a line's code moves above it);
//  - declarations are separated by one empty line; elsewhere one empty line of the
//    source (between lines or comments) is kept, a run of them counts as one;
//  - parentheses written in the source are kept (besides those the printer needs);
//  - statements print in source order; line comments lose their trailing blanks.
// Formatting is idempotent and the result parses to a program ast_equal to p.
std::string format_source(const Program &p, const SourceFile &file);

// The text of a comment as format_source writes it (a line comment without trailing
// blanks or the carriage return of a CRLF line).
std::string comment_text(const SourceFile &file, const Comment &c);

}  // namespace rml
