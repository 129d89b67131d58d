// native_class.hpp: find or build the shared object, then load it and check what it says
// of itself (the ABI's version and the ports' signature) before any word crosses.
#include "codegen/native_class.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/emit_abi.hpp"

extern char **environ;

namespace rml::codegen {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> words_of(const std::string &s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// 128 bits of FNV-1a (two 64-bit lanes from different offsets) over every part: a key for
// the cache, not a defence against someone who can write to it (the signature check is).
std::string hash_of(const std::vector<std::string> &parts) {
  uint64_t a = 14695981039346656037ull, b = 0x9e3779b97f4a7c15ull;
  auto mix = [&](unsigned char ch) {
    a = (a ^ ch) * 1099511628211ull;
    b = (b ^ ch) * 0x100000001b3ull + 0x2545f4914f6cdd1dull;
  };
  for (auto &p : parts) {
    for (unsigned char ch : p) mix(ch);
    for (int k = 0; k < 8; ++k) mix(static_cast<unsigned char>(p.size() >> (8 * k)));  // lengths: no two splits alike
  }
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
  return buf;
}

std::string file_start(const fs::path &p, size_t n) {
  std::ifstream f(p);
  std::string s(n, '\0');
  f.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(f.gcount()));
  return s;
}

// Runs argv in `dir` with its output and errors into `log`; its exit status, or -1 when it could
// not be started (errno's text in `why`).
int run_logged(const std::vector<std::string> &argv, const fs::path &dir, const fs::path &log, std::string &why) {
  std::vector<char *> args;
  for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    why = std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      why = std::strerror(errno);
      return -1;
    }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

template <class F>
F symbol(void *handle, const char *name, const std::string &lib) {
  void *p = dlsym(handle, name);
  if (!p) throw NativeUnavailable("'" + lib + "' has no " + name + " (not an rml class's ABI)");
  return reinterpret_cast<F>(p);
}

// The folders of builds that never finished (a killed process): `*.tmp-*` untouched for
// an hour (a build takes seconds, so none of them is still being written).
void remove_stale_builds(const fs::path &root) {
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().find(".tmp-") == std::string::npos) continue;
    std::error_code e2;
    const auto t = fs::last_write_time(it->path(), e2);
    if (!e2 && now - t > std::chrono::hours(1)) fs::remove_all(it->path(), e2);
  }
}

// Compiles `files` into entry/librml_native.so: in a folder of its own, renamed into place
// whole (another process may have put the same entry there meanwhile: it is kept; a
// leftover without its object is replaced).
void build_entry(const std::vector<GeneratedFile> &files, const std::string &cls, const std::vector<std::string> &argv, const fs::path &root,
                 const fs::path &entry) {
  const std::string &cxx = argv.at(0);  // (for the messages)
  const fs::path library = entry / "librml_native.so";
  std::error_code ec;
  fs::create_directories(root, ec);
  remove_stale_builds(root);
  std::string pattern = (root / (entry.filename().string() + ".tmp-XXXXXX")).string();
  if (ec || !mkdtemp(pattern.data()))
    throw NativeUnavailable("cannot write the cache folder '" + root.string() + "': " + (ec ? ec.message() : std::strerror(errno)));
  const fs::path tmp = pattern;
  try {
    for (auto &f : files) {
      fs::path p = tmp / f.path;
      fs::create_directories(p.parent_path());
      std::ofstream out(p, std::ios::binary);
      out << f.text;
      if (!out.flush()) throw NativeUnavailable("cannot write '" + p.string() + "'");
    }
    // One translation unit: the class's source, its ABI and the operator table's special
    // functions (their names do not meet: the ABI's begin with rml_abi).
    std::ofstream(tmp / "rml_native.cpp") << "#include \"" << cls << ".cpp\"\n#include \"rml_abi.cpp\"\n#include \"runtime/ops/special.cpp\"\n";
    // Run in the entry's folder with paths relative to it: command.txt rebuilds it there.
    std::vector<std::string> cmd = argv;
    for (const char *w : {"-I.", "-Iruntime", "rml_native.cpp", "-o", "librml_native.so"}) cmd.push_back(w);
    {
      std::ofstream txt(tmp / "command.txt");
      for (size_t k = 0; k < cmd.size(); ++k) txt << (k ? " " : "") << cmd[k];
      txt << "\n";
    }
    std::string why;
    const int rc = run_logged(cmd, tmp, tmp / "compile.log", why);
    if (rc < 0) throw NativeUnavailable("cannot run the C++ compiler '" + cxx + "': " + why);
    if (rc != 0)
      throw NativeUnavailable("the C++ compiler '" + cxx + "' failed (exit " + std::to_string(rc) + ") on the generated class:\n" +
                              file_start(tmp / "compile.log", 2000));
    fs::rename(tmp, entry, ec);
    if (ec && !fs::exists(library)) {  // a leftover entry without its object
      fs::remove_all(entry, ec);
      fs::rename(tmp, entry, ec);
    }
    if (ec) {
      if (!fs::exists(library)) throw NativeUnavailable("cannot rename '" + tmp.string() + "' to '" + entry.string() + "': " + ec.message());
      fs::remove_all(tmp, ec);  // another process's, complete
    }
  } catch (fs::filesystem_error &e) {  // (a folder that cannot be made, say)
    fs::remove_all(tmp, ec);
    throw NativeUnavailable(std::string("cannot write the cache: ") + e.what());
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace

std::string native_cache_dir(const NativeBuild &b) {
  if (!b.cache_dir.empty()) return b.cache_dir;
  if (const char *e = std::getenv("RML_CACHE_DIR"); e && *e) return e;
  if (const char *e = std::getenv("XDG_CACHE_HOME"); e && *e) return (fs::path(e) / "rml").string();
  if (const char *e = std::getenv("HOME"); e && *e) return (fs::path(e) / ".cache" / "rml").string();
  return (fs::temp_directory_path() / "rml-cache").string();
}

std::string native_compiler(const NativeBuild &b) {
  if (!b.compiler.empty()) return b.compiler;
  if (const char *e = std::getenv("RML_CXX"); e && *e) return e;
  return "c++";
}

NativeClass::NativeClass(const std::vector<GeneratedFile> &files, const std::string &cls, const std::string &signature,
                         const NativeBuild &b) {
  // The compiler may be a command with words of its own ("ccache g++"); a relative path is
  // the caller's (the compiler runs in the cache entry's folder).
  std::vector<std::string> argv = words_of(native_compiler(b));
  if (argv.empty()) throw NativeUnavailable("no C++ compiler named");
  if (argv[0].find('/') != std::string::npos) argv[0] = fs::absolute(argv[0]).string();
  argv.push_back("-std=c++20");
  for (auto &w : words_of(b.flags)) argv.push_back(w);
  for (auto &w : words_of(kExactFlags)) argv.push_back(w);
  for (const char *w : {"-fPIC", "-shared", "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-Wl,-Bsymbolic", "-w"}) argv.push_back(w);
  // The key: the command line without its paths, and every file.
  std::vector<std::string> parts = argv;
  parts.push_back(cls);
  for (auto &f : files) parts.push_back(f.path), parts.push_back(f.text);
  const fs::path root = fs::absolute(fs::path(native_cache_dir(b)) / "native");
  const fs::path entry = root / hash_of(parts);
  library_ = (entry / "librml_native.so").string();
  std::error_code ec;
  if (fs::exists(library_, ec)) from_cache_ = true;
  else build_entry(files, cls, argv, root, entry);
  handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_ && from_cache_) {
    // A cached object that does not load (cut short by a full disk, say) is built again, once.
    fs::remove_all(entry, ec);
    from_cache_ = false;
    build_entry(files, cls, argv, root, entry);
    handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (!handle_) throw NativeUnavailable(std::string("cannot load '") + library_ + "': " + dlerror());
  try {
    auto version = symbol<int (*)()>(handle_, "rml_abi_version", library_);
    auto sig = symbol<const char *(*)()>(handle_, "rml_abi_signature", library_);
    if (version() != kAbiVersion)
      throw NativeUnavailable("'" + library_ + "' has ABI version " + std::to_string(version()) + ", not " + std::to_string(kAbiVersion));
    if (signature != sig()) throw NativeUnavailable("'" + library_ + "' has the ports " + sig() + ", not " + signature);
    auto make = symbol<void *(*)()>(handle_, "rml_abi_new", library_);
    delete_ = symbol<void (*)(void *)>(handle_, "rml_abi_delete", library_);
    push_ = symbol<int (*)(void *, const AbiCell *)>(handle_, "rml_abi_push", library_);
    pop_ = symbol<int (*)(void *, uint8_t *, void *const *)>(handle_, "rml_abi_pop", library_);
    finish_ = symbol<int (*)(void *)>(handle_, "rml_abi_finish", library_);
    engine_ = symbol<int (*)(void *)>(handle_, "rml_abi_engine", library_);
    clean_ = symbol<int (*)(void *)>(handle_, "rml_abi_clean", library_);
    instance_ = make();
    if (!instance_) throw std::bad_alloc();
  } catch (...) {
    dlclose(handle_);
    throw;
  }
}

NativeClass::~NativeClass() {
  if (instance_) delete_(instance_);
  if (handle_) dlclose(handle_);
}

}  // namespace rml::codegen
