// Subcommand implementations shared by `rml` and `rml-check` (CLI11 stays in the mains).
#pragma once
#include <ostream>
#include <string>

namespace rml {

// Documented exit codes (README "Exit codes").
enum Exit : int { kOk = 0, kFalsified = 1, kFrontendError = 2, kUnknown = 3 };

struct ParseCmd {
  std::string file;
  bool normalized = false;
  std::string main_node;
};
int cmd_parse(const ParseCmd &c, std::ostream &out, std::ostream &err);

struct FmtCmd {
  std::string file;
  bool check = false;     // exit 1 if the file is not formatted
  bool in_place = false;
};
int cmd_fmt(const FmtCmd &c, std::ostream &out, std::ostream &err);

struct CheckCmd {
  std::string file;
  std::string main_node;
  bool json = false;
};
int cmd_check(const CheckCmd &c, std::ostream &out, std::ostream &err);

struct CorpusCmd {
  std::string dir;
  bool verbose = false;
};
int cmd_corpus(const CorpusCmd &c, std::ostream &out, std::ostream &err);

}  // namespace rml
