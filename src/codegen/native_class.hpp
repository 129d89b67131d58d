// A generated class (emit_cpp.hpp) compiled by the system's C++ compiler into a shared
// object and loaded in process behind its C ABI (emit_abi.hpp): what `rml run --native`
// runs, the same code `rml compile` writes, at the speed of compiled code.
//
// Built once per text: the shared object is kept in a cache folder under the hash of the
// compiler, its flags and every generated file, so a second run of the same node loads it
// without compiling. A cache entry is written in a folder of its own and renamed into place
// whole, so that two processes building the same class at once both end with a complete
// one; an entry whose object does not load (cut short) or that lost its object is built
// again, and the folder of a build that never finished is removed an hour later. Nothing
// else is removed: delete the cache folder to clear it. The class is compiled with kExactFlags (the oracle's reals bit for bit) and linked
// with its symbols bound to itself (-Bsymbolic, hidden visibility): its copy of the window
// runtime never meets rml's own.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/emit_cpp.hpp"

namespace rml::codegen {

// The target rml itself is compiled for, so the machine that runs rml runs the class: AVX2
// where rml has it (the generated sums' four lanes, ops/lanes.hpp, are one register then).
#if defined(__AVX2__)
inline constexpr const char *kNativeFlags = "-O2 -mavx2";
#else
inline constexpr const char *kNativeFlags = "-O2";
#endif

struct NativeBuild {
  std::string compiler;   // empty: $RML_CXX, else "c++" (found on PATH)
  std::string cache_dir;  // empty: $RML_CACHE_DIR, else $XDG_CACHE_HOME/rml, else $HOME/.cache/rml
  std::string flags = kNativeFlags;  // optimisation and target; kExactFlags are always added
};

// The class cannot be had in process: no compiler, the compiler failed (its log's start
// in the message), the cache cannot be written, or the loader refused the object.
struct NativeUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A cell as the ABI carries it (rml_abi_cell).
struct AbiCell {
  uint8_t kind;  // rml::Kind of the generated code: 0 absent, 1 nil, 2 value, 3 unknown, 4 error
  const void *words;
};
inline constexpr uint8_t kAbiAbsent = 0, kAbiNil = 1, kAbiValue = 2, kAbiUnknown = 3, kAbiError = 4;

class NativeClass {
 public:
  // `files` as emit_cpp gives them (rml_abi.cpp among them), `cls` the class's name and
  // `signature` the ports the host will use (abi_signature): the object's own must equal it.
  NativeClass(const std::vector<GeneratedFile> &files, const std::string &cls, const std::string &signature, const NativeBuild &b);
  ~NativeClass();
  NativeClass(const NativeClass &) = delete;
  NativeClass &operator=(const NativeClass &) = delete;

  // rml::Status of the generated code (0 Ok), or kAbiException.
  int push(const AbiCell *inputs) { return push_(instance_, inputs); }
  // 1: the next final cycle's outputs written (kinds[k], and words[k] for a value); 0: none.
  int pop(uint8_t *kinds, void *const *words) { return pop_(instance_, kinds, words); }
  int finish() { return finish_(instance_); }
  // Every cycle popped so far had its inputs on their clocks and no error value in any cell.
  bool clean() const { return clean_(instance_) != 0; }
  int engine() const { return engine_(instance_); }  // bit 0 window class, 1 retimed, 2 tagless
  bool from_cache() const { return from_cache_; }
  const std::string &library() const { return library_; }

 private:
  void *handle_ = nullptr, *instance_ = nullptr;
  void (*delete_)(void *) = nullptr;
  int (*push_)(void *, const AbiCell *) = nullptr;
  int (*pop_)(void *, uint8_t *, void *const *) = nullptr;
  int (*finish_)(void *) = nullptr;
  int (*engine_)(void *) = nullptr;
  int (*clean_)(void *) = nullptr;
  bool from_cache_ = false;
  std::string library_;
};

// Where the shared objects are kept (b.cache_dir or the environment's default), and the
// compiler b names or the default.
std::string native_cache_dir(const NativeBuild &b);
std::string native_compiler(const NativeBuild &b);

}  // namespace rml::codegen
