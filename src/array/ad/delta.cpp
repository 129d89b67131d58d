#include "array/ad/delta.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace rml::ad {

using ir::Elem;
using ir::IrError;
using ir::Shape;
using ir::Term;
using ir::Type;

const char *kind_name(DKind k) {
  switch (k) {
    case DKind::Zero: return "Zero";
    case DKind::Input: return "Input";
    case DKind::Add: return "Add";
    case DKind::Scale: return "Scale";
    case DKind::Share: return "Share";
    case DKind::Index: return "Index";
    case DKind::SumOuter: return "SumOuter";
    case DKind::Gather: return "Gather";
    case DKind::Scatter: return "Scatter";
    case DKind::LitArray: return "LitArray";
    case DKind::Replicate: return "Replicate";
    case DKind::Transpose: return "Transpose";
    case DKind::Reshape: return "Reshape";
  }
  return "?";
}

DeltaId Tape::push(DNode n) {
  for (DeltaId k : n.kids)
    if (k < 0 || static_cast<size_t>(k) >= nodes_.size()) throw IrError("ad.delta: child " + std::to_string(k) + " not on the tape");
  nodes_.push_back(std::move(n));
  return static_cast<DeltaId>(nodes_.size() - 1);
}

// A real variable of d's shape: the IR builders applied to it check the Delta's typing
// rule and compute its shape.
Term Tape::shape_probe(DeltaId d) const { return ir::var("delta$", Type{Elem::Real, (*this)[d].shape}); }

DeltaId Tape::zero(Shape shape) {
  DNode n;
  n.kind = DKind::Zero;
  n.shape = std::move(shape);
  return push(std::move(n));
}

DeltaId Tape::input(int k, Shape shape) {
  DNode n;
  n.kind = DKind::Input;
  n.shape = std::move(shape);
  n.input = k;
  return push(std::move(n));
}

DeltaId Tape::add(DeltaId a, DeltaId b) {
  if ((*this)[a].shape != (*this)[b].shape) throw IrError("ad.delta: Add of different shapes");
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  DNode n;
  n.kind = DKind::Add;
  n.shape = (*this)[a].shape;
  n.kids = {a, b};
  return push(std::move(n));
}

DeltaId Tape::scale(Term factor, DeltaId d) {
  if (factor->type != Type{Elem::Real, (*this)[d].shape})
    throw IrError("ad.delta: Scale by " + factor->type.str() + " of a delta of shape " + Type{Elem::Real, (*this)[d].shape}.str());
  if (is_zero(d)) return d;
  DNode n;
  n.kind = DKind::Scale;
  n.shape = (*this)[d].shape;
  n.term = std::move(factor);
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::share(DeltaId d) {
  if (is_zero(d)) return d;
  DNode n;
  n.kind = DKind::Share;
  n.shape = (*this)[d].shape;
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::index(DeltaId d, std::vector<Term> ix) {
  Shape sh = ir::index(shape_probe(d), ix)->type.shape;
  if (is_zero(d)) return zero(sh);
  DNode n;
  n.kind = DKind::Index;
  n.shape = std::move(sh);
  n.ix = std::move(ix);
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::sum_outer(DeltaId d) {
  Shape sh = ir::sum_outer(shape_probe(d))->type.shape;
  if (is_zero(d)) return zero(sh);
  DNode n;
  n.kind = DKind::SumOuter;
  n.shape = std::move(sh);
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::gather(Shape sh, DeltaId d, std::vector<std::string> binders, std::vector<Term> ix) {
  ir::gather(sh, shape_probe(d), binders, ix);  // typing rule
  if (is_zero(d)) return zero(sh);
  DNode n;
  n.kind = DKind::Gather;
  n.shape = sh;
  n.arg = std::move(sh);
  n.binders = std::move(binders);
  n.ix = std::move(ix);
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::scatter(Shape sh, DeltaId d, std::vector<std::string> binders, std::vector<Term> ix) {
  ir::scatter(sh, shape_probe(d), binders, ix);
  if (is_zero(d)) return zero(sh);
  DNode n;
  n.kind = DKind::Scatter;
  n.shape = sh;
  n.arg = std::move(sh);
  n.binders = std::move(binders);
  n.ix = std::move(ix);
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::lit_array(std::vector<DeltaId> ds) {
  std::vector<Term> ph;
  for (DeltaId d : ds) ph.push_back(shape_probe(d));
  Shape sh = ir::from_list(ph)->type.shape;
  if (std::all_of(ds.begin(), ds.end(), [&](DeltaId d) { return is_zero(d); })) return zero(sh);
  DNode n;
  n.kind = DKind::LitArray;
  n.shape = std::move(sh);
  n.kids = std::move(ds);
  return push(std::move(n));
}

DeltaId Tape::replicate(int64_t k, DeltaId d) {
  Shape sh = ir::replicate(k, shape_probe(d))->type.shape;
  if (is_zero(d)) return zero(sh);
  DNode n;
  n.kind = DKind::Replicate;
  n.shape = std::move(sh);
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::transpose(Shape perm, DeltaId d) {
  Shape sh = ir::transpose(perm, shape_probe(d))->type.shape;
  if (is_zero(d)) return zero(sh);
  DNode n;
  n.kind = DKind::Transpose;
  n.shape = std::move(sh);
  n.arg = std::move(perm);
  n.kids = {d};
  return push(std::move(n));
}

DeltaId Tape::reshape(Shape sh, DeltaId d) {
  ir::reshape(sh, shape_probe(d));
  if (is_zero(d)) return zero(sh);
  DNode n;
  n.kind = DKind::Reshape;
  n.shape = std::move(sh);
  n.kids = {d};
  return push(std::move(n));
}

namespace {

void reachable(const Tape &tape, DeltaId root, std::set<DeltaId> &seen) {
  std::vector<DeltaId> stack{root};
  while (!stack.empty()) {
    DeltaId d = stack.back();
    stack.pop_back();
    if (!seen.insert(d).second) continue;
    for (DeltaId k : tape[d].kids) stack.push_back(k);
  }
}

}  // namespace

size_t delta_size(const Tape &tape, DeltaId root) {
  std::set<DeltaId> seen;
  reachable(tape, root, seen);
  return seen.size();
}

std::vector<DeltaId> shares_of(const Tape &tape, DeltaId root) {
  std::set<DeltaId> seen;
  reachable(tape, root, seen);
  std::vector<DeltaId> out;
  for (DeltaId d : seen)
    if (tape[d].kind == DKind::Share) out.push_back(d);
  return out;  // std::set iterates in increasing order
}

namespace {

struct DeltaPrinter {
  const Tape &tape;
  const std::vector<std::string> &names;
  std::map<DeltaId, size_t> share_no;
  std::ostringstream out;

  void list(const std::vector<Term> &ts) {
    out << "[";
    for (size_t q = 0; q < ts.size(); ++q) out << (q ? ", " : "") << ir::print(ts[q]);
    out << "]";
  }
  static std::string shape(const Shape &s) {
    std::string o = "[";
    for (size_t q = 0; q < s.size(); ++q) o += (q ? ", " : "") + std::to_string(s[q]);
    return o + "]";
  }
  void arg(DeltaId d) {
    DKind k = tape[d].kind;
    if (k == DKind::Zero) return go(d);
    out << "(";
    go(d);
    out << ")";
  }
  void go(DeltaId d) {
    const DNode &n = tape[d];
    switch (n.kind) {
      case DKind::Zero: out << "Zero"; return;
      case DKind::Input:
        out << "Input " << (static_cast<size_t>(n.input) < names.size() ? names[static_cast<size_t>(n.input)] : std::to_string(n.input));
        return;
      case DKind::Add:
        out << "Add ";
        arg(n.kids[0]);
        out << " ";
        arg(n.kids[1]);
        return;
      case DKind::Scale: {
        std::string f = ir::print(n.term);
        bool atomic = n.term->kind == ir::Kind::Var || (n.term->kind == ir::Kind::Const && n.term->type.shape.empty());
        out << "Scale " << (atomic ? f : "(" + f + ")") << " ";
        arg(n.kids[0]);
        return;
      }
      case DKind::Share:
        out << "Share " << share_no.at(d) << " ";
        arg(n.kids[0]);
        return;
      case DKind::Index:
        out << "Index ";
        arg(n.kids[0]);
        out << " ";
        list(n.ix);
        return;
      case DKind::SumOuter:
        out << "SumOuter ";
        arg(n.kids[0]);
        return;
      case DKind::Gather:
      case DKind::Scatter:
        out << kind_name(n.kind) << " " << shape(n.arg) << " ";
        arg(n.kids[0]);
        out << " (\\[";
        for (size_t q = 0; q < n.binders.size(); ++q) out << (q ? ", " : "") << n.binders[q];
        out << "]. ";
        list(n.ix);
        out << ")";
        return;
      case DKind::LitArray:
        out << "LitArray [";
        for (size_t q = 0; q < n.kids.size(); ++q) {
          if (q) out << ", ";
          go(n.kids[q]);
        }
        out << "]";
        return;
      case DKind::Replicate:
        out << "Replicate " << n.shape[0] << " ";
        arg(n.kids[0]);
        return;
      case DKind::Transpose: {
        out << "Transpose_{";
        for (size_t q = 0; q < n.arg.size(); ++q) out << (q ? "," : "") << n.arg[q];
        out << "} ";
        arg(n.kids[0]);
        return;
      }
      case DKind::Reshape:
        out << "Reshape " << shape(n.shape) << " ";
        arg(n.kids[0]);
        return;
    }
  }
};

}  // namespace

std::string print(const Tape &tape, DeltaId root, const std::vector<std::string> &input_names) {
  DeltaPrinter p{tape, input_names, {}, {}};
  for (DeltaId s : shares_of(tape, root)) p.share_no.emplace(s, p.share_no.size() + 1);
  p.go(root);
  return p.out.str();
}

}  // namespace rml::ad
