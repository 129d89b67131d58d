#include "diff/shrink.hpp"

#include <functional>
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
    if (st.tried >= lim.max_candidates || secs > lim.seconds) st.stopped_at_limit = true;
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
    // 1. The trace: a shorter prefix.
    {
      auto [header, rows] = rows_of(c.trace);
      for (size_t n = 1; n < rows.size() && !out_of_budget();) {
        if (attempt({c.program, join(header, rows, n)})) {
          progress = true;
          rows.resize(n);
          n = 1;
          continue;
        }
        n = n * 2 < rows.size() ? n * 2 : (n + 1 < rows.size() ? rows.size() - 1 : rows.size());
      }
    }
    Program base;
    if (!h.parse(c.program, base)) break;
    auto try_program = [&](const Program &p) {
      std::string text;
      return h.print(p, text) && attempt({text, c.trace});
    };
    auto copy = [&] {
      Program p;
      for (auto &d : base.decls) p.decls.push_back(clone_decl(d));
      return p;
    };
    auto reparse = [&] { return h.parse(c.program, base); };
    // 2. Nodes other than the main one.
    for (size_t i = 0; i < base.decls.size() && !out_of_budget();) {
      Program p;
      for (size_t j = 0; j < base.decls.size(); ++j)
        if (j != i) p.decls.push_back(clone_decl(base.decls[j]));
      if (decl_name(base.decls[i]) != h.main && try_program(p)) {
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
        Program p = copy();
        auto &m = std::get<NodeDecl>(p.decls[i]);
        m.assumptions.erase(m.assumptions.begin() + static_cast<long>(k));
        if (try_program(p)) {
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
        const NodeDecl &n = std::get<NodeDecl>(base.decls[i]);
        const Equation &eq = n.equations[k];
        bool output = false;
        for (auto &l : eq.lhs)
          for (auto &o : n.outputs) output = output || o.name == l.name;
        Program p = copy();
        auto &m = std::get<NodeDecl>(p.decls[i]);
        m.equations.erase(m.equations.begin() + static_cast<long>(k));
        for (auto &l : eq.lhs)
          for (size_t v = 0; v < m.locals.size(); ++v)
            if (m.locals[v].name == l.name) {
              m.locals.erase(m.locals.begin() + static_cast<long>(v));
              break;
            }
        if (!output && try_program(p)) {
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
      const Expr &e = **all[slot];
      // Literals first: one step removes the whole subtree (the front end refuses the
      // ones of the wrong type at once). A literal is only replaced by the zero of its own
      // kind: `0.0` -> `0` -> `0.0` would be accepted for an unread local, forever.
      std::vector<ExprPtr> replacements;
      const bool int_lit = is_literal(e, ExprKind::IntLit), real_lit = is_literal(e, ExprKind::RealLit),
                 bool_lit = is_literal(e, ExprKind::BoolLit), lit = int_lit || real_lit || bool_lit;
      if (int_lit ? e.ival != 0 : !lit) replacements.push_back(mk_int(0));
      if (real_lit ? e.rval != 0 : !lit) replacements.push_back(mk_real(0));
      if (bool_lit ? e.bval : !lit) replacements.push_back(mk_bool(false));
      for (auto &a : e.args) replacements.push_back(a->clone());
      bool kept = false;
      for (auto &r : replacements) {
        if (out_of_budget()) break;
        Program p = copy();
        std::vector<ExprPtr *> ps;
        slots(p, ps);
        *ps[slot] = std::move(r);
        if (try_program(p)) {
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

}  // namespace rml::diff
