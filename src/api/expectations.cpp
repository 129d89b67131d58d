// api::check_expectations (`rml corpus`): a file's front-end diagnostics against its
// `// expect:` header (driver/expectations.hpp).
#include <sstream>

#include "api/state.hpp"
#include "driver/exit_codes.hpp"
#include "driver/expectations.hpp"
#include "driver/load.hpp"

namespace rml::api {

namespace {

ExpectedError expected_of(const ExpectedDiag &d) { return {d.line, d.col, d.rule}; }

std::vector<ExpectedError> expected_of(const std::vector<ExpectedDiag> &ds) {
  std::vector<ExpectedError> out;
  for (auto &d : ds) out.push_back(expected_of(d));
  return out;
}

}  // namespace

std::string ExpectedError::text() const { return ExpectedDiag{line, column, rule}.str(); }

Result<ExpectationCheck> check_expectations(const std::string &file) try {
  std::ostringstream err;
  auto r = load(file, err);
  if (!r) return failure(kFrontendError, err.str());
  Expectations ex = parse_expectations(r->files.back()->text);
  rml::ExpectationCheck chk = compare(ex, *r);
  ExpectationCheck out;
  out.pass = chk.pass;
  out.has_header = ex.has_header;
  out.rejected = r->diags.has_errors();
  out.reported = expected_of(reported_errors(*r));
  out.missing = expected_of(chk.missing);
  out.unexpected = expected_of(chk.unexpected);
  out.rendered = render_all(r->diags);
  return out;
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error: out of memory while reading " + file + "\n");
}

}  // namespace rml::api
