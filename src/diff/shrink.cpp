#include "diff/shrink.hpp"

#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace rml::diff {

namespace {

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> ls;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) ls.push_back(l);
  return ls;
}

// The trace's header and data rows (blank and '#' lines dropped).
std::pair<std::string, std::vector<std::string>> rows_of(const std::string &trace) {
  std::string header;
  std::vector<std::string> rows;
  for (auto &l : lines_of(trace)) {
    if (l.find_first_not_of(" \t\r") == std::string::npos || l[l.find_first_not_of(" \t\r")] == '#') continue;
    if (header.empty()) header = l;
    else rows.push_back(l);
  }
  return {header, rows};
}

std::string join(const std::string &header, const std::vector<std::string> &rows, size_t n) {
  std::string s = header + "\n";
  for (size_t i = 0; i < n && i < rows.size(); ++i) s += rows[i] + "\n";
  return s;
}

// Every expression slot of the program's nodes, in a fixed order (equations, pre-order).
void slots(Program &p, std::vector<ExprPtr *> &out) {
  std::function<void(ExprPtr &)> walk = [&](ExprPtr &e) {
    out.push_back(&e);
    for (auto &a : e->args) walk(a);
  };
  for (auto &d : p.decls)
    if (auto *n = std::get_if<NodeDecl>(&d))
      for (auto &eq : n->equations) walk(eq.rhs);
}

bool is_literal(const Expr &e, ExprKind k) { return e.kind == k; }

// The edits, each one step of shrinking, shared by the greedy shrink() and candidates().

// The trace's prefix lengths to try, shortest first: 1, 2, 4, ..., then one cycle shorter.
std::vector<size_t> prefix_lengths(size_t rows) {
  std::vector<size_t> ns;
  for (size_t n = 1; n < rows;) {
    ns.push_back(n);
    n = n * 2 < rows ? n * 2 : (n + 1 < rows ? rows - 1 : rows);
  }
  return ns;
}

Program copy_of(const Program &base) {
  Program p;
  for (auto &d : base.decls) p.decls.push_back(clone_decl(d));
  return p;
}

// Declaration i removed (never the main node).
std::optional<Program> without_node(const Program &base, size_t i, const std::string &main) {
  if (decl_name(base.decls[i]) == main) return std::nullopt;
  Program p;
  for (size_t j = 0; j < base.decls.size(); ++j)
    if (j != i) p.decls.push_back(clone_decl(base.decls[j]));
  return p;
}

// Node i's assumption or property k removed.
Program without_assumption(const Program &base, size_t i, size_t k) {
  Program p = copy_of(base);
  auto &m = std::get<NodeDecl>(p.decls[i]);
  m.assumptions.erase(m.assumptions.begin() + static_cast<long>(k));
  return p;
}

// Node i's equation k removed with its locals' declarations; never an output's.
std::optional<Program> without_equation(const Program &base, size_t i, size_t k) {
  const NodeDecl &n = std::get<NodeDecl>(base.decls[i]);
  const Equation &eq = n.equations[k];
  for (auto &l : eq.lhs)
    for (auto &o : n.outputs)
      if (o.name == l.name) return std::nullopt;
  Program p = copy_of(base);
  auto &m = std::get<NodeDecl>(p.decls[i]);
  m.equations.erase(m.equations.begin() + static_cast<long>(k));
  for (auto &l : eq.lhs)
    for (size_t v = 0; v < m.locals.size(); ++v)
      if (m.locals[v].name == l.name) {
        m.locals.erase(m.locals.begin() + static_cast<long>(v));
        break;
      }
  return p;
}

// What an expression may be replaced by, in the order tried. Literals first: one step
// removes the whole subtree (the front end refuses the ones of the wrong type at once). A
// literal is only replaced by the zero of its own kind: `0.0` -> `0` -> `0.0` would be
// accepted for an unread local, forever. Then each operand.
std::vector<ExprPtr> replacements(const Expr &e) {
  std::vector<ExprPtr> rs;
  const bool int_lit = is_literal(e, ExprKind::IntLit), real_lit = is_literal(e, ExprKind::RealLit),
             bool_lit = is_literal(e, ExprKind::BoolLit), lit = int_lit || real_lit || bool_lit;
  if (int_lit ? e.ival != 0 : !lit) rs.push_back(mk_int(0));
  if (real_lit ? e.rval != 0 : !lit) rs.push_back(mk_real(0));
  if (bool_lit ? e.bval : !lit) rs.push_back(mk_bool(false));
  for (auto &a : e.args) rs.push_back(a->clone());
  return rs;
}

// The program with expression slot `slot` (slots()'s order) replaced by r.
Program with_slot(const Program &base, size_t slot, ExprPtr r) {
  Program p = copy_of(base);
  std::vector<ExprPtr *> ps;
  slots(p, ps);
  *ps[slot] = std::move(r);
  return p;
}

}  // namespace

int count_cycles(const std::string &trace) { return static_cast<int>(rows_of(trace).second.size()); }

int count_equations(const ShrinkHooks &h, const std::string &text) {
  Program p;
  if (!h.parse(text, p)) return -1;
  int n = 0;
  for (auto &d : p.decls)
    if (auto *nd = std::get_if<NodeDecl>(&d)) n += static_cast<int>(nd->equations.size());
  return n;
}

Case shrink(Case c, const ShrinkHooks &h, const ShrinkLimits &lim, ShrinkStats &st) {
  const auto start = std::chrono::steady_clock::now();
  auto out_of_budget = [&] {
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (st.tried >= lim.max_candidates || (lim.seconds > 0 && secs > lim.seconds)) st.stopped_at_limit = true;
    return st.stopped_at_limit;
  };
  std::set<std::pair<std::string, std::string>> passed;  // candidates that did not fail
  auto attempt = [&](const Case &cand) {
    if (cand.program == c.program && cand.trace == c.trace) return false;
    if (passed.count({cand.program, cand.trace})) return false;
    ++st.tried;
    if (!h.fails(cand)) {
      passed.insert({cand.program, cand.trace});
      return false;
    }
    ++st.kept;
    c = cand;
    return true;
  };
  for (bool progress = true; progress && !out_of_budget();) {
    progress = false;
    // 1. The trace: a shorter prefix (after a kept one, the shortest again).
    for (bool cut = true; cut && !out_of_budget();) {
      cut = false;
      auto [header, rows] = rows_of(c.trace);
      for (size_t n : prefix_lengths(rows.size())) {
        if (out_of_budget()) break;
        if (attempt({c.program, join(header, rows, n)})) {
          progress = cut = true;
          break;
        }
      }
    }
    Program base;
    if (!h.parse(c.program, base)) break;
    auto try_program = [&](const Program &p) {
      std::string text;
      return h.print(p, text) && attempt({text, c.trace});
    };
    auto reparse = [&] { return h.parse(c.program, base); };
    // 2. Nodes other than the main one.
    for (size_t i = 0; i < base.decls.size() && !out_of_budget();) {
      auto p = without_node(base, i, h.main);
      if (p && try_program(*p)) {
        progress = true;
        if (!reparse()) return c;
      } else {
        ++i;
      }
    }
    // 3. Properties and assumptions (`check`, `assume`, `assert`): one that the failure
    // does not need goes, so a shrunk program keeps no `check` that no longer holds.
    for (size_t i = 0; i < base.decls.size() && !out_of_budget(); ++i)
      for (size_t k = 0; std::holds_alternative<NodeDecl>(base.decls[i]) && k < std::get<NodeDecl>(base.decls[i]).assumptions.size() &&
                         !out_of_budget();) {
        if (try_program(without_assumption(base, i, k))) {
          progress = true;
          if (!reparse()) return c;
        } else {
          ++k;
        }
      }
    // 4. Equations of locals (the same index again after a removal).
    for (size_t i = 0; i < base.decls.size() && !out_of_budget(); ++i)
      for (size_t k = 0; std::holds_alternative<NodeDecl>(base.decls[i]) && k < std::get<NodeDecl>(base.decls[i]).equations.size() &&
                         !out_of_budget();) {
        auto p = without_equation(base, i, k);
        if (p && try_program(*p)) {
          progress = true;
          if (!reparse()) return c;
        } else {
          ++k;
        }
      }
    // 5. Expressions, in one pass: after a replacement the same slot is tried again (it
    // holds the replacement), the earlier ones are not (they did not shrink before).
    for (size_t slot = 0; !out_of_budget();) {
      std::vector<ExprPtr *> all;
      slots(base, all);
      if (slot >= all.size()) break;
      bool kept = false;
      for (auto &r : replacements(**all[slot])) {
        if (out_of_budget()) break;
        if (try_program(with_slot(base, slot, std::move(r)))) {
          kept = progress = true;
          break;
        }
      }
      if (kept) {
        if (!reparse()) return c;
      } else {
        ++slot;
      }
    }
  }
  return c;
}

std::vector<Case> candidates(const Case &c, const ShrinkHooks &h) {
  std::vector<Case> out;
  std::set<std::pair<std::string, std::string>> seen{{c.program, c.trace}};
  auto add = [&](Case k) {
    if (seen.insert({k.program, k.trace}).second) out.push_back(std::move(k));
  };
  auto [header, rows] = rows_of(c.trace);
  for (size_t n : prefix_lengths(rows.size())) add({c.program, join(header, rows, n)});
  Program base;
  if (!h.parse(c.program, base)) return out;
  auto add_program = [&](const Program &p) {
    std::string text;
    if (h.print(p, text)) add({text, c.trace});
  };
  for (size_t i = 0; i < base.decls.size(); ++i)
    if (auto p = without_node(base, i, h.main)) add_program(*p);
  for (size_t i = 0; i < base.decls.size(); ++i)
    if (auto *n = std::get_if<NodeDecl>(&base.decls[i]))
      for (size_t k = 0; k < n->assumptions.size(); ++k) add_program(without_assumption(base, i, k));
  for (size_t i = 0; i < base.decls.size(); ++i)
    if (auto *n = std::get_if<NodeDecl>(&base.decls[i]))
      for (size_t k = 0; k < n->equations.size(); ++k)
        if (auto p = without_equation(base, i, k)) add_program(*p);
  std::vector<ExprPtr *> all;
  slots(base, all);
  for (size_t slot = 0; slot < all.size(); ++slot)
    for (auto &r : replacements(**all[slot])) add_program(with_slot(base, slot, std::move(r)));
  return out;
}

}  // namespace rml::diff
