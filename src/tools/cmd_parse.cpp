// rml parse (the program, or its elaborated core with --normalized) and rml fmt: the
// library's print_text and format_text (include/rml/rml.hpp), printed or written.
#include "tools/commands.hpp"

#include <filesystem>
#include <fstream>
#include <optional>

namespace rml {

int cmd_parse(const ParseCmd &c, std::ostream &out, std::ostream &err) {
  std::string io;
  std::optional<std::string> source = read_file(c.file, io);
  if (!source) {
    err << "rml: error: " << io << "\n";
    return kFrontendError;
  }
  auto printed = api::print_text(c.file, *source, {c.normalized, c.main_node});
  if (!printed) return print_failure(printed.failure(), err);
  for (auto &w : printed->warnings) err << w.rendered;
  out << printed->text;
  for (auto &d : printed->diagnostics) err << d.rendered;
  return printed->failed ? kFrontendError : kOk;
}

int cmd_fmt(const FmtCmd &c, std::ostream &out, std::ostream &err) {
  std::string io;
  std::optional<std::string> source = read_file(c.file, io);
  if (!source) {
    err << "rml: error: " << io << "\n";
    return kFrontendError;
  }
  auto formatted = api::format_text(c.file, *source);
  if (!formatted) return print_failure(formatted.failure(), err);
  const std::string &text = *formatted;
  if (c.check) {
    bool same = text == *source;
    if (!same) err << c.file << ": not formatted (run 'rml fmt -i " << c.file << "')\n";
    return same ? kOk : kFalsified;
  }
  if (c.in_place) {
    if (text == *source) return kOk;  // already formatted: leave the file untouched
    // Write a temporary file next to the original, then rename it over the original:
    // a failed write leaves the original as it was.
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target = fs::weakly_canonical(c.file, ec);  // through a symlink: rewrite its target
    if (ec) target = c.file;
    fs::path tmp;
    for (int k = 0; k < 1000; ++k) {
      tmp = target;
      tmp.replace_filename("." + target.filename().string() + ".rmlfmt" + std::to_string(k) + ".tmp");
      if (!fs::exists(tmp, ec)) break;
    }
    bool ok;
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f << text;
      f.flush();
      ok = static_cast<bool>(f);
    }
    if (ok) {
      fs::perms mode = fs::status(target, ec).permissions();
      if (!ec) fs::permissions(tmp, mode, ec);
      ec.clear();
      fs::rename(tmp, target, ec);
      ok = !ec;
    }
    if (!ok) {
      fs::remove(tmp, ec);
      err << "rml: error: cannot write '" << c.file << "' (left unchanged)\n";
      return kFrontendError;
    }
    return kOk;
  }
  out << text;
  return kOk;
}

}  // namespace rml
