// Random R(ML)² programs and input traces for differential testing (`rml gen`, `rml diff`,
// and downstream test suites). Reproducible: the same seed and options give the same
// text on every machine (a SplitMix64 stream, no std:: distribution whose output the
// standard leaves to the library).
//
// The programs are built so that rml-check accepts them, by construction rather than by
// luck (the caller still checks: gen/accepted.hpp):
//   - well-clocked: sampled expressions are merged back by complementary branches
//     (`merge c (e when c) (f when not c)`); nested clocks are locals on a sampled clock,
//     declared with their clock in the Lustre dialect;
//   - causal: a local reads earlier locals and inputs at the present cycle, any "past"
//     local under fby / -> pre;
//   - productive: `post` reads inputs and past locals only (so no chain returns to it),
//     and the one self-reference through `post` (backfill, the paper's Figure 16) is cut
//     by the input `c`, which the node assumes: `assume always eventually c within K`.
// See src/gen/README.md for the shapes and what is not generated yet.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rml::gen {

// The text a back end reads.
//   Rml:    the paper's syntax (`node f(x: real) -> (o: real)`, fby, post, `every`, funs);
//   Lustre: Lustre V6 / Heptagon-compatible text (`returns`, `var` with clocks,
//           `let ... tel`, `->`/`pre` for fby, `merge c (true -> a) (false -> b)`); only
//           for programs without post, resets, funs and tensors (GenOptions::for_lustre()).
//           With `lustre_types` (rml gen --dialect lustre-v6), also the Lustre V6 constructs
//           rml elaborates away: constants, an enumeration and its clocks
//           (`when Lo(m)`, `merge m (Lo -> ..) ..`), a record, arrays `T^3` with literals,
//           `e ^ 3`, static indices and the iterators (`red<<f, 3>>`, `fold<<3>> (+)`,
//           `map<<3>> (+)`), a node with a static parameter, `(restart f every c)(..)`,
//           `=>` and `#(..)`: text for back ends that read Lustre V6 or Heptagon.
enum class Dialect { Rml, Lustre };

struct GenOptions {
  int size = 6;              // locals of the main node: 1..size (besides clocked blocks' own)
  int depth = 3;             // expression depth
  int cycles = 20;           // trace length
  bool post = true;          // `post`, backfill with the assumption that cuts it
  bool arrows = true;        // `e -> pre f`
  bool clocks = true;        // merges of sampled branches, state on sampled clocks, nested clocks
  bool instances = true;     // instances of a stateful helper node (on sampled clocks too)
  bool resets = true;        // `helper(...) every c` (rml only)
  bool funs = true;          // fun applications: the prelude's (`sigmoid`, `tanh`, `dot`, `matvec`) and,
                             // with tensors, the program's own `fun`s (rml only)
  bool tensors = true;       // tensor streams `real[n]` (n = 2 or 3) in half of the programs: an input
                             // `u`, an output `o4`, locals, state, clocks and post on them, reductions
                             // into reals (rml only; needs reals)
  bool reals = true, ints = true;  // the element types besides bool
  Dialect dialect = Dialect::Rml;
  bool lustre_types = false;  // Lustre dialect only: the Lustre V6 constructs above

  // The options with what the Lustre dialect cannot say turned off.
  GenOptions for_lustre() const;
};

// Vec: a real tensor of one dimension (its length is the program's, 2 or 3).
enum class Ty { Real, Int, Bool, Vec };
const char *type_name(Ty t);                // "real", "int", "bool", "vec" (a name, not a type's text)
std::string type_text(Ty t, int length);    // a declaration's type: "real", ..., "real[3]" for Vec

struct InputDecl {
  std::string name;
  Ty type;
  int length = 0;  // Vec: the tensor's length; 0 for scalars
};

struct GeneratedProgram {
  std::string text;              // the whole file, a header comment first
  std::string main = "main";
  std::vector<InputDecl> inputs;
  std::vector<std::string> outputs;
  int within = -1;               // the assumption's bound on `c`, -1 when there is none
  // The hard shapes the draw holds ("backfill", "tensor post", "nested clock", ...), sorted:
  // for tests that must show their generator reaches them, and for their tags.
  std::vector<std::string> shapes;
};

// The program drawn from `seed`. Two calls with the same arguments return the same text.
GeneratedProgram generate_program(uint64_t seed, const GenOptions &o);

// An input trace for `p` as CSV (header of input names, one row per cycle): reals are
// multiples of 1/4 in [-8, 8] (exact in binary), ints in [-20, 20], bools, tensors
// `"[r, r]"` of such reals; `c` holds at least once in every `within + 1` cycles when the
// program assumes it.
std::string generate_trace(const GeneratedProgram &p, uint64_t seed, int cycles);

// SplitMix64 (Steele, Lea, Flood 2014): the generator's only source of randomness.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next();
  int range(int lo, int hi);  // uniform in [lo, hi] (hi - lo < 2^31)
  bool coin(int percent_true = 50);

 private:
  uint64_t s_;
};

// The seed of the k-th program of a run started with `seed` (rml gen --count, rml diff).
uint64_t program_seed(uint64_t seed, uint64_t k);

}  // namespace rml::gen
