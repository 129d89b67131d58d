// The stream runner on the window runtime (window_runner.hpp).
#include "stream/window_runner.hpp"

#include <algorithm>
#include <cstring>

#include "array/elementwise.hpp"
#include "core/normalize.hpp"
#include "stream/retime.hpp"

namespace rml::stream {

using oracle::Cell;
using oracle::Tag;

// A K::Fun step's context: what its entry reads and the storage it keeps.
struct WindowRunner::Fun {
  WindowRunner *self = nullptr;
  int step = -1;
  bool asked = false;             // the executable (Options::fun_executable) asked for
  exec::Executable *exe = nullptr;
  std::vector<array::Tensor> operands;  // loaded from their words (storage kept)
  std::vector<int64_t> index_at;
  std::vector<size_t> sizes;            // an array literal's parts' sizes
  std::vector<const void *> raw_args;
  std::vector<void *> raw_outs;
};

std::unique_ptr<WindowRunner> WindowRunner::make(const CheckedProgram &cp, const Plan &plan, const Options &opts, Runner::Emit emit) {
  auto tensor = [&](const std::string &v) { return !plan.slots[static_cast<size_t>(plan.slot(v))].shape.empty(); };
  // (an imported node has no body: its entry says so when it is computed)
  WindowTables t = window_tables(
      plan, [&](const core::Equation &eq) { return applied_by_function(eq, tensor) || eq.op == core::ApplyOp::Imported; }, opts.retime,
      nullptr, post_lookahead(static_cast<int64_t>(std::min<size_t>(opts.lag, SIZE_MAX / 2))));
  return std::make_unique<WindowRunner>(cp, plan, opts, std::move(emit), std::move(t));
}

// Indexing and array literals run on words (index_words, stack_words), which trust their
// sizes: the type checker guarantees them, and this says an internal error, once per
// step, rather than write past a result's words.
static void check_words(const Plan &plan, const Step &st) {
  if (!st.eq) return;
  const core::Equation &eq = *st.eq;
  if (eq.op != core::ApplyOp::Index && eq.op != core::ApplyOp::Array) return;
  const Slot &r = plan.slots[static_cast<size_t>(st.out)];
  auto slot = [&](size_t j) -> const Slot & { return plan.slots[static_cast<size_t>(st.in[j])]; };
  size_t words = 0;
  bool ok = !st.in.empty() && slot(0).elem == r.elem;
  if (ok && eq.op == core::ApplyOp::Index) {
    const size_t n = st.in.size() - 1;
    ok = n <= slot(0).shape.size();
    words = 1;
    for (size_t d = n; ok && d < slot(0).shape.size(); ++d) words *= static_cast<size_t>(slot(0).shape[d]);
  } else if (ok) {
    for (size_t j = 0; j < st.in.size(); ++j) ok = ok && slot(j).elem == r.elem, words += slot(j).numel;
  }
  if (!ok || words != r.numel) throw StreamError("internal: the operands of '" + r.name + "' do not have its type or size");
}

WindowRunner::WindowRunner(const CheckedProgram &cp, const Plan &plan, const Options &opts, Runner::Emit emit, WindowTables tables)
    : cp_(cp), plan_(plan), opts_(opts), emit_(std::move(emit)), eval_(cp), tables_(std::move(tables)) {
  funs_.resize(tables_.steps.size());
  for (size_t k = 0; k < tables_.steps.size(); ++k) {
    window::Step &st = tables_.steps[k];
    if (st.k != window::K::Fun) continue;
    funs_[k] = std::make_unique<Fun>();
    funs_[k]->self = this, funs_[k]->step = static_cast<int>(k);
    funs_[k]->operands.resize(plan.steps[k].in.size());
    check_words(plan, plan.steps[k]);
    st.fn = &WindowRunner::fun_entry, st.ctx = funs_[k].get();
    // The elementwise loops (fun_entry) read element i of an operand of the result's type
    // only to write element i: the result may go over that operand's block.
    const core::Equation &eq = *plan.steps[k].eq;
    const Slot &r = plan.slots[static_cast<size_t>(plan.steps[k].out)];
    if (eq.op == core::ApplyOp::Unary || eq.op == core::ApplyOp::Binary)
      for (size_t j = 0; j < plan.steps[k].in.size(); ++j) {
        const Slot &a = plan.slots[static_cast<size_t>(plan.steps[k].in[j])];
        if (a.shape == r.shape && a.elem == r.elem && !r.shape.empty()) st.inplace |= 1u << j;
      }
  }
  // What the host reads: the slots the emit callback reads (all unless said), none without one.
  tables_.observed.assign(plan.slots.size(), emit_ && !opts_.read_slots ? 1 : 0);
  if (emit_ && opts_.read_slots)
    for (int c : *opts_.read_slots) {
      if (c < 0 || static_cast<size_t>(c) >= plan.slots.size())
        throw StreamError("Options::read_slots names slot " + std::to_string(c) + ", but the plan has " + std::to_string(plan.slots.size()) + " slots");
      tables_.observed[static_cast<size_t>(c)] = 1;
    }
  node_ = tables_.node();
  // The window is the runner's to keep (push() checks it once ready frames have left).
  run_ = std::make_unique<window::Runner>(node_, opts_.lag, SIZE_MAX);
  run_->record_origins(true);
  clock_violations_.assign(plan.input_slots.size(), "");
  tags_.resize(plan.input_slots.size());
  values_.resize(plan.input_slots.size());
  words_.resize(plan.input_slots.size());
}

WindowRunner::~WindowRunner() = default;

// An application on its operands' values, through the reference evaluator (window_runner.hpp).
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

// A K::Fun step: the result's words at `out` from the operands' at args[k] (the runtime's
// frame words or blocks).
void WindowRunner::fun_entry(void *ctx, const void *const *args, void *out) {
  Fun &f = *static_cast<Fun *>(ctx);
  WindowRunner &w = *f.self;
  const Step &st = w.plan_.steps[static_cast<size_t>(f.step)];
  const core::Equation &eq = *st.eq;
  const Slot &r = w.plan_.slots[static_cast<size_t>(st.out)];
  const size_t nin = st.in.size();
  auto slot = [&](size_t j) -> const Slot & { return w.plan_.slots[static_cast<size_t>(st.in[j])]; };
  auto put = [&](const array::Tensor &v) {  // the result's words
    if (v.elem != r.elem || v.numel() != r.numel) throw StreamError("internal: result of '" + r.name + "' has the wrong type or size");
    if (v.elem == Scalar::Real) std::copy_n(v.r.data(), r.numel, static_cast<double *>(out));
    else std::copy_n(v.i.data(), r.numel, static_cast<int64_t *>(out));
  };
  // A fun with an executable: run on the words where they are.
  if (eq.op == core::ApplyOp::Call && !eq.builtin && w.opts_.fun_executable && nin > 0) {
    if (!f.asked) {
      const Decl *d = w.cp_.find(eq.fn);
      std::vector<ir::Type> types;
      for (size_t j = 0; j < nin; ++j) types.push_back(ir::Type{slot(j).elem, slot(j).shape});
      if (d && std::holds_alternative<FunDecl>(*d)) f.exe = w.opts_.fun_executable(eq.fn, eq.static_args, types);  // may throw: asked again
      f.asked = true;
    }
    if (f.exe) {
      f.raw_args.assign(args, args + nin);
      f.raw_outs.assign(1, out);
      return f.exe->run_raw(f.raw_args, f.raw_outs);
    }
  }
  // Elementwise operators on the words where they are (the evaluator's loops).
  if (eq.op == core::ApplyOp::Unary)
    return array::elementwise_unary_words(eq.un, slot(0).elem, r.elem, r.numel, args[0], out);
  if (eq.op == core::ApplyOp::Binary && (slot(0).shape.empty() || slot(1).shape.empty() || slot(0).shape == slot(1).shape))
    return array::elementwise_binary_words(eq.bin, slot(0).elem, r.numel, args[0], slot(0).shape.empty(), args[1], slot(1).shape.empty(), out);
  const bool call1 = eq.op == core::ApplyOp::Call && eq.builtin && nin == 1;
  const bool tr = call1 && eq.fn == "tr" && slot(0).shape.size() == 2, reshape = call1 && eq.fn == "reshape";
  if (tr)  // on the words where they are
    return array::Evaluator::transpose_words(static_cast<size_t>(slot(0).shape[0]), static_cast<size_t>(slot(0).shape[1]), args[0], out);
  if (reshape)  // the same elements in the same order
    return void(std::memcpy(out, args[0], r.numel * 8));
  // Indexing and array literals: the evaluator's functions on the words where they are.
  if (eq.op == core::ApplyOp::Index) {
    f.index_at.clear();
    for (size_t q = 1; q < nin; ++q) f.index_at.push_back(*static_cast<const int64_t *>(args[q]));
    return array::Evaluator::index_words(slot(0).shape.data(), args[0], f.index_at.data(), f.index_at.size(), r.numel, out);
  }
  if (eq.op == core::ApplyOp::Array) {
    f.sizes.clear();
    for (size_t j = 0; j < nin; ++j) f.sizes.push_back(slot(j).numel);
    return array::Evaluator::stack_words(args, f.sizes.data(), nin, out);
  }
  // Anything else: the operands as tensors, their storage kept.
  for (size_t j = 0; j < nin; ++j) {
    array::Tensor &t = f.operands[j];
    t.elem = slot(j).elem, t.shape = slot(j).shape;
    if (t.elem == Scalar::Real) t.r.assign(static_cast<const double *>(args[j]), static_cast<const double *>(args[j]) + slot(j).numel), t.i.clear();
    else t.i.assign(static_cast<const int64_t *>(args[j]), static_cast<const int64_t *>(args[j]) + slot(j).numel), t.r.clear();
  }
  put(apply_application(w.cp_, w.eval_, w.opts_, eq, f.operands));
}

void WindowRunner::push(const std::vector<Cell> &inputs) {
  if (finished_) throw StreamError("internal: a cycle pushed after the end of the trace");
  if (inputs.size() != plan_.input_slots.size())
    throw StreamError("expected " + std::to_string(plan_.input_slots.size()) + " inputs, got " + std::to_string(inputs.size()));
  const size_t n = run_->back();
  for (size_t j = 0; j < inputs.size(); ++j) {
    const Cell &c = inputs[j];
    const Slot &s = plan_.slots[static_cast<size_t>(plan_.input_slots[j])];
    if (c.tag == Tag::Bot)
      throw StreamError("the input '" + s.name + "' is unknown (?) at cycle " + std::to_string(n) +
                        ": the stream backend needs every input cell known (the oracle accepts unknown inputs)");
    if (c.tag == Tag::Val && (c.value.elem != s.elem || c.value.shape != s.shape))
      throw StreamError("the input '" + s.name + "' at cycle " + std::to_string(n) + " has a value of the wrong type");
    tags_[j] = static_cast<window::Tag>(c.tag);
    values_[j] = nullptr;
    if (c.tag != Tag::Val) continue;
    if (s.elem == Scalar::Real) values_[j] = c.value.r.data();
    else if (s.numel > 1 || !s.shape.empty()) values_[j] = c.value.i.data();
    else words_[j] = c.value.i.at(0), values_[j] = &words_[j];
  }
  status(run_->push(tags_.data(), values_.data()));
  widest_ = std::max(widest_, run_->back() - run_->front());
  while (run_->ready()) leave();
  // A retimed cell is computed up to max_lag cycles after its own: its frame stays that
  // much longer (rml compile sizes a retimed class so too).
  const size_t late = tables_.retiming ? static_cast<size_t>(tables_.retiming->max_lag) : 0;
  if (run_->back() - run_->front() > opts_.max_window && run_->back() - run_->front() - late > opts_.max_window) {
    size_t f = run_->front();
    std::string var;  // a variable the user wrote, if one is unknown, else a generated one
    for (size_t c = 0; c < plan_.slots.size(); ++c) {
      const std::string &v = plan_.slots[c].name;
      if (plan_.slots[c].clock || run_->sweep_tags(f)[c] != window::Bot) continue;
      if (var.empty() || (var.find('$') != std::string::npos && v.find('$') == std::string::npos)) var = v;
    }
    throw WindowLimitError("the stream backend holds " + std::to_string(run_->back() - f) + " cycles, more than its window of " +
                               std::to_string(opts_.max_window) + ": '" + var + "' at cycle " + std::to_string(f) +
                               " is still unknown (the trace breaks the node's assumptions, or the horizon is wrong)",
                           f, var);
  }
}

void WindowRunner::finish() {
  retimed_ = run_->fast();
  status(run_->finish());
  while (run_->held()) leave();
  finished_ = true;
}

void WindowRunner::status(window::Status s) {
  collect_origins();
  switch (s) {
    case window::Status::Ok: return;
    case window::Status::Inexact: {
      auto [c, n] = run_->inexact();
      std::string var = c >= 0 ? plan_.slots[static_cast<size_t>(c)].name : "?";
      if (run_->not_monotone()) throw StreamError("internal: non-monotone update of '" + var + "' at cycle " + std::to_string(n));
      throw ExactnessLost("the stream backend already emitted cycle " + std::to_string(run_->front() - 1) + ", but an error value (‖) of '" +
                          var + "' at cycle " + std::to_string(n) +
                          " reaches it through a 'post': its output is not exact; run with a larger lag or in the oracle");
    }
    default: throw StreamError("internal: the window runtime stopped (status " + std::to_string(static_cast<int>(s)) + ")");
  }
}

// The runtime's origins, worded as the oracle words them (oracle/rules.cpp).
void WindowRunner::collect_origins() {
  const auto &all = run_->origins();
  for (; origins_read_ < all.size(); ++origins_read_) {
    const window::Runner::Origin &o = all[origins_read_];
    const Step &st = plan_.steps[static_cast<size_t>(o.step)];
    auto name = [&](int c) { return plan_.slots[static_cast<size_t>(c)].name; };
    auto in = [&](size_t j) { return name(st.in.at(j)); };
    oracle::ErrorOrigin e;
    auto say = [&](const char *rule, std::string message) { e.rule = rule, e.message = std::move(message); };
    e.var = name(st.out);
    e.cycle = o.cycle;
    if (st.eq) e.span = st.eq->span;
    using W = window::Why;
    switch (o.why) {
      case W::None: continue;
      case W::ClockCondAbsent:
      case W::ClockCondNotBool:
        say("clock", "the clock's condition '" + name(o.about) + "' is " + (o.why == W::ClockCondAbsent ? "absent" : "not a bool") +
                         " where its parent clock ticks");
        break;
      case W::OpPresence:
        say("op", "the operands of '" + core::apply_name(*st.eq) + "' are not all present or all absent");
        break;
      case W::WhenPresentCondAbsent: say("when", "'" + in(0) + "' is present but the condition '" + in(1) + "' is absent"); break;
      case W::WhenCondNil: say("when", "the condition is the uninitialised first value of a 'pre'"); break;
      case W::WhenAbsentCondPresent: say("when", "'" + in(0) + "' is absent but the condition '" + in(1) + "' is present"); break;
      case W::MergeCondNil: say("merge", "the condition is the uninitialised first value of a 'pre'"); break;
      case W::MergeBranchCondAbsent: say("merge", "a branch is present but the condition '" + in(0) + "' is absent"); break;
      case W::MergeOtherPresent:
        say("merge", "the branch '" + name(o.about) + "' is present but the condition selects the other one");
        break;
      case W::MergeSelectedAbsent: say("merge", "the selected branch '" + name(o.about) + "' is absent"); break;
      case W::FbyPresentInitAbsent: say("fby", "'" + in(1) + "' is present but '" + in(0) + "' is absent"); break;
      case W::FbyAbsentInitPresent: say("fby", "'" + in(1) + "' is absent but '" + in(0) + "' is present"); break;
      case W::ArrowRightPresent: say("arrow", "the right operand is present but the left one is absent"); break;
      case W::ArrowRightAbsent: say("arrow", "the right operand is absent but the left one is present"); break;
      case W::PrePresentNoTick: say("pre", "'" + in(0) + "' is present where its clock does not tick"); break;
      case W::PreAbsentTick: say("pre", "'" + in(0) + "' is absent where its clock ticks"); break;
      case W::PostPresentNoTick: say("post", "'" + in(0) + "' is present where its clock does not tick"); break;
      case W::PostAbsentTick: say("post", "'" + in(0) + "' is absent where its clock ticks"); break;
    }
    origins_.push_back(std::move(e));
  }
}

FrameView WindowRunner::view(size_t n) {
  FrameView v;
  v.cycle = n;
  v.plan_ = &plan_;
  v.tags_ = run_->sweep_tags(n);
  v.readable_ = tables_.observed.data();  // (what the runtime never overwrites)
  v.window_ = run_.get();  // the cells are the runtime's front frame
  return v;
}

// The front frame is final: its inputs checked against their clocks (the first violation
// per input, as the oracle reports them), emitted, and dropped (its state remembered).
void WindowRunner::leave() {
  const size_t f = run_->front();
  const uint8_t *tags = run_->sweep_tags(f);
  const int64_t *ints = run_->sweep_ints(f);
  for (size_t j = 0; j < plan_.input_slots.size(); ++j) {
    if (!clock_violations_[j].empty()) continue;
    const int c = plan_.input_slots[j], k = plan_.input_clock_slots[j];
    const Tag kt = static_cast<Tag>(tags[k]), xt = static_cast<Tag>(tags[c]);
    if (kt != Tag::Val || xt == Tag::Bot || xt == Tag::Err) continue;
    const bool ticks = ints[plan_.slots[static_cast<size_t>(k)].offset] != 0, pres = xt == Tag::Val || xt == Tag::Nil;
    if (ticks == pres) continue;
    std::string clock = plan_.slots[static_cast<size_t>(k)].name.substr(3);  // "ck:" + the clock's text
    clock_violations_[j] = plan_.slots[static_cast<size_t>(c)].name + " at cycle " + std::to_string(f) + ": " +
                           (pres ? "present where its clock " + clock + " is false" : "absent where its clock " + clock + " is true");
  }
  if (emit_) emit_(view(f));
  run_->leave();
}

std::vector<std::string> WindowRunner::input_clock_violations() const {
  std::vector<std::string> v;
  for (auto &s : clock_violations_)
    if (!s.empty()) v.push_back(s);
  return v;
}

}  // namespace rml::stream
