// libFuzzer target: the `rml grad --at ARGS.json` reader. Arbitrary bytes are the JSON
// arguments of a fixed fun with an int and a shape static, size and shape variables, a
// type variable, and real, int and bool tensors. Every error must carry FILE:LINE:COL;
// arguments read must have the types the reader reports and lower (or be refused by the
// lowering with a diagnostic). Any crash, sanitizer report or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "array/lower/lower.hpp"
#include "sema/frontend.hpp"
#include "driver/grad_args.hpp"
#include "trace_probe.hpp"  // located_at

namespace {
const char *const kProgram =
    "fun probe(const k: int, const s: shape, a: real[n], w: real[n, m], c: int[k], b: bool[2], t: real[*u], g: 'a) : real =\n"
    "  dot(a, a) + sum(sum(w)) + real(k) + real(rank(s)) + (if b[0] then 1.0 else 0.0) + real(c[0]) + real(rank(u));\n";

struct Probe {
  std::unique_ptr<rml::FrontendResult> fe = rml::run_frontend("probe.rml", kProgram);
  Probe() {
    if (fe->diags.has_errors()) std::abort();
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const Probe p;
  std::string text(reinterpret_cast<const char *>(data), size);
  rml::GradArgs a;
  try {
    a = rml::read_grad_args("at.json", text, p.fe->checked, "probe");
  } catch (rml::GradArgError &e) {
    if (!rml::fuzz::located_at(e.what(), "at.json")) std::abort();
    if (e.message.size() > 600) std::abort();
    return 0;
  }
  if (a.statics.size() != 2 || a.values.size() != 6 || a.types.size() != 6) std::abort();
  for (size_t k = 0; k < a.values.size(); ++k)
    if (a.types[k].elem != a.values[k].elem || a.types[k].shape != a.values[k].shape) std::abort();
  try {
    rml::lower::lower_fun(p.fe->checked, "probe", a.statics, a.types);
  } catch (rml::lower::LowerError &) {
  }
  return 0;
}
