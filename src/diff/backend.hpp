// A back end under test: a shell command template run on a program and a trace, with a
// time limit. What it prints is read back as a chronogram (compare.hpp); how it failed
// (exit status, signal, timeout) is kept for the report, never taken for a result.
#pragma once
#include <string>

namespace rml::diff {

// `{program}`, `{inputs}`, `{outputs}` and `{main}` in the template are replaced by the
// shell-quoted paths and the main node's name. Without `{outputs}`, the command's
// standard output is its result.
struct BackendCommand {
  std::string tmpl;
  double timeout_s = 10;
};

struct BackendRun {
  enum Status { Ok, Exit, Signal, Timeout, StartFailed } status = Ok;
  int code = 0;             // Exit: the exit status; Signal: the signal
  std::string output;       // the result (the {outputs} file, or standard output)
  std::string stderr_text;  // at most 4 KiB of what it said on standard error
  std::string command;      // the command as run
  std::string describe() const;  // "exited with status 3", "killed by signal 11 (SIGSEGV)", ...
};

BackendRun run_backend(const BackendCommand &cmd, const std::string &program, const std::string &inputs,
                       const std::string &outputs, const std::string &main);

std::string shell_quote(const std::string &s);

}  // namespace rml::diff
