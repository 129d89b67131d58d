#include "tools/check_formats.hpp"

#include <set>
#include <sstream>

#include "formats/chronogram_table.hpp"
#include "formats/svg.hpp"

namespace rml {

namespace {

using json = nlohmann::json;

// The documents cmd_check builds: {file, verdict: "error"|"ok", diagnostics: [...]} when
// the front end stops, else {file, reports: [{main, properties: [...]} | {main, verdict:
// "unknown", error}]}.
struct Verdict {
  // name: a named property's name, else its text (text: a named property's text, else empty)
  std::string file, main, kind, name, text, verdict, method, what;  // what: the counterexample's summary
  int line = 0, col = 0;
  json findings = json::array(), counterexample;
};

std::vector<Verdict> verdicts(const json &r) {
  std::vector<Verdict> out;
  if (!r.contains("reports")) return out;
  for (auto &rep : r["reports"]) {
    if (!rep.contains("properties")) {
      Verdict v;
      v.file = r["file"];
      v.main = rep["main"];
      v.kind = "check";
      v.verdict = "unknown";
      v.method = rep.value("error", std::string("not checked"));
      out.push_back(v);
      continue;
    }
    for (auto &p : rep["properties"]) {
      Verdict v;
      v.file = r["file"];
      v.main = rep["main"];
      v.kind = p["kind"];
      v.name = p.value("name", std::string());
      v.text = p.value("text", std::string());
      v.verdict = p["verdict"];
      v.method = p.value("method", std::string());
      v.line = p.value("line", 0);
      v.col = p.value("col", 0);
      v.findings = p.value("findings", json::array());
      v.counterexample = p.contains("counterexample") ? p["counterexample"] : json();
      if (v.counterexample.is_object()) v.what = v.counterexample.value("what", std::string());
      out.push_back(v);
    }
  }
  return out;
}

// As the text report says it: `property 'y <= 4'`, and a named one `property "P1" 'y <= 4'`.
std::string title(const Verdict &v) {
  if (v.kind != "property") return v.kind;
  return v.text.empty() ? "property '" + v.name + "'" : "property \"" + v.name + "\" '" + v.text + "'";
}

json sarif_location(const std::string &file, int line, int col) {
  json phys{{"artifactLocation", {{"uri", file}}}};
  if (line > 0) phys["region"] = {{"startLine", line}, {"startColumn", col > 0 ? col : 1}};
  return json::array({{{"physicalLocation", phys}}});
}

std::string sarif(const json &r, const std::string &version) {
  json results = json::array();
  std::set<std::string> rules;
  const std::string file = r.value("file", std::string());
  for (auto &d : r.value("diagnostics", json::array())) {
    std::string sev = d.value("severity", std::string("error"));
    json res{{"ruleId", d.value("rule", std::string("frontend"))},
             {"level", sev == "warning" ? "warning" : sev == "note" ? "note" : "error"},
             {"kind", "fail"},
             {"message", {{"text", d.value("message", std::string())}}},
             {"locations", sarif_location(d.value("file", file), d.value("line", 0), d.value("col", 0))}};
    rules.insert(res["ruleId"]);
    results.push_back(res);
  }
  for (auto &v : verdicts(r)) {
    std::string rule_id = "rml-check." + v.kind;
    std::string kind = v.verdict == "valid" ? "pass" : v.verdict == "falsified" ? "fail" : "open";
    json res{{"ruleId", rule_id},
             {"kind", kind},
             {"level", kind == "fail" ? "error" : "none"},
             {"message", {{"text", "node " + v.main + ": " + title(v) + ": " + v.verdict + " -- " + v.method +
                                       (v.what.empty() ? "" : " (counterexample: " + v.what + ")")}}},
             {"locations", sarif_location(v.file, v.line, v.col)},
             {"properties", {{"main", v.main}}}};
    if (v.counterexample.is_object() && v.counterexample.contains("replay"))
      res["properties"]["replay"] = v.counterexample["replay"];
    if (!v.text.empty()) res["properties"]["name"] = v.name;  // a named property
    rules.insert(rule_id);
    results.push_back(res);
    for (auto &f : v.findings) {
      if (!f.contains("line")) continue;
      json fr{{"ruleId", f.value("rule", rule_id)},
              {"kind", kind},
              {"level", kind == "fail" ? "error" : "none"},
              {"message", {{"text", f.value("message", std::string())}}},
              {"locations", sarif_location(f.value("file", v.file), f.value("line", 0), f.value("col", 0))}};
      rules.insert(fr["ruleId"]);
      results.push_back(fr);
    }
  }
  json jr = json::array();
  for (auto &id : rules) jr.push_back({{"id", id}, {"helpUri", "semantics/grammar.md"}});
  json doc{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
           {"version", "2.1.0"},
           {"runs", json::array({{{"tool", {{"driver", {{"name", "rml-check"}, {"version", version}, {"rules", jr}}}}},
                                  {"results", results}}})}};
  return doc.dump(2) + "\n";
}

std::string xml(const std::string &s) { return formats::xml_escape(s); }

std::string junit(const json &r) {
  const std::string file = r.value("file", std::string());
  std::ostringstream body;
  int tests = 0, failures = 0, errors = 0;
  if (r.contains("diagnostics")) {  // the front end: one case, an error per diagnostic
    int n = 0;
    std::string text;
    for (auto &d : r["diagnostics"])
      if (d.value("severity", std::string("error")) == "error") {
        ++n;
        text += d.value("rule", std::string()) + ": " + d.value("message", std::string()) + "\n";
      }
    tests = 1;
    errors = n ? 1 : 0;
    body << "  <testsuite name=\"" << xml(file) << "\" tests=\"1\" failures=\"0\" errors=\"" << errors << "\" skipped=\"0\">\n"
         << "    <testcase classname=\"" << xml(file) << "\" name=\"front end\">\n";
    if (n) body << "      <error type=\"frontend\" message=\"" << n << " error" << (n == 1 ? "" : "s") << "\">" << xml(text) << "</error>\n";
    body << "    </testcase>\n  </testsuite>\n";
  }
  std::string current;
  std::ostringstream suite;
  int st = 0, sf = 0, se = 0;
  auto close = [&] {
    if (current.empty()) return;
    body << "  <testsuite name=\"" << xml(file + ": node " + current) << "\" tests=\"" << st << "\" failures=\"" << sf
         << "\" errors=\"" << se << "\" skipped=\"0\">\n" << suite.str() << "  </testsuite>\n";
    suite.str("");
    st = sf = se = 0;
  };
  for (auto &v : verdicts(r)) {
    if (v.main != current) close(), current = v.main;
    ++st, ++tests;
    suite << "    <testcase classname=\"" << xml(file + "." + v.main) << "\" name=\"" << xml(title(v)) << "\">\n";
    std::string detail = v.method + (v.what.empty() ? "" : "\ncounterexample: " + v.what);
    if (v.counterexample.is_object()) detail += "\n" + v.counterexample.value("chronogram", std::string()) + "replay: " +
                                                v.counterexample.value("replay", std::string());
    if (v.verdict == "falsified")
      ++sf, ++failures, suite << "      <failure type=\"falsified\" message=\"" << xml(title(v)) << " is falsified\">" << xml(detail) << "</failure>\n";
    else if (v.verdict != "valid")
      ++se, ++errors, suite << "      <error type=\"unknown\" message=\"" << xml(title(v)) << " is unknown\">" << xml(detail) << "</error>\n";
    suite << "    </testcase>\n";
  }
  close();
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rml-check\" tests=\"" << tests << "\" failures=\"" << failures
    << "\" errors=\"" << errors << "\">\n" << body.str() << "</testsuites>\n";
  return s.str();
}

// A counterexample trace (CSV) as Kind 2's streams of instant values.
json kind2_trace(const Verdict &v) {
  formats::ChronogramTable t;
  std::string why;
  if (!v.counterexample.is_object() || !formats::read_csv_chronogram(v.counterexample.value("trace_csv", std::string()), t, why))
    return json::array();
  json streams = json::array();
  for (size_t c = 0; c < t.names.size(); ++c) {
    json values = json::array();
    std::string type = "bool";
    for (size_t n = 0; n < t.rows.size(); ++n) {
      const std::string &cell = t.rows[n][c];
      if (cell == "T" || cell == "F") values.push_back({n, cell == "T"});
      else if (cell.find_first_of(".eE") != std::string::npos) type = "real", values.push_back({n, std::stod(cell)});
      else if (!cell.empty() && cell != "_" && cell != "?") {
        type = "int";
        try {
          values.push_back({n, std::stoll(cell)});
        } catch (std::exception &) {
          // a tensor or an enumeration value: not in Kind 2's scalar streams
        }
      }
    }
    streams.push_back({{"name", t.names[c]}, {"type", type}, {"class", "input"}, {"instantValues", values}});
  }
  return json::array({{{"blockType", "node"}, {"name", v.main}, {"streams", streams}}});
}

std::string kind2(const json &r, const std::string &version) {
  json out = json::array();
  const std::string file = r.value("file", std::string());
  if (r.contains("diagnostics")) {
    for (auto &d : r["diagnostics"]) {
      json log{{"objectType", "log"},
               {"level", d.value("severity", std::string("error")) == "warning" ? "warn" : "error"},
               {"source", "parse"},
               {"value", d.value("rule", std::string()) + ": " + d.value("message", std::string())}};
      if (d.contains("line")) log["file"] = d.value("file", file), log["line"] = d["line"], log["column"] = d.value("col", 1);
      out.push_back(log);
    }
    if (out.empty()) out.push_back({{"objectType", "log"}, {"level", "info"}, {"source", "parse"}, {"value", "front end ok"}});
    return out.dump(2) + "\n";
  }
  out.push_back({{"objectType", "kind2Options"}, {"enabled", json::array({"rml-check " + version})}, {"timeout", 0.0}, {"bmcMax", 0},
                 {"compositional", false}, {"modular", false}});
  std::string current;
  for (auto &v : verdicts(r)) {
    if (v.main != current) {
      if (!current.empty()) out.push_back({{"objectType", "analysisStop"}});
      current = v.main;
      out.push_back({{"objectType", "analysisStart"}, {"top", v.main}, {"concrete", json::array()}, {"abstract", json::array()},
                     {"assumptions", json::array()}});
    }
    json p{{"objectType", "property"},
           {"name", v.kind == "property" ? v.name : v.kind},
           {"scope", v.main},
           {"file", v.file},
           {"line", v.line},
           {"column", v.col},
           {"source", v.kind == "property" ? "PropAnnot" : "Generated"},
           {"answer", {{"source", v.method}, {"value", v.verdict == "valid" ? "valid" : v.verdict == "falsified" ? "falsifiable" : "unknown"}}}};
    if (v.verdict == "falsified") p["counterExample"] = kind2_trace(v);
    out.push_back(p);
  }
  if (!current.empty()) out.push_back({{"objectType", "analysisStop"}});
  return out.dump(2) + "\n";
}

}  // namespace

std::string render_check_report(const nlohmann::json &report, const std::string &format, const std::string &version) {
  if (format == "sarif") return sarif(report, version);
  if (format == "junit") return junit(report);
  if (format == "kind2") return kind2(report, version);
  return report.dump(2) + "\n";
}

}  // namespace rml
