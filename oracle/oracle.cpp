// The oracle's interface: cells, results, and Oracle over its Impl (impl.hpp).
#include "oracle/oracle.hpp"

#include <algorithm>

#include "oracle/impl.hpp"

namespace rml::oracle {

std::string Cell::str() const {
  switch (tag) {
    case Tag::Bot: return "?";
    case Tag::Abs: return "_";
    case Tag::Err: return "\u2016";  // ‖
    case Tag::Nil: return "nil";
    case Tag::Val: return value.str();
  }
  return "?";
}


bool Result::has(const std::string &var) const { return data && data->col_of.count(var) && !data->store.cols[data->col_of.at(var)].clock; }

Cell Result::at(const std::string &var, size_t n) const {
  auto it = data->col_of.find(var);
  if (it == data->col_of.end()) throw OracleError("no variable '" + var + "'");
  Cell c;
  c.tag = data->store.tag(it->second, n);
  if (c.tag == Tag::Val) c.value = data->store.tensor(it->second, n);
  return c;
}

std::vector<Cell> Result::stream(const std::string &var) const {
  std::vector<Cell> out;
  for (size_t n = 0; n < cycles; ++n) out.push_back(at(var, n));
  return out;
}

Tag Result::tag(const std::string &var, size_t n) const {
  auto it = data->col_of.find(var);
  if (it == data->col_of.end()) throw OracleError("no variable '" + var + "'");
  return data->store.tag(it->second, n);
}

bool Result::any_error() const {
  const Store &s = data->store;
  for (size_t n = 0; n < s.N; ++n)
    for (size_t c = 0; c < s.cols.size(); ++c)
      if (!s.cols[c].clock && s.tag(static_cast<int>(c), n) == Tag::Err) return true;
  return false;
}

Oracle::Oracle(const CheckedProgram &cp, const core::Program &prog, Options opts)
    : impl_(std::make_unique<Impl>(cp, prog, core::infer_clocks(prog), opts)) {}
Oracle::Oracle(const CheckedProgram &cp, const core::Program &prog, const core::Clocks &clocks, Options opts)
    : impl_(std::make_unique<Impl>(cp, prog, clocks, opts)) {}
Oracle::~Oracle() = default;
Result Oracle::run(const Inputs &in, Solver solver) { return impl_->run(in, solver); }
uint64_t Oracle::memory_needed(size_t cycles, Solver solver) const { return impl_->memory_needed(cycles, solver); }
uint64_t Oracle::cell_elements(const std::string &var) const {
  auto it = impl_->col_of.find(var);
  return it == impl_->col_of.end() ? 0 : impl_->templ[static_cast<size_t>(it->second)].numel;
}
void Oracle::check_memory(size_t cycles, uint64_t needed, uint64_t limit) const { impl_->check_memory(cycles, needed, limit); }
const core::Clocks &Oracle::clocks() const { return impl_->clocks; }

}  // namespace rml::oracle
