// `rml compile`: a main node as a standalone C++ step class (header, source, CMake file,
// and the operator table's scalar meanings it calls, copied from src/ops), the artifact
// deployed once rml-check accepts the node.
//
// The class computes one cycle per step(): clock-directed code in the stream plan's
// schedule (src/stream/plan.hpp), each variable a Cell (absent, nil or a value), state
// for fby, pre and -> updated at the end of the cycle. Today it covers post-free nodes on
// scalars whose applications are operators of the table and `if` (what the checker's
// proof makes exact without a window); anything else is a CodegenError naming what and
// where, never code that would compute something else.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "stream/plan.hpp"

namespace rml::codegen {

struct CodegenError : std::runtime_error {
  CodegenError(std::string r, Span s, const std::string &what) : std::runtime_error(what), rule(std::move(r)), span(s) {}
  std::string rule;  // codegen.post, codegen.tensor, codegen.fun, codegen.cycle
  Span span;
};

struct GeneratedFile {
  std::string path;  // relative to the output folder
  std::string text;
};

// The files for `prog` (rml-check accepted it: clocks, causality, productivity), whose
// step class is named after its main node. `source` names the program's file in comments.
// `ns` is the C++ namespace of the class.
std::vector<GeneratedFile> emit_cpp(const core::Program &prog, const core::Clocks &clocks, const stream::Plan &plan,
                                    const std::string &source, const std::string &ns = "rml_generated");

// The C++ name of the step class of `main` (its name, made an identifier that is no keyword).
std::string class_name(const std::string &main);

}  // namespace rml::codegen
