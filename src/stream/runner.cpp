// The stream runner (runner.hpp): a ring of frames, the rules of semantics.md §3-§4 on it
// (one function each, as the oracle's rules.cpp, reading state from the per-step memories
// instead of scanning the past), the sweep of a cycle in schedule order, the worklist
// inside the window, and the frames leaving it.
#include "stream/runner.hpp"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "array/elementwise.hpp"
#include "array/eval.hpp"
#include "ops/scalar_ops.hpp"
#include "stream/window_runner.hpp"

namespace rml::stream {

using oracle::Cell;
using oracle::Tag;

void keep_tensor_blocks_in_heap() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest on 64 bits
  mallopt(M_TRIM_THRESHOLD, 64 << 20);  // give the heap's top back only past 64 MiB free
}

Tag FrameView::tag(int slot) const { return static_cast<Tag>(tags_[slot]); }

Cell FrameView::cell(int slot) const {
  Cell c;
  c.tag = tag(slot);
  if (c.tag != Tag::Val) return c;
  const Slot &s = plan_->slots[static_cast<size_t>(slot)];
  if (window_) {  // the window runtime's front frame: a scalar's words or a tensor's block
    const void *p = window_->value(slot);
    c.value.elem = s.elem, c.value.shape = s.shape;
    if (s.elem == Scalar::Real) c.value.r.assign(static_cast<const double *>(p), static_cast<const double *>(p) + s.numel);
    else c.value.i.assign(static_cast<const int64_t *>(p), static_cast<const int64_t *>(p) + s.numel);
    return c;
  }
  if (int b = block_of_[slot]; b >= 0) {
    c.value = *blocks_[b];
    c.value.elem = s.elem, c.value.shape = s.shape;  // the slot's type, as for a payload of words
    return c;
  }
  c.value.elem = s.elem;
  c.value.shape = s.shape;
  if (s.elem == Scalar::Real) c.value.r.assign(reals_ + s.offset, reals_ + s.offset + s.numel);
  else c.value.i.assign(ints_ + s.offset, ints_ + s.offset + s.numel);
  return c;
}

// Named, not anonymous: Runner::Impl holds these (an anonymous type in a member of a class
// with linkage is -Wsubobject-linkage once the file is part of a unity build).
namespace runner_detail {

// A rule's result: a tag, its payload (where it is: a cell of the ring, a memory, or the
// result's own storage; never copied before commit), and, for a ‖ produced here, the rule
// and why.
// A tensor's payload is a block shared by every cell holding that value (`when`, `merge`,
// `fby`, `pre`, `post` and copies pass the block on instead of copying the tensor): `block`.
struct Out {
  Tag tag = Tag::Bot;
  const double *rp = nullptr;  // the payload of a real result
  const int64_t *ip = nullptr;  // of an int or bool result
  size_t count = 0;             // its elements
  double r1 = 0;                // a scalar computed here
  int64_t i1 = 0;
  std::vector<double> r;        // a one-element tensor computed here
  std::vector<int64_t> i;
  std::shared_ptr<const array::Tensor> block;  // a larger tensor's value: another cell's, a memory's, or computed here
  const char *rule = nullptr;
  std::string why;
  size_t origin = SIZE_MAX;  // the cycle of the cell whose rule produces this ‖, when another one's
  void set(Tag t) { tag = t, rule = nullptr, block.reset(); }
  void error(const char *rl, std::string w) { tag = Tag::Err, rule = rl, why = std::move(w), origin = SIZE_MAX; }
  // An operand absent at another tick m of this stream's clock: cell m is ‖ by rule rl and
  // is the origin (said here too, as the oracle does: cell m may see its operand already ‖).
  void error_at(size_t m, const char *rl, std::string w) { error(rl, std::move(w)), origin = m; }
  void propagate_error() { set(Tag::Err); }
  void real(double v) { set(Tag::Val), r1 = v, rp = &r1, count = 1; }
  void integer(int64_t v) { set(Tag::Val), i1 = v, ip = &i1, count = 1; }
  void boolean(bool b) { integer(b ? 1 : 0); }
  void value(array::Tensor t) {
    set(Tag::Val);
    if (std::max(t.r.size(), t.i.size()) > 1) return shared(std::make_shared<const array::Tensor>(std::move(t)));
    if (t.elem == Scalar::Real) r = std::move(t.r), rp = r.data(), count = r.size();
    else i = std::move(t.i), ip = i.data(), count = i.size();
  }
  void shared(std::shared_ptr<const array::Tensor> b) {
    block = std::move(b);
    rp = block->r.data(), ip = block->i.data(), count = std::max(block->r.size(), block->i.size());
  }
  void view(const array::Tensor &t) {  // a constant, kept by the runner
    set(Tag::Val);
    rp = t.r.data(), ip = t.i.data(), count = std::max(t.r.size(), t.i.size());
  }
};

// The value of a step's operand at its previous tick, once that frame has left the window.
struct Memory {
  bool has = false;
  Tag first = Tag::Bot;   // fby: i, ->: a, pre: the clock
  Tag second = Tag::Bot;  // fby: e, pre: x
  std::vector<double> r;
  std::vector<int64_t> i;
  std::shared_ptr<const array::Tensor> block;  // or a tensor's block
};

// Where a previous tick is: none, in the window (at `cycle`), or in the step's memory.
struct Prev {
  enum Where { None, Window, Remembered } where = None;
  size_t cycle = 0;
};

}  // namespace runner_detail
using namespace runner_detail;

// An application on its operands' values (window_runner.hpp).
array::Tensor apply_application(const CheckedProgram &cp, array::Evaluator &eval, const Options &opts, const core::Equation &eq,
                                const std::vector<array::Tensor> &args) {
  switch (eq.op) {
    case core::ApplyOp::Unary: return array::Evaluator::unary(eq.un, args.at(0));
    case core::ApplyOp::Binary: return array::Evaluator::binary(eq.bin, args.at(0), args.at(1));
    case core::ApplyOp::If: return args.at(0).i.at(0) ? args.at(1) : args.at(2);
    case core::ApplyOp::Index: return array::Evaluator::index(args);
    case core::ApplyOp::Array: return array::Evaluator::array_literal(args);
    case core::ApplyOp::Call: {
      const Decl *d = (opts.apply_fun || opts.fun_executable) && !eq.builtin ? cp.find(eq.fn) : nullptr;
      const bool fun = d && std::holds_alternative<FunDecl>(*d);
      if (fun && opts.fun_executable) {  // an application without operands (glorot_uniform(s)), computed once
        std::vector<ir::Type> types;
        for (auto &a : args) types.push_back(ir::Type{a.elem, a.shape});
        if (exec::Executable *exe = opts.fun_executable(eq.fn, eq.static_args, types)) return exe->run(args).at(0);
      }
      if (fun && opts.apply_fun) return opts.apply_fun(eq.fn, eq.static_args, args);
      return eq.builtin ? eval.builtin_call(eq.fn, eq.static_args, args) : eval.apply(eq.fn, eq.static_args, args);
    }
    case core::ApplyOp::Imported:
      throw StreamError("'" + eq.fn + "' is imported: the stream path cannot compute it (it has no body)");
  }
  throw StreamError("internal: unknown operator of '" + eq.lhs + "'");
}

struct Runner::Impl {
  const CheckedProgram &cp;
  const Plan &plan;
  Options opts;
  Emit emit;
  array::Evaluator eval;
  size_t S, RW, IW, K;  // slots, real and int words per frame, steps
  std::vector<int> comp_of;
  // Per slot: every reader of a change at the swept cycle runs later in the sweep anyway
  // (none reads it backwards): changed() has nothing to queue then.
  std::vector<uint8_t> quiet_in_sweep;
  std::vector<int> stateful;  // the steps with a memory (fby, ->, pre, post)
  std::vector<std::shared_ptr<const array::Tensor>> constants;  // per step: a literal's or operand-less application's value
  std::vector<const array::Tensor *> zero_blocks;  // the tensor constants whose elements are all +0.0 (`zeros(shape)`)
  std::vector<Memory> memory;  // per step
  // The ring: frames of cycles [front, back), cycle n at index n & (cap - 1).
  size_t cap = 0, front = 0, back = 0, widest = 0;
  std::vector<uint8_t> tags, queued;
  std::vector<double> reals;
  std::vector<int64_t> ints;
  std::vector<uint32_t> bots;  // ⊥ cells per frame
  // Tensor slots (more than one element) hold their value as a block: per slot its index
  // among a frame's blocks (or -1), and per frame B blocks.
  std::vector<int> block_of;
  size_t B = 0;
  std::vector<std::shared_ptr<const array::Tensor>> blocks;
  // The worklist: a vector emptied when drained, so that once warm a cycle allocates
  // nothing for it (a std::deque allocates a chunk about once a cycle).
  std::vector<std::pair<int, size_t>> fifo;
  size_t sweeping = SIZE_MAX;  // the component being swept (of cycle back - 1), or none
  uint64_t evaluations = 0;
  std::vector<oracle::ErrorOrigin> origins;
  std::set<std::pair<int, size_t>> origin_seen;
  std::vector<std::string> clock_violations;  // per input, its first violation or ""

  Out out;
  bool finished = false;
  // Options::fun_executable: per step, whether it was asked and its answer; the operands'
  // and result's pointers; the result blocks by element type and size, each reused once
  // only the pool holds it (round robin: frames leave in order).
  std::vector<std::pair<bool, exec::Executable *>> executables;
  array::Tensor scratch0, scratch1;  // one-element operands of tensor operators
  std::vector<array::Tensor> part_scratch;  // one-element parts of array literals
  std::vector<const array::Tensor *> parts;
  std::vector<int64_t> index_at;
  array::Tensor scalar_result;  // a one-element index's, its storage kept
  std::vector<const void *> raw_args;
  std::vector<void *> raw_outs;
  struct Pool {
    std::vector<std::shared_ptr<array::Tensor>> blocks;
    std::unordered_map<const array::Tensor *, size_t> index;  // a block's place in `blocks`
    std::vector<size_t> released;  // blocks a leaving frame let go of last, most recent last
    size_t next = 0;
  };
  std::map<std::pair<Scalar, size_t>, Pool> spare;
  static constexpr size_t kSpareLook = 16;  // blocks of a pool looked at before a new one is made
  std::vector<Pool *> block_pool;  // per block index of a frame: the pool of its slot's type

  Impl(const CheckedProgram &c, const Plan &p, Options o, Emit e)
      : cp(c), plan(p), opts(std::move(o)), emit(std::move(e)), eval(c), S(p.slots.size()), RW(p.real_words),
        IW(p.int_words), K(p.steps.size()) {
    comp_of.assign(K, 0);
    for (size_t ci = 0; ci < plan.schedule.size(); ++ci)
      for (int k : plan.schedule[ci]) comp_of[static_cast<size_t>(k)] = static_cast<int>(ci);
    quiet_in_sweep.assign(S, 1);
    for (size_t k = 0; k < K; ++k) {
      const Step &st = plan.steps[k];
      for (const Reader &r : plan.readers[static_cast<size_t>(st.out)])
        if (r.travel == Travel::Backward || comp_of[static_cast<size_t>(r.step)] <= comp_of[k]) quiet_in_sweep[static_cast<size_t>(st.out)] = 0;
      if (st.kind == StepKind::Fby || st.kind == StepKind::Arrow || st.kind == StepKind::Pre || st.kind == StepKind::Post)
        stateful.push_back(static_cast<int>(k));
    }
    constants.resize(K);  // (a tensor one is a block every cycle's cell shares: `zeros(shape)` is not copied)
    for (size_t k = 0; k < K; ++k) {
      const Step &st = plan.steps[k];
      if (st.kind == StepKind::Const) constants[k] = std::make_shared<const array::Tensor>(literal(st.eq->lit));
      if (st.kind == StepKind::Apply && st.in.empty()) constants[k] = std::make_shared<const array::Tensor>(apply(*st.eq, {}));
      const array::Tensor *value = constants[k].get();
      if (value && value->elem == Scalar::Real && !value->shape.empty() &&
          std::all_of(value->r.begin(), value->r.end(), [](double v) { return v == 0.0 && !std::signbit(v); }))
        zero_blocks.push_back(value);
    }
    memory.resize(K);
    executables.assign(K, {false, nullptr});
    clock_violations.assign(plan.input_slots.size(), "");
    block_of.assign(S, -1);
    for (size_t sl = 0; sl < S; ++sl)
      if (plan.slots[sl].numel > 1) block_of[sl] = static_cast<int>(B++), block_pool.push_back(&spare[{plan.slots[sl].elem, plan.slots[sl].numel}]);
    resize(8);
  }

  static array::Tensor literal(const core::Literal &l) {
    switch (l.type) {
      case Scalar::Int: return array::Tensor::integer(l.i);
      case Scalar::Real: return array::Tensor::real(l.r);
      case Scalar::Bool: return array::Tensor::boolean(l.b);
    }
    return {};
  }

  // ------------------------------------------------------------ the ring
  size_t at(size_t n) const { return n & (cap - 1); }
  void resize(size_t new_cap) {
    std::vector<uint8_t> t(new_cap * S), q(new_cap * K);
    std::vector<double> r(new_cap * RW);
    std::vector<int64_t> i(new_cap * IW);
    std::vector<uint32_t> b(new_cap);
    std::vector<std::shared_ptr<const array::Tensor>> bl(new_cap * B);
    for (size_t n = front; n < back; ++n) {
      size_t from = at(n), to = n & (new_cap - 1);
      std::copy_n(&tags[from * S], S, &t[to * S]);
      std::copy_n(&queued[from * K], K, &q[to * K]);
      std::copy_n(reals.data() + from * RW, RW, r.data() + to * RW);
      std::copy_n(ints.data() + from * IW, IW, i.data() + to * IW);
      for (size_t k = 0; k < B; ++k) bl[to * B + k] = std::move(blocks[from * B + k]);
      b[to] = bots[from];
    }
    tags.swap(t), queued.swap(q), reals.swap(r), ints.swap(i), bots.swap(b), blocks.swap(bl);
    cap = new_cap;
  }
  Tag tag(int c, size_t n) const { return n < back ? static_cast<Tag>(tags[at(n) * S + static_cast<size_t>(c)]) : Tag::Bot; }
  bool present(int c, size_t n) const { Tag t = tag(c, n); return t == Tag::Val || t == Tag::Nil; }
  int64_t ival(int c, size_t n) const { return ints[at(n) * IW + plan.slots[static_cast<size_t>(c)].offset]; }
  bool bval(int c, size_t n) const { return ival(c, n) != 0; }
  double rval(int c, size_t n) const { return reals[at(n) * RW + plan.slots[static_cast<size_t>(c)].offset]; }
  const std::string &name(int c) const { return plan.slots[static_cast<size_t>(c)].name; }
  // A scan passes over absent cells: □ for data, ff for clocks.
  bool skip(int c, size_t n) const {
    if (plan.slots[static_cast<size_t>(c)].clock) return tag(c, n) == Tag::Val && !bval(c, n);
    return tag(c, n) == Tag::Abs;
  }
  std::shared_ptr<const array::Tensor> &block(int c, size_t n) { return blocks[at(n) * B + static_cast<size_t>(block_of[static_cast<size_t>(c)])]; }
  const std::shared_ptr<const array::Tensor> &block(int c, size_t n) const {
    return blocks[at(n) * B + static_cast<size_t>(block_of[static_cast<size_t>(c)])];
  }
  void copy(int c, size_t n, Out &o) const {
    const Slot &s = plan.slots[static_cast<size_t>(c)];
    o.set(tag(c, n));
    if (block_of[static_cast<size_t>(c)] >= 0) {
      if (o.tag == Tag::Val) o.shared(block(c, n));
      return;
    }
    o.count = s.numel;
    if (s.elem == Scalar::Real) o.rp = reals.data() + at(n) * RW + s.offset;
    else o.ip = ints.data() + at(n) * IW + s.offset;
  }
  array::Tensor tensor(int c, size_t n) const {
    if (block_of[static_cast<size_t>(c)] >= 0) return *block(c, n);
    array::Tensor t;
    load(c, n, t);
    return t;
  }
  // The value of slot c at cycle n, held in its block, or else its frame words loaded into
  // `tmp` (whose storage is kept: no allocation once it has the size).
  const array::Tensor &operand(int c, size_t n, array::Tensor &tmp) const {
    if (block_of[static_cast<size_t>(c)] >= 0) return *block(c, n);
    load(c, n, tmp);
    return tmp;
  }
  void load(int c, size_t n, array::Tensor &t) const {
    const Slot &s = plan.slots[static_cast<size_t>(c)];
    t.elem = s.elem, t.shape = s.shape;
    if (s.elem == Scalar::Real) t.r.assign(&reals[at(n) * RW + s.offset], &reals[at(n) * RW + s.offset] + s.numel), t.i.clear();
    else t.i.assign(&ints[at(n) * IW + s.offset], &ints[at(n) * IW + s.offset] + s.numel), t.r.clear();
  }

  // The previous tick of the step's `ticks` slot before cycle n.
  Prev prev(int k, size_t n) const {
    int c = plan.steps[static_cast<size_t>(k)].ticks;
    for (size_t m = n; m-- > front;)
      if (!skip(c, m)) return {Prev::Window, m};
    return memory[static_cast<size_t>(k)].has ? Prev{Prev::Remembered, 0} : Prev{};
  }

  // ------------------------------------------------------------ the rules
  // §3 base clock: tt if some input is present, ff if all are absent, ⊥ otherwise.
  void rule_clock_base(const Step &st, size_t n, Out &o) {
    if (st.in.empty()) return o.boolean(true);
    bool all_abs = true, any_err = false;
    for (int c : st.in) {
      if (present(c, n)) return o.boolean(true);
      all_abs &= tag(c, n) == Tag::Abs;
      any_err |= tag(c, n) == Tag::Err;
    }
    if (all_abs) return o.boolean(false);
    if (any_err) return o.propagate_error();
    o.set(Tag::Bot);
  }
  // §3 κ on^b x.
  void rule_clock_on(const Step &st, size_t n, Out &o) {
    int k = st.in[0], x = st.in[1];
    Tag kt = tag(k, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!bval(k, n)) return o.boolean(false);
    Tag xt = tag(x, n);
    if (xt == Tag::Bot) return o.set(Tag::Bot);
    if (xt == Tag::Val && plan.slots[static_cast<size_t>(x)].elem == Scalar::Bool) return o.boolean(bval(x, n) == st.positive);
    if (xt == Tag::Err) return o.propagate_error();
    o.error("clock", "the clock's condition '" + name(x) + "' is " + (xt == Tag::Abs ? "absent" : "not a bool") +
                         " where its parent clock ticks");
  }
  void rule_clock_never(const Step &st, size_t n, Out &o) {
    Tag bt = tag(st.in[0], n);
    if (bt == Tag::Val) return o.boolean(false);
    if (bt == Tag::Err) return o.propagate_error();
    o.set(Tag::Bot);
  }
  // §4.1 a constant where its clock ticks.
  void rule_const(int k, const Step &st, size_t n, Out &o) {
    Tag kt = tag(st.clock, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!bval(st.clock, n)) return o.set(Tag::Abs);
    const auto &c = constants[static_cast<size_t>(k)];
    if (block_of[static_cast<size_t>(st.out)] >= 0) return o.set(Tag::Val), o.shared(c);
    o.view(*c);
  }
  // §4.3 pointwise application: ⊥ first, then all-□, then all present.
  void rule_apply(int k, const Step &st, size_t n, Out &o) {
    if (st.in.empty()) return rule_const(k, st, n, o);
    bool all_abs = true, all_present = true, any_err = false, any_nil = false;
    for (int c : st.in) {
      Tag t = tag(c, n);
      if (t == Tag::Bot) return o.set(Tag::Bot);
      all_abs &= t == Tag::Abs;
      all_present &= t == Tag::Val || t == Tag::Nil;
      any_err |= t == Tag::Err;
      any_nil |= t == Tag::Nil;
    }
    if (all_abs) return o.set(Tag::Abs);
    if (!all_present) {
      if (any_err) return o.propagate_error();
      return o.error("op", "the operands of '" + core::apply_name(*st.eq) + "' are not all present or all absent");
    }
    if (any_nil) return o.set(Tag::Nil);
    if (st.scalar != ScalarOp::None) return scalar_apply(st, n, o);
    // Operands that are tensors are read in their blocks, not copied; a one-element one is
    // loaded into the runner's scratch tensors (their storage kept across cycles).
    const bool into_block = block_of[static_cast<size_t>(st.out)] >= 0;  // the result: a block reused from the pool
    switch (st.eq->op) {
      case core::ApplyOp::Unary: {
        const array::Tensor &a = operand(st.in[0], n, scratch0);
        if (!into_block) return o.value(array::Evaluator::unary(st.eq->un, a));
        std::shared_ptr<array::Tensor> b = spare_block(plan.slots[static_cast<size_t>(st.out)]);
        array::elementwise_unary_into(st.eq->un, a, *b);
        return o.set(Tag::Val), o.shared(std::move(b));
      }
      case core::ApplyOp::Binary: {
        if (st.eq->bin == ops::BinOp::Add && into_block)  // x + zeros: x's block, where that is what the addition gives
          if (const std::shared_ptr<const array::Tensor> *x = sum_with_zeros(st, n)) return o.set(Tag::Val), o.shared(*x);
        const array::Tensor &a = operand(st.in[0], n, scratch0), &b = operand(st.in[1], n, scratch1);
        if (!into_block) return o.value(array::Evaluator::binary(st.eq->bin, a, b));
        std::shared_ptr<array::Tensor> r = spare_block(plan.slots[static_cast<size_t>(st.out)]);
        array::elementwise_binary_into(st.eq->bin, a, b, *r);
        return o.set(Tag::Val), o.shared(std::move(r));
      }
      case core::ApplyOp::If:  // the chosen operand's value, shared
        if (block_of[static_cast<size_t>(st.in[0])] < 0) return copy(bval(st.in[0], n) ? st.in[1] : st.in[2], n, o);
        break;
      default: break;
    }
    if (exec::Executable *exe = fun_executable(k, st)) return run_executable(*exe, st, n, o);
    if (in_place(st, n, o, into_block)) return;
    std::vector<array::Tensor> args;
    args.reserve(st.in.size());
    for (int c : st.in) args.push_back(tensor(c, n));
    o.value(apply(*st.eq, args));
  }
  // x + z with z a tensor constant of +0.0 and x a real block of the same shape holding no
  // -0.0 (which + 0.0 makes +0.0) and no NaN: x + z is x, bit for bit, so the result is x's
  // block (Figure 20's `o + merge bp dp zeros(shape)` adds zeros but at a sequence's start;
  // rml compile's window runtime does the same, Step::add). Else null: computed.
  const std::shared_ptr<const array::Tensor> *sum_with_zeros(const Step &st, size_t n) {
    const Slot &r = plan.slots[static_cast<size_t>(st.out)];
    if (r.elem != Scalar::Real) return nullptr;
    for (int c : st.in)
      if (block_of[static_cast<size_t>(c)] < 0 || plan.slots[static_cast<size_t>(c)].shape != r.shape) return nullptr;
    const auto &a = block(st.in[0], n), &b = block(st.in[1], n);
    auto zero = [&](const std::shared_ptr<const array::Tensor> &t) {
      return t && std::find(zero_blocks.begin(), zero_blocks.end(), t.get()) != zero_blocks.end();
    };
    auto clean = [](const std::shared_ptr<const array::Tensor> &t) {
      uint64_t bad = 0;
      for (double v : t->r) {
        uint64_t w;
        std::memcpy(&w, &v, 8);
        bad |= static_cast<uint64_t>(w == 0x8000000000000000ull) | static_cast<uint64_t>((w & 0x7fffffffffffffffull) > 0x7ff0000000000000ull);
      }
      return bad == 0;
    };
    if (zero(b) && a && clean(a)) return &a;
    if (zero(a) && b && clean(b)) return &b;
    return nullptr;
  }
  // Indexing, array literals, `tr` and `reshape`: into a block from the pool, or for an
  // index with one element into Out's own words (the evaluator's functions, operands where
  // they are); false for the others (the evaluator, on copies of the operands).
  bool in_place(const Step &st, size_t n, Out &o, bool into_block) {
    const Slot &r = plan.slots[static_cast<size_t>(st.out)];
    const core::Equation &eq = *st.eq;
    const bool index = eq.op == core::ApplyOp::Index, array = eq.op == core::ApplyOp::Array;
    const bool call1 = eq.op == core::ApplyOp::Call && eq.builtin && st.in.size() == 1;
    const bool tr = call1 && eq.fn == "tr" && plan.slots[static_cast<size_t>(st.in[0])].shape.size() == 2;
    const bool reshape = call1 && eq.fn == "reshape";
    if (!(index || (into_block && (array || tr || reshape)))) return false;
    std::shared_ptr<array::Tensor> b;
    array::Tensor *dst = &scalar_result;
    if (into_block) {
      b = spare_block(r);
      dst = b.get();
    } else {
      scalar_result.elem = r.elem, scalar_result.shape = r.shape;
      scalar_result.r.resize(r.elem == Scalar::Real ? r.numel : 0), scalar_result.i.resize(r.elem == Scalar::Real ? 0 : r.numel);
    }
    if (index) {
      index_at.clear();
      for (size_t q = 1; q < st.in.size(); ++q) index_at.push_back(ival(st.in[q], n));
      array::Evaluator::index_into(operand(st.in[0], n, scratch0), index_at.data(), index_at.size(), *dst);
    } else if (array) {
      if (part_scratch.size() < st.in.size()) part_scratch.resize(st.in.size());
      parts.clear();
      for (size_t q = 0; q < st.in.size(); ++q) parts.push_back(&operand(st.in[q], n, part_scratch[q]));
      array::Evaluator::stack_into(parts, *dst);
    } else if (tr) {
      array::Evaluator::transpose_into(operand(st.in[0], n, scratch0), *dst);
    } else {  // reshape: the same elements in the same order
      const array::Tensor &a = operand(st.in[0], n, scratch0);
      if (r.elem == Scalar::Real) std::copy(a.r.begin(), a.r.end(), dst->r.begin());
      else std::copy(a.i.begin(), a.i.end(), dst->i.begin());
    }
    o.set(Tag::Val);
    if (b) return o.shared(std::move(b)), true;
    if (r.elem == Scalar::Real) o.r.assign(scalar_result.r.begin(), scalar_result.r.end()), o.rp = o.r.data();
    else o.i.assign(scalar_result.i.begin(), scalar_result.i.end()), o.ip = o.i.data();
    o.count = r.numel;
    return true;
  }
  // The step's fun as an executable (Options::fun_executable), asked at its first run; or null.
  exec::Executable *fun_executable(int k, const Step &st) {
    if (!opts.fun_executable || st.eq->op != core::ApplyOp::Call || st.eq->builtin) return nullptr;
    auto &[asked, exe] = executables[static_cast<size_t>(k)];
    if (!asked) {
      const Decl *d = cp.find(st.eq->fn);
      std::vector<ir::Type> types;
      for (int c : st.in) types.push_back(ir::Type{plan.slots[static_cast<size_t>(c)].elem, plan.slots[static_cast<size_t>(c)].shape});
      if (d && std::holds_alternative<FunDecl>(*d)) exe = opts.fun_executable(st.eq->fn, st.eq->static_args, types);  // may throw: asked again
      asked = true;
    }
    return exe;
  }
  // Runs it on the operands where they are, into a block of the result's size (or Out's
  // own words for one element).
  void run_executable(exec::Executable &exe, const Step &st, size_t n, Out &o) {
    raw_args.clear();
    for (int c : st.in) {
      const Slot &s = plan.slots[static_cast<size_t>(c)];
      if (block_of[static_cast<size_t>(c)] >= 0) {
        const array::Tensor &b = *block(c, n);
        raw_args.push_back(s.elem == Scalar::Real ? static_cast<const void *>(b.r.data()) : static_cast<const void *>(b.i.data()));
      } else {
        raw_args.push_back(s.elem == Scalar::Real ? static_cast<const void *>(&reals[at(n) * RW + s.offset])
                                                  : static_cast<const void *>(&ints[at(n) * IW + s.offset]));
      }
    }
    const Slot &r = plan.slots[static_cast<size_t>(st.out)];
    const bool real = r.elem == Scalar::Real;
    o.set(Tag::Val);
    if (block_of[static_cast<size_t>(st.out)] >= 0) {
      std::shared_ptr<array::Tensor> b = spare_block(r);
      raw_outs.assign(1, real ? static_cast<void *>(b->r.data()) : static_cast<void *>(b->i.data()));
      exe.run_raw(raw_args, raw_outs);
      return o.shared(std::move(b));
    }
    if (real) o.r.resize(r.numel), raw_outs.assign(1, o.r.data()), o.rp = o.r.data();
    else o.i.resize(r.numel), raw_outs.assign(1, o.i.data()), o.ip = o.i.data();
    o.count = r.numel;
    exe.run_raw(raw_args, raw_outs);
  }
  // A block for a result of slot r's type that nothing else holds: one from earlier cycles
  // whose frames have all left (the pool's is then the only reference), else a new one.
  std::shared_ptr<array::Tensor> spare_block(const Slot &r) {
    auto &pool = spare[{r.elem, r.numel}];
    while (!pool.released.empty()) {  // the most recently released first: still in cache
      auto &b = pool.blocks[pool.released.back()];
      pool.released.pop_back();
      if (b.use_count() == 1) return b->shape = r.shape, b;
    }
    // Blocks let go of otherwise (a memory's, a cell computed again) are found by a short
    // round-robin look: a full scan would make a window that holds every frame (a backward
    // recurrence over the whole trace, the adjoint's sweep) quadratic in the trace's length.
    for (size_t tried = 0; tried < std::min<size_t>(pool.blocks.size(), kSpareLook); ++tried) {
      auto &b = pool.blocks[pool.next++ % pool.blocks.size()];
      if (b.use_count() == 1) return b->shape = r.shape, b;
    }
    auto b = std::make_shared<array::Tensor>(array::Tensor::zeros(r.elem, r.shape));
    pool.index[b.get()] = pool.blocks.size();
    pool.blocks.push_back(b);
    return b;
  }
  array::Tensor apply(const core::Equation &eq, const std::vector<array::Tensor> &args) { return apply_application(cp, eval, opts, eq, args); }
  // Scalars through the operator table's scalar meanings (ops/scalar_ops.hpp).
  void scalar_apply(const Step &st, size_t n, Out &o) {
    int a = st.in[0];
    o.set(Tag::Val);
    Scalar ae = plan.slots[static_cast<size_t>(a)].elem;
    switch (st.scalar) {
      case ScalarOp::None: return;
      case ScalarOp::If: return copy(bval(a, n) ? st.in[1] : st.in[2], n, o);
      case ScalarOp::Unary: {
        Scalar re = *ops::result_type(ops::row(st.un).typing, ae);
        if (ae == Scalar::Real && re == Scalar::Real) o.real(ops::real_unary(st.un, rval(a, n)));
        else if (ae == Scalar::Real) o.integer(ops::real_to_int(st.un, rval(a, n)));
        else if (re == Scalar::Real) o.real(static_cast<double>(ival(a, n)));
        else if (re == Scalar::Bool) o.boolean(ops::int_unary(st.un, bval(a, n)) != 0);
        else o.integer(ops::int_unary(st.un, ival(a, n)));
        return;
      }
      case ScalarOp::Binary: {
        int b = st.in[1];
        bool cmp = ops::is_comparison(st.bin);
        if (ae == Scalar::Real) {
          double x = rval(a, n), y = rval(b, n);
          if (cmp) return o.boolean(ops::compare(st.bin, x, y));
          return o.real(ops::real_binary(st.bin, x, y));
        }
        if (ae == Scalar::Bool) return o.boolean(ops::int_binary(st.bin, bval(a, n), bval(b, n)) != 0);
        int64_t v = ops::int_binary(st.bin, ival(a, n), ival(b, n));
        if (cmp) return o.boolean(v != 0);
        return o.integer(v);
      }
    }
  }
  // §4.4 s when^b c.
  void rule_when(const Step &st, size_t n, Out &o) {
    int x = st.in[0], c = st.in[1];
    Tag ct = tag(c, n), xt = tag(x, n);
    if (ct == Tag::Bot) return o.set(Tag::Bot);
    if (ct == Tag::Err) return o.propagate_error();
    if (ct == Tag::Abs) {
      if (xt == Tag::Bot || xt == Tag::Abs) return o.set(Tag::Abs);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("when", "'" + name(x) + "' is present but the condition '" + name(c) + "' is absent");
    }
    if (ct == Tag::Nil) return o.error("when", "the condition is the uninitialised first value of a 'pre'");
    if (bval(c, n) == st.positive) {
      if (xt == Tag::Val || xt == Tag::Nil) return copy(x, n, o);
      if (xt == Tag::Bot) return o.set(Tag::Bot);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("when", "'" + name(x) + "' is absent but the condition '" + name(c) + "' is present");
    }
    if (xt == Tag::Val || xt == Tag::Nil || xt == Tag::Bot) return o.set(Tag::Abs);
    if (xt == Tag::Err) return o.propagate_error();
    o.error("when", "'" + name(x) + "' is absent but the condition '" + name(c) + "' is present");
  }
  // §4.5 merge c s t.
  void rule_merge(const Step &st, size_t n, Out &o) {
    int c = st.in[0], a = st.in[1], b = st.in[2];
    Tag ct = tag(c, n), at_ = tag(a, n), bt = tag(b, n);
    if (ct == Tag::Bot) return o.set(Tag::Bot);
    if (ct == Tag::Err) return o.propagate_error();
    if (ct == Tag::Nil) return o.error("merge", "the condition is the uninitialised first value of a 'pre'");
    auto absentish = [](Tag t) { return t == Tag::Bot || t == Tag::Abs; };
    if (ct == Tag::Abs) {
      if (absentish(at_) && absentish(bt)) return o.set(Tag::Abs);
      if (at_ == Tag::Err || bt == Tag::Err) return o.propagate_error();
      return o.error("merge", "a branch is present but the condition '" + name(c) + "' is absent");
    }
    bool cv = bval(c, n);
    int sel = cv ? a : b, oth = cv ? b : a;
    Tag stg = cv ? at_ : bt, ot = cv ? bt : at_;
    if (!absentish(ot)) {
      if (ot == Tag::Err) return o.propagate_error();
      return o.error("merge", "the branch '" + name(oth) + "' is present but the condition selects the other one");
    }
    if (stg == Tag::Val || stg == Tag::Nil) return copy(sel, n, o);
    if (stg == Tag::Bot) return o.set(Tag::Bot);
    if (stg == Tag::Err) return o.propagate_error();
    o.error("merge", "the selected branch '" + name(sel) + "' is absent");
  }
  // §4.6 i fby e: i at the first tick, then e at the previous tick (from the window or memory).
  void rule_fby(int k, const Step &st, size_t n, Out &o) {
    int i = st.in[0], e = st.in[1];
    Tag it = tag(i, n), et = tag(e, n);
    if (it == Tag::Bot) return o.set(Tag::Bot);
    if (it == Tag::Abs) {
      if (et == Tag::Abs || et == Tag::Bot) return o.set(Tag::Abs);
      if (et == Tag::Err) return o.propagate_error();
      return o.error("fby", "'" + name(e) + "' is present but '" + name(i) + "' is absent");
    }
    if (it == Tag::Err) return o.propagate_error();
    if (et == Tag::Abs) return o.error("fby", "'" + name(e) + "' is absent but '" + name(i) + "' is present");
    if (et == Tag::Err) return o.propagate_error();
    Prev p = prev(k, n);
    if (p.where == Prev::None) return copy(i, n, o);
    const Memory &mem = memory[static_cast<size_t>(k)];
    Tag ik = p.where == Prev::Window ? tag(i, p.cycle) : mem.first;
    if (ik == Tag::Bot) return o.set(Tag::Bot);
    if (ik == Tag::Err) return o.propagate_error();
    Tag ek = p.where == Prev::Window ? tag(e, p.cycle) : mem.second;
    if (ek == Tag::Val || ek == Tag::Nil) return p.where == Prev::Window ? copy(e, p.cycle, o) : recall(mem, o);
    if (ek == Tag::Bot) return o.set(Tag::Bot);
    if (p.where == Prev::Window && ek == Tag::Abs) return o.error_at(p.cycle, "fby", "'" + name(e) + "' is absent but '" + name(i) + "' is present");
    o.propagate_error();
  }
  static void recall(const Memory &mem, Out &o) {
    o.set(mem.second);
    if (mem.block) {
      if (o.tag == Tag::Val) o.shared(mem.block);
      return;
    }
    o.rp = mem.r.data(), o.ip = mem.i.data();
    o.count = std::max(mem.r.size(), mem.i.size());
  }
  // Lustre `a -> b`.
  void rule_arrow(int k, const Step &st, size_t n, Out &o) {
    int a = st.in[0], b = st.in[1];
    Tag at_ = tag(a, n), bt = tag(b, n);
    if (at_ == Tag::Bot) return o.set(Tag::Bot);
    if (at_ == Tag::Abs) {
      if (bt == Tag::Abs || bt == Tag::Bot) return o.set(Tag::Abs);
      if (bt == Tag::Err) return o.propagate_error();
      return o.error("arrow", "the right operand is present but the left one is absent");
    }
    if (at_ == Tag::Err) return o.propagate_error();
    if (bt == Tag::Abs) return o.error("arrow", "the right operand is absent but the left one is present");
    if (bt == Tag::Err) return o.propagate_error();
    Prev p = prev(k, n);
    if (p.where == Prev::None) return copy(a, n, o);
    Tag ak = p.where == Prev::Window ? tag(a, p.cycle) : memory[static_cast<size_t>(k)].first;
    if (ak == Tag::Bot) return o.set(Tag::Bot);
    if (ak == Tag::Err) return o.propagate_error();
    if (bt == Tag::Bot) return o.set(Tag::Bot);
    copy(b, n, o);
  }
  // Lustre `pre x` on its clock: nil at the first tick, then x at the previous tick.
  void rule_pre(int k, const Step &st, size_t n, Out &o) {
    int x = st.in[0], kc = st.clock;
    Tag kt = tag(kc, n), xt = tag(x, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!bval(kc, n)) {
      if (xt == Tag::Abs || xt == Tag::Bot) return o.set(Tag::Abs);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("pre", "'" + name(x) + "' is present where its clock does not tick");
    }
    if (xt == Tag::Abs) return o.error("pre", "'" + name(x) + "' is absent where its clock ticks");
    if (xt == Tag::Err) return o.propagate_error();
    Prev p = prev(k, n);
    if (p.where == Prev::None) return o.set(Tag::Nil);
    const Memory &mem = memory[static_cast<size_t>(k)];
    Tag km = p.where == Prev::Window ? tag(kc, p.cycle) : mem.first;
    if (km == Tag::Bot) return o.set(Tag::Bot);
    if (km == Tag::Err) return o.propagate_error();
    Tag xm = p.where == Prev::Window ? tag(x, p.cycle) : mem.second;
    if (xm == Tag::Val || xm == Tag::Nil) return p.where == Prev::Window ? copy(x, p.cycle, o) : recall(mem, o);
    if (xm == Tag::Bot) return o.set(Tag::Bot);
    if (p.where == Prev::Window && xm == Tag::Abs) return o.error_at(p.cycle, "pre", "'" + name(x) + "' is absent where its clock ticks");
    o.propagate_error();
  }
  // §4.7 post^κ x: x at the next tick of κ; ⊥ while that tick is beyond the frames pushed.
  void rule_post(const Step &st, size_t n, Out &o) {
    int x = st.in[0], kc = st.clock;
    Tag kt = tag(kc, n), xt = tag(x, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!bval(kc, n)) {
      if (xt == Tag::Abs || xt == Tag::Bot) return o.set(Tag::Abs);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("post", "'" + name(x) + "' is present where its clock does not tick");
    }
    if (xt == Tag::Abs) return o.error("post", "'" + name(x) + "' is absent where its clock ticks");
    if (xt == Tag::Err) return o.propagate_error();
    for (size_t m = n + 1; m < back; ++m) {
      Tag km = tag(kc, m);
      if (km == Tag::Bot) return o.set(Tag::Bot);
      if (km == Tag::Err) return o.propagate_error();
      if (!bval(kc, m)) continue;
      Tag xm = tag(x, m);
      if (xm == Tag::Val || xm == Tag::Nil) return copy(x, m, o);
      if (xm == Tag::Bot) return o.set(Tag::Bot);
      if (xm == Tag::Abs) return o.error_at(m, "post", "'" + name(x) + "' is absent where its clock ticks");
      return o.propagate_error();
    }
    o.set(Tag::Bot);
  }
  void apply_rule(int k, size_t n, Out &o) {
    ++evaluations;
    const Step &st = plan.steps[static_cast<size_t>(k)];
    switch (st.kind) {
      case StepKind::ClockBase: return rule_clock_base(st, n, o);
      case StepKind::ClockOn: return rule_clock_on(st, n, o);
      case StepKind::ClockNever: return rule_clock_never(st, n, o);
      case StepKind::Const: return rule_const(k, st, n, o);
      case StepKind::Copy: return copy(st.in[0], n, o);
      case StepKind::Apply: return rule_apply(k, st, n, o);
      case StepKind::When: return rule_when(st, n, o);
      case StepKind::Merge: return rule_merge(st, n, o);
      case StepKind::Fby: return rule_fby(k, st, n, o);
      case StepKind::Pre: return rule_pre(k, st, n, o);
      case StepKind::Arrow: return rule_arrow(k, st, n, o);
      case StepKind::Post: return rule_post(st, n, o);
    }
  }

  // ------------------------------------------------------------ the worklist
  // Writes a result; returns whether the cell changed (only upwards: ⊥ ⊑ v ⊑ ‖).
  bool commit(int k, size_t n, const Out &o) {
    const Step &st = plan.steps[static_cast<size_t>(k)];
    const Slot &s = plan.slots[static_cast<size_t>(st.out)];
    uint8_t &t = tags[at(n) * S + static_cast<size_t>(st.out)];
    Tag old = static_cast<Tag>(t);
    const bool real = s.elem == Scalar::Real;
    double *rp = real ? reals.data() + at(n) * RW + s.offset : nullptr;
    int64_t *ip = real ? nullptr : ints.data() + at(n) * IW + s.offset;
    const bool shared = block_of[static_cast<size_t>(st.out)] >= 0;
    bool same = true;
    if (o.tag == Tag::Val) {
      if (o.count != s.numel || (real ? !o.rp : !o.ip)) throw StreamError("internal: result of '" + s.name + "' has the wrong size");
      // A cell's payload is compared only once it holds a value (a ⊥ cell's words are stale).
      if (old == Tag::Val && shared) {
        const array::Tensor &b = *block(st.out, n);
        same = b.r.data() == o.rp && b.i.data() == o.ip;
        if (!same)
          same = real ? std::memcmp(b.r.data(), o.rp, s.numel * sizeof(double)) == 0 : std::memcmp(b.i.data(), o.ip, s.numel * sizeof(int64_t)) == 0;
      } else if (old == Tag::Val) {
        same = real ? std::memcmp(rp, o.rp, s.numel * sizeof(double)) == 0 : std::memcmp(ip, o.ip, s.numel * sizeof(int64_t)) == 0;
      }
    }
    if (old == o.tag && same) return false;
    if (old != Tag::Bot && o.tag != Tag::Err)
      throw StreamError("internal: non-monotone update of '" + s.name + "' at cycle " + std::to_string(n));
    if (old == Tag::Bot) --bots[at(n)];
    t = static_cast<uint8_t>(o.tag);
    if (o.tag == Tag::Val && shared) {
      if (o.block) block(st.out, n) = o.block;
      else {  // a constant's payload: a block of its own
        array::Tensor v;
        v.elem = s.elem, v.shape = s.shape;
        if (real) v.r.assign(o.rp, o.rp + s.numel);
        else v.i.assign(o.ip, o.ip + s.numel);
        block(st.out, n) = std::make_shared<const array::Tensor>(std::move(v));
      }
    } else if (o.tag == Tag::Val) {
      if (real) std::memcpy(rp, o.rp, s.numel * sizeof(double));
      else std::memcpy(ip, o.ip, s.numel * sizeof(int64_t));
    }
    size_t at_cycle = o.origin == SIZE_MAX ? n : o.origin;
    if (o.tag == Tag::Err && o.rule && origin_seen.insert({st.out, at_cycle}).second) {
      oracle::ErrorOrigin e;
      e.var = s.name;
      e.cycle = at_cycle;
      e.rule = o.rule;
      e.message = o.why;
      if (st.eq) e.span = st.eq->span;
      origins.push_back(std::move(e));
    }
    return true;
  }
  void push(int k, size_t m) {
    uint8_t &q = queued[at(m) * K + static_cast<size_t>(k)];
    if (q) return;
    q = 1;
    fifo.emplace_back(k, m);
  }
  // Slot c changed at cycle n: its readers must run again, where they read it.
  void changed(int c, size_t n) {
    if (sweeping != SIZE_MAX && n + 1 == back && quiet_in_sweep[static_cast<size_t>(c)]) return;
    bool err = tag(c, n) == Tag::Err;
    for (const Reader &r : plan.readers[static_cast<size_t>(c)]) {
      // While cycle n is swept, a reader in a later component runs at n anyway (and there
      // is no later cycle yet for a forward reader).
      bool runs_anyway = n + 1 == back && sweeping != SIZE_MAX && comp_of[static_cast<size_t>(r.step)] > static_cast<int>(sweeping);
      if (runs_anyway && r.travel != Travel::Backward) continue;
      if (!runs_anyway) push(r.step, n);
      if (r.travel == Travel::Forward) {
        for (size_t m = n + 1; m < back; ++m) {
          push(r.step, m);
          if (!skip(r.ticks, m)) break;
        }
      } else if (r.travel == Travel::Backward) {
        bool in_window = false;
        for (size_t m = n; !in_window && m-- > front;) {
          push(r.step, m);
          in_window = !skip(r.ticks, m);
        }
        // The previous tick has left the window. Only a ‖ can change a cell that left: it
        // was known, and every cell it read was known (semantics.md §5).
        if (!in_window && err && memory[static_cast<size_t>(r.step)].has)
          throw ExactnessLost("the stream backend already emitted cycle " + std::to_string(front - 1) +
                              ", but an error value (‖) of '" + name(c) + "' at cycle " + std::to_string(n) +
                              " reaches it through a 'post': its output is not exact; run with a larger lag or in the oracle");
      }
    }
  }
  void run(int k, size_t n) {
    apply_rule(k, n, out);
    if (commit(k, n, out)) changed(plan.steps[static_cast<size_t>(k)].out, n);
  }

  // ------------------------------------------------------------ cycles in and out
  void push_cycle(const std::vector<Cell> &inputs) {
    if (finished) throw StreamError("internal: a cycle pushed after the end of the trace");
    if (inputs.size() != plan.input_slots.size())
      throw StreamError("expected " + std::to_string(plan.input_slots.size()) + " inputs, got " + std::to_string(inputs.size()));
    if (back - front == cap) resize(cap * 2);
    size_t n = back++;
    std::fill_n(&tags[at(n) * S], S, static_cast<uint8_t>(Tag::Bot));
    std::fill_n(&queued[at(n) * K], K, 0);
    bots[at(n)] = static_cast<uint32_t>(S);
    for (size_t j = 0; j < inputs.size(); ++j) {
      const Cell &c = inputs[j];
      int slot = plan.input_slots[j];
      const Slot &s = plan.slots[static_cast<size_t>(slot)];
      if (c.tag == Tag::Bot)
        throw StreamError("the input '" + s.name + "' is unknown (?) at cycle " + std::to_string(n) +
                          ": the stream backend needs every input cell known (the oracle accepts unknown inputs)");
      if (c.tag == Tag::Val && (c.value.elem != s.elem || c.value.shape != s.shape))
        throw StreamError("the input '" + s.name + "' at cycle " + std::to_string(n) + " has a value of the wrong type");
      tags[at(n) * S + static_cast<size_t>(slot)] = static_cast<uint8_t>(c.tag);
      --bots[at(n)];
      if (c.tag != Tag::Val) continue;
      if (block_of[static_cast<size_t>(slot)] >= 0) {  // into a block of the pool
        std::shared_ptr<array::Tensor> b = spare_block(s);
        if (s.elem == Scalar::Real) std::copy(c.value.r.begin(), c.value.r.end(), b->r.begin());
        else std::copy(c.value.i.begin(), c.value.i.end(), b->i.begin());
        block(slot, n) = std::move(b);
      } else if (s.elem == Scalar::Real) std::copy(c.value.r.begin(), c.value.r.end(), &reals[at(n) * RW + s.offset]);
      else std::copy(c.value.i.begin(), c.value.i.end(), &ints[at(n) * IW + s.offset]);
    }
    for (sweeping = 0; sweeping < plan.schedule.size(); ++sweeping)
      for (int k : plan.schedule[sweeping]) run(k, n);
    sweeping = SIZE_MAX;
    for (size_t head = 0; head < fifo.size();) {
      auto [k, m] = fifo[head++];
      queued[at(m) * K + static_cast<size_t>(k)] = 0;
      run(k, m);
    }
    fifo.clear();
    widest = std::max(widest, back - front);
    // The oldest frames leave once they and the `lag` after them are known.
    auto known = [&](size_t f) { return bots[at(f)] == 0; };
    while (front < back) {
      bool ready = true;
      for (size_t f = front; ready && f <= front + opts.lag; ++f) ready = f < back && known(f);
      if (!ready) break;
      leave();
    }
    if (back - front > opts.max_window) {
      std::string var;  // a variable the user wrote, if one is unknown, else a generated one
      for (size_t c = 0; c < S; ++c) {
        const std::string &v = plan.slots[c].name;
        if (plan.slots[c].clock || tag(static_cast<int>(c), front) != Tag::Bot) continue;
        if (var.empty() || (var.find('$') != std::string::npos && v.find('$') == std::string::npos)) var = v;
      }
      throw WindowLimitError("the stream backend holds " + std::to_string(back - front) + " cycles, more than its window of " +
                                 std::to_string(opts.max_window) + ": '" + var + "' at cycle " + std::to_string(front) +
                                 " is still unknown (the trace breaks the node's assumptions, or the horizon is wrong)",
                             front, var);
    }
  }
  FrameView view(size_t n) const {
    FrameView v;
    v.cycle = n;
    v.plan_ = &plan;
    v.tags_ = &tags[at(n) * S];
    v.reals_ = reals.data() + at(n) * RW;
    v.ints_ = ints.data() + at(n) * IW;
    v.blocks_ = blocks.data() + at(n) * B;
    v.block_of_ = block_of.data();
    return v;
  }
  // The front frame is final: emit it, remember the state its ticks leave, drop it.
  void leave() {
    size_t f = front;
    check_input_clocks(f);
    if (emit) emit(view(f));
    for (int k : stateful) {
      const Step &st = plan.steps[static_cast<size_t>(k)];
      if (skip(st.ticks, f)) continue;
      Memory &m = memory[static_cast<size_t>(k)];
      m.has = true;
      m.first = tag(st.ticks, f);
      int second = st.kind == StepKind::Fby ? st.in[1] : st.kind == StepKind::Pre ? st.in[0] : -1;
      if (second < 0) continue;  // ->: the tick is enough; post: only that it ticked (changed())
      const Slot &s = plan.slots[static_cast<size_t>(second)];
      m.second = tag(second, f);
      if (block_of[static_cast<size_t>(second)] >= 0) {  // the block, shared
        m.block = m.second == Tag::Val ? block(second, f) : nullptr;
      } else if (s.elem == Scalar::Real) {
        m.r.resize(s.numel);
        std::copy_n(reals.data() + at(f) * RW + s.offset, s.numel, m.r.data());
      } else {
        m.i.resize(s.numel);
        std::copy_n(ints.data() + at(f) * IW + s.offset, s.numel, m.i.data());
      }
    }
    for (size_t k = 0; k < B; ++k) {  // the frame's values go (a memory may keep one)
      std::shared_ptr<const array::Tensor> &b = blocks[at(f) * B + k];
      if (!b) continue;
      const array::Tensor *p = b.get();
      b.reset();
      Pool &pool = *block_pool[k];  // a block of the pool's that only the pool holds now: reused first
      if (auto it = pool.index.find(p); it != pool.index.end() && pool.blocks[it->second].use_count() == 1) pool.released.push_back(it->second);
    }
    ++front;
  }
  // Input clock assumptions: an input is present exactly where its clock ticks (first
  // violation per input, as the oracle reports them).
  void check_input_clocks(size_t n) {
    for (size_t j = 0; j < plan.input_slots.size(); ++j) {
      if (!clock_violations[j].empty()) continue;
      int c = plan.input_slots[j], k = plan.input_clock_slots[j];
      Tag kt = tag(k, n), xt = tag(c, n);
      if (kt != Tag::Val || xt == Tag::Bot || xt == Tag::Err) continue;
      bool ticks = bval(k, n), pres = xt == Tag::Val || xt == Tag::Nil;
      if (ticks == pres) continue;
      std::string clock = name(k).substr(3);  // "ck:" + the clock's text
      clock_violations[j] = (name(c) + " at cycle " + std::to_string(n) + ": " +
                                 (pres ? "present where its clock " + clock + " is false" : "absent where its clock " + clock + " is true"));
    }
  }
  void finish() {
    while (front < back) leave();
    finished = true;
  }
};

Runner::Runner(const CheckedProgram &cp, const Plan &plan, Options opts, Emit emit) {
  if (opts.window_runtime) window_ = WindowRunner::make(cp, plan, opts, emit);
  if (!window_) impl_ = std::make_unique<Impl>(cp, plan, std::move(opts), std::move(emit));
}
Runner::~Runner() = default;
void Runner::push(const std::vector<Cell> &inputs) { window_ ? window_->push(inputs) : impl_->push_cycle(inputs); }
void Runner::finish() { window_ ? window_->finish() : impl_->finish(); }
size_t Runner::cycles() const { return window_ ? window_->cycles() : impl_->back; }
size_t Runner::max_window() const { return window_ ? window_->max_window() : impl_->widest; }
uint64_t Runner::evaluations() const { return window_ ? window_->evaluations() : impl_->evaluations; }
const std::vector<oracle::ErrorOrigin> &Runner::errors() const { return window_ ? window_->errors() : impl_->origins; }
const char *Runner::engine() const {
  if (!window_) return "runner's rules";
  return window_->retimed() ? "window runtime (retimed)" : "window runtime";
}
std::vector<std::string> Runner::input_clock_violations() const {
  if (window_) return window_->input_clock_violations();
  std::vector<std::string> v;
  for (auto &s : impl_->clock_violations)
    if (!s.empty()) v.push_back(s);
  return v;
}

}  // namespace rml::stream
