// Elaboration: inline node instances and normalise into one primitive per equation (the
// paper's administrative form, §4.1). Every equation keeps the span of the source
// expression it came from, and every variable its concrete type.
#pragma once
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/ops.hpp"
#include "sema/typecheck.hpp"

namespace rml::core {

enum class Prim : uint8_t {
  Const,   // x = c            (literal)
  Copy,    // x = y
  Apply,   // x = f(y1..yn)    pointwise: unary/binary operators, eager if, index, array literal, fun/builtin call
  When,    // x = y when[not] c
  Merge,   // x = merge c y z
  Fby,     // x = y fby z
  Pre,     // x = pre y
  Arrow,   // x = y -> z
  Post,    // x = post y
};
inline constexpr Prim kLastPrim = Prim::Post;  // what each primitive reads: core/primitives.hpp
const char *prim_name(Prim p);

struct Literal {
  Scalar type = Scalar::Int;
  int64_t i = 0;
  double r = 0;
  bool b = false;
  std::string str() const;
};

// What an Apply equation applies. Elementwise operators and builtins are resolved to
// their row of the operator table (src/ops) here, once: no later stage looks an operator
// up by its spelling. A call of a user or prelude `fun`, or of a builtin outside the
// table (`sum`, `zeros`, ...), is a Call by name.
enum class ApplyOp : uint8_t {
  Unary,   // un(y)            an operator or builtin of ops::kUnary
  Binary,  // bin(y, z)        an operator or builtin of ops::kBinary
  If,      // if y then z else w, eager
  Index,   // y[i1, ..]
  Array,   // [y1, ..]
  Call,    // fn(statics.., y1..yn)
  Imported,  // output `output` of the imported node or function fn (no body) on y1..yn: the
             // value of an outside function, which no stage of rml computes (semantics.md §2.7)
};

struct Equation {
  std::string lhs;
  Prim prim = Prim::Copy;
  ApplyOp op = ApplyOp::Call;  // Apply
  ops::UnOp un{};              // Apply, ApplyOp::Unary
  ops::BinOp bin{};            // Apply, ApplyOp::Binary
  std::string fn;              // Apply, ApplyOp::Call: the fun or builtin name
  bool builtin = false;        // ApplyOp::Call: fn is the builtin, even where a user declaration
                               // of that name shadows it (the prelude still calls the builtin)
  int output = 0;              // ApplyOp::Imported: which output of fn
  bool imported_node = false;  // ApplyOp::Imported: fn is a node (may keep state), not a function
  std::vector<StaticValue> static_args;  // concrete static arguments of a fun/builtin call
  std::vector<std::string> args;         // operand variables
  bool positive = true;                  // When polarity
  Literal lit;                           // Const
  Type type;                             // of lhs (concrete)
  Span span;                             // source expression
  int instance = 0;                      // node instance (0 = the main node)
  // Apply: the arithmetic of a machine integer's operation (core/normalize writes it on
  // 64-bit ints, then wraps to the width): it wraps by definition, and is no overflow
  // under rml-check's and rml run's --int-overflow error.
  bool wraps = false;
};

struct Var {
  std::string name;
  Type type;
};

// A node instance; instance 0 is the main node.
struct Instance {
  std::string path;  // "" for main, "dense$1." inside an instance
  int parent = -1;
  Span call;         // the call that created it
  // `f(args) every c`: the variable holding c, in the caller (its clock is the instance's
  // base clock). Elaboration expands it away (core/reset.hpp); the clock calculus reads it.
  std::string reset;
  Span reset_span;
};

// A clock written in an interface or a `var` declaration, `x: t when c when not d`,
// with the condition names elaborated: the variable's clock is the instance's base clock
// sampled by each (positive, condition) in turn.
struct DeclaredClock {
  std::string var;
  int instance = 0;
  std::vector<std::pair<bool, std::string>> on;  // empty: the instance's base clock
  Span span;
  // Heptagon infers the clock of a declaration written without one (`y: bool` may be on
  // `. on x`): in a Heptagon source (.ept) such a declaration claims nothing (semantics.md
  // §9.1). Lustre V6, Vélus and rml read it as the instance's base clock.
  bool inferred = false;
};

// `assume always [eventually] var [within N]` of the main node, or `assert var` of the main
// node or of any node instance; `var` holds the elaborated condition.
struct CoreAssumption {
  bool eventually = false;
  int64_t within = -1;
  std::string var;
  Span span;
};

// A user property of the main node (`check e;`, `--%PROPERTY e;`): `var` holds the
// elaborated condition, which must be true wherever it is present.
struct CoreProperty {
  std::string var;
  std::string text;  // the condition as written, for reports
  std::string name;  // its name (`check "P1" e;`), which reports give with the text; empty: none
  Span span;
};

struct Program {
  std::vector<CoreAssumption> assumptions;
  std::vector<CoreProperty> properties;
  std::string main;
  std::vector<Var> inputs, outputs, locals;
  std::vector<Equation> equations;
  std::vector<Instance> instances;      // [0] is main
  std::vector<DeclaredClock> declared;  // interface and `var` clocks of every instance
};

struct ElabError {
  Span span;
  std::string message;
};

// Bound on the size of an elaborated program: instances copy bodies, so nesting can
// multiply sizes exponentially; past this bound elaboration stops with an ElabError.
inline constexpr size_t kMaxEquations = 1'000'000;

// Elaborates `main` (a node without static parameters or type variables).
// Throws ElabError for mains that cannot be elaborated.
Program elaborate(const CheckedProgram &cp, const std::string &main);

// Nodes that can be a main: no static parameters, no size/shape/type variables.
bool can_be_main(const CheckedProgram &cp, const std::string &node);

// A property's condition as written (with the closing parentheses its span leaves out).
std::string property_text(Span s);

// The first user property of `p` stated at `span`, or null. Not one-to-one: the
// obligations a call makes of its callee's assumptions share the call's span (rml-check's
// results name theirs by index, check::PropertyResult::index).
const CoreProperty *property_at(const Program &p, Span span);

// The elaborated program as source the lexer and parser accept again (rml parse
// --normalized): generated names spelt by printed_names, clocks from clock inference.
std::string print_core(const Program &p);
// The right-hand side of one equation as print_core writes it, each variable spelt by `name`.
std::string print_rhs(const Equation &eq, const std::function<std::string(const std::string &)> &name);

// How an Apply equation's operator is written, for messages and printing: "+", "-",
// "not", "exp", "if", "index", "array", or the called name.
std::string apply_name(const Equation &eq);

// An operation --int-overflow error checks (rml-check, rml run): `+ - *`, unary `-`, `abs`
// and `div` with an int result, `floor` and `int` of a real (ops::may_overflow); never a
// machine integer's arithmetic (Equation::wraps), nor what a `fun` computes inside.
bool may_overflow(const Equation &eq);

// How print_core (and rml run's output) spells each variable: the user's names as they
// are; generated ones with '_' for '.' and '$' and 't' for a temporary ("movavg$2.x1" ->
// "movavg_2_x1", "movavg$2.$1" -> "movavg_2_t1", "$4" -> "t4"), with '_' appended until
// no other name of the program has that spelling.
std::unordered_map<std::string, std::string> printed_names(const Program &p);

}  // namespace rml::core
