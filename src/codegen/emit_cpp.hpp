// `rml compile`: a main node as a standalone C++ step class (header, source, CMake file,
// and the operator table's scalar meanings it calls, copied from src/ops), the artifact
// deployed once rml-check accepts the node.
//
// A post-free node becomes clock-directed code computing one cycle per step(), its tensors
// std::arrays and its applications of funs, builtins and operators on tensors functions
// written from their lowered terms (emit_term.hpp); a node with `post`, a window class over
// runtime/rml_window.hpp (README.md), on scalars and the table's operators. Anything else is
// a CodegenError naming what and where, never code that would compute something else.
#pragma once
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "sema/typecheck.hpp"
#include "stream/plan.hpp"

namespace rml::codegen {

struct CodegenError : std::runtime_error {
  CodegenError(std::string r, Span s, const std::string &what) : std::runtime_error(what), rule(std::move(r)), span(s) {}
  std::string rule;  // codegen.tensor, codegen.fun, codegen.imported, codegen.internal (codegen.cycle: a generator bug)
  Span span;
};

// The compiler flags (GCC, Clang) under which the generated code computes the oracle's
// reals bit for bit: no contraction of a * b + c into one rounding (-ffp-contract=off: the
// oracle rounds every operation), and no folding of the C library's transcendentals on
// constant arguments (GCC folds them with MPFR, correctly rounded, which can be an ulp
// from the library's value the oracle computes at run time). The generated CMakeLists.txt
// sets them; a build of the class by other means should too.
inline constexpr const char *kExactFlags =
    "-ffp-contract=off -fno-builtin-exp -fno-builtin-log -fno-builtin-tanh -fno-builtin-sin -fno-builtin-cos -fno-builtin-lgamma";

struct GeneratedFile {
  std::string path;  // relative to the output folder
  std::string text;
};

// The files for `prog` (rml-check accepted it: clocks, causality, productivity), whose
// step class is named after its main node. `source` names the program's file in comments.
// `ns` is the C++ namespace of the class; `horizon` rml-check's productivity horizon (a
// node with `post` gets the window class of rml_window.hpp, sized by it).
// What was generated, for rml compile's report: a window class or not, and whether its
// node retimes (src/stream/retime.hpp; else why not).
struct EmitInfo {
  bool window = false, retimed = false;
  int max_lag = 0;
  std::string not_retimed;
  bool tagless = false;      // retimed, with the tagless sweep (emit_tagless.hpp)
  std::string not_tagless;   // retimed without it: why
};
std::vector<GeneratedFile> emit_cpp(const core::Program &prog, const core::Clocks &clocks, const stream::Plan &plan,
                                    const std::string &source, const std::string &ns = "rml_generated", int64_t horizon = 0,
                                    const CheckedProgram *cp = nullptr, EmitInfo *info = nullptr);

// The C++ name of the step class of `main` (its name, made an identifier that is no keyword).
std::string class_name(const std::string &main);

// The C++ identifier of every variable of p (Inputs', Outputs' and locals' names): its
// printed name with what C++ does not allow in a name made '_' (`a[1]` a_1, `p.n` p_n,
// `f<<2>>_1_o` f_2_1_o), a keyword or an rml_ prefix given a trailing '_', and a suffix
// `_2`, `_3` .. where two names meet (in the order of the interface, then the equations).
std::unordered_map<std::string, std::string> cpp_names(const core::Program &p);

}  // namespace rml::codegen
