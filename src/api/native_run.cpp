#include "api/native_run.hpp"

#include <algorithm>
#include <filesystem>
#include <new>

#include "codegen/emit_cpp.hpp"

namespace rml::api {

namespace {

// The generated code's rml::Status (src/codegen's rml_cell.hpp), in words.
const char *status_name(int st) {
  enum Status { Ok, InputClock, Error, Unknown, Window, Inexact };
  switch (st) {
    case InputClock: return "an input off its clock";
    case Error: return "a case rml-check's proof excludes (a nil condition)";
    case Unknown: return "an unknown input";
    case Window: return "a cell unknown past the window";
    case Inexact: return "an error value reaching a cycle already given out";
    case codegen::kAbiException: return "out of memory";
  }
  return "an unknown status";
}

}  // namespace

std::unique_ptr<NativeRows> NativeRows::make(const Program::State &s, const StreamSetup &setup, const RunOptions &o, bool rereadable,
                                             std::string &why) {
  const core::Program &prog = s.elab.prog;
  const stream::Plan &plan = setup.plan;
  // A clock clash rml-check accepted under an assumption: a step class computes the clashing
  // cells without looking at presence, so a cycle that breaks the assumption would get a
  // value where the oracle has an error value (the machine refuses such nodes too). A window
  // class runs the rules, which look.
  const bool clashes = !s.elab.clocks.clashes.empty();
  if (!rereadable) {
    why = "the trace can be read only once (a pipe or standard input), and the window runtime would need it again where the class stops";
    return nullptr;
  }
  // The class's outputs are what the run reads of it: the shown streams that are not
  // inputs, then the assumptions' conditions (the run watches them); every other variable
  // is a local of the class. Its ports are read by name, so the slots are the run's plan's.
  core::Program watched = prog;
  watched.outputs.clear();
  watched.locals.clear();
  auto is_input = [&](const std::string &v) {
    return std::any_of(prog.inputs.begin(), prog.inputs.end(), [&](const core::Var &x) { return x.name == v; });
  };
  std::vector<std::string> read;
  for (auto &v : setup.vars)
    if (!is_input(v)) read.push_back(v);
  for (auto &a : prog.assumptions) read.push_back(a.var);
  for (auto &v : read)
    for (const auto *vars : {&prog.outputs, &prog.locals})
      for (auto &x : *vars)
        if (x.name == v && std::none_of(watched.outputs.begin(), watched.outputs.end(), [&](const core::Var &y) { return y.name == v; }))
          watched.outputs.push_back(x);
  for (const auto *vars : {&prog.outputs, &prog.locals})
    for (auto &x : *vars)
      if (std::none_of(watched.outputs.begin(), watched.outputs.end(), [&](const core::Var &y) { return y.name == x.name; }))
        watched.locals.push_back(x);
  std::unique_ptr<NativeRows> r(new NativeRows());
  r->port_of_slot_.assign(plan.slots.size(), -1);
  auto ports = [&](const std::vector<core::Var> &vars, std::vector<codegen::AbiPort> &out, int base) {
    for (size_t k = 0; k < vars.size(); ++k) {
      const stream::Slot &sl = plan.slots[static_cast<size_t>(plan.slot(vars[k].name))];
      out.push_back({vars[k].name, sl.elem, sl.shape});
      r->port_of_slot_[static_cast<size_t>(plan.slot(vars[k].name))] = base + static_cast<int>(k);
    }
  };
  ports(watched.inputs, r->in_, 0);
  ports(watched.outputs, r->out_, static_cast<int>(watched.inputs.size()));
  // An input shown or watched (an assumption's condition may be one) is read from the
  // cycle's pushed cells when its row is given.
  for (auto &v : setup.vars) r->keep_inputs_ |= is_input(v);
  for (auto &a : prog.assumptions) r->keep_inputs_ |= is_input(a.var);
  std::vector<codegen::GeneratedFile> files;
  codegen::EmitInfo info;
  try {
    // (Named by the file's name alone in the class's comments, so that the cache key does
    // not depend on how the path was spelled.)
    files = codegen::emit_cpp(watched, s.elab.clocks, stream::build_plan(watched, s.elab.clocks),
                              std::filesystem::path(s.file).filename().string(), "rml_generated", setup.horizon, &s.frontend->checked, &info);
  } catch (codegen::CodegenError &e) {
    why = "rml compile does not generate it (" + e.rule + "): " + e.what();
    return nullptr;
  } catch (stream::PlanError &e) {
    why = std::string("no plan: ") + e.what();
    return nullptr;
  }
  if (clashes && !info.window) {
    why = "the static clock calculus does not unify (" + s.elab.clocks.clashes[0].message +
          "), which rml-check accepts under the node's assumptions, and a step class computes such cells without their presence";
    return nullptr;
  }
  codegen::NativeBuild build;
  build.compiler = o.native.compiler;
  build.cache_dir = o.native.cache_dir;
  r->compiler_ = codegen::native_compiler(build);
  try {
    r->cls_ = std::make_unique<codegen::NativeClass>(files, codegen::class_name(s.main), codegen::abi_signature(r->in_, r->out_), build);
  } catch (codegen::NativeUnavailable &e) {
    why = e.what();
    return nullptr;
  } catch (std::bad_alloc &) {
    why = "out of memory while loading it";
    return nullptr;
  } catch (std::exception &e) {  // (the file system's, say: the run goes on without the class)
    why = e.what();
    return nullptr;
  }
  r->abi_in_.resize(r->in_.size());
  r->kinds_.resize(r->out_.size());
  r->reals_.resize(r->out_.size());
  r->ints_.resize(r->out_.size());
  for (size_t k = 0; k < r->out_.size(); ++k) {
    if (r->out_[k].elem == Scalar::Real) r->reals_[k].resize(r->out_[k].numel()), r->words_.push_back(r->reals_[k].data());
    else r->ints_[k].resize(r->out_[k].numel()), r->words_.push_back(r->ints_[k].data());
  }
  r->cells_.resize(r->in_.size() + r->out_.size());
  return r;
}

void NativeRows::push(const std::vector<oracle::Cell> &inputs, const Row &row) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    const oracle::Cell &x = inputs[k];
    if (x.tag == oracle::Tag::Abs) {
      abi_in_[k] = {codegen::kAbiAbsent, nullptr};
      continue;
    }
    // Unknown, nil or error inputs are the window runtime's to refuse or run.
    if (x.tag != oracle::Tag::Val) throw NativeStop{"an input not a value nor absent"};
    const size_t n = in_[k].elem == Scalar::Real ? x.value.r.size() : x.value.i.size();
    if (x.value.elem != in_[k].elem || n != in_[k].numel()) throw NativeStop{"an input of another type"};
    abi_in_[k] = {codegen::kAbiValue, in_[k].elem == Scalar::Real ? static_cast<const void *>(x.value.r.data()) : x.value.i.data()};
  }
  if (keep_inputs_) held_.push_back(inputs);
  if (const int st = cls_->push(abi_in_.data()); st != 0) throw NativeStop{status_name(st)};
  drain(row);
}

void NativeRows::finish(const Row &row) {
  engine_ = cls_->engine();
  if (const int st = cls_->finish(); st != 0) throw NativeStop{status_name(st)};
  drain(row);
}

void NativeRows::drain(const Row &row) {
  for (int got; (got = cls_->pop(kinds_.data(), words_.data())) != 0;) {
    if (got != 1) throw NativeStop{status_name(got)};
    // A window class runs on past an input off its clock or a nil condition, as the oracle
    // does (it says so as the cycle leaves), and error values may then be in cells the
    // class does not give: the runtime words their origins.
    if (!cls_->clean()) throw NativeStop{"an input off its clock or an error value"};
    for (size_t k = 0; k < out_.size(); ++k) {
      oracle::Cell &c = cells_[in_.size() + k];
      switch (kinds_[k]) {
        case codegen::kAbiAbsent: c = oracle::Cell::absent(); break;
        case codegen::kAbiNil: c = oracle::Cell{oracle::Tag::Nil, {}}; break;
        case codegen::kAbiUnknown: c = oracle::Cell::bot(); break;
        case codegen::kAbiValue: {
          array::Tensor t;
          t.elem = out_[k].elem;
          t.shape = out_[k].shape;
          if (t.elem == Scalar::Real) t.r = reals_[k];
          else t.i = ints_[k];
          c = oracle::Cell::of(std::move(t));
          break;
        }
        default: throw NativeStop{"an error value"};  // whose origin only the window runtime words
      }
    }
    if (keep_inputs_) {
      std::copy(held_.front().begin(), held_.front().end(), cells_.begin());
      held_.pop_front();
    }
    row();
  }
}

std::string NativeRows::engine() const {
  const int e = engine_;
  std::string what = (e & 1) ? std::string("window class") + ((e & 4) ? ", retimed, tagless" : (e & 2) ? ", retimed" : "") : "step class";
  return "native " + what + " (compiled by " + compiler_ + (cls_->from_cache() ? ", from the cache" : "") + ": " + cls_->library() + ")";
}

}  // namespace rml::api
