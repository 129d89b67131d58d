// Kind 2's machine integers (semantics/machine_ints.md): the types `int8` .. `int64`,
// `uint8` .. `uint32`, `sint<N>`, `uint<N>`; conversions `uint8 e`, `sint@<N> e`, `int e`;
// arithmetic that wraps at the width, division and remainder as SMT-LIB's bit-vectors
// (Kind 2's), the bitwise `&&`, `||`, `!` and the shifts `lsh`, `rsh`. Every expected value
// below is worked out by hand from those definitions (the comments show the arithmetic).
#include <gtest/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

TEST(LustreMachineInts, ReadAndPrintedBack) {
  // A conversion prints in parentheses: its operand reaches as far right as it can; the
  // shifts do not associate.
  EXPECT_EQ(reprint_program("node main(x: uint8; y: sint<17>; z: uint<5>) returns (a: int16; b: uint8);\n"
                            "let\n"
                            "  a = int16 32768 + (int16 1);\n"
                            "  b = ((x && !x || uint8 3) lsh (uint8 1)) rsh (uint8 1);\n"
                            "  check (sint@<17> -5012) < y;\n"
                            "  check int z = 3;\n"
                            "tel\n"),
            "node main(x: uint8, y: sint<17>, z: uint<5>) returns (a: int16, b: uint8);\nlet\n"
            "  a = (int16 32768 + (int16 1));\n"
            "  b = ((x && !x || (uint8 3)) lsh (uint8 1)) rsh (uint8 1);\n"
            "  check (sint@<17> -5012) < y;\n"
            "  check int(z) = 3;\n"
            "tel\n");
}

// Every operation wraps at its width: the sum, the product and the negation of n-bit
// values keep their low n bits (two's complement for the signed ones).
TEST(LustreMachineInts, ArithmeticWrapsAtTheWidth) {
  const std::string text =
      "node main(x: uint8) returns (i: uint8; j: int8; k: sint<17>; u: uint<5>; m: uint8; n: int8; g: uint8; h: int8; "
      "v: uint8);\n"
      "let\n"
      "  i = (uint8 250) -> pre i + (uint8 3);\n"
      "  j = (int8 126) -> pre j + (int8 1);\n"
      "  k = (sint@<17> 65535) -> pre k + (sint@<17> 1);\n"
      "  u = uint@<5> 33;\n"
      "  m = (uint8 20) * (uint8 200);\n"
      "  n = -(int8 -128);\n"
      "  g = -(uint8 1);\n"
      "  h = (int8 -128) * (int8 -1);\n"
      "  v = x + (uint8 200);\n"
      "tel\n";
  auto r = run_both(text, "main", {{"x", {"100", "55", "56", "0"}}});
  expect_stream(r, "i", {"250", "253", "0", "3"});                  // 256 mod 256, 259 mod 256
  expect_stream(r, "j", {"126", "127", "-128", "-127"});           // 128 - 256
  expect_stream(r, "k", {"65535", "-65536", "-65535", "-65534"});  // 2^16 - 2^17
  expect_stream(r, "u", {"1", "1", "1", "1"});                     // 33 mod 32
  expect_stream(r, "m", {"160", "160", "160", "160"});             // 4000 - 15 * 256
  expect_stream(r, "n", {"-128", "-128", "-128", "-128"});         // 128 - 256
  expect_stream(r, "g", {"255", "255", "255", "255"});             // -1 + 256
  expect_stream(r, "h", {"-128", "-128", "-128", "-128"});
  expect_stream(r, "v", {"44", "255", "0", "200"});                // 300 - 256, 255, 256 - 256
  expect_solvers_agree(r);
}

// Kind 2's documented conversions: an int modulo the width, a narrower machine integer
// kept, a wider one cut; `int e` gives the value.
TEST(LustreMachineInts, Conversions) {
  const std::string text =
      "node main(x: int) returns (a: uint8; b: int16; c: uint8; d: int16; e: int; f: uint16; s: int8; w: int64; m: int64);\n"
      "let\n"
      "  a = uint8 256;\n"
      "  b = int16 32768;\n"
      "  c = uint8 (uint16 300);\n"
      "  d = int16 (int8 120);\n"
      "  e = int (uint8 x);\n"
      "  f = uint16 (uint8 x);\n"
      "  s = int8 x;\n"
      "  w = int64 x;\n"
      "  m = int64 (-9223372036854775808);\n"  // the least int: 2^63 is read only after a minus
      "tel\n";
  auto r = run_both(text, "main", {{"x", {"-1", "300", "5", "200"}}});
  expect_stream(r, "a", {"0", "0", "0", "0"});
  expect_stream(r, "b", {"-32768", "-32768", "-32768", "-32768"});
  expect_stream(r, "c", {"44", "44", "44", "44"});  // 300 - 256
  expect_stream(r, "d", {"120", "120", "120", "120"});
  expect_stream(r, "e", {"255", "44", "5", "200"});
  expect_stream(r, "f", {"255", "44", "5", "200"});
  expect_stream(r, "s", {"-1", "44", "5", "-56"});  // 200 - 256
  expect_stream(r, "w", {"-1", "300", "5", "200"});
  expect_stream(r, "m", {"-9223372036854775808", "-9223372036854775808", "-9223372036854775808", "-9223372036854775808"});
}

// Division and remainder are SMT-LIB's: unsigned x div 0 has every bit set, signed x div 0
// is 1 for a negative x and -1 otherwise, x mod 0 = x; quotients truncate, remainders have
// the sign of x; the one signed quotient out of range, MIN div -1, wraps to MIN.
TEST(LustreMachineInts, DivisionIsSmtLibs) {
  const std::string text =
      "node main(p, q: uint8; a, b: int8; l, m: int64) returns (ud, ur: uint8; sd, sr: int8; ld, lr: int64);\n"
      "let\n"
      "  ud = p div q;\n"
      "  ur = p mod q;\n"
      "  sd = a div b;\n"
      "  sr = a mod b;\n"
      "  ld = l div m;\n"
      "  lr = l mod m;\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"p", {"7", "7", "255", "0", "9"}},
                     {"q", {"0", "2", "16", "0", "9"}},
                     {"a", {"-7", "7", "-128", "-7", "7"}},
                     {"b", {"0", "0", "-1", "2", "-2"}},
                     {"l", {"-9223372036854775808", "5", "-5", "-9223372036854775808", "0"}},
                     {"m", {"-1", "0", "0", "0", "3"}}});
  expect_stream(r, "ud", {"255", "3", "15", "255", "1"});
  expect_stream(r, "ur", {"7", "1", "15", "0", "0"});
  expect_stream(r, "sd", {"1", "-1", "-128", "-3", "-3"});
  expect_stream(r, "sr", {"-7", "7", "0", "-1", "1"});
  expect_stream(r, "ld", {"-9223372036854775808", "-1", "1", "1", "0"});
  expect_stream(r, "lr", {"0", "5", "-5", "-9223372036854775808", "0"});
}

// Bitwise operators on the two's complement bits; shifts by an unsigned amount of the same
// width: a left shift of the width or more leaves 0, a right shift brings in the sign
// (arithmetic) on the signed and zeros on the unsigned.
TEST(LustreMachineInts, BitwiseAndShifts) {
  const std::string text =
      "node main(x, y: uint8; a, b: int8; n: uint8) returns (andu, oru, notu: uint8; ands, ors, nots: int8; "
      "lu: uint8; ls: int8; ru: uint8; rs: int8);\n"
      "let\n"
      "  andu = x && y;\n"
      "  oru = x || y;\n"
      "  notu = !x;\n"
      "  ands = a && b;\n"
      "  ors = a || b;\n"
      "  nots = !a;\n"
      "  lu = x lsh n;\n"
      "  ls = a lsh n;\n"
      "  ru = x rsh n;\n"
      "  rs = a rsh n;\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"x", {"12", "255", "1", "200", "3"}},
                     {"y", {"10", "0", "1", "100", "5"}},
                     {"a", {"-1", "-128", "64", "-5", "64"}},
                     {"b", {"5", "1", "64", "3", "-64"}},
                     {"n", {"1", "7", "8", "200", "1"}}});
  // 200 = 11001000, 100 = 01100100; -5 = ...11111011; -64 = 11000000
  expect_stream(r, "andu", {"8", "0", "1", "64", "1"});
  expect_stream(r, "oru", {"14", "255", "1", "236", "7"});
  expect_stream(r, "notu", {"243", "0", "254", "55", "252"});
  expect_stream(r, "ands", {"5", "0", "64", "3", "64"});
  expect_stream(r, "ors", {"-1", "-127", "64", "-5", "-64"});
  expect_stream(r, "nots", {"0", "127", "-65", "4", "-65"});
  expect_stream(r, "lu", {"24", "128", "0", "0", "6"});  // 255 * 128 = 32640 = 127 * 256 + 128
  expect_stream(r, "ls", {"-2", "0", "0", "0", "-128"});
  expect_stream(r, "ru", {"6", "1", "0", "0", "1"});
  expect_stream(r, "rs", {"-1", "-1", "0", "-1", "32"});
}

// Refused as Kind 2 refuses them, each at its place: no implicit conversion between a
// machine integer and int or another machine type, the shift unsigned of the operand's
// width, the bitwise operators on machine integers only; uint64 (not an rml int), widths
// beyond 64 bits and machine integers in the function layer are not read.
TEST(LustreMachineInts, Errors) {
  auto prog = [](const std::string &body) {
    return "node main(x: uint8; y: int8; i: int) returns (o: uint8; c: bool);\nlet\n" + body + "  c = true;\ntel\n";
  };
  EXPECT_EQ(errors_of(*check_text(prog("  o = x + 1;\n"))), (std::vector<std::string>{"3:11 type.mismatch"}));
  EXPECT_EQ(errors_of(*check_text(prog("  o = uint8 y;\n"))), (std::vector<std::string>{"3:13 type.mismatch"}));
  EXPECT_EQ(errors_of(*check_text(prog("  o = x lsh y;\n"))), (std::vector<std::string>{"3:13 type.mismatch"}));
  EXPECT_EQ(errors_of(*check_text(prog("  o = uint8 (i && i);\n"))), (std::vector<std::string>{"3:14 type.mismatch"}));
  EXPECT_EQ(errors_of(*check_text(prog("  o = x;\n  check x = y;\n"))), (std::vector<std::string>{"4:13 type.mismatch"}));
  EXPECT_EQ(errors_of(*check_text(prog("  o = i;\n"))), (std::vector<std::string>{"3:7 type.mismatch"}));
  EXPECT_EQ(errors_of(*check_text("node main(x: uint64) returns (o: bool);\nlet\n  o = true;\ntel\n")),
            (std::vector<std::string>{"1:14 syntax.unsupported"}));
  EXPECT_EQ(errors_of(*check_text("node main(x: sint<65>) returns (o: bool);\nlet\n  o = true;\ntel\n")),
            (std::vector<std::string>{"1:14 syntax.unsupported"}));
  EXPECT_EQ(errors_of(*check_text("fun f(x: uint8): uint8 = x;\n")),
            (std::vector<std::string>{"1:10 syntax.unsupported", "1:18 syntax.unsupported"}));
  // 2^63 is a literal only as the least int, after a unary minus.
  EXPECT_EQ(errors_of(*check_text("node main(x: int) returns (o: int);\nlet\n  o = x - 9223372036854775808;\ntel\n")),
            (std::vector<std::string>{"3:11 lex.limit"}));
  // The type names are reserved words (as in Kind 2), so `uint8 (x)` is always a conversion.
  EXPECT_EQ(errors_of(*check_text("node main(int8: int) returns (o: int);\nlet\n  o = 1;\ntel\n")),
            (std::vector<std::string>{"1:11 parse.expected"}));
  // The shifts do not associate (as in Kind 2): a chain is parenthesised.
  EXPECT_EQ(errors_of(*check_text(prog("  o = x lsh x rsh x;\n"))), (std::vector<std::string>{"3:15 parse.expected"}));
}

// rml-check decides properties of machine integers, with their ranges and wraps: an input
// is in its type's range (an assumption, as Kind 2 reads it); the bitwise operators are
// decided on bit-vectors; a falsified property comes with a counterexample the oracle
// replays.
TEST(LustreMachineInts, CheckedWithTheirWraps) {
  auto r = check_text_report(
      "node main(x, y: uint8; a: int8) returns (i: uint<3>);\n"
      "let\n"
      "  i = (uint@<3> 1) -> pre i + (uint@<3> 1);\n"
      "  check i >= (uint@<3> 0);\n"                                              // valid
      "  check i <> (uint@<3> 0);\n"                                              // falsified: 7 + 1 wraps to 0
      "  check int x <= 255;\n"                                                   // valid: x's range
      "  check x + (uint8 1) > x;\n"                                              // falsified: x = 255
      "  check (x && y) <= x;\n"                                                  // valid
      "  check (x lsh (uint8 1)) rsh (uint8 1) <= x;\n"                           // valid: the top bit is lost
      "  check a = (int8 0) or a = (int8 -128) or -a <> a;\n"                     // valid
      "  check (a rsh (uint8 7) = (int8 -1)) = (a < (int8 0));\n"                 // valid: the sign comes in
      "tel\n",
      "main");
  using V = check::Verdict;
  EXPECT_EQ(user_property_verdicts(r), (std::vector<V>{V::Valid, V::Falsified, V::Valid, V::Falsified, V::Valid, V::Valid, V::Valid,
                                                  V::Valid}));
  for (auto &p : r.properties)
    if (p.kind == "property" && p.verdict == V::Falsified) {
      EXPECT_TRUE(p.cex) << p.name;
    }
}
