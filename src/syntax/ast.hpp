// Surface AST with source spans (both layers share one expression type).
// Printing and re-parsing gives an equal AST (ast_equal ignores spans).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ops/scalar.hpp"
#include "syntax/source.hpp"

namespace rml {

enum class ExprKind : uint8_t {
  IntLit, RealLit, BoolLit, Var,
  Unary,   // op: Neg Not Pre Post ; args[0]
  Binary,  // op ; args[0], args[1]
  When,    // args[0] when[not] args[1] ; polarity in `positive`
  Merge,   // merge args[0] args[1] args[2]
  If,      // if args[0] then args[1] else args[2]
  Let,     // let name = args[0] in args[1]
  Call,    // name(args...)
  Index,   // args[0][args[1], ...]
  Tuple,   // (args...) with >= 2 elements
  Array,   // [args...]
  Lambda,  // \(binders) => args[0]
  Reset,   // args[0] every args[1]: the node call args[0], restarted where args[1] is true
           // (name "restart": written `(restart f every c)(...)`)
  // Lustre records, eliminated before type checking (sema/expand_aggregates):
  Field,   // args[0].name: a field of a record
  Record,  // name { binders[k] = args[k]; ... }: a value of the record type `name`
  Update,  // args[0][binders[0] := args[1]]: a record with one field replaced (Kind 2)
};

enum class Op : uint8_t {
  None, Neg, Not, Pre, Post,
  Add, Sub, Mul, Div, IntDiv, Mod, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor, Fby, Arrow,
  Implies,  // Lustre `a => b`
  Caret,    // Lustre `e ^ n`: the array of n copies of e (sema/expand_aggregates)
  // Kind 2's bitwise operators and shifts on machine integers (`&&`, `||`, `!`, `lsh`, `rsh`)
  BitAnd, BitOr, BitNot, Lsh, Rsh,
};

const char *op_spelling(Op op);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct TypeSyntax;

struct Expr {
  ExprKind kind;
  Span span;
  Op op = Op::None;
  bool positive = true;          // When: `when c` (true) or `when not c` (false)
  bool bval = false;             // BoolLit
  int64_t ival = 0;              // IntLit
  double rval = 0;               // RealLit
  std::string name;              // Var, Call, Let
  std::vector<std::string> binders;  // Lambda; Record, Update: fields; Merge over an enumeration
                                     // (`merge k (A -> a) (B -> b)`): the constructors, args[1..] their branches;
                                     // Call of a Heptagon iterator `map<<n>> f (a)`: {f} (an operator: its
                                     // spelling, `(+)`), args[0..statics) the sizes (sema/expand_iterators)
  std::vector<Span> binder_spans;
  std::vector<bool> fat_arrows;  // Merge over an enumeration: the clauses written `(A => a)`
                                 // (Vélus); a paper-form operand `(x => e)` is an implication
  std::vector<ExprPtr> args;
  Span op_span;                   // the operator keyword/symbol (Binary, Unary, When, Merge, If, Let)
  uint32_t height = 1;            // AST height below this node (bounded by the parser)
  uint32_t statics = 0;           // Call: args[0..statics) are static arguments `f<<a, b>>(x)`
                                  // (sema/instantiate_statics)
  // Call: Kind 2's type arguments `N@<int, real>(x)`, and `any@<T>` (name "any", no
  // arguments): sema/instantiate_types. Shared, never modified.
  std::vector<std::shared_ptr<const TypeSyntax>> type_args;

  explicit Expr(ExprKind k, Span s = {}) : kind(k), span(s) {}
  ExprPtr clone() const;
};

// The element types live with the operator table (src/ops), which states its typing
// rules in them; the front end names them rml::Scalar as before.
using ops::Scalar;
using ops::scalar_name;

struct DimSyntax {
  bool splice_var = false;  // `*s`: an implicit shape variable
  std::string var;          // name when splice_var
  ExprPtr expr;             // otherwise a static expression
  Span span;
  DimSyntax clone() const;
};

// Kind 2's refinement `subtype { v: T | P }` (or `x: T | P` on a declaration, where P reads
// x itself: `var` empty): the values of T for which P holds. The parser turns each into
// assumptions and properties of the nodes (syntax/refinements.cpp) and returns types
// without them.
struct Refinement {
  std::string var;
  ExprPtr pred;
  Span span;
};

// Kind 2's machine integers (semantics/machine_ints.md): `int8` .. `int64`, `uint8` ..
// `uint32`, `sint<N>` (N in 1..64) and `uint<N>` (N in 1..63). A value is an rml int in
// the width's range; arithmetic wraps there. `uint64` is not one: its values above 2^63 - 1
// are not 64-bit ints.
struct MachineInt {
  uint8_t bits = 64;
  bool is_signed = true;
  bool operator==(const MachineInt &) const = default;
  int64_t lo() const;
  int64_t hi() const;
  std::string name() const;       // the type as written: "uint8", "int16", "uint<5>", "sint<17>"
  std::string cast_name() const;  // its conversion's call name: "uint8", "uint@<5>", "sint@<17>"
  // The concise names "int8" .. "int64", "uint8" .. "uint64" (uint64 included: the parser
  // names it to refuse it).
  static std::optional<MachineInt> concise(std::string_view name);
  static std::optional<MachineInt> of_cast(std::string_view call_name);  // cast_name() back
};

struct TypeSyntax {
  // Array: Lustre's `T^n`, elem[0] = T and dims[0] = n; Group: Kind 2's `[T1, T2]`, elem
  // the component types. Both eliminated before type checking (sema/expand_aggregates),
  // with records.
  enum Kind : uint8_t { Tensor, TyVar, Shape, Named, Array, Group } kind = Tensor;
  Scalar scalar = Scalar::Real;
  std::vector<DimSyntax> dims;  // empty: scalar
  std::string tyvar;            // "'a"
  std::string name;             // Named: a declared type (`type T = ...`); TyVar: a type parameter
                                // `T` of Kind 2's `node N<T>` (tyvar "'T"), as written
  std::vector<TypeSyntax> elem; // Array: its element type (one); Group: the components
  bool subrange = false;        // Tensor int: Lustre's `subrange [lo, hi] of int`
  std::optional<MachineInt> machine;  // Tensor int: Kind 2's machine integer types
  ExprPtr range_lo, range_hi;   // its bounds; null for Kind 2's unbounded side `*`
  // Set when a Named type is resolved (sema/type_decls): the enumeration it denotes, whose
  // values are ints 0..n-1 of that name. Not printed, not compared.
  std::string enum_name;
  std::vector<std::shared_ptr<const Refinement>> refinements;  // innermost first; see Refinement
  Span span;
  TypeSyntax clone() const;
};

struct ClockSyntax {  // `when [not] c` annotations on declarations, outermost first
  bool positive = true;
  std::string var;
  std::string ctor;  // `when C(k)`: the constructor C (var is k); empty for a bool clock
  std::string cond;  // set by sema/expand_enum_clocks: the bool local `k = C`
  Span span;
  // The bool variable the clock samples on.
  const std::string &condition() const { return cond.empty() ? var : cond; }
};

struct VarDecl {
  bool is_const = false;  // static parameter
  std::string name;
  Span span;
  std::optional<TypeSyntax> type;
  std::vector<ClockSyntax> clock;
  VarDecl clone() const;
};

struct LhsItem {
  std::string name;  // "_" for the wildcard
  Span span;
};

struct Equation {
  std::vector<LhsItem> lhs;
  ExprPtr rhs;
  Span span;
  int block = -1;  // the reset block (NodeDecl::resets) the equation is in; -1: none
  // Kind 2's definition by index `A[i][j] = e`: lhs is A, these are i, j, each an int in e
  // ranging over its level of A's array type (sema/expand_index_definitions).
  std::vector<std::string> index_vars;
  std::vector<Span> index_spans;
  Equation clone() const;
};

// Vélus / Heptagon `reset eq; ... every c;`: the block's equations restarted, state and
// instances, at each tick where c is true (sema/expand_reset_blocks). Its equations are
// consecutive in NodeDecl::equations.
struct ResetBlock {
  ExprPtr cond;
  Span span;        // `reset`
  Span every_span;  // `every`
  ResetBlock clone() const;
};

// An environment assumption of a node (used by rml-check on the main node):
// `assume always e;` (e holds at every cycle) or `assume always eventually e within N;`
// (e holds at least once in every window of N+1 cycles; without `within`, unbounded).
//
// With `property` set, it is a user property to prove instead (`check e;`,
// `guarantee e;`, Kind 2's `--%PROPERTY e;` and `--!PROPERTY : e;`): e holds at every
// cycle where it is present. A property may be named, `check "P1" e;` (Kind 2's
// `--%PROPERTY "P1" e;`, JKind's `--!PROPERTY "P1" : e;`): reports call it by that name.
struct Assumption {
  bool eventually = false;
  int64_t within = -1;  // -1: no bound given
  ExprPtr cond;
  Span span;
  bool property = false;
  std::string keyword;  // as written: a property's "check" or "guarantee"; "assert" (Lustre) for
                        // `assert e;`, which is `assume always e;` and also binds in node instances
  std::string name;     // a property's name, without its quotes; empty: unnamed
  Span name_span;       // the name's string, quotes included
  std::string text;     // a property the front end made (a contract's mode check): how reports
                        // state it; empty: its condition as written
  Assumption clone() const;
};

struct NodeDecl {
  std::string name;
  Span name_span;
  Span keyword_span;
  bool is_function = false;  // Lustre `function`: stateless
  bool lustre_style = false;  // `returns` header (printing only; not compared)
  bool has_let = false;       // `let ... tel` body (printing only; not compared)
  bool fun_keyword = false;   // Heptagon's `fun f(...) returns (...)`: a function (printing only)
  // An imported node or function: declared without a body (Lustre V6's `extern`/`unsafe`,
  // Kind 2's `imported`, Heptagon's `val`, or JKind's header alone). Its outputs are the
  // values of an outside function of its inputs (grammar.md §2, semantics.md §2.7): the
  // checker leaves them free, the oracle cannot run it. Lustre's free constant `const c: t;`
  // becomes the nullary imported function `c` in the checked copy (sema/expand_imported).
  bool imported = false;
  std::string import_keyword;  // as written: "", "imported", "extern", "unsafe extern", "val" (printing only)
  // Kind 2's `transparent` or `opaque` before the keyword: whether its compositional
  // analysis may abstract the node by its contract. rml always reads the body (printing only).
  std::string modifier;
  std::vector<VarDecl> inputs, outputs, locals;
  std::vector<VarDecl> statics;  // Lustre V6 / Heptagon `node f<<const n: int>>(...)`: instantiated
                                 // per static argument before type checking (sema/instantiate_statics)
  // Kind 2's type parameters `node N<T, U>(x: T)`: in the node's types each is the type
  // variable 'T (TypeSyntax::TyVar), so a call without type arguments is polymorphic as a
  // node with 'a is; `N@<int, real>(x)` calls its instance (sema/instantiate_types).
  std::vector<std::string> type_params;
  std::vector<Span> type_param_spans;
  std::vector<Equation> equations;
  std::vector<Assumption> assumptions;
  std::vector<ResetBlock> resets;
};

struct FunDecl {
  std::string name;
  Span name_span;
  std::vector<VarDecl> params;
  TypeSyntax result;
  ExprPtr body;
};

struct ConstDecl {
  std::string name;
  Span name_span;
  std::optional<TypeSyntax> type;
  ExprPtr value;  // null: a free constant `const c: t;` (Lustre V6, Kind 2): fixed, of unknown value
};

// `type T = int;` (an alias of any type), `type T = subrange [0, 9] of int;`,
// `type T = struct { x: int; y: real };` (a record),
// `type T = enum { A, B };` (Lustre V6, Kind 2) or `type T = A | B;` (Heptagon, Vélus):
// an enumeration, whose constructors are global names.
struct TypeDecl {
  std::string name;
  Span name_span;
  bool is_record = false;           // `struct { x: int; y: real }` (Kind 2 also `{ x: int; ... }`)
  std::vector<VarDecl> fields;      // is_record: names and types
  bool is_enum = false;
  bool bar_syntax = false;          // written `A | B` (printing only; not compared)
  std::vector<std::string> ctors;   // is_enum
  std::vector<Span> ctor_spans;
  std::optional<TypeSyntax> alias;  // !is_enum
  // Lustre's and Kind 2's abstract type `type T;`: read as an int of its own name (alias
  // int), the values of an uninterpreted sort compared only for equality (grammar.md §3).
  bool is_abstract = false;
};

using Decl = std::variant<NodeDecl, FunDecl, ConstDecl, TypeDecl>;

struct Program {
  std::vector<Decl> decls;
  // Where the file's Kind 2 contracts are (syntax/contracts.hpp). The parser expands each
  // into its node, so the declarations hold what it stands for, not its items: `rml fmt`
  // leaves such a file alone. Not compared by ast_equal.
  std::vector<Span> contracts;
  // Where the file's Kind 2 if statements and frame blocks are (syntax/statement_blocks.hpp),
  // expanded by the parser into equations as contracts are. Not compared by ast_equal.
  std::vector<Span> statement_blocks;
  // Where the file's Kind 2 datatypes, matches and testers are (syntax/datatypes.hpp),
  // expanded by the parser into records and enumerations, and its quantifiers, `any`
  // values (syntax/quantifiers.hpp, any_values.hpp). Not compared by ast_equal.
  std::vector<Span> datatypes;
};

const std::string &decl_name(const Decl &d);
Decl clone_decl(const Decl &d);  // a deep copy (declarations hold unique_ptrs)

// Replaces the free occurrences in e of the variables `values` names by copies of their
// values. `let x = a in b` binds x in b, `\x => b` binds x; `binding`, when given, names
// what else a node binds in all its operands (Kind 2's quantifiers). With `keep_span` a
// copy takes the span of the variable it replaces (diagnostics point where it was written).
// Heights are recomputed on the way up.
void substitute_vars(ExprPtr &e, const std::map<std::string, ExprPtr> &values, bool keep_span,
                     const std::function<const std::vector<std::string> *(const Expr &)> &binding = nullptr);
Span decl_span(const Decl &d);

// Structural equality ignoring spans (reals compared bitwise, so NaN literals compare equal).
bool ast_equal(const Expr &a, const Expr &b);
bool ast_equal(const TypeSyntax &a, const TypeSyntax &b);
bool ast_equal(const Program &a, const Program &b);

// Helpers to build expressions (used by the parser, normaliser and test generators).
ExprPtr mk_int(int64_t v, Span s = {});
ExprPtr mk_real(double v, Span s = {});
ExprPtr mk_bool(bool v, Span s = {});
ExprPtr mk_var(std::string n, Span s = {});
ExprPtr mk_unary(Op op, ExprPtr a, Span s = {});
ExprPtr mk_binary(Op op, ExprPtr a, ExprPtr b, Span s = {});

}  // namespace rml
