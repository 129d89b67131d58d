// rml_abi.cpp: a generated step class behind a C ABI, so that a host can load the class at
// run time (dlopen) without its C++ types: `rml run --native` does (native_class.hpp), and
// so can any language with a C foreign-function interface.
//
// A cell crosses as its kind (rml::Kind: 0 absent, 1 nil, 2 value, 3 unknown, 4 error) and
// its value's words: doubles for reals, int64_t for ints and bools (0 or 1), a tensor's
// elements flat, row-major. The functions (all `extern "C"`, the only symbols the shared
// object needs to export):
//   int rml_abi_version(void)              1
//   const char *rml_abi_signature(void)    the interface, as abi_signature() writes it
//   void *rml_abi_new(void)                an instance (null: out of memory)
//   void rml_abi_delete(void *)
//   int rml_abi_push(void *, const rml_abi_cell *inputs)    one cycle: rml::Status
//   int rml_abi_pop(void *, uint8_t *kinds, void *const *words)
//                                          1: the next final cycle's outputs written; 0: none
//   int rml_abi_finish(void *)             the trace ends: rml::Status
//   int rml_abi_clean(void *)              0 once a cycle popped had an input off its clock or an
//                                          error value in any cell (a window class runs on, as the
//                                          oracle does; a step class's push says InputClock or Error)
//   int rml_abi_engine(void *)             bit 0 a window class, 1 retimed so far, 2 tagless so far
// A push, pop or finish that throws (out of memory in the window runtime) returns
// kAbiException (255) instead of letting an exception cross the C boundary.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ops/scalar.hpp"

namespace rml::codegen {

inline constexpr int kAbiVersion = 1;
inline constexpr int kAbiException = 255;

// An input or output of the class as the ABI carries it.
struct AbiPort {
  std::string member;  // its C++ name in Inputs / Outputs
  ops::Scalar elem = ops::Scalar::Real;
  std::vector<int64_t> shape;  // empty: a scalar
  size_t numel() const;
};

// "i:r,i[2,3],b;o:r": the inputs' then the outputs' element types and shapes, in order. A
// host compares it with its own reading of the node before it trusts the words' layout.
std::string abi_signature(const std::vector<AbiPort> &inputs, const std::vector<AbiPort> &outputs);

// The text of rml_abi.cpp for class ns::cls (a window class when `window`).
std::string abi_source(const std::string &cls, const std::string &ns, bool window, const std::vector<AbiPort> &inputs,
                       const std::vector<AbiPort> &outputs);

}  // namespace rml::codegen
