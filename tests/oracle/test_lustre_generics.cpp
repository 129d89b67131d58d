// Kind 2's generic nodes and type arguments (sema/instantiate_types): `node N<T>(x: T)`,
// whose T is the type variable 'T, a call `N@<int>(x)` of its instance at int (checked
// against the instance's signature, so an argument of another type is refused, as Kind 2
// refuses it), a call `N(x)` of the polymorphic node itself, and `any@<T>`, a value of T
// the program does not fix: an imported node of no input, fresh at each cycle and at each
// occurrence.
#include <gtest/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

namespace {

const char *kPoly =
    "node Poly<T>(x: T) returns (y: T)\n"
    "let\n"
    "  y = x -> pre x;\n"
    "tel\n"
    "node Pair<A, B>(a: A; b: B) returns (p: A; q: B)\n"
    "let\n"
    "  p = Poly@<A>(a);\n"
    "  q = b;\n"
    "tel\n";

}  // namespace

TEST(LustreGenerics, ReadAndPrintedBack) {
  // The type parameters print after the name, and their uses as written.
  EXPECT_EQ(reprint_program(std::string(kPoly) +
                            "node main(x: int; r: real) returns (y: int; s: real; b: bool)\n"
                            "let\n  y = Poly@<int>(x);\n  s = Poly(r);\n  b = any@<bool>;\ntel\n"),
            "node Poly<T>(x: T) returns (y: T);\nlet\n  y = x -> pre x;\ntel\n\n"
            "node Pair<A, B>(a: A, b: B) returns (p: A, q: B);\nlet\n  p = Poly@<A>(a);\n  q = b;\ntel\n\n"
            "node main(x: int, r: real) returns (y: int, s: real, b: bool);\nlet\n  y = Poly@<int>(x);\n  s = Poly(r);\n"
            "  b = any@<bool>;\ntel\n");
  // A type parameter is a type only in its node: elsewhere T is an ordinary name.
  auto r = check_text(std::string(kPoly) + "type T = int;\nnode main(x: T) returns (y: T);\nlet\n  y = Poly@<T>(x);\ntel\n");
  EXPECT_FALSE(r->diags.has_errors()) << diag_text(*r);
}

// An instance is the node at its type arguments, made once per argument list, also from
// an instance's body (Pair@<int, bool> calls Poly@<'A>, which becomes Poly@<int>); the
// polymorphic node and its instances compute the same streams.
TEST(LustreGenerics, AnInstanceIsTheNodeAtItsTypeArguments) {
  const std::string text = std::string(kPoly) +
                           "node main(x: int; r: real; c: bool) returns (y: int; s: real; t: real; p: int; q: bool)\n"
                           "let\n"
                           "  y = Poly@<int>(x);\n"
                           "  s = Poly(r);\n"
                           "  t = Poly@<real>(Poly@<real>(r));\n"
                           "  p, q = Pair@<int, bool>(x, c);\n"
                           "tel\n";
  auto fe = check_text(text);
  ASSERT_FALSE(fe->diags.has_errors()) << diag_text(*fe);
  for (const char *inst : {"Poly@<int>", "Poly@<real>", "Pair@<int, bool>"}) {
    const Decl *d = fe->checked.find(inst);
    ASSERT_TRUE(d) << inst;
    const NodeDecl &n = std::get<NodeDecl>(*d);
    EXPECT_TRUE(n.type_params.empty()) << inst;
    EXPECT_EQ(n.inputs[0].type->kind, TypeSyntax::Tensor) << inst;
  }
  EXPECT_EQ(std::get<NodeDecl>(*fe->checked.find("Poly@<real>")).inputs[0].type->scalar, Scalar::Real);
  const NodeDecl &pair = std::get<NodeDecl>(*fe->checked.find("Pair@<int, bool>"));
  EXPECT_EQ(pair.inputs[1].type->scalar, Scalar::Bool);
  // Its body's Poly@<A> is Poly@<int> there.
  EXPECT_EQ(pair.equations.at(0).rhs->name, "Poly@<int>");
  EXPECT_TRUE(pair.equations.at(0).rhs->type_args.empty());
  auto r = run_both(text, "main", {{"x", {"1", "2", "3"}}, {"r", {"0.5", "1.5", "2.5"}}, {"c", {"T", "F", "T"}}});
  expect_stream(r, "y", {"1", "1", "2"});
  expect_stream(r, "s", {"0.5", "0.5", "1.5"});
  expect_stream(r, "t", {"0.5", "0.5", "0.5"});
  expect_stream(r, "p", {"1", "1", "2"});
  expect_stream(r, "q", {"T", "F", "T"});
}

// Refused as Kind 2 refuses them, each at its place: an argument of another type than the
// instance's, type arguments for a node without type parameters or in another number,
// `any` of a type parameter; '@' elsewhere is still no character of the language.
TEST(LustreGenerics, Errors) {
  auto prog = [](const std::string &body) {
    return std::string(kPoly) + "node f(x: int) returns (y: int);\nlet\n  y = x;\ntel\n" +
           "node main(x: int; r: real) returns (y: int);\nlet\n" + body + "tel\n";
  };
  // (The instance's real output is then no int either.)
  EXPECT_EQ(errors_of(*check_text(prog("  y = Poly@<real>(x);\n"))),
            (std::vector<std::string>{"16:19 type.mismatch", "16:7 type.mismatch"}));
  EXPECT_EQ(errors_of(*check_text(prog("  y = f@<int>(x);\n"))), (std::vector<std::string>{"16:7 static.kind"}));
  EXPECT_EQ(errors_of(*check_text(prog("  y = Poly@<int, int>(x);\n"))), (std::vector<std::string>{"16:7 arity.args"}));
  EXPECT_EQ(errors_of(*check_text("node g<T>(x: T) returns (y: T);\nlet\n  y = if any@<bool> then x else any@<T>;\ntel\n")),
            (std::vector<std::string>{"3:33 syntax.unsupported"}));
  EXPECT_EQ(errors_of(*check_text(prog("  y = any@<int, bool>;\n"))), (std::vector<std::string>{"16:10 arity.args"}));
  EXPECT_EQ(errors_of(*check_text("node g<T, T>(x: T) returns (y: T);\nlet\n  y = x;\ntel\n")),
            (std::vector<std::string>{"1:11 name.duplicate"}));
  EXPECT_EQ(errors_of(*check_text(prog("  y = x @ x;\n"))), (std::vector<std::string>{"16:9 lex.char"}));
}

// any@<T>: rml-check leaves each occurrence free at each cycle, in its type's range; a
// property that needs a particular value is falsified by a counterexample that gives the
// values in its trace, replayed by the oracle.
TEST(LustreGenerics, AnyIsAFreshValueOfItsType) {
  auto r = check_text_report(
      "type Nat = subrange [0, *] of int;\n"
      "node main(x: int) returns (a, b: int; n: Nat);\n"
      "let\n"
      "  a = any@<int>;\n"
      "  b = any@<int>;\n"
      "  n = any@<Nat>;\n"
      "  check a = a;\n"                     // valid
      "  check n >= 0;\n"                    // valid: in its range
      "  check a = b;\n"                     // falsified: two occurrences
      "  check true -> a = pre a;\n"         // falsified: a fresh value each cycle
      "  check a <> x;\n"                    // falsified
      "tel\n",
      "main");
  using V = check::Verdict;
  // (First the range of n's type, a property of the main node's output.)
  EXPECT_EQ(user_property_verdicts(r), (std::vector<V>{V::Valid, V::Valid, V::Valid, V::Falsified, V::Falsified, V::Falsified}));
  for (auto &p : r.properties)
    if (p.kind == "property" && p.verdict == V::Falsified) {
      ASSERT_TRUE(p.cex);
      EXPECT_NE(p.method.find("with the outputs of imported nodes given in the trace"), std::string::npos) << p.method;
    }
}
