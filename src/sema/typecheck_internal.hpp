// Internal to the type checker (sema/typecheck*.cpp), not part of sema/typecheck.hpp.
// TypeChecker walks a whole program once: it evaluates the static constants, builds every
// declaration's signature, then types every node and fun body; its member functions are
// spread over one file per concern (the section comments below name the file). Also the
// two exceptions of static evaluation and the diagnostic sink shared by those files.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sema/typecheck.hpp"

namespace rml::typecheck {

struct NotStatic {
  Span span;
  std::string why;
};
struct StaticEvalError {
  Span span;
  std::string why;
};

// Span of a call's callee name (a call's span starts with its name).
Span callee_span(const Expr &e);
// The first token of an expression: for binary expressions, the left operand's start.
Span start_span(const Expr &e);

// Forwards to the real diagnostics, or swallows them during a probe pass.
struct Sink {
  Diagnostics &real;
  bool silent = false;
  void error(const std::string &rule, Span s, std::string m) {
    if (!silent) real.error(rule, s, std::move(m));
  }
  void warning(const std::string &rule, Span s, std::string m) {
    if (!silent) real.warning(rule, s, std::move(m));
  }
  void note(Span s, std::string m) {
    if (!silent) real.note(s, std::move(m));
  }
};

class TypeChecker {
 public:
  TypeChecker(CheckedProgram &cp, Diagnostics &d) : cp_(cp), d_{d} {}

  void run();

 private:
  CheckedProgram &cp_;
  Sink d_;
  std::vector<std::optional<Type>> metas_;

  // ------------------------------------------------------------------ declarations (typecheck.cpp)
  void collect_decls();
  size_t prelude_count_ = 0;
  size_t prelude_count() const { return prelude_count_; }

  // Scoping of global names (grammar.md §6): a prelude declaration sees only the prelude
  // (and the builtins), never a declaration of the user's file; a user declaration sees
  // both. `in_prelude_` says which kind of declaration is being checked.
  bool in_prelude_ = false;
  bool visible(const std::string &n) const;
  // Sets in_prelude_ for the declaration at `idx` and restores it on exit.
  struct DeclScope {
    bool &flag;
    bool saved;
    DeclScope(bool &f, bool prelude) : flag(f), saved(f) { flag = prelude; }
    ~DeclScope() { flag = saved; }
    DeclScope(const DeclScope &) = delete;
    DeclScope &operator=(const DeclScope &) = delete;
  };

 public:
  void set_prelude_count(size_t n) { prelude_count_ = n; }

 private:
  // ------------------------------------------------------------------ static evaluation (typecheck_static.cpp)
  struct StaticEnv {
    const std::map<std::string, StaticValue> *params = nullptr;  // static params + implicit vars
    std::function<std::optional<StaticValue>(const std::string &, Span)> local;  // static locals
    const std::vector<std::map<std::string, Type>> *scopes = nullptr;  // dynamic names shadow
    std::map<std::string, StaticValue> *implicit = nullptr;  // signature mode: collects size vars
  };

  std::optional<StaticValue> lookup_static(const std::string &n, Span s, const StaticEnv &env);
  Poly need_int(const Expr &e, const StaticEnv &env);
  StaticValue eval_static(const Expr &e, const StaticEnv &env);
  StaticValue eval_static_inner(const Expr &e, const StaticEnv &env);
  static std::string print_shape_atom(const Shape &s) { return shape_str(s); }
  static std::string print_expr_short(const Expr &e);
  bool is_known_dynamic(const std::string &, const StaticEnv &) const { return false; }

  void check_dims(const Shape &s, Span span);
  bool report_static(const NotStatic &ns);
  bool report_static(const StaticEvalError &se);

  // ------------------------------------------------------------------ global constants (typecheck_static.cpp)
  void eval_consts();
  std::set<std::string> const_in_progress_;
  void eval_const(const std::string &name, const ConstDecl &c);

  // ------------------------------------------------------------------ signatures (typecheck_signatures.cpp)
  Type sig_type(const TypeSyntax &ts, std::map<std::string, StaticValue> &statics,
                std::map<std::string, StaticValue> *implicit, std::vector<std::string> &shape_vars,
                std::vector<std::string> &tyvars, bool &ok);
  std::vector<std::string> undetermined_;  // reported size variables, still bound in the body

  void build_signature(const std::string &name, const Decl &d);
  static Span find_dim_use(const std::vector<VarDecl> &ins, const std::string &n);

  // ------------------------------------------------------------------ recursion, state (typecheck_signatures.cpp)
  void calls_in(const Expr &e, std::vector<const Expr *> &out);
  std::vector<const Expr *> decl_calls(const Decl &d);
  std::set<std::string> recursive_;
  void check_recursion();
  static bool has_state_op(const Expr &e);
  void compute_statefulness();

  // ------------------------------------------------------------------ unification (typecheck_expr.cpp)
  Type fresh_meta();
  Type resolve(const Type &t);
  Type zonk(const Type &t);
  bool unify(const Type &a0, const Type &b0);
  void mismatch(const Expr &at, const Type &got0, const Type &want0, const std::string &context);

  // ------------------------------------------------------------------ expression typing (typecheck_expr.cpp)
  struct NodeState;
  struct Ctx {
    bool in_fun = false;
    bool const_mode = false;
    bool is_function = false;  // Lustre `function` body
    std::string decl;
    std::vector<std::map<std::string, Type>> scopes;
    std::map<std::string, StaticValue> statics;  // static params + implicit vars
    NodeState *node = nullptr;
    StaticEnv env() {
      StaticEnv e;
      e.params = &statics;
      e.scopes = &scopes;
      if (node) e.local = node->static_lookup;
      return e;
    }
  };

  struct NodeState {
    const NodeDecl *decl = nullptr;
    NodeInfo *info = nullptr;
    std::vector<int> eq_state;  // 0 unchecked, 1 in progress, 2 done
    std::set<std::string> static_in_progress;
    std::function<std::optional<StaticValue>(const std::string &, Span)> static_lookup;
    Ctx *ctx = nullptr;
    int depth = 0;
  };

  Type record(const Expr &e, Type t);
  Type type_from_syntax(const TypeSyntax &ts, Ctx &ctx);
  Type with_declared_kind(const TypeSyntax &ts, Type t);
  Type not_on_enum(const Expr &e, const Type &t);
  bool machine_operand(const Expr &operand, const Type &t, const char *opname);
  Type infer_machine_cast(const Expr &e, Ctx &ctx, MachineInt to);
  Type enum_clock(const Expr &at);
  std::vector<std::string> variables_in_scope(const Ctx &ctx) const;
  std::string did_you_mean(const std::string &n, std::vector<std::string> own, bool values) const;
  Type var_type(const Expr &e, Ctx &ctx);
  Type static_as_value(const StaticValue &v, const Expr &e);
  bool require_bool_scalar(const Expr &e, const Type &t0, const char *what);
  void stream_op_in_fun(const Expr &e, Ctx &ctx, const char *what);
  Type broadcast(const Expr &e, const Type &l0, const Type &r0, const char *opname);
  // + - * / div mod: scalar broadcast, numeric operands (int ones for div and mod).
  Type arith(const Expr &e, const Type &l0, const Type &r0, bool may_defer);
  Type infer(const Expr &e, Ctx &ctx, bool allow_tuple = false);
  Type infer_inner(const Expr &e, Ctx &ctx, bool allow_tuple);

  // ------------------------------------------------------------------ calls (typecheck_calls.cpp)
  std::optional<StaticValue> static_arg(const Expr &a, Ctx &ctx, StaticValue::Kind want, const std::string &what);

  // The callee's implicit variables renamed apart from every caller name: a fresh name
  // starts with '?', which no identifier (and so no caller size, shape or type variable,
  // nor any atom built from them) contains. Binding works on the renamed formals, so a
  // caller value that mentions a name the callee also uses (the caller's `n` bound to the
  // callee's `k` of `matmul(a: real[m, k], b: real[k, n])`) is never taken for the callee's
  // variable.
  struct Renaming {
    TypeSubst to_fresh;  // callee name -> fresh name
    std::vector<std::string> size_vars, shape_vars, tyvars;  // the fresh names
  };
  static constexpr char kFreshMark = '?';
  static Renaming rename_implicit(const Signature &sig);
  static bool mentions_fresh(const Shape &sh);
  void bind_implicit(const Type &formal, const Type &actual0, const Renaming &rn, TypeSubst &s);
  Type infer_call(const Expr &e, Ctx &ctx, bool allow_tuple);
  static bool leaves_unbound(const Signature &sig, const TypeSubst &s);
  std::vector<Type> fresh_outputs(size_t n);
  static Type tuple_or_one_impl(std::vector<Type> ts, bool allow_tuple);
  static Type error_outputs(const Signature &sig, bool allow_tuple);
  Type infer_conversion(const Expr &e, Ctx &ctx);
  bool arity(const Expr &e, size_t lo, size_t hi);
  Type need_tensor(const Expr &a, Ctx &ctx, const std::string &what);
  Type require_tensor(const Expr &a, const Type &t, const std::string &what);
  // An elementwise builtin or conversion (exp, abs, floor, int, real) whose argument is a
  // local that a cycle leaves untyped so far (`v0 = 0.5 fby v1; v1 = exp(v0);` typed from
  // v1): the result is `result` (the argument's own type, or a fresh variable), and the
  // operator's typing rule is applied when the pass ends, by settle_elementwise. Without
  // this the probe passes never learn v0's type and a well-typed node is refused.
  // Likewise an arithmetic operator (+ - * / div mod) with one operand such a local and
  // the other typed (`v1 = u + (u -> pre v3); v3 = x * v1;` with x a real and u a
  // real[3]): the local may be a scalar or a tensor (scalar broadcast), so the result is
  // the other operand's type when that is a tensor, a fresh variable when it is a scalar,
  // and `arith`'s rule is applied when the pass ends. Settled first, repeatedly while one
  // settles; one still open then takes the guess the checker made before deferring (both
  // operands of one type). An index whose base is such a local takes that guess at once
  // (take_deferred_guess): it needs the base typed within the pass.
  struct DeferredElementwise {
    const Expr *arg;
    Type arg_type, result;
    std::string name;
    const Expr *binary = nullptr;  // a deferred arithmetic operator: arg_type and `other` its operands' types
    Type other;
    // A fun's argument (`call`'s argument `arg_index`, of type arg_type) not typed yet whose
    // parameter has an implicit size no other argument binds (`v2 = dot(v1, v1)` with v1
    // typed later through a cycle): unifying it then would type it with the callee's own
    // name (real[n]); it is checked, and binds the size, when the pass ends.
    const Expr *call = nullptr;
    size_t arg_index = 0;
  };
  Type take_deferred_guess(const Type &meta);
  void argument_type_missing(const Expr &arg);  // type.missing at a call's argument
  void bind_implicit_args(const Signature &sig, const std::vector<std::pair<size_t, Type>> &args, TypeSubst &s);
  static bool unbound_in(const Signature &sig, const TypeSubst &s, const Type &t);
  std::vector<DeferredElementwise> deferred_;
  Type defer_elementwise(const Expr &arg, const Type &arg_type, const Type &result, const std::string &name);
  void settle_elementwise();
  std::string elementwise_mismatch(const std::string &name, const Type &arg);
  static size_t known_prefix(const Shape &s);
  Type lambda_body(const Expr &lam, size_t n_binders, Ctx &ctx, const std::string &what);
  std::optional<size_t> index_list(const Expr &lam, size_t n_binders, Ctx &ctx, const std::string &what);

  // ------------------------------------------------------------------ builtins (typecheck_builtins.cpp)
  Type infer_builtin(const Expr &e, Ctx &ctx);
  std::optional<StaticValue> eval_loose(const Expr &a, Ctx &ctx, const std::string &what);

  // ------------------------------------------------------------------ bodies (typecheck_bodies.cpp)
  void check_fun(const FunDecl &f);
  void check_node(const NodeDecl &n);
  void check_node_pass(const NodeDecl &n, const std::map<std::string, Type> &hints);

  const Expr *hint_expr_ = nullptr;
  Type hint_type_;
  std::optional<std::vector<Type>> early_outputs(const Expr &e, Ctx &ctx);
  void check_equation(NodeState &st, int k);
  void zonk_all();
};

}  // namespace rml::typecheck
