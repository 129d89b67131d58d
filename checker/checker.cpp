// check_program: the four properties of a main node (and its user properties), each
// guarded by the one time budget; verdicts respelt with the names rml parse --normalized prints.
#include "checker/checker.hpp"

#include <algorithm>
#include <new>

#include "checker/engine.hpp"

namespace rml::check {

const char *verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Valid: return "valid";
    case Verdict::Falsified: return "falsified";
    case Verdict::Unknown: return "unknown";
  }
  return "?";
}

int Report::exit_code() const {
  bool unknown = false;
  for (auto &p : properties) {
    if (p.verdict == Verdict::Falsified) return 1;
    if (p.verdict == Verdict::Unknown) unknown = true;
  }
  return unknown ? 3 : 0;
}

Report check_program(const CheckedProgram &cp, const core::Program &prog, const Options &opts) {
  return check_program(cp, prog, core::infer_clocks(prog), opts);
}

Report check_program(const CheckedProgram &cp, const core::Program &prog, const core::Clocks &clocks, const Options &opts) {
  Checker c(cp, prog, clocks, opts);
  Report rep;
  rep.main = prog.main;
  // A solver failure is never a verdict: the property is "unknown", with the reason.
  auto unknown = [&](const char *kind, std::string why) {
    PropertyResult r;
    r.kind = kind;
    r.verdict = Verdict::Unknown;
    r.method = std::move(why);
    rep.properties.push_back(std::move(r));
  };
  auto guarded = [&](const char *kind, auto &&run) {
    if (opts.starting && std::string(kind) != "property") opts.starting(kind);
    uint64_t before = c.budget.spent();
    struct Charge {  // what the property spent, however it ends
      Report &rep;
      size_t size;
      const Budget &b;
      uint64_t before;
      ~Charge() {
        if (rep.properties.size() > size) rep.properties.back().resources = b.spent() - before;
      }
    } charge{rep, rep.properties.size(), c.budget, before};
    try {
      rep.properties.push_back(run());
      // A counterexample that gives imported calls' outputs holds for imported nodes that
      // compute those values: the method says so (the trace holds them, for the replay).
      PropertyResult &done = rep.properties.back();
      if (done.verdict == Verdict::Falsified && done.cex && done.cex->inputs.streams.size() > prog.inputs.size())
        done.method += ", with the outputs of imported nodes given in the trace";
    } catch (z3::exception &e) {
      if (c.budget.exhausted()) {  // interrupted at the deadline
        try {
          c.budget.fail();
        } catch (BudgetExhausted &b) {
          unknown(kind, b.what());
        }
      } else {
        unknown(kind, std::string("the solver failed: ") + e.msg());
      }
    } catch (BudgetExhausted &e) {
      unknown(kind, e.what());
    } catch (oracle::ImportedError &e) {  // a counterexample's replay reached an imported node
      unknown(kind, "a run was found where it fails for some values of imported nodes, which the oracle cannot replay ('" +
                        e.name + "' is imported: " + (e.reason.empty() ? "it has no body" : e.reason) +
                        "), and no proof covers every value");
    } catch (oracle::MemoryLimitError &e) {  // replaying a counterexample would not fit
      unknown(kind, std::string("a counterexample's replay needs more memory than the oracle's cap: ") + e.what());
    } catch (std::bad_alloc &) {
      unknown(kind, "out of memory while checking this property");
    }
  };

  // Causality and productivity first (they use no SMT proof of a property over the whole
  // transition system): whether that system has a run for every input depends on them
  // (Checker::free_values). The report keeps the order clocks, causality, productivity.
  guarded("causality", [&] { return c.check_causality(); });
  guarded("productivity", [&] { return c.check_productivity(rep.properties.back()); });
  const PropertyResult &causal = rep.properties[0], &productive = rep.properties[1];
  if (productive.verdict == Verdict::Valid && productive.horizon) c.proved_horizon = *productive.horizon;
  if (causal.verdict != Verdict::Valid) {  // every variable on an instantaneous cycle
    int count = 0;
    std::vector<int> comp = components(c.graph, [](const Edge &e) { return e.offset == 0; }, count);
    std::vector<int> size(static_cast<size_t>(count), 0);
    for (int k : comp) ++size[static_cast<size_t>(k)];
    for (auto &e : c.graph.edges)
      if (e.offset == 0 && (e.from == e.to || size[static_cast<size_t>(comp[e.from])] > 1))
        c.free_values.insert(c.graph.names[e.from]);
  }
  if (productive.verdict != Verdict::Valid)  // every post
    for (auto &eq : prog.equations)
      if (eq.prim == core::Prim::Post) c.free_values.insert(eq.lhs);
  // Clocks, initialisation and each user property get an equal share of what is left, so
  // that one hard property cannot spend every later one's budget; what a property leaves
  // (most are decided without a solver) goes to the ones after it. A user property whose
  // share ran out is checked again, from the start, with an equal share of what is left
  // once every property has had its first (a hard property met first gets the budget the
  // easy ones after it did not need).
  const Budget whole = c.budget;
  // Acceptance asks no user property; a node it refuses needs no initialisation verdict.
  const std::vector<core::CoreProperty> no_properties;
  const std::vector<core::CoreProperty> &properties = opts.acceptance ? no_properties : prog.properties;
  const bool overflow = opts.int_overflow_error && !opts.acceptance;
  int to_check = 2 + (overflow ? 1 : 0) + static_cast<int>(properties.size());
  auto shared = [&](const char *kind, auto &&run) {
    c.budget = whole.share(to_check--);
    guarded(kind, run);
    bool share_spent = c.budget.exhausted() && !whole.exhausted();
    c.budget = whole;
    return share_spent;
  };
  shared("clocks", [&] { return c.check_clocks(); });
  std::rotate(rep.properties.begin(), rep.properties.end() - 1, rep.properties.end());
  const bool refused =
      opts.acceptance && std::any_of(rep.properties.begin(), rep.properties.end(), [](const PropertyResult &p) { return p.verdict != Verdict::Valid; });
  if (!refused) shared("initialisation", [&] { return c.check_initialisation(); });
  if (overflow) shared("overflow", [&] { return c.check_overflow(); });
  std::vector<std::pair<size_t, const core::CoreProperty *>> again;  // (index in the report, property)
  size_t number = 0;
  for (auto &pp : properties) {
    if (opts.starting)
      opts.starting("property " + std::to_string(++number) + " of " + std::to_string(properties.size()) + ": " + property_label(pp));
    if (shared("property", [&] { return c.check_property(pp); }) && rep.properties.back().verdict == Verdict::Unknown)
      again.emplace_back(rep.properties.size() - 1, &pp);
    rep.properties.back().name = pp.text;
    rep.properties.back().span = pp.span;
    rep.properties.back().index = static_cast<int>(&pp - prog.properties.data());
  }
  to_check = static_cast<int>(again.size());  // the last property had all that was left: never again
  for (auto &entry : again) {
    const size_t at = entry.first;
    const core::CoreProperty *pp = entry.second;  // a plain variable: clang 14 captures no structured binding
    if (whole.exhausted()) break;
    if (opts.starting) opts.starting("property " + property_label(*pp) + " again, with the budget the others left");
    uint64_t first = rep.properties[at].resources;
    shared("property", [&] { return c.check_property(*pp); });
    PropertyResult second = std::move(rep.properties.back());
    rep.properties.pop_back();
    second.name = pp->text;
    second.span = pp->span;
    second.index = static_cast<int>(pp - prog.properties.data());
    second.resources += first;
    rep.properties[at] = std::move(second);
  }
  // Findings are read by users: generated names are spelt as rml run prints them and
  // --show accepts them (core::printed_names), not as the elaborated program holds them.
  auto printed = core::printed_names(prog);
  auto respell = [&](std::string &text) {
    std::string out;
    auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.'; };
    for (size_t i = 0; i < text.size();) {
      if (!word(text[i])) {
        out += text[i++];
        continue;
      }
      size_t j = i;
      while (j < text.size() && word(text[j])) ++j;
      std::string w = text.substr(i, j - i);
      auto it = printed.find(w);
      out += it != printed.end() ? it->second : w;
      i = j;
    }
    text = std::move(out);
  };
  for (auto &p : rep.properties) {
    for (auto &f : p.findings) respell(f.message);
    if (p.cex) respell(p.cex->what);
  }
  // Assumptions that no input satisfies prove everything: a proof under them says nothing.
  bool vacuous = false;
  try {
    vacuous = c.assumptions_vacuous();
  } catch (std::exception &) {  // a solver failure or the time budget: no finding
  }
  if (vacuous)
    for (auto &p : rep.properties) {
      p.findings.push_back(Finding{"assume.vacuous",
                                   "the assumptions of '" + prog.main + "' admit no input of " + std::to_string(c.vacuous_depth) +
                                       " cycles: every proof under them is vacuous",
                                   prog.assumptions.front().span});
      if (p.verdict == Verdict::Valid) {
        p.verdict = Verdict::Unknown;
        p.horizon.reset();
        p.method = "vacuous: the assumptions contradict each other (or the program), so this proof says nothing";
      }
    }
  return rep;
}

}  // namespace rml::check
