// libFuzzer target: the CSV trace reader (rml run --inputs T.csv). Arbitrary bytes are a
// trace for a fixed program with bool, int, real and tensor inputs, three on a sampled
// clock; traces read are checked for shape and type and short ones run in the oracle.
// Any crash, sanitizer report, hang, unlocated error or oversized message is a bug.
#include <cstddef>
#include <cstdint>

#include "trace_probe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const rml::fuzz::TraceProbe probe;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (rml::oracle::is_json_trace(text)) return 0;  // fuzz_trace_json's
  rml::fuzz::read_and_check(probe, "t.csv", text);
  return 0;
}
