// Name resolution, static parameters, types and shapes of both layers (grammar.md §3-§6).
// Generic declarations are checked once symbolically; each use instantiates the signature.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sema/types.hpp"
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

struct Param {
  std::string name;
  bool is_const = false;
  StaticValue::Kind static_kind = StaticValue::Int;  // for const params
  Type type;                                          // for value params
  Span span;
};

struct Signature {
  std::string name;
  bool is_node = true;       // node/function, or fun
  bool is_function = false;  // Lustre `function` (stateless)
  bool from_prelude = false;
  bool stateful = false;     // contains fby/pre/->/post, or instantiates a stateful node
  bool imported = false;     // declared without a body (NodeDecl::imported): applied, never inlined
  std::vector<Param> inputs;
  std::vector<std::string> output_names;
  std::vector<Type> outputs;  // one for a fun
  std::vector<std::string> size_vars, shape_vars, tyvars;  // implicit, bound at each use
  bool ok = true;
};

struct CallInfo {
  enum Kind : uint8_t { Node, Fun, Builtin } kind = Builtin;
  std::string callee;
  TypeSubst subst;  // callee's static names and variables -> the caller's values and types
};

struct VarInfo {
  enum Kind : uint8_t { Input, Output, Local } kind = Local;
  Type type;
  Span span;
  bool declared = false;  // type written in the source
  int def_eq = -1;        // defining equation
};

struct NodeInfo {
  std::map<std::string, VarInfo> vars;  // inputs, outputs, locals (const inputs excluded)
  std::map<std::string, StaticValue> statics;  // const inputs (symbolic) and static locals
};

struct CheckedProgram {
  Program program;                        // prelude declarations, then the user's
  std::map<std::string, size_t> decls;    // name -> index in program.decls (after shadowing)
  std::map<std::string, Signature> sigs;
  std::map<std::string, NodeInfo> nodes;
  std::map<std::string, StaticValue> static_consts;
  std::map<std::string, Type> value_consts;  // real/bool constants
  std::unordered_map<const Expr *, Type> expr_types;
  std::unordered_map<const Expr *, CallInfo> calls;
  std::unordered_map<const Expr *, StaticValue> static_args;  // static arguments, by argument
  std::set<std::string> prelude_names;
  size_t prelude_decls = 0;  // program.decls[0 .. prelude_decls) come from the prelude
  // Declared enumerations (sema/type_decls): their constructors, and each constructor's
  // enumeration and index.
  std::map<std::string, std::shared_ptr<const std::vector<std::string>>> enums;
  std::map<std::string, std::pair<std::string, int64_t>> enum_ctors;

  const Decl *find(const std::string &name) const {
    auto it = decls.find(name);
    return it == decls.end() ? nullptr : &program.decls[it->second];
  }
};

// Runs every check on `program` (prelude first). Errors go to `diags`.
void check_program(CheckedProgram &cp, Diagnostics &diags);

// Builtins of the function layer (grammar.md §5).
bool is_builtin(const std::string &name);

// Whether argument k (of nargs) of a builtin is static (`#` in grammar.md §5): the shape
// or count of build/gather/scatter/replicate/reshape/iota/transpose, and sum's axis.
bool builtin_static_arg(const std::string &name, size_t k, size_t nargs);

}  // namespace rml
