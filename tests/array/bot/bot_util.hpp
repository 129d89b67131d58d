// Helpers of the bot tests: tensors, variables, and a normaliser that applies the rules
// in a random order (for the confluence properties).
#pragma once
#include "array/common/tensor_lit.hpp"
#include <rapidcheck.h>

#include <functional>
#include <string>
#include <vector>

#include "array/bot/bot.hpp"
#include "array/common/ir_gen.hpp"
#include "array/ir/eval.hpp"
#include "array/ir/ir.hpp"

namespace rml::bot_test {

using namespace rml::ir;

// 0.5, 1.5, ... minus an offset: distinct, non-zero, exactly representable values.
inline Tensor iota_reals(Shape s, double offset = 0) {
  Tensor t = Tensor::zeros(Elem::Real, std::move(s));
  for (size_t k = 0; k < t.r.size(); ++k) t.r[k] = static_cast<double>(k) + 0.5 - offset;
  return t;
}
using rml::ir_test::reals;
using rml::ir_test::ints;
inline Term ivar(const std::string &x) { return var(x, Type{Elem::Int, {}}); }
inline Term rvar(const std::string &x, Shape s) { return var(x, Type{Elem::Real, std::move(s)}); }
inline Term add(Term a, Term b) { return binary(BinOp::Add, std::move(a), std::move(b)); }
inline Term sub(Term a, Term b) { return binary(BinOp::Sub, std::move(a), std::move(b)); }
inline Term mul(Term a, Term b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }
inline Term ic(int64_t v) { return int_scalar(v); }

// Every subterm position: kids first, then index-function components.
inline void for_each_node(const Term &t, const std::function<void(const Term &)> &f) {
  f(t);
  for (auto &k : t->kids) for_each_node(k, f);
  for (auto &c : t->ix) for_each_node(c, f);
}

// Replaces the n-th node in preorder (as for_each_node) by g(node); n counts down.
inline Term rewrite_nth(const Term &t, size_t &n, const std::function<Term(const Term &)> &g) {
  if (n == 0) {
    n = SIZE_MAX;
    return g(t);
  }
  --n;
  std::vector<Term> kids, ix;
  bool changed = false;
  for (auto &k : t->kids) {
    kids.push_back(n == SIZE_MAX ? k : rewrite_nth(k, n, g));
    changed = changed || kids.back() != k;
  }
  for (auto &c : t->ix) {
    ix.push_back(n == SIZE_MAX ? c : rewrite_nth(c, n, g));
    changed = changed || ix.back() != c;
  }
  return changed ? with_kids(t, std::move(kids), std::move(ix)) : t;
}

// All (position, rule) redexes of t.
inline std::vector<std::pair<size_t, bot::Rule>> redexes(const Term &t) {
  std::vector<std::pair<size_t, bot::Rule>> out;
  size_t pos = 0;
  for_each_node(t, [&](const Term &n) {
    if (n->kind == Kind::Build1 || n->kind == Kind::Index)
      for (int r = 0; r < bot::kRuleCount; ++r)
        if (bot::apply_rule(static_cast<bot::Rule>(r), n)) out.emplace_back(pos, static_cast<bot::Rule>(r));
    ++pos;
  });
  return out;
}

// Rewrites t to a normal form choosing each step's position and rule at random (inside a
// property: the choices are RapidCheck draws, so they shrink). `on_step` sees every
// intermediate term. Gives up (returns null) after max_steps.
inline Term random_normalise(Term t, size_t max_steps, const std::function<void(const Term &, bot::Rule)> &on_step = {}) {
  for (size_t step = 0; step < max_steps; ++step) {
    auto rs = redexes(t);
    if (rs.empty()) return t;
    auto pick = rs[irgen::uniform<size_t>(0, rs.size())];
    bot::Rule rule = pick.second;  // not a structured binding: clang 14 cannot capture those
    size_t n = pick.first;
    t = rewrite_nth(t, n, [&](const Term &node) { return *bot::apply_rule(rule, node); });
    if (on_step) on_step(t, rule);
  }
  return nullptr;
}

}  // namespace rml::bot_test
