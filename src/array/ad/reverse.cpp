#include "array/ad/reverse.hpp"

#include "array/ad/linear_ops.hpp"

namespace rml::ad {

namespace {

using detail::inverse_permutation;

template <class Ops>
class Reverse {
 public:
  using V = typename Ops::V;

  Reverse(const Tape &tape, Ops &ops, size_t n_inputs, ReverseStats *stats)
      : tape_(tape), ops_(ops), accum_(tape.size()), grad_(n_inputs), stats_(stats) {
    if (stats_) stats_->share_visits.assign(tape.size(), 0);
  }

  std::vector<std::optional<V>> run(DeltaId root, V ctg) {
    eval(std::move(ctg), root);
    // backprop: highest ID first; every parent of a Share has a higher ID, so all its
    // contributions are in accum when it is reached.
    for (size_t d = tape_.size(); d-- > 0;) {
      if (!accum_[d]) continue;
      V c = std::move(*accum_[d]);
      accum_[d].reset();
      if (stats_) {
        ++stats_->shares_processed;
        ++stats_->share_visits[d];
      }
      eval(std::move(c), tape_[static_cast<DeltaId>(d)].kids[0]);
    }
    return std::move(grad_);
  }

 private:
  // insertWith (+): the new contribution goes on the left.
  void accumulate(std::optional<V> &slot, V c) { slot = slot ? ops_.add(std::move(c), std::move(*slot)) : std::move(c); }

  const ir::Shape &shape(DeltaId d) const { return tape_[d].shape; }

  void eval(V c, DeltaId d) {
    if (stats_) ++stats_->visits;
    const DNode &n = tape_[d];
    switch (n.kind) {
      case DKind::Zero: return;
      case DKind::Input: return accumulate(grad_.at(static_cast<size_t>(n.input)), std::move(c));
      case DKind::Add: {
        V cs = share(std::move(c));
        eval(cs, n.kids[0]);
        eval(std::move(cs), n.kids[1]);
        return;
      }
      case DKind::Scale: return eval(ops_.mul(n.term, std::move(c)), n.kids[0]);
      case DKind::Share: return accumulate(accum_[static_cast<size_t>(d)], std::move(c));
      case DKind::Index: return eval(ops_.one_hot(shape(n.kids[0]), n.ix, std::move(c)), n.kids[0]);
      case DKind::SumOuter: return eval(ops_.replicate(shape(n.kids[0])[0], std::move(c)), n.kids[0]);
      case DKind::Gather: return eval(ops_.scatter(shape(n.kids[0]), std::move(c), n.binders, n.ix), n.kids[0]);
      case DKind::Scatter: return eval(ops_.gather(shape(n.kids[0]), std::move(c), n.binders, n.ix), n.kids[0]);
      case DKind::LitArray: {
        V cs = share(std::move(c));
        for (size_t j = 0; j < n.kids.size(); ++j)
          eval(ops_.index(cs, {ir::int_scalar(static_cast<int64_t>(j))}), n.kids[j]);
        return;
      }
      case DKind::Replicate: return eval(ops_.sum_outer(std::move(c)), n.kids[0]);
      case DKind::Transpose: return eval(ops_.transpose(inverse_permutation(n.arg), std::move(c)), n.kids[0]);
      case DKind::Reshape: return eval(ops_.reshape(shape(n.kids[0]), std::move(c)), n.kids[0]);
    }
  }

  V share(V c) {
    if (stats_) ++stats_->cotangent_shares;
    return ops_.share(std::move(c));
  }

  const Tape &tape_;
  Ops &ops_;
  std::vector<std::optional<V>> accum_;
  std::vector<std::optional<V>> grad_;
  ReverseStats *stats_;
};

// eval0 with one tangent per Share node, computed in increasing tape order so that the
// recursion only walks the (small) unshared structure between Shares.
template <class Ops>
class Forward {
 public:
  using V = typename Ops::V;

  Forward(const Tape &tape, Ops &ops, const std::vector<V> &inputs) : tape_(tape), ops_(ops), inputs_(inputs), memo_(tape.size()) {}

  V run(DeltaId root) {
    std::vector<bool> live(tape_.size(), false);
    live[static_cast<size_t>(root)] = true;
    for (size_t d = tape_.size(); d-- > 0;)
      if (live[d])
        for (DeltaId k : tape_[static_cast<DeltaId>(d)].kids) live[static_cast<size_t>(k)] = true;
    for (size_t d = 0; d < tape_.size(); ++d)
      if (live[d] && tape_[static_cast<DeltaId>(d)].kind == DKind::Share)
        memo_[d] = ops_.share(go(tape_[static_cast<DeltaId>(d)].kids[0]));
    return go(root);
  }

 private:
  V go(DeltaId d) {
    const DNode &n = tape_[d];
    switch (n.kind) {
      case DKind::Zero: return ops_.zeros(n.shape);
      case DKind::Input: return inputs_.at(static_cast<size_t>(n.input));
      case DKind::Add: return ops_.add(go(n.kids[0]), go(n.kids[1]));
      case DKind::Scale: return ops_.mul(n.term, go(n.kids[0]));
      case DKind::Share: return *memo_[static_cast<size_t>(d)];
      case DKind::Index: return ops_.index(go(n.kids[0]), n.ix);
      case DKind::SumOuter: return ops_.sum_outer(go(n.kids[0]));
      case DKind::Gather: return ops_.gather(n.arg, go(n.kids[0]), n.binders, n.ix);
      case DKind::Scatter: return ops_.scatter(n.arg, go(n.kids[0]), n.binders, n.ix);
      case DKind::LitArray: {
        std::vector<V> vs;
        for (DeltaId k : n.kids) vs.push_back(go(k));
        return ops_.from_list(std::move(vs));
      }
      case DKind::Replicate: return ops_.replicate(n.shape[0], go(n.kids[0]));
      case DKind::Transpose: return ops_.transpose(n.arg, go(n.kids[0]));
      case DKind::Reshape: return ops_.reshape(n.shape, go(n.kids[0]));
    }
    throw ir::IrError("ad.forward: unknown Delta kind");
  }

  const Tape &tape_;
  Ops &ops_;
  const std::vector<V> &inputs_;
  std::vector<std::optional<V>> memo_;
};

void check_root(const Tape &tape, DeltaId root) {
  if (root < 0 || static_cast<size_t>(root) >= tape.size()) throw ir::IrError("ad: root " + std::to_string(root) + " not on the tape");
}

}  // namespace

std::vector<ir::Term> reverse_pass(const Tape &tape, DeltaId root, const ir::Term &ctg, size_t n_inputs, ReverseStats *stats) {
  check_root(tape, root);
  if (ctg->type != ir::Type{ir::Elem::Real, tape[root].shape}) throw ir::IrError("ad.reverse: cotangent of type " + ctg->type.str());
  detail::TermOps ops;
  auto g = Reverse<detail::TermOps>(tape, ops, n_inputs, stats).run(root, ctg);
  std::vector<ir::Term> out;
  for (auto &t : g) out.push_back(t ? *t : nullptr);
  return out;
}

std::vector<std::optional<ir::Tensor>> reverse_pass_at(const Tape &tape, DeltaId root, const ir::Tensor &ctg, size_t n_inputs,
                                                       const ir::Bindings &env, ReverseStats *stats) {
  check_root(tape, root);
  if (ctg.elem != ir::Elem::Real || ctg.shape != tape[root].shape) throw ir::IrError("ad.reverse: cotangent of the wrong type");
  detail::TensorOps ops{&env};
  return Reverse<detail::TensorOps>(tape, ops, n_inputs, stats).run(root, ctg);
}

ir::Term forward_pass(const Tape &tape, DeltaId root, const std::vector<ir::Term> &input_tangents) {
  check_root(tape, root);
  detail::TermOps ops;
  return Forward<detail::TermOps>(tape, ops, input_tangents).run(root);
}

ir::Tensor forward_pass_at(const Tape &tape, DeltaId root, const std::vector<ir::Tensor> &input_tangents, const ir::Bindings &env) {
  check_root(tape, root);
  detail::TensorOps ops{&env};
  return Forward<detail::TensorOps>(tape, ops, input_tangents).run(root);
}

}  // namespace rml::ad
