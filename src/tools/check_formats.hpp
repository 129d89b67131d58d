// rml-check's report in the formats other tools read (rml-check --format): the JSON
// report cmd_check builds (README "Checking a program"), written as
//   json   itself;
//   sarif  SARIF 2.1.0 (code-scanning alerts): a result per verdict, kind pass / fail /
//          open for valid / falsified / unknown (SARIF §3.27.9: a result whose kind is
//          not "fail" has level "none"), a result per located finding, front-end
//          diagnostics as results with their rule;
//   junit  JUnit XML (CI test reports): a test suite per main node, a test case per
//          verdict, <failure> when falsified, <error type="unknown"> when unknown;
//   kind2  Kind 2's JSON results (schemas/kind2-output.json in kind2-mc/kind2): a
//          kind2Options object, then per main node analysisStart, a property object per
//          verdict (answer valid / falsifiable / unknown, the counterexample as
//          streams of instant values), analysisStop; front-end errors as log objects.
// A named property (`check "P1" e;`: JSON `name` and `text`) is titled as the text report
// says it, `property "P1" 'e'` (SARIF's message and properties.name, JUnit's test case);
// Kind 2's property object takes its name.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace rml {

std::string render_check_report(const nlohmann::json &report, const std::string &format, const std::string &version);

}  // namespace rml
