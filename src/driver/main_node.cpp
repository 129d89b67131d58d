#include "driver/main_node.hpp"

#include "core/normalize.hpp"
#include "sema/suggest.hpp"
#include "driver/expectations.hpp"

namespace rml {

namespace {
std::string join(const std::vector<std::string> &v) {
  std::string s;
  for (auto &x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
const NodeDecl *user_node(const FrontendResult &r, const std::string &name) {
  for (auto &d : r.user.decls)
    if (auto *n = std::get_if<NodeDecl>(&d); n && n->name == name) return n;
  return nullptr;
}
}  // namespace

std::vector<std::string> user_nodes(const FrontendResult &r) {
  std::vector<std::string> out;
  for (auto &d : r.user.decls)  // not the nodes the front end made (`$canon.D` of a datatype)
    if (std::holds_alternative<NodeDecl>(d) && decl_name(d).rfind('$', 0) != 0) out.push_back(decl_name(d));
  return out;
}

std::vector<std::string> main_candidates(const FrontendResult &r) {
  std::vector<std::string> out;
  for (auto &n : user_nodes(r))
    if (core::can_be_main(r.checked, n)) out.push_back(n);
  return out;
}

std::string header_main(const FrontendResult &r) {
  const std::string &text = r.files.back()->text;
  Expectations ex = parse_expectations(text);
  if (!ex.main_node.empty() && core::can_be_main(r.checked, ex.main_node)) return ex.main_node;
  // Kind 2's and JKind's pragma in a node's body, `--%MAIN;` (or `--!MAIN;`): that node.
  for (size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    if (text.compare(at + 2, 5, "%MAIN") != 0 && text.compare(at + 2, 5, "!MAIN") != 0) continue;
    size_t line = text.rfind('\n', at);
    line = line == std::string::npos ? 0 : line + 1;
    if (text.find_first_not_of(" \t", line) != at) continue;  // a pragma starts its line
    const NodeDecl *within = nullptr;  // the last node declared before the pragma
    for (auto &d : r.user.decls)
      if (auto *n = std::get_if<NodeDecl>(&d); n && n->keyword_span.valid() && n->keyword_span.file == r.files.back().get() &&
                                                 n->keyword_span.begin < at)
        if (!within || n->keyword_span.begin > within->keyword_span.begin) within = n;
    if (within && core::can_be_main(r.checked, within->name)) return within->name;
  }
  return "";
}

bool check_main_name(const FrontendResult &r, const std::string &name, std::ostream &err) {
  if (const Decl *d = r.checked.find(name); d && std::holds_alternative<NodeDecl>(*d)) return true;
  const std::string &file = r.files.back()->path;
  std::vector<std::string> nodes = user_nodes(r);
  err << file << ": error[main.unknown]: --main " << name << ": no node '" << name << "' in " << file
      << (nodes.empty() ? std::string(" (it declares no node)") : " (its nodes: " + join(nodes) + ")") << "\n";
  if (std::string near = closest_name(name, nodes); !near.empty()) {
    Diagnostic note;
    note.severity = Severity::Note;
    note.span = user_node(r, near)->name_span;
    std::string text = render(note);  // the location line is ours, the excerpt render's
    err << location(note.span) << ": note: did you mean '" << near << "'?\n" << text.substr(text.find('\n') + 1);
  }
  return false;
}

std::optional<std::vector<std::string>> chosen_mains(const FrontendResult &r, const std::string &given, std::ostream &err) {
  if (!given.empty()) {
    if (!check_main_name(r, given, err)) return std::nullopt;
    return std::vector<std::string>{given};
  }
  if (std::string h = header_main(r); !h.empty()) return std::vector<std::string>{h};
  return main_candidates(r);
}

std::optional<std::string> choose_main(const FrontendResult &r, const std::string &given, std::ostream &err) {
  if (!given.empty()) {
    if (!check_main_name(r, given, err)) return std::nullopt;
    return given;
  }
  if (std::string h = header_main(r); !h.empty()) return h;
  std::vector<std::string> cands = main_candidates(r);
  if (cands.size() == 1) return cands[0];
  const std::string &file = r.files.back()->path;
  if (cands.empty()) {
    std::vector<std::string> nodes = user_nodes(r);
    if (nodes.empty()) {
      err << file << ": error[main.none]: the file declares no node to run\n";
      return std::nullopt;
    }
    Diagnostic d;  // every node has static parameters: point at the first
    d.rule = "main.none";
    d.span = user_node(r, nodes[0])->name_span;
    d.message = "no node of this file can be a main: " + join(nodes) +
                (nodes.size() == 1 ? " has" : " have") + " static parameters or type variables (run a node that instantiates " +
                (nodes.size() == 1 ? "it" : "them") + ")";
    err << render(d);
    return std::nullopt;
  }
  Diagnostic d;
  d.rule = "main.ambiguous";
  d.span = user_node(r, cands[0])->name_span;
  d.message = std::to_string(cands.size()) + " nodes of this file can be the main node (" + join(cands) +
              "): choose one with --main NODE or a '// main: NODE' line";
  for (size_t k = 1; k < cands.size(); ++k) d.notes.emplace_back(user_node(r, cands[k])->name_span, "candidate '" + cands[k] + "'");
  err << render(d);
  return std::nullopt;
}

}  // namespace rml
