// How the soundness laws confront a verdict with the reference semantics: whether a
// checked program's first property fails at some cycle of an oracle run (false or nil; or
// false only, in Kind 2's reading of `pre`), and random inputs for the main node of the
// stream generator (tests/common/stream_prog_gen.hpp).
#pragma once
#include <rapidcheck.h>

#include <string>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"

namespace rml::test {

// nil_fails: rml's reading (a nil cell fails); else Kind 2's, where only a false value
// does (a nil cell may be true for some first value of a `pre`; a value reads no nil).
// `opts`: the oracle's reading (--int-overflow error's, for one).
inline bool first_property_fails_in(const CheckedProgram &cp, const core::Program &prog, const oracle::Inputs &in,
                                    bool nil_fails = true, oracle::Options opts = {}) {
  oracle::Result res = oracle::Oracle(cp, prog, opts).run(in);
  const std::string &var = prog.properties.at(0).var;
  for (size_t n = 0; n < res.cycles; ++n) {
    oracle::Cell cell = res.at(var, n);
    if ((nil_fails && cell.tag == oracle::Tag::Nil) || (cell.tag == oracle::Tag::Val && cell.value.i.at(0) == 0)) return true;
  }
  return false;
}

// 1 to 9 cycles of `main(x: real, y: int, c: bool)`, every input present, small values.
inline oracle::Inputs random_main_inputs() {
  oracle::Inputs in;
  in.cycles = *rc::gen::inRange<size_t>(1, 10);
  for (size_t n = 0; n < in.cycles; ++n) {
    in.streams["x"].push_back(oracle::Cell::of(array::Tensor::real(*rc::gen::inRange(-3, 4))));
    in.streams["y"].push_back(oracle::Cell::of(array::Tensor::integer(*rc::gen::inRange(-3, 4))));
    in.streams["c"].push_back(oracle::Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())));
  }
  return in;
}

}  // namespace rml::test
