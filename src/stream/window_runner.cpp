// The stream runner on the window runtime (window_runner.hpp).
#include "stream/window_runner.hpp"

#include "core/normalize.hpp"

namespace rml::stream {

using oracle::Cell;
using oracle::Tag;

std::unique_ptr<WindowRunner> WindowRunner::make(const Plan &plan, const Options &opts, Runner::Emit emit) {
  for (auto &s : plan.slots)
    if (s.numel != 1 || !s.shape.empty()) return nullptr;
  for (auto &st : plan.steps)
    if (st.kind == StepKind::Apply &&
        (st.in.empty() || (st.eq->op != core::ApplyOp::Unary && st.eq->op != core::ApplyOp::Binary && st.eq->op != core::ApplyOp::If)))
      return nullptr;
  WindowTables t = window_tables(plan, [](const core::Equation &) { return false; }, opts.retime);
  for (size_t c = 0; c < plan.slots.size(); ++c)  // FrameView reads a cell at the plan's offset
    if (static_cast<size_t>(t.offset[c]) != plan.slots[c].offset) return nullptr;
  return std::make_unique<WindowRunner>(plan, opts, std::move(emit), std::move(t));
}

WindowRunner::WindowRunner(const Plan &plan, const Options &opts, Runner::Emit emit, WindowTables tables)
    : plan_(plan), opts_(opts), emit_(std::move(emit)), tables_(std::move(tables)) {
  node_ = tables_.node();
  // The window is the runner's to keep (push() checks it once ready frames have left).
  run_ = std::make_unique<window::Runner>(node_, opts_.lag, SIZE_MAX);
  run_->record_origins(true);
  clock_violations_.assign(plan.input_slots.size(), "");
  tags_.resize(plan.input_slots.size());
  values_.resize(plan.input_slots.size());
  words_.resize(plan.input_slots.size());
  block_of_.assign(plan.slots.size(), -1);
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
    else words_[j] = c.value.i.at(0), values_[j] = &words_[j];
  }
  status(run_->push(tags_.data(), values_.data()));
  widest_ = std::max(widest_, run_->back() - run_->front());
  while (run_->ready()) leave();
  if (run_->back() - run_->front() > opts_.max_window) {
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
      throw ExactnessLost("the stream backend already emitted cycle " + std::to_string(run_->front() - 1) + ", but an error value (‖) of '" +
                          var + "' at cycle " + std::to_string(n) +
                          " reaches it through a 'post': its output is not exact; run with a larger lag or in the oracle");
    }
    default: throw StreamError("internal: the window runtime stopped (status " + std::to_string(static_cast<int>(s)) + ")");
  }
}

// The runtime's origins, worded as the runner's rules word them (runner.cpp).
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
  v.reals_ = run_->sweep_reals(n);
  v.ints_ = run_->sweep_ints(n);
  v.block_of_ = block_of_.data();  // no tensor blocks: every slot is a scalar
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
