// libFuzzer target: the JSON trace reader (rml run --inputs T.json): json_input's bounded
// SAX parser, then the per-cycle objects, for a fixed program with bool, int, real and
// tensor inputs, three on a sampled clock. Every error must carry FILE:LINE:COL (the
// locator must find every value the parser read); traces read are checked for shape and
// type and short ones run in the oracle. Any crash, sanitizer report or hang is a bug.
#include <cstddef>
#include <cstdint>

#include "trace_probe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const rml::fuzz::TraceProbe probe;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!rml::oracle::is_json_trace(text)) return 0;  // fuzz_trace_csv's
  rml::fuzz::read_and_check(probe, "t.json", text);
  return 0;
}
