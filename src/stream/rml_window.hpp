// The window runtime: the rules of semantics.md §3-§4 on a ring of frames, one function
// each, with the sweep in the schedule, the worklist inside the window, the retimed fast
// sweep (stream/retime.hpp), and frames leaving when they and `lag` frames after them hold
// no unknown cell. It needs the C++ standard library and the operator table's scalar
// meanings only: rml compile's window classes include it (src/codegen/README.md), and the
// stream backend runs it in process (stream/window_runner.hpp). Both give
// it the node as the tables of stream/window_tables.hpp. A slot's value is `numel` words
// at `offset` in its frame's reals (double) or ints (int64_t, bools 0/1, clocks);
// applications of funs and on tensors are generated functions (K::Fun) over those words.
// A tensor's cell holds a handle to a shared, immutable block instead (one int word):
// `when`, `merge`, `fby`, `pre`, `->`, `post` and copies share the block of the cell they
// copy, so a kernel read through ten streams is one block, not ten copies; blocks are
// counted and recycled.
#ifndef RML_WINDOW_HPP
#define RML_WINDOW_HPP
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "ops/scalar_ops.hpp"

namespace rml::window {

enum Tag : uint8_t { Bot = 0, Abs = 1, Err = 2, Val = 3, Nil = 4 };  // the oracle's tags
enum class K : uint8_t { ClockBase, ClockOn, ClockNever, Const, Copy, Unary, Binary, If, When, Merge, Fby, Pre, Arrow, Post, Fun };
enum class Travel : uint8_t { Instant, Forward, Backward };
enum class E : uint8_t { Real, Int, Bool };  // a slot's element type
// Why a rule makes a cell an error value (‖) of its own, not from an operand's: the origin
// a run reports (the in-process stream backend words it as the oracle does).
enum class Why : uint8_t {
  None,
  ClockCondAbsent, ClockCondNotBool,  // on a clock term: its condition (about)
  OpPresence,                         // an application's operands
  WhenPresentCondAbsent, WhenCondNil, WhenAbsentCondPresent,
  MergeCondNil, MergeBranchCondAbsent, MergeOtherPresent, MergeSelectedAbsent,  // the branch (about)
  FbyPresentInitAbsent, FbyAbsentInitPresent,
  ArrowRightPresent, ArrowRightAbsent,
  PrePresentNoTick, PreAbsentTick, PostPresentNoTick, PostAbsentTick,
};

union Word {
  double r;
  int64_t i;
};

// A generated function: args[k] points at operand k's words, out at room for the result's.
// `ctx`: the step's Step::ctx (null in generated code; the in-process runner's context).
using Fn = void (*)(void *ctx, const void *const *args, void *out);

struct Step {
  K k;
  int out;
  int in[3];
  int nin;  // Fun: the operands are fargs[0..nin)
  int clock;     // Const, Pre, Post: the context clock's slot
  bool positive;  // When, ClockOn
  int ticks;     // Fby, Pre, Arrow, Post: the slot whose ticks are the state's
  uint8_t op;    // Unary: ops::UnOp, Binary: ops::BinOp
  E arg;         // Unary, Binary: the operands' element type
  E res;         // the result's
  Word constant;  // Const
  Fn fn;          // Fun
  const int *fargs;  // Fun: its operand slots
  // Fun: an elementwise addition of two real tensors of the result's shape, so that
  // x + z, z a block of +0.0, is x's block when x holds no -0.0 and no NaN (bit for bit
  // what the addition computes: x + 0.0 is x but for -0.0, which becomes +0.0, and a
  // signalling NaN, quieted): Figure 20's `o + merge bp dp zeros(shape)` adds the
  // kernel's gradient every cycle, zeros but at a sequence's start.
  bool add = false;
  // Fun: bit j set when the function may write its result over operand j (args[j] == out):
  // it reads that operand's element i only to compute the result's element i, and the
  // operand has the result's type. The function's author says so (rml compile's in-place
  // variants, the in-process runner's elementwise loops); the runtime decides when
  // (Runner::reusable).
  uint32_t inplace = 0;
  void *ctx = nullptr;  // Fun: passed to fn
};
struct Reader {
  int step;
  Travel travel;
  int ticks;
};
// A retimed node's check (src/stream/retime.hpp): once a step's cell is known at a cycle,
// the reader (computed before it in the push) is re-run unless the cell is as expected.
enum class Expect : uint8_t { SameClock, Present, Absent };
struct Check {
  int reader;
  Expect expect;
};
// The same enumerators, in the same order, as rml::Status of the generated rml_cell.hpp.
enum class Status : uint8_t { Ok, InputClock, Error, Unknown, Window, Inexact };
class Runner;

struct Node {  // the tables rml compile writes
  int nslots, nsteps;
  const E *elem;             // per slot
  const uint8_t *is_clock;   // per slot
  const int *numel;          // per slot: elements of its value
  const uint8_t *shared;     // per slot: its cells hold block handles (tensors)
  const int *offset;         // per slot: of its value in the frame's reals (E::Real) or ints (a handle: ints)
  int real_words, int_words; // a frame's
  const Step *steps;
  const int *reader_begin;   // per slot, nslots + 1 entries into `readers`
  const Reader *readers;
  const int *order;          // the schedule, flattened (nsteps)
  const int *comp;           // per step: its component's rank in the schedule
  int ninputs;
  const int *inputs;         // their slots
  const int *input_clocks;   // their clocks' slots
  // A retimed node (src/stream/retime.hpp), or null: per step its lag, the order of a
  // push, and per step (check_begin, nsteps + 1 entries) the checks once its cell is known.
  const int *lag = nullptr;
  const int *fast_order = nullptr;
  const int *check_begin = nullptr;
  const Check *checks = nullptr;
  // The fast sweep of pushed cycle t written out by rml compile (the same cells in the same
  // order as the tables' sweep, each rule's common case inline, the others through
  // Runner::sweep_cell), or null for the tables' sweep.
  Status (*sweep)(Runner &, size_t t) = nullptr;
  // Per slot: whether the host reads its cells once computed (a class's outputs, what the
  // in-process runner emits); null: every slot. Such a cell's block is never overwritten.
  const uint8_t *observed = nullptr;
};

class Runner {
 public:
  Runner(const Node &node, size_t lag, size_t max_window) : n_(node), lag_(lag), max_window_(max_window) { reset(); }

  void reset() {
    cap_ = 8;
    front_ = back_ = 0;
    tags_.assign(cap_ * S(), Bot);
    dead_.assign(cap_ * S(), 0);
    reals_.assign(cap_ * RW(), 0.0);
    ints_.assign(cap_ * IW(), 0);
    size_t most = 1;
    for (int c = 0; c < n_.nslots; ++c) most = std::max(most, static_cast<size_t>(n_.numel[c]));
    scratch_.assign(most, 0);
    blocks_.clear();
    blocks_.emplace_back();  // handle 0: no block
    free_.clear();
    consts_.assign(K(), 0);
    queued_.assign(cap_ * K(), 0);
    bots_.assign(cap_, 0);
    mem_.assign(K(), Memory{});
    fifo_.clear();
    origins_.clear(), origin_seen_.clear();
    evaluations_ = 0, inexact_ = {-1, 0}, not_monotone_ = false, error_left_ = false;
    quiet_.assign(S(), 1);
    for (int k = 0; k < n_.nsteps; ++k)
      for (int q = n_.reader_begin[n_.steps[k].out]; q < n_.reader_begin[n_.steps[k].out + 1]; ++q)
        if (n_.readers[q].travel == Travel::Backward || n_.comp[n_.readers[q].step] <= n_.comp[k]) quiet_[static_cast<size_t>(n_.steps[k].out)] = 0;
    input_clock_ok_ = true;
    shared_slots_.clear(), kept_steps_.clear();
    for (int k = 0; k < n_.nsteps; ++k) {
      const Step &st = n_.steps[k];
      if (st.k != K::Fby && st.k != K::Arrow && st.k != K::Pre && st.k != K::Post) continue;
      int second = st.k == K::Fby ? st.in[1] : st.k == K::Pre ? st.in[0] : -1;
      if (second >= 0 && !n_.shared[second]) mem_[static_cast<size_t>(k)].value.assign(static_cast<size_t>(n_.numel[second]), 0);
      Kept r{k, st.ticks, n_.is_clock[st.ticks] != 0, n_.offset[st.ticks], second, false, false, 0, 0};
      if (second >= 0) r.second_shared = n_.shared[second] != 0, r.second_real = n_.elem[second] == E::Real, r.numel = n_.numel[second], r.second_word = n_.offset[second];
      kept_steps_.push_back(r);
    }
    for (int c = 0; c < n_.nslots; ++c)
      if (n_.shared[c]) shared_slots_.push_back(c);
    producer_.assign(S(), -1), kept_.assign(S(), 0);
    for (int k = 0; k < n_.nsteps; ++k) {
      const Step &st = n_.steps[k];
      producer_[static_cast<size_t>(st.out)] = k;
      // leave() keeps it in a memory (its fby or pre, a reader at a later tick, guards it too)
      if (st.k == K::Fby) kept_[static_cast<size_t>(st.in[1])] = 1;
      if (st.k == K::Pre) kept_[static_cast<size_t>(st.in[0])] = 1;
    }
    for (int c = 0; c < n_.nslots; ++c)
      if (!n_.observed || n_.observed[c]) kept_[static_cast<size_t>(c)] = 1;
    reused_ = 0, dead_left_ = false;
#ifdef RML_WINDOW_WORKLIST_ONLY  // the worklist only (tests compare the two; benchmarks time them)
    fast_ = false;
#else
    fast_ = n_.lag != nullptr;
#endif
  }

  // One cycle's inputs (tag Val or Abs, and where its value's words are), one per input slot.
  Status push(const Tag *tags, const void *const *values) {
    if (back_ - front_ == cap_) grow();
    size_t n = back_++;
    std::fill_n(&tags_[at(n) * S()], S(), Bot);
    std::fill_n(&queued_[at(n) * K()], K(), 0);
    bots_[at(n)] = static_cast<uint32_t>(S());
    for (int j = 0; j < n_.ninputs; ++j) {
      if (tags[j] == Bot) return Status::Unknown;
      int c = n_.inputs[j];
      cell_tag(c, n) = tags[j];
      if (tags[j] == Val && n_.shared[c]) {
        uint32_t h = fresh(c);
        std::memcpy(blocks_[h].w.data(), values[j], bytes(c));
        handle(c, n) = h;
      } else if (tags[j] == Val) {
        if (n_.numel[c] == 1) std::memcpy(data(c, n), values[j], 8);  // a scalar: inlined, not a call
        else std::memcpy(data(c, n), values[j], bytes(c));
      }
      --bots_[at(n)];
    }
    if (fast_) {
      // The fast sweep of a retimed node: the cell of step k at cycle n - lag[k], each after
      // what its rule reads (src/stream/retime.hpp), no worklist but for the checks. It
      // needs the base clock to tick (a post reads the next cycle): else the worklist
      // takes over from here on.
      bool ticks = n_.ninputs == 0;
      for (int j = 0; j < n_.ninputs; ++j) ticks |= tags[j] == Val || tags[j] == Nil;
      if (ticks) return push_fast(n);
      if (Status s = leave_fast(); s != Status::Ok) return s;
    }
    for (sweeping_ = 0; sweeping_ < static_cast<size_t>(n_.nsteps); ++sweeping_) {
      int k = n_.order[sweeping_];
      sweep_comp_ = n_.comp[k];
      if (Status s = run(k, n); s != Status::Ok) return s;
    }
    sweeping_ = SIZE_MAX;
    if (Status s = drain(); s != Status::Ok) return s;
    return back_ - front_ > max_window_ && !ready() ? Status::Window : Status::Ok;
  }

  // ---- for a generated sweep (Node::sweep): a frame's tags, words and count of unknown
  // cells; a cell by its rule (as the tables' sweep computes it, its checks included); a
  // reader re-run by a check the sweep wrote inline ----
  uint8_t *sweep_tags(size_t n) { return &tags_[at(n) * S()]; }
  double *sweep_reals(size_t n) { return &reals_[at(n) * RW()]; }
  int64_t *sweep_ints(size_t n) { return &ints_[at(n) * IW()]; }
  uint32_t &sweep_unknown(size_t n) { return bots_[at(n)]; }
  Status sweep_cell(int k, size_t n) { return run_fast(k, n); }
  void sweep_recheck(int reader, size_t n) { push_step(reader, n); }  // a check not as expected

  // ---- for a generated tagless sweep (src/codegen/emit_tagless.hpp): while every input is
  // present, frames carry words only; presence is read from the clocks' words and a cell is
  // known once its lag has passed, so no tag, count or queue mark is written. Leaving
  // it, the class writes every held frame's tags and calls tags_written() ----
  // A frame for the next pushed cycle (its words only), and its undoing: the cycle is then
  // pushed again by push(), with tags. The frame before the oldest held stays in the ring
  // (its slot is not reused, grow() copies it): a state step on the base clock reads its
  // previous tick there, and what leave() would have remembered of it.
  size_t tagless_frame() {
    if (back_ - front_ + 2 > cap_) grow();
    return back_++;
  }
  void tagless_unpush() { --back_; }
  // The oldest frame leaves; the class has remembered the state its ticks leave (remember).
  void tagless_leave() { ++front_; }
  // What leave() keeps of state step k ticking in the leaving frame: the tick and, for a fby
  // or pre, the word of the operand it remembers and whether that was nil (null for -> and
  // post).
  void remember(int k, const void *word, bool nil = false) {
    Memory &m = mem_[static_cast<size_t>(k)];
    m.has = true, m.first = Val;
    if (word) m.second = nil ? Nil : Val, std::memcpy(m.value.data(), word, 8);
  }
  bool remembered_nil(int k) const { return mem_[static_cast<size_t>(k)].second == Nil; }
  // The word a fby remembers from a frame that left (its operand's at its last tick there).
  double remembered_real(int k) const {
    double v;
    std::memcpy(&v, mem_[static_cast<size_t>(k)].value.data(), 8);
    return v;
  }
  int64_t remembered_int(int k) const {
    int64_t v;
    std::memcpy(&v, mem_[static_cast<size_t>(k)].value.data(), 8);
    return v;
  }
  // The class has written the tags of every held frame: their counts of unknown cells follow,
  // and no cell is queued (the state a tagged sweep would have left).
  void tags_written() {
    for (size_t m = front_; m < back_; ++m) {
      const uint8_t *T = &tags_[at(m) * S()];
      bots_[at(m)] = static_cast<uint32_t>(std::count(T, T + S(), static_cast<uint8_t>(Bot)));
      std::fill_n(&queued_[at(m) * K()], K(), 0);
    }
  }

  // The end of the trace: a retimed node's cells that the fast sweep has not reached yet
  // are computed as the worklist would have (some need no input beyond the end).
  Status finish() { return fast_ ? leave_fast() : Status::Ok; }
  bool fast() const { return fast_; }

  // Whether the oldest held frame is final (it and `lag` frames after it have no ⊥).
  bool ready() const {
    for (size_t f = front_; f <= front_ + lag_; ++f)
      if (f >= back_ || bots_[at(f)] != 0) return false;
    return front_ < back_;
  }
  bool held() const { return front_ < back_; }
  size_t front() const { return front_; }
  size_t back() const { return back_; }  // cycles pushed
  // Where error values were produced: the step whose rule made a cell ‖ at `cycle` (a cell
  // of its own stream at another tick, for fby, pre and post), why, and the slot the reason
  // names (a clock's condition, a merge's branch), in the order they were met.
  struct Origin {
    int step;
    size_t cycle;
    Why why;
    int about;
  };
  const std::vector<Origin> &origins() const { return origins_; }
  // Off by default: a generated class keeps no record that grows with the trace.
  void record_origins(bool on) { record_origins_ = on; }
  uint64_t evaluations() const { return evaluations_; }  // rule applications
  uint64_t reused() const { return reused_; }  // results written over an operand's block (Step::inplace)
  // A block went back with marks of dead holders left on it (Block::dead): their count was
  // wrong, so reusable() may have been too. A bug, said (the tests ask it); never expected.
  bool dead_left() const { return dead_left_; }
  // Status::Inexact: the slot and cycle of the error value that reached a frame given out,
  // or of a rule that was not monotone (a bug, said: not_monotone()).
  std::pair<int, size_t> inexact() const { return inexact_; }
  bool not_monotone() const { return not_monotone_; }
  // The oldest frame's cell of `slot`: its tag and its value's words.
  Tag tag(int slot) const { return tag(slot, front_); }
  const void *value(int slot) const { return data(slot, front_); }
  // Whether a frame that left by leave() held an error value (‖) in any cell, given out
  // or not. (tagless_leave()'s frames hold none: the tagless sweep runs only where every
  // input is on its clock and no condition is nil, where the clocks leave no ‖.)
  bool error_left() const { return error_left_; }
  // Drops the oldest frame, remembering the state its ticks leave; false when an input
  // was off its clock there.
  bool leave() {
    const size_t f = front_, fr = at(f);
    const uint8_t *T = &tags_[fr * S()];
    if (std::memchr(T, Err, S())) error_left_ = true;
    int64_t *I = &ints_[fr * IW()];
    const double *F = &reals_[fr * RW()];
    bool ok = true;
    for (int j = 0; j < n_.ninputs; ++j) {
      Tag kt = static_cast<Tag>(T[n_.input_clocks[j]]), xt = static_cast<Tag>(T[n_.inputs[j]]);
      if (kt != Val || xt == Bot || xt == Err) continue;
      bool ticks = I[n_.offset[n_.input_clocks[j]]] != 0, present = xt == Val || xt == Nil;
      ok = ok && ticks == present;
    }
    for (const Kept &r : kept_steps_) {  // (skip(), on the frame's tags and words)
      const Tag tt = static_cast<Tag>(T[r.ticks]);
      if (r.clock ? tt == Val && I[r.tick_word] == 0 : tt == Abs) continue;
      Memory &m = mem_[static_cast<size_t>(r.k)];
      m.has = true;
      m.first = tt;
      if (r.second < 0) continue;
      m.second = static_cast<Tag>(T[r.second]);
      if (r.second_shared) {
        uint32_t h = m.second == Val ? static_cast<uint32_t>(I[r.second_word]) : 0;
        retain(h), release(m.block), m.block = h;
      } else {
        // (sized by reset(); a scalar's word copied inline, where memcpy of a size only
        // known at run time was a call)
        const void *src = r.second_real ? static_cast<const void *>(F + r.second_word) : static_cast<const void *>(I + r.second_word);
        if (r.numel == 1) std::memcpy(m.value.data(), src, 8);
        else std::memcpy(m.value.data(), src, static_cast<size_t>(r.numel) * 8);
      }
    }
    for (int c : shared_slots_)  // the frame's blocks go back (the ring reuses it)
      if (T[c] == Val) release_cell(c, front_);
    ++front_;
    return ok;
  }

 private:
  struct Memory {
    bool has = false;
    Tag first = Bot, second = Bot;
    std::vector<uint64_t> value;  // the words of the operand's value at the last tick
    uint32_t block = 0;           // or its block, for a tensor
  };
  struct Block {
    uint32_t refs = 0;
    uint32_t dead = 0;  // of refs, those of cells marked dead (dead_): nothing reads them again
    std::vector<uint64_t> w;
    bool zero = false;   // every word +0.0 (a constant found so once computed)
    int8_t clean = -1;   // no -0.0 and no NaN: 1, 0, or -1 not looked at yet (a block is immutable)
  };
  // A rule's result: a tag and, for Val and Nil, where its value's words are (another cell,
  // a memory, `w` for a scalar computed here, or the runner's scratch for a function's).
  struct Out {
    Tag tag = Bot;
    Word w{0};
    const void *src = nullptr;
    uint32_t block = 0;  // a tensor's: the block src is in (owned when `fresh`)
    bool fresh = false;
    Why why = Why::None;     // a ‖ of the rule's own: why,
    int about = -1;          // the slot the reason names,
    size_t at = SIZE_MAX;    // and the cycle of the cell that is its origin, when another tick's
    void set(Tag t) { tag = t; }
    void err(Why w, int slot = -1) { tag = Err, why = w, about = slot; }
    void err_at(size_t m, Why w) { err(w), at = m; }
    void scalar() { tag = Val, src = &w; }
  };
  struct Prev {
    enum Where { None, Window, Remembered } where = None;
    size_t cycle = 0;
  };

  const Node &n_;
  size_t lag_, max_window_;
  const size_t s_ = static_cast<size_t>(n_.nslots), rw_ = static_cast<size_t>(std::max(1, n_.real_words)),
               iw_ = static_cast<size_t>(std::max(1, n_.int_words)), k_ = static_cast<size_t>(n_.nsteps);
  size_t cap_ = 0, front_ = 0, back_ = 0;
  std::vector<uint8_t> tags_, queued_, quiet_;
  // Per cell, as tags_: 1 when reusable() found that nothing reads the cell's block again and
  // the block was written over; its reference then counts in Block::dead.
  std::vector<uint8_t> dead_;
  std::vector<std::pair<int, size_t>> walked_;  // the cells reusable()'s last walk found
  std::vector<double> reals_;
  std::vector<int64_t> ints_;
  std::vector<uint64_t> scratch_;  // a function's result (every slot fits)
  std::vector<uint32_t> consts_;  // per step: a function without operands, once computed (its block)
  std::vector<Block> blocks_;
  std::vector<std::vector<uint32_t>> free_;  // free blocks by slot size
  std::vector<uint32_t> bots_;
  std::vector<Memory> mem_;
  // The worklist: a ring that only grows (std::deque allocates and frees a chunk as the
  // queue moves through it, about once a cycle: a window class allocates nothing once warm).
  struct Fifo {
    std::vector<std::pair<int, size_t>> ring = std::vector<std::pair<int, size_t>>(64);
    size_t head = 0, tail = 0;  // the items are ring[head..tail) modulo its (power-of-two) size
    bool empty() const { return head == tail; }
    void clear() { head = tail = 0; }
    void push(int k, size_t m) {
      if (tail - head == ring.size()) {
        std::vector<std::pair<int, size_t>> r(ring.size() * 2);
        for (size_t q = head; q < tail; ++q) r[q - head] = ring[q & (ring.size() - 1)];
        tail -= head, head = 0, ring.swap(r);
      }
      ring[tail++ & (ring.size() - 1)] = {k, m};
    }
    std::pair<int, size_t> pop() { return ring[head++ & (ring.size() - 1)]; }
  };
  Fifo fifo_;
  size_t sweeping_ = SIZE_MAX;
  int sweep_comp_ = 0;
  bool input_clock_ok_ = true;
  bool fast_ = false;  // a retimed node whose pushes so far all had the base clock tick
  std::vector<int> shared_slots_;  // what leave() looks at
  // A state step as leave() reads it: the slot whose ticks are its state's (a clock or
  // not, and its word), and the operand it remembers (fby's second, pre's), or -1.
  struct Kept {
    int k, ticks;
    bool clock;
    int tick_word, second;
    bool second_shared, second_real;
    int numel, second_word;
  };
  std::vector<Kept> kept_steps_;
  std::vector<int> producer_;     // per slot: the step computing it, or -1 (an input)
  std::vector<uint8_t> kept_;     // per slot: read after its readers (observed, or a memory's operand)
  uint64_t reused_ = 0;
  bool dead_left_ = false;
  bool handing_over_ = false;     // leave_fast() runs: cells already known are run again
  std::vector<Origin> origins_;
  bool record_origins_ = false;
  std::set<std::pair<int, size_t>> origin_seen_;  // (slot, cycle) of the origins so far
  uint64_t evaluations_ = 0;
  std::pair<int, size_t> inexact_{-1, 0};
  bool not_monotone_ = false;
  bool error_left_ = false;  // a frame that left by leave() held an error value

  Status drain() {
    while (!fifo_.empty()) {
      auto [k, m] = fifo_.pop();
      queued_[at(m) * K() + static_cast<size_t>(k)] = 0;
      if (Status s = run(k, m); s != Status::Ok) return s;
    }
    return Status::Ok;
  }
  Status push_fast(size_t n) {
#ifdef RML_WINDOW_TABLE_SWEEP  // the tables' sweep, not the generated one (tests compare the two)
    constexpr bool generated = false;
#else
    const bool generated = n_.sweep != nullptr;
#endif
    if (generated) {
      if (Status s = n_.sweep(*this, n); s != Status::Ok) return s;
      if (Status s = drain(); s != Status::Ok) return s;
      return back_ - front_ > max_window_ && !ready() ? Status::Window : Status::Ok;
    }
    for (int q = 0; q < n_.nsteps; ++q) {
      int k = n_.fast_order[q];
      size_t l = static_cast<size_t>(n_.lag[k]);
      if (n < l) continue;  // before the first cycle
      if (Status s = run_fast(k, n - l); s != Status::Ok) return s;
      if (!fast_) break;  // left for the worklist, which has done the rest
    }
    if (Status s = drain(); s != Status::Ok) return s;
    return back_ - front_ > max_window_ && !ready() ? Status::Window : Status::Ok;
  }
  // From the fast sweep to the worklist: every cell of every held frame is run once (a
  // final cell comes out the same; one the sweep has not reached is computed, or stays
  // unknown until what it reads changes), as if the worklist had run from the start.
  Status leave_fast() {
    fast_ = false;
    handing_over_ = true;  // known cells are run again here: no block is reused meanwhile
    Status s = Status::Ok;
    for (size_t m = front_; m < back_ && s == Status::Ok; ++m)
      for (int q = 0; q < n_.nsteps && s == Status::Ok; ++q) s = run(n_.fast_order[q], m);
    if (s == Status::Ok) s = drain();
    handing_over_ = false;
    return s;
  }
  // A cell in the fast sweep: what its rule gives, final (what it reads is), so nothing
  // that reads it is re-run, but for the checks. A cell the sweep finds known (a check
  // has re-run its producer) or a rule that stays unknown (it cannot, with the base clock
  // ticking: said, not trusted) goes the worklist's way.
  Status run_fast(int k, size_t n) {
    int c = n_.steps[k].out;
    if (tag(c, n) != Bot) return run(k, n);
    if (scalar_op(k, n)) return Status::Ok;
    Out o;
    rule(k, n, o);
    if (o.tag == Bot) {
      if (o.fresh) release(o.block);
      return leave_fast();
    }
    --bots_[at(n)];
    cell_tag(c, n) = o.tag;
    if (o.tag == Err) origin(k, n, o);
    if (n_.shared[c]) {
      if (o.tag == Val) {
        if (!o.fresh) retain(o.block);
        handle(c, n) = o.block;
      } else if (o.fresh) {
        release(o.block);
      }
    } else if (o.tag == Val) {
      void *w = data(c, n);
      if (w == o.src) {
      } else if (n_.numel[c] == 1) {
        std::memcpy(w, o.src, 8);  // a scalar: one word (inlined, where memmove was a call)
      } else {
        std::memmove(w, o.src, bytes(c));
      }
    }
    checks(k, n, o.tag);
    return Status::Ok;
  }
  void origin(int k, size_t n, const Out &o) {
    if (!record_origins_ || o.why == Why::None) return;  // (an operand's ‖, passed on: no origin)
    size_t m = o.at == SIZE_MAX ? n : o.at;
    if (origin_seen_.insert({n_.steps[k].out, m}).second) origins_.push_back({k, m, o.why, o.about});
  }
  // The common cases of the tables' fast sweep, without a rule's result in between: a
  // constant whose clock is known (what constant() gives: absent, or the literal), an
  // operator of the table on scalar operands that are all values (what apply() gives: the
  // operator on the words). False for anything else, which the rule computes.
  bool scalar_op(int k, size_t n) {
    const Step &st = n_.steps[k];
    const size_t f = at(n);
    const uint8_t *tags = &tags_[f * S()];
    if (st.k == K::Const && tags[st.clock] == Val) {  // constant(): absent, or the literal
      const bool ticks = ints_[f * IW() + static_cast<size_t>(n_.offset[st.clock])] != 0;
      if (ticks && st.res == E::Real) reals_[f * RW() + static_cast<size_t>(n_.offset[st.out])] = st.constant.r;
      else if (ticks) ints_[f * IW() + static_cast<size_t>(n_.offset[st.out])] = st.constant.i;
      ++evaluations_;
      tags_[f * S() + static_cast<size_t>(st.out)] = ticks ? Val : Abs;
      --bots_[f];
      checks(k, n, ticks ? Val : Abs);
      return true;
    }
    if (st.k != K::Binary && st.k != K::Unary) return false;
    if (tags[st.in[0]] != Val || (st.k == K::Binary && tags[st.in[1]] != Val)) return false;
    const double *reals = &reals_[f * RW()];
    int64_t *ints = &ints_[f * IW()];
    Word a, b, r;
    if (st.arg == E::Real) a.r = reals[n_.offset[st.in[0]]], b.r = st.k == K::Binary ? reals[n_.offset[st.in[1]]] : 0.0;
    else a.i = ints[n_.offset[st.in[0]]], b.i = st.k == K::Binary ? ints[n_.offset[st.in[1]]] : 0;
    if (st.k == K::Binary) r = binary(st, a, b);
    else r = unary(st, a);
    ++evaluations_;
    if (st.res == E::Real) reals_[f * RW() + static_cast<size_t>(n_.offset[st.out])] = r.r;
    else ints[n_.offset[st.out]] = r.i;
    tags_[f * S() + static_cast<size_t>(st.out)] = Val;
    --bots_[f];
    checks(k, n, Val);
    return true;
  }
  void checks(int k, size_t n, Tag ct) {
    for (int q = n_.check_begin[k]; q < n_.check_begin[k + 1]; ++q) {
      const Check &ch = n_.checks[q];
      Tag rt = tag(n_.steps[ch.reader].out, n);
      bool cp = ct == Val || ct == Nil, rp = rt == Val || rt == Nil;
      bool as_expected = rt == Err || (ch.expect == Expect::SameClock ? (cp && rp) || (ct == Abs && rt == Abs)
                                       : ch.expect == Expect::Present ? cp
                                                                      : ct == Abs);
      if (!as_expected) push_step(ch.reader, n);
    }
  }

  // A frame's sizes (kept here: read through the node they were a load, a max and a
  // multiply each time a generated sweep named a frame).
  size_t S() const { return s_; }
  size_t RW() const { return rw_; }
  size_t IW() const { return iw_; }
  size_t K() const { return k_; }
  size_t at(size_t n) const { return n & (cap_ - 1); }
  void grow() {
    size_t nc = cap_ * 2;
    std::vector<uint8_t> t(nc * S()), d(nc * S()), q(nc * K());
    std::vector<double> r(nc * RW());
    std::vector<int64_t> w(nc * IW());
    std::vector<uint32_t> b(nc);
    for (size_t n = front_ > 0 ? front_ - 1 : 0; n < back_; ++n) {  // (and the frame that left last: tagless_frame)
      size_t from = at(n), to = n & (nc - 1);
      std::copy_n(&tags_[from * S()], S(), &t[to * S()]);
      std::copy_n(&dead_[from * S()], S(), &d[to * S()]);
      std::copy_n(&reals_[from * RW()], RW(), &r[to * RW()]);
      std::copy_n(&ints_[from * IW()], IW(), &w[to * IW()]);
      std::copy_n(&queued_[from * K()], K(), &q[to * K()]);
      b[to] = bots_[from];
    }
    tags_.swap(t), dead_.swap(d), reals_.swap(r), ints_.swap(w), queued_.swap(q), bots_.swap(b);
    cap_ = nc;
  }
  uint8_t &cell_tag(int c, size_t n) { return tags_[at(n) * S() + static_cast<size_t>(c)]; }
  size_t bytes(int c) const { return static_cast<size_t>(n_.numel[c]) * 8; }
  uint32_t fresh(int c) {  // a block for slot c's value, one reference
    size_t size = static_cast<size_t>(n_.numel[c]);
    if (free_.size() <= size) free_.resize(size + 1);
    uint32_t h;
    if (!free_[size].empty()) {
      h = free_[size].back();
      free_[size].pop_back();
    } else {
      h = static_cast<uint32_t>(blocks_.size());
      blocks_.emplace_back();
      blocks_.back().w.resize(size);
    }
    blocks_[h].refs = 1, blocks_[h].dead = 0;
    blocks_[h].zero = false, blocks_[h].clean = -1;  // written next
    return h;
  }
  // Whether a real block holds no -0.0 and no NaN (x + 0.0 is then x, bit for bit).
  bool clean(uint32_t h) {
    Block &b = blocks_[h];
    if (b.clean < 0) {
      uint64_t bad = 0;
      for (uint64_t w : b.w) bad |= static_cast<uint64_t>(w == 0x8000000000000000ull) | static_cast<uint64_t>((w & 0x7fffffffffffffffull) > 0x7ff0000000000000ull);
      b.clean = bad ? 0 : 1;
    }
    return b.clean == 1;
  }
  void retain(uint32_t h) {
    if (h) ++blocks_[h].refs;
  }
  void release(uint32_t h) {
    if (h && --blocks_[h].refs == 0) {
      if (blocks_[h].dead) dead_left_ = true;  // a dead holder's mark outlived its reference: a bug
      free_[blocks_[h].w.size()].push_back(h);
    }
  }
  // Cell (c, n), a value of a shared slot, lets go of its block: its reference, and its mark
  // with it when it was marked dead.
  void release_cell(int c, size_t n) {
    const uint32_t h = static_cast<uint32_t>(handle(c, n));
    uint8_t &d = dead_[at(n) * S() + static_cast<size_t>(c)];
    if (d) --blocks_[h].dead, d = 0;
    release(h);
    handle(c, n) = 0;
  }
  int64_t &handle(int c, size_t n) { return ints_[at(n) * IW() + static_cast<size_t>(n_.offset[c])]; }
  uint32_t handle(int c, size_t n) const { return static_cast<uint32_t>(ints_[at(n) * IW() + static_cast<size_t>(n_.offset[c])]); }
  void *data(int c, size_t n) {
    if (n_.shared[c]) return blocks_[static_cast<size_t>(handle(c, n))].w.data();
    size_t off = static_cast<size_t>(n_.offset[c]);
    return n_.elem[c] == E::Real ? static_cast<void *>(&reals_[at(n) * RW() + off]) : static_cast<void *>(&ints_[at(n) * IW() + off]);
  }
  const void *data(int c, size_t n) const {
    if (n_.shared[c]) return blocks_[handle(c, n)].w.data();
    size_t off = static_cast<size_t>(n_.offset[c]);
    return n_.elem[c] == E::Real ? static_cast<const void *>(&reals_[at(n) * RW() + off])
                                 : static_cast<const void *>(&ints_[at(n) * IW() + off]);
  }
  double rval(int c, size_t n) const { return reals_[at(n) * RW() + static_cast<size_t>(n_.offset[c])]; }
  int64_t ival(int c, size_t n) const { return ints_[at(n) * IW() + static_cast<size_t>(n_.offset[c])]; }
  Tag tag(int c, size_t n) const { return n < back_ ? static_cast<Tag>(tags_[at(n) * S() + static_cast<size_t>(c)]) : Bot; }
  bool present(int c, size_t n) const { Tag t = tag(c, n); return t == Val || t == Nil; }
  bool bval(int c, size_t n) const { return ival(c, n) != 0; }
  bool skip(int c, size_t n) const {
    if (n_.is_clock[c]) return tag(c, n) == Val && !bval(c, n);
    return tag(c, n) == Abs;
  }
  void copy(int c, size_t n, Out &o) const {
    o.tag = tag(c, n), o.src = data(c, n);
    if (n_.shared[c]) o.block = o.tag == Val ? handle(c, n) : 0;
  }
  Prev prev(int k, size_t n) const {
    int c = n_.steps[k].ticks;
    for (size_t m = n; m-- > front_;)
      if (!skip(c, m)) return {Prev::Window, m};
    return mem_[static_cast<size_t>(k)].has ? Prev{Prev::Remembered, 0} : Prev{};
  }

  // ---- the rules (semantics.md §3-§4; the oracle's rules.cpp, on scalars) ----
  void clock_base(const Step &st, size_t n, Out &o) const {
    (void)st;
    if (n_.ninputs == 0) return o.scalar(), void(o.w.i = 1);
    bool all_abs = true, any_err = false;
    for (int j = 0; j < n_.ninputs; ++j) {
      int c = n_.inputs[j];
      if (present(c, n)) return o.scalar(), void(o.w.i = 1);
      all_abs &= tag(c, n) == Abs;
      any_err |= tag(c, n) == Err;
    }
    if (all_abs) return o.scalar(), void(o.w.i = 0);
    o.set(any_err ? Err : Bot);
  }
  void clock_on(const Step &st, size_t n, Out &o) const {
    int k = st.in[0], x = st.in[1];
    Tag kt = tag(k, n);
    if (kt == Bot || kt == Err) return o.set(kt);
    if (!bval(k, n)) return o.scalar(), void(o.w.i = 0);
    Tag xt = tag(x, n);
    if (xt == Bot) return o.set(Bot);
    if (xt == Val && n_.elem[x] == E::Bool) return o.scalar(), void(o.w.i = (bval(x, n) == st.positive));
    if (xt == Err) return o.set(Err);
    o.err(xt == Abs ? Why::ClockCondAbsent : Why::ClockCondNotBool, x);
  }
  void clock_never(const Step &st, size_t n, Out &o) const {
    Tag bt = tag(st.in[0], n);
    if (bt == Val) return o.scalar(), void(o.w.i = 0);
    o.set(bt == Err ? Err : Bot);
  }
  void constant(const Step &st, size_t n, Out &o) const {
    Tag kt = tag(st.clock, n);
    if (kt == Bot || kt == Err) return o.set(kt);
    if (!bval(st.clock, n)) return o.set(Abs);
    o.scalar(), o.w = st.constant;
  }
  // A function without operands (`zeros(s)`, `glorot_uniform(s)`): a constant of the
  // context clock, computed at its first tick and kept (it reads nothing).
  void fun_constant(int k, const Step &st, size_t n, Out &o) {
    Tag kt = tag(st.clock, n);
    if (kt == Bot || kt == Err) return o.set(kt);
    if (!bval(st.clock, n)) return o.set(Abs);
    uint32_t &c = consts_[static_cast<size_t>(k)];
    if (!c) {
      c = n_.shared[st.out] ? fresh(st.out) : fresh_words(st.out);  // kept: one reference, never released
      st.fn(st.ctx, nullptr, blocks_[c].w.data());
      bool zero = n_.elem[st.out] == E::Real;
      for (uint64_t w : blocks_[c].w) zero = zero && w == 0;
      blocks_[c].zero = zero;
    }
    o.tag = Val, o.src = blocks_[c].w.data();
    if (n_.shared[st.out]) o.block = c;
  }
  uint32_t fresh_words(int c) {  // a block for a scalar constant (not a shared slot)
    blocks_.emplace_back();
    blocks_.back().refs = 1;
    blocks_.back().w.resize(static_cast<size_t>(n_.numel[c]));
    return static_cast<uint32_t>(blocks_.size() - 1);
  }
  void apply(int k, const Step &st, size_t n, Out &o) {
    if (st.k == K::Fun && st.nin == 0) return fun_constant(k, st, n, o);
    const int *ins = st.k == K::Fun ? st.fargs : st.in;
    bool all_abs = true, all_present = true, any_err = false, any_nil = false;
    for (int j = 0; j < st.nin; ++j) {
      Tag t = tag(ins[j], n);
      if (t == Bot) return o.set(Bot);
      all_abs &= t == Abs;
      all_present &= t == Val || t == Nil;
      any_err |= t == Err;
      any_nil |= t == Nil;
    }
    if (all_abs) return o.set(Abs);
    if (!all_present) return any_err ? o.set(Err) : o.err(Why::OpPresence);
    if (any_nil) return o.set(Nil);
    if (st.k == K::Fun && st.add && st.nin == 2 && n_.shared[st.out] && n_.shared[ins[0]] && n_.shared[ins[1]]) {
      // x + zeros: x's block, where that is what the addition computes (Step::add).
      uint32_t a = handle(ins[0], n), b = handle(ins[1], n);
      uint32_t keep = blocks_[b].zero && clean(a) ? a : blocks_[a].zero && clean(b) ? b : 0;
      if (keep) {
        o.tag = Val, o.block = keep, o.src = blocks_[keep].w.data();
        return;
      }
    }
    if (st.k == K::Fun) {
      const void *args[64];
      std::vector<const void *> many;
      const void **a = args;
      if (st.nin > 64) many.resize(static_cast<size_t>(st.nin)), a = many.data();
      for (int j = 0; j < st.nin; ++j) a[j] = data(ins[j], n);
      if (n_.shared[st.out] && st.inplace && tag(st.out, n) == Bot) {
        for (int j = 0; j < st.nin && j < 32; ++j)
          if (st.inplace >> j & 1u) {
            uint32_t b = reusable(k, ins[j], n);
            if (!b) continue;
            ++reused_;
            st.fn(st.ctx, a, blocks_[b].w.data());  // a[j] is the block: the result written over it
            blocks_[b].zero = false, blocks_[b].clean = -1;
            for (auto [c, m] : walked_) dead_[at(m) * S() + static_cast<size_t>(c)] = 1;  // their words are gone
            blocks_[b].dead += static_cast<uint32_t>(walked_.size());
            o.tag = Val, o.block = b, o.src = blocks_[b].w.data();  // run() adds the result cell's reference
            return;
          }
      }
      if (n_.shared[st.out]) {  // into a fresh block, which run() keeps or gives back
        o.block = fresh(st.out), o.fresh = true;
        st.fn(st.ctx, a, blocks_[o.block].w.data());
        o.tag = Val, o.src = blocks_[o.block].w.data();
        return;
      }
      st.fn(st.ctx, a, scratch_.data());
      o.tag = Val, o.src = scratch_.data();
      return;
    }
    if (st.k == K::If) return copy(bval(st.in[0], n) ? st.in[1] : st.in[2], n, o), void(o.tag = Val);
    o.scalar();
    Word a, b;
    if (st.arg == E::Real) a.r = rval(st.in[0], n);
    else a.i = ival(st.in[0], n);
    if (st.k == K::Unary) return void(o.w = unary(st, a));
    if (st.arg == E::Real) b.r = rval(st.in[1], n);
    else b.i = ival(st.in[1], n);
    o.w = binary(st, a, b);
  }
  // In place (Step::inplace): the block of operand slot s at cycle n when no cell will read
  // it again, so that step k may write its result over it; else 0.
  //
  // Why this is safe. The cells holding the block are found by walking back from (s, n)
  // along the rules that share a block instead of computing one (a copy, `when`, `merge`,
  // `post`: each cell on the way holds the same handle), to the cell that computed it. Each
  // such cell must be dead: not read by the host nor kept in a state memory (kept_), and
  // every reader of its slot, but the one the walk came from, reads it at the same cycle
  // and is already known. A known cell's rule runs again only when it is queued (an
  // operand changed, or the sweep and the worklist both meet a cycle's component) or when
  // the fast sweep hands over (leave_fast runs every cell): so no reuse while step k, a
  // walked cell's producer or any of their readers is queued, nor while the fast sweep
  // runs or hands over (its checks re-run readers). Run again otherwise, a known cell can
  // only become ‖, which its rule decides from tags alone. So nothing reads these words
  // again. The block is reused only when its reference count is the number of cells the
  // walk found: any other holder (a cell of another frame, a memory, a kept constant such
  // as zeros, a reader that shared it) makes the count larger. Once the block is written
  // over, the cells the walk found are marked dead (dead_): they stay dead by the argument
  // above, so their references no longer guard the block, and a later walk (from the new
  // result's readers: `acc + outer(d, x)` accumulating backward through a post, cycle after
  // cycle) counts only the live ones, refs - dead. A marked cell gives its mark back with its
  // reference (release_cell); a walk that meets a marked cell stops (no holder counts twice).
  uint32_t reusable(int k, int s, size_t n) {
    walked_.clear();
    if (fast_ || handing_over_ || !n_.shared[s] || tag(s, n) != Val || queued(k, n)) return 0;
    const Step &st = n_.steps[k];
    int seen = 0;
    for (int j = 0; j < st.nin; ++j) seen += st.fargs[j] == s;
    if (seen != 1) return 0;  // read twice by the function: only one read is elementwise
    const uint32_t b = handle(s, n);
    if (!b) return 0;
    for (int j = 0; j < st.nin; ++j)  // another operand sharing the block (restrict: no alias)
      if (st.fargs[j] != s && n_.shared[st.fargs[j]] && tag(st.fargs[j], n) == Val && handle(st.fargs[j], n) == b) return 0;
    const uint32_t live = blocks_[b].refs - blocks_[b].dead;
    uint32_t holders = 0;
    int c = s, from = k;
    size_t m = n;
    while (holders < live) {
      if (tag(c, m) != Val || handle(c, m) != b || kept_[static_cast<size_t>(c)] || dead_[at(m) * S() + static_cast<size_t>(c)]) return 0;
      for (int q = n_.reader_begin[c]; q < n_.reader_begin[c + 1]; ++q) {
        const Reader &r = n_.readers[q];
        if (r.step == from) continue;
        if (r.travel != Travel::Instant || tag(n_.steps[r.step].out, m) == Bot || queued(r.step, m)) return 0;
      }
      ++holders;
      walked_.emplace_back(c, m);
      const int p = producer_[static_cast<size_t>(c)];
      if (p < 0) break;
      if (queued(p, m)) return 0;  // it will run again (the sweep and the worklist both run a cycle's component)
      const Step &ps = n_.steps[p];
      int next = -1;
      size_t at = m;
      if (ps.k == K::Copy || ps.k == K::When) {
        next = ps.in[0];
      } else if (ps.k == K::Merge) {
        for (int j = 1; j <= 2; ++j)
          if (tag(ps.in[j], m) == Val && handle(ps.in[j], m) == b) next = ps.in[j];
      } else if (ps.k == K::Post) {  // the next tick of its clock, as post() finds it
        for (size_t q = m + 1; q < back_ && next < 0; ++q)
          if (tag(ps.clock, q) == Val && bval(ps.clock, q)) next = ps.in[0], at = q;
      }
      if (next < 0) break;  // the cell that computed the block (or one of a state's: counted short)
      from = p, c = next, m = at;
    }
    return holders == live ? b : 0;
  }
  // An operator of the table on scalar words (the operands' element type st.arg).
  static Word unary(const Step &st, Word a) {
    auto op = static_cast<ops::UnOp>(st.op);
    Word r;
    if (st.arg == E::Real && st.res == E::Real) r.r = ops::real_unary(op, a.r);
    else if (st.arg == E::Real) r.i = ops::real_to_int(op, a.r);
    else if (st.res == E::Real) r.r = static_cast<double>(a.i);
    else if (st.res == E::Bool) r.i = ops::int_unary(op, a.i != 0) != 0;
    else r.i = ops::int_unary(op, a.i);
    return r;
  }
  static Word binary(const Step &st, Word a, Word b) {
    auto op = static_cast<ops::BinOp>(st.op);
    bool cmp = ops::is_comparison(op);
    Word r;
    if (st.arg == E::Real) {
      if (cmp) r.i = ops::compare(op, a.r, b.r);
      else r.r = ops::real_binary(op, a.r, b.r);
    } else if (st.arg == E::Bool) {
      r.i = ops::int_binary(op, a.i != 0, b.i != 0) != 0;
    } else {
      int64_t v = ops::int_binary(op, a.i, b.i);
      r.i = cmp ? v != 0 : v;
    }
    return r;
  }
  void when(const Step &st, size_t n, Out &o) const {
    int x = st.in[0], c = st.in[1];
    Tag ct = tag(c, n), xt = tag(x, n);
    if (ct == Bot || ct == Err) return o.set(ct);
    if (ct == Abs) return xt == Bot || xt == Abs ? o.set(Abs) : xt == Err ? o.set(Err) : o.err(Why::WhenPresentCondAbsent);
    if (ct == Nil) return o.err(Why::WhenCondNil);
    if (bval(c, n) == st.positive) {
      if (xt == Val || xt == Nil) return copy(x, n, o);
      return xt == Bot ? o.set(Bot) : xt == Err ? o.set(Err) : o.err(Why::WhenAbsentCondPresent);
    }
    if (xt == Val || xt == Nil || xt == Bot) return o.set(Abs);
    xt == Err ? o.set(Err) : o.err(Why::WhenAbsentCondPresent);
  }
  void merge(const Step &st, size_t n, Out &o) const {
    int c = st.in[0], a = st.in[1], b = st.in[2];
    Tag ct = tag(c, n), at_ = tag(a, n), bt = tag(b, n);
    if (ct == Bot || ct == Err) return o.set(ct);
    if (ct == Nil) return o.err(Why::MergeCondNil);
    auto absentish = [](Tag t) { return t == Bot || t == Abs; };
    if (ct == Abs) {
      if (absentish(at_) && absentish(bt)) return o.set(Abs);
      return at_ == Err || bt == Err ? o.set(Err) : o.err(Why::MergeBranchCondAbsent);
    }
    bool cv = bval(c, n);
    int sel = cv ? a : b, oth = cv ? b : a;
    Tag stg = cv ? at_ : bt, ot = cv ? bt : at_;
    if (!absentish(ot)) return ot == Err ? o.set(Err) : o.err(Why::MergeOtherPresent, oth);
    if (stg == Val || stg == Nil) return copy(sel, n, o);
    stg == Bot ? o.set(Bot) : stg == Err ? o.set(Err) : o.err(Why::MergeSelectedAbsent, sel);
  }
  // The value a state primitive remembered from a frame that left.
  void remembered(const Step &st, const Memory &mem, Out &o) const {
    if (n_.shared[st.out]) o.block = mem.second == Val ? mem.block : 0, o.src = blocks_[o.block].w.data();
    else o.src = mem.value.data();
  }
  void fby(int k, const Step &st, size_t n, Out &o) const {
    int i = st.in[0], e = st.in[1];
    Tag it = tag(i, n), et = tag(e, n);
    if (it == Bot) return o.set(Bot);
    if (it == Abs) return et == Abs || et == Bot ? o.set(Abs) : et == Err ? o.set(Err) : o.err(Why::FbyPresentInitAbsent);
    if (it == Err) return o.set(Err);
    if (et == Abs) return o.err(Why::FbyAbsentInitPresent);
    if (et == Err) return o.set(Err);
    Prev p = prev(k, n);
    if (p.where == Prev::None) return copy(i, n, o);
    const Memory &mem = mem_[static_cast<size_t>(k)];
    Tag ik = p.where == Prev::Window ? tag(i, p.cycle) : mem.first;
    if (ik == Bot || ik == Err) return o.set(ik);
    Tag ek = p.where == Prev::Window ? tag(e, p.cycle) : mem.second;
    if (ek == Val || ek == Nil) {
      if (p.where == Prev::Window) return copy(e, p.cycle, o);
      return o.set(mem.second), remembered(st, mem, o);
    }
    if (ek == Bot) return o.set(Bot);
    if (p.where == Prev::Window && ek == Abs) return o.err_at(p.cycle, Why::FbyAbsentInitPresent);
    o.set(Err);
  }
  void arrow(int k, const Step &st, size_t n, Out &o) const {
    int a = st.in[0], b = st.in[1];
    Tag at_ = tag(a, n), bt = tag(b, n);
    if (at_ == Bot) return o.set(Bot);
    if (at_ == Abs) return bt == Abs || bt == Bot ? o.set(Abs) : bt == Err ? o.set(Err) : o.err(Why::ArrowRightPresent);
    if (at_ == Err) return o.set(Err);
    if (bt == Abs) return o.err(Why::ArrowRightAbsent);
    if (bt == Err) return o.set(Err);
    Prev p = prev(k, n);
    if (p.where == Prev::None) return copy(a, n, o);
    Tag ak = p.where == Prev::Window ? tag(a, p.cycle) : mem_[static_cast<size_t>(k)].first;
    if (ak == Bot || ak == Err) return o.set(ak);
    if (bt == Bot) return o.set(Bot);
    copy(b, n, o);
  }
  void pre(int k, const Step &st, size_t n, Out &o) const {
    int x = st.in[0], kc = st.clock;
    Tag kt = tag(kc, n), xt = tag(x, n);
    if (kt == Bot || kt == Err) return o.set(kt);
    if (!bval(kc, n)) return xt == Abs || xt == Bot ? o.set(Abs) : xt == Err ? o.set(Err) : o.err(Why::PrePresentNoTick);
    if (xt == Abs) return o.err(Why::PreAbsentTick);
    if (xt == Err) return o.set(Err);
    Prev p = prev(k, n);
    if (p.where == Prev::None) return o.set(Nil);
    const Memory &mem = mem_[static_cast<size_t>(k)];
    Tag km = p.where == Prev::Window ? tag(kc, p.cycle) : mem.first;
    if (km == Bot || km == Err) return o.set(km);
    Tag xm = p.where == Prev::Window ? tag(x, p.cycle) : mem.second;
    if (xm == Val || xm == Nil) {
      if (p.where == Prev::Window) return copy(x, p.cycle, o);
      return o.set(mem.second), remembered(st, mem, o);
    }
    if (xm == Bot) return o.set(Bot);
    if (p.where == Prev::Window && xm == Abs) return o.err_at(p.cycle, Why::PreAbsentTick);
    o.set(Err);
  }
  void post(const Step &st, size_t n, Out &o) const {
    int x = st.in[0], kc = st.clock;
    Tag kt = tag(kc, n), xt = tag(x, n);
    if (kt == Bot || kt == Err) return o.set(kt);
    if (!bval(kc, n)) return xt == Abs || xt == Bot ? o.set(Abs) : xt == Err ? o.set(Err) : o.err(Why::PostPresentNoTick);
    if (xt == Abs) return o.err(Why::PostAbsentTick);
    if (xt == Err) return o.set(Err);
    for (size_t m = n + 1; m < back_; ++m) {
      Tag km = tag(kc, m);
      if (km == Bot || km == Err) return o.set(km);
      if (!bval(kc, m)) continue;
      Tag xm = tag(x, m);
      if (xm == Val || xm == Nil) return copy(x, m, o);
      if (xm == Bot) return o.set(Bot);
      return xm == Abs ? o.err_at(m, Why::PostAbsentTick) : o.set(Err);
    }
    o.set(Bot);
  }
  void rule(int k, size_t n, Out &o) {
    ++evaluations_;
    const Step &st = n_.steps[k];
    switch (st.k) {
      case K::ClockBase: return clock_base(st, n, o);
      case K::ClockOn: return clock_on(st, n, o);
      case K::ClockNever: return clock_never(st, n, o);
      case K::Const: return constant(st, n, o);
      case K::Copy: return copy(st.in[0], n, o);
      case K::Unary:
      case K::Binary:
      case K::If:
      case K::Fun: return apply(k, st, n, o);
      case K::When: return when(st, n, o);
      case K::Merge: return merge(st, n, o);
      case K::Fby: return fby(k, st, n, o);
      case K::Pre: return pre(k, st, n, o);
      case K::Arrow: return arrow(k, st, n, o);
      case K::Post: return post(st, n, o);
    }
  }

  // ---- the worklist ----
  Status run(int k, size_t n) {
    Out o;
    rule(k, n, o);
    int c = n_.steps[k].out;
    uint8_t &t = cell_tag(c, n);
    if (n_.shared[c]) {
      bool same = t == o.tag && (o.tag != Val || handle(c, n) == o.block || std::memcmp(data(c, n), o.src, bytes(c)) == 0);
      if (same || (t != Bot && o.tag != Err)) {
        if (o.fresh) release(o.block);
        if (!same) inexact_ = {c, n}, not_monotone_ = true;
        return same ? Status::Ok : Status::Inexact;  // not monotone: a bug, said
      }
      if (t == Val) release_cell(c, n);  // a value turned into an error
      if (t == Bot) --bots_[at(n)];
      t = o.tag;
      if (o.tag == Err) origin(k, n, o);
      if (o.tag == Val) {
        if (!o.fresh) retain(o.block);
        handle(c, n) = o.block;
      } else if (o.fresh) {
        release(o.block);
      }
      return changed(c, n);
    }
    void *w = data(c, n);
    if (t == o.tag && (o.tag != Val || std::memcmp(w, o.src, bytes(c)) == 0)) return Status::Ok;
    if (t != Bot && o.tag != Err) return inexact_ = {c, n}, not_monotone_ = true, Status::Inexact;  // not monotone: a bug, said
    if (t == Bot) --bots_[at(n)];
    t = o.tag;
    if (o.tag == Err) origin(k, n, o);
    if (o.tag == Val && w != o.src) std::memmove(w, o.src, bytes(c));
    return changed(c, n);
  }
  bool queued(int k, size_t m) const { return queued_[at(m) * K() + static_cast<size_t>(k)] != 0; }
  void push_step(int k, size_t m) {
    uint8_t &q = queued_[at(m) * K() + static_cast<size_t>(k)];
    if (q) return;
    q = 1;
    fifo_.push(k, m);
  }
  Status changed(int c, size_t n) {
    bool sweep_now = sweeping_ != SIZE_MAX && n + 1 == back_;
    if (sweep_now && quiet_[static_cast<size_t>(c)]) return Status::Ok;
    bool err = tag(c, n) == Err;
    for (int q = n_.reader_begin[c]; q < n_.reader_begin[c + 1]; ++q) {
      const Reader &r = n_.readers[q];
      bool runs_anyway = sweep_now && n_.comp[r.step] > sweep_comp_;
      if (runs_anyway && r.travel != Travel::Backward) continue;
      if (!runs_anyway) push_step(r.step, n);
      if (r.travel == Travel::Forward) {
        for (size_t m = n + 1; m < back_; ++m) {
          push_step(r.step, m);
          if (!skip(r.ticks, m)) break;
        }
      } else if (r.travel == Travel::Backward) {
        bool in_window = false;
        for (size_t m = n; !in_window && m-- > front_;) {
          push_step(r.step, m);
          in_window = !skip(r.ticks, m);
        }
        if (!in_window && err && mem_[static_cast<size_t>(r.step)].has) return inexact_ = {c, n}, Status::Inexact;
      }
    }
    return Status::Ok;
  }
};

}  // namespace rml::window

#endif
