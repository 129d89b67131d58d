// From global sharing to lets (array-ad.md §6.4, seed 004 Fig. 20, with the erratum
// fixed: a new share is inserted into the map returned by the recursive call).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::ad {

struct Unshared {
  std::vector<std::pair<std::string, ir::Term>> lets;  // in increasing share-ID order
  std::vector<ir::Term> terms;                         // the inputs with each share replaced by its variable
};

// unshare threaded through several terms (one share-ID namespace, e.g. the gradients of
// all inputs), then the lets of stackLets in increasing-ID order: the body of a share
// only mentions lower IDs, so each let only uses earlier ones. Null terms stay null.
// Throws ir::IrError if a share occurs under a binder (let, or an index function),
// which Fig. 20's input restriction excludes and hoisting would break.
Unshared unshare(const std::vector<ir::Term> &ts);

// shareToLet t = stackLets (unshare {} t).
ir::Term share_to_let(const ir::Term &t);

bool contains_share(const ir::Term &t);

}  // namespace rml::ad
