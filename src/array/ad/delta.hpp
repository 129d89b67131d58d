// Delta expressions of dual arrays (array-ad.md §5, seed 004 Fig. 12/16), stored on an
// append-only tape: a node's ID is its tape position, and children are always appended
// before their parent, so Invariants 1 and 2 of §2 hold by construction (IDs strictly
// decrease along child edges; one ID, one node) and the reverse pass is a sweep from
// the highest position down. Every node caches the shape of its value (shapeDelta).
//
// The payloads are IR terms so that one tape serves both the symbolic path (Scale
// holds a primal variable, index terms mention primal variables) and the runtime path
// (Scale holds a constant tensor, index terms are closed).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::ad {

using DeltaId = int32_t;

enum class DKind : uint8_t {
  Zero,
  Input,      // input number `input` of the wrapper's inputs
  Add,        // kids[0] .+ kids[1]
  Scale,      // term .* kids[0] (elementwise; term has the same shape)
  Share,      // kids[0], deferred and processed once in the reverse pass
  Index,      // index kids[0] ix
  SumOuter,   // sumOuter kids[0]
  Gather,     // gather arg kids[0] (\binders. ix)
  Scatter,    // scatter arg kids[0] (\binders. ix)
  LitArray,   // [kids...]
  Replicate,  // replicate shape[0] kids[0]
  Transpose,  // tr_arg kids[0]
  Reshape,    // reshape shape kids[0]
};
const char *kind_name(DKind k);

struct DNode {
  DKind kind = DKind::Zero;
  ir::Shape shape;                   // shape of the value
  std::vector<DeltaId> kids;
  int input = -1;                    // Input
  ir::Term term;                     // Scale: the factor (real, same shape)
  std::vector<ir::Term> ix;          // Index components; Gather/Scatter index function outputs
  std::vector<std::string> binders;  // Gather/Scatter
  ir::Shape arg;                     // Gather/Scatter: output shape; Transpose: permutation
};

// The builders check the typing rules of the corresponding IR operation (through the
// IR builders on a typed probe variable, so the two cannot disagree) and throw ir::IrError. They
// simplify around Zero (Add Zero d = d, Scale r Zero = Zero, every linear op of Zero is
// Zero, Share Zero = Zero): a constant then costs one node and no reverse work.
class Tape {
 public:
  DeltaId zero(ir::Shape shape);
  DeltaId input(int k, ir::Shape shape);
  DeltaId add(DeltaId a, DeltaId b);
  DeltaId scale(ir::Term factor, DeltaId d);
  DeltaId share(DeltaId d);
  DeltaId index(DeltaId d, std::vector<ir::Term> ix);
  DeltaId sum_outer(DeltaId d);
  DeltaId gather(ir::Shape sh, DeltaId d, std::vector<std::string> binders, std::vector<ir::Term> ix);
  DeltaId scatter(ir::Shape sh, DeltaId d, std::vector<std::string> binders, std::vector<ir::Term> ix);
  DeltaId lit_array(std::vector<DeltaId> ds);
  DeltaId replicate(int64_t k, DeltaId d);
  DeltaId transpose(ir::Shape perm, DeltaId d);
  DeltaId reshape(ir::Shape sh, DeltaId d);

  const DNode &operator[](DeltaId id) const { return nodes_.at(static_cast<size_t>(id)); }
  size_t size() const { return nodes_.size(); }
  bool is_zero(DeltaId id) const { return (*this)[id].kind == DKind::Zero; }

 private:
  DeltaId push(DNode n);
  ir::Term shape_probe(DeltaId d) const;
  std::vector<DNode> nodes_;
};

// Distinct nodes reachable from root (the paper's "Delta size").
size_t delta_size(const Tape &tape, DeltaId root);
// Share nodes reachable from root, in increasing ID order.
std::vector<DeltaId> shares_of(const Tape &tape, DeltaId root);

// The paper's notation, e.g. `Share 2 (Gather (Input a) (\[i]. [i]))`. Share IDs are
// printed renumbered 1..m in tape order among the shares reachable from root (the
// "poor man's runIdGen" of Fig. 21), inputs by name.
std::string print(const Tape &tape, DeltaId root, const std::vector<std::string> &input_names);

}  // namespace rml::ad
