#include "diff/backend.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace rml::diff {

std::string shell_quote(const std::string &s) {
  std::string r = "'";
  for (char ch : s) r += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return r + "'";
}

std::string BackendRun::describe() const {
  switch (status) {
    case Ok: return "exited with status 0";
    case Exit: return "exited with status " + std::to_string(code);
    case Signal: return "was killed by signal " + std::to_string(code) + " (" + strsignal(code) + ")";
    case Timeout: return "did not finish within the time limit (killed)";
    case StartFailed: return "could not be started";
  }
  return "";
}

namespace {

std::string slurp(const std::string &path, size_t limit) {
  std::ifstream f(path, std::ios::binary);
  std::string s;
  char buf[65536];
  while (f && s.size() < limit) {
    f.read(buf, sizeof buf);
    s.append(buf, static_cast<size_t>(f.gcount()));
  }
  if (s.size() > limit) s.resize(limit);
  return s;
}

}  // namespace

BackendRun run_backend(const BackendCommand &cmd, const std::string &program, const std::string &inputs,
                       const std::string &outputs, const std::string &main) {
  BackendRun r;
  std::string c = cmd.tmpl;
  bool to_file = c.find("{outputs}") != std::string::npos;
  auto subst = [&](const std::string &key, const std::string &value) {
    for (size_t at = c.find(key); at != std::string::npos; at = c.find(key, at + value.size())) c.replace(at, key.size(), value);
  };
  subst("{program}", shell_quote(program));
  subst("{inputs}", shell_quote(inputs));
  subst("{outputs}", shell_quote(outputs));
  subst("{main}", shell_quote(main));
  r.command = c;
  std::string out_path = to_file ? outputs : outputs + ".stdout";
  std::string err_path = outputs + ".stderr";
  ::unlink(outputs.c_str());
  pid_t pid = ::fork();
  if (pid < 0) {
    r.status = BackendRun::StartFailed;
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group: a timeout kills the command and its children
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(127);
    ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
    ::execl("/bin/sh", "sh", "-c", c.c_str(), static_cast<char *>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(cmd.timeout_s);
  int status = 0;
  for (auto sleep = std::chrono::microseconds(200);; sleep = std::min(sleep * 2, std::chrono::microseconds(20000))) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      r.status = BackendRun::StartFailed;
      return r;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.status = BackendRun::Timeout;
      break;
    }
    std::this_thread::sleep_for(sleep);
  }
  ::kill(-pid, SIGKILL);  // children it left behind
  if (r.status != BackendRun::Timeout) {
    if (WIFSIGNALED(status)) r.status = BackendRun::Signal, r.code = WTERMSIG(status);
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) r.status = BackendRun::Exit, r.code = WEXITSTATUS(status);
  }
  r.output = slurp(out_path, 64u << 20);
  r.stderr_text = slurp(err_path, 4096);
  return r;
}

}  // namespace rml::diff
