#include "tools/load.hpp"

#include "tools/commands.hpp"

namespace rml {

std::unique_ptr<FrontendResult> load(const std::string &file, std::ostream &err, const FrontendOptions &opts) {
  std::string io;
  auto text = read_file(file, io);
  if (!text) {
    err << "rml: error: " << io << "\n";
    return nullptr;
  }
  return run_frontend(file, std::move(*text), opts);
}

int report(const FrontendResult &r, std::ostream &err) {
  err << render_all(r.diags);
  if (r.diags.has_errors()) {
    size_t n = r.diags.error_count();
    err << n << " error" << (n == 1 ? "" : "s") << (n >= Diagnostics::kMaxErrors ? " (stopped at the limit)" : "") << "\n";
    return kFrontendError;
  }
  return kOk;
}

}  // namespace rml
