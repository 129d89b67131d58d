// `rml adjoint`: the training program of a forward node, derived by structural reverse AD
// over streams (semantics/adjoint.md). The forward node is elaborated (instances inlined,
// one primitive per equation); every active equation contributes to the cotangents of its
// operands by the rule of its primitive (adjoint_rules.cpp), pointwise applications by
// gradient funs that the symbolic reverse AD derives (apply_vjp.cpp); each `param` becomes
// a gradient step. The result is ordinary R(ML)² source: the input file followed by the
// gradient funs and the derived node.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "sema/frontend.hpp"

namespace rml::adjoint {

// Deliberately wrong rules, for the negative controls of the tests only.
enum class Mutation { None, FbyIdentity, WhenDropped, PostIdentity, GradientFunDropped };

// What a `param` becomes: a gradient step (training, the paper's diff_param), or an
// unchanged value whose gradient is an output `d_<param>` (the gradient at fixed
// parameters, for gradient checks and for optimisers outside the program).
enum class ParamMode { Update, Gradient };

struct Options {
  std::string name;  // the derived node's name; "" = MAIN_adjoint (made unique)
  ParamMode params = ParamMode::Update;
  Mutation mutation = Mutation::None;
};

struct Result {
  std::string source;  // the whole file: the input text, the gradient funs, the derived node
  std::string derived;  // the gradient funs and the derived node alone
  std::string node;     // the derived node's name
  std::string bp;       // its backprop-clock input
  std::vector<std::pair<std::string, std::string>> seeds;      // forward output -> its cotangent input
  std::vector<std::pair<std::string, std::string>> gradients;  // forward input -> its gradient output
  std::vector<std::string> params;  // the parameters found (their printed names)
  std::vector<std::pair<std::string, std::string>> param_gradients;  // ParamMode::Gradient: parameter -> its gradient output
};

// A node rml adjoint cannot derive, or an internal failure (a derived text the front end
// refuses). `rule` is in grammar.md §8's style: adjoint.interface-clock, adjoint.lowering,
// adjoint.unprintable, adjoint.internal.
struct AdjointError : std::runtime_error {
  Span span;
  std::string rule;
  AdjointError(Span s, std::string r, const std::string &what) : std::runtime_error(what), span(s), rule(std::move(r)) {}
};

// `text` is the file the front end read (fr's user file), `main` the forward node.
// Throws AdjointError, core::ElabError.
Result derive(const FrontendResult &fr, const std::string &path, const std::string &text, const std::string &main,
              const Options &opts = {});

}  // namespace rml::adjoint
