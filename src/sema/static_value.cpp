#include "sema/static_value.hpp"

#include <algorithm>

namespace rml {

static int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw StaticError("static arithmetic overflows 64 bits");
  return r;
}
static int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw StaticError("static arithmetic overflows 64 bits");
  return r;
}

Poly Poly::constant(int64_t c) {
  Poly p;
  if (c != 0) p.terms_[{}] = c;
  return p;
}
Poly Poly::symbol(const std::string &name) {
  Poly p;
  p.terms_[{name}] = 1;
  return p;
}
bool Poly::is_const() const { return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty()); }
int64_t Poly::const_value() const { return terms_.empty() ? 0 : terms_.begin()->second; }
std::optional<std::string> Poly::as_symbol() const {
  if (terms_.size() == 1 && terms_.begin()->first.size() == 1 && terms_.begin()->second == 1)
    return terms_.begin()->first[0];
  return std::nullopt;
}
std::vector<std::string> Poly::symbols() const {
  std::vector<std::string> out;
  for (auto &[m, c] : terms_)
    for (auto &s : m)
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

Poly Poly::operator+(const Poly &o) const {
  Poly r = *this;
  for (auto &[m, c] : o.terms_) {
    int64_t v = checked_add(r.terms_[m], c);
    if (v == 0) r.terms_.erase(m);
    else r.terms_[m] = v;
  }
  return r;
}
Poly Poly::negate() const {
  Poly r;
  for (auto &[m, c] : terms_) r.terms_[m] = checked_mul(c, -1);
  return r;
}
Poly Poly::operator-(const Poly &o) const { return *this + o.negate(); }
Poly Poly::operator*(const Poly &o) const {
  Poly r;
  for (auto &[m1, c1] : terms_)
    for (auto &[m2, c2] : o.terms_) {
      std::vector<std::string> m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      Poly t;
      t.terms_[m] = checked_mul(c1, c2);
      r = r + t;
    }
  return r;
}

std::string Poly::str() const {
  if (terms_.empty()) return "0";
  std::string out;
  bool first = true;
  // Constant term last reads better: n + 1.
  auto emit = [&](const std::vector<std::string> &m, int64_t c) {
    int64_t a = c < 0 ? -c : c;
    if (first) out += c < 0 ? "-" : "";
    else out += c < 0 ? " - " : " + ";
    first = false;
    std::string mono;
    for (size_t i = 0; i < m.size(); ++i) mono += (i ? "*" : "") + m[i];
    if (m.empty()) out += std::to_string(a);
    else if (a == 1) out += mono;
    else out += std::to_string(a) + "*" + mono;
  };
  for (auto &[m, c] : terms_)
    if (!m.empty()) emit(m, c);
  auto it = terms_.find({});
  if (it != terms_.end()) emit(it->first, it->second);
  return out;
}

Poly Poly::subst(const std::map<std::string, Poly> &s) const {
  Poly r;
  for (auto &[m, c] : terms_) {
    Poly t = Poly::constant(c);
    for (auto &sym : m) {
      auto it = s.find(sym);
      t = t * (it == s.end() ? Poly::symbol(sym) : it->second);
    }
    r = r + t;
  }
  return r;
}

bool shape_equal(const Shape &a, const Shape &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].index() != b[i].index()) return false;
    if (auto *p = std::get_if<Poly>(&a[i])) {
      if (*p != std::get<Poly>(b[i])) return false;
    } else if (!(std::get<ShapeSym>(a[i]) == std::get<ShapeSym>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string shape_str(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    if (auto *p = std::get_if<Poly>(&s[i])) out += p->str();
    else out += "*" + std::get<ShapeSym>(s[i]).name;
  }
  return out + "]";
}

bool shape_concrete(const Shape &s) {
  for (auto &d : s)
    if (!std::holds_alternative<Poly>(d) || !std::get<Poly>(d).is_const()) return false;
  return true;
}

Poly shape_product(const Shape &s) {
  Poly p = Poly::constant(1);
  for (auto &d : s) {
    if (auto *q = std::get_if<Poly>(&d)) p = p * *q;
    else p = p * Poly::symbol("prod(" + std::get<ShapeSym>(d).name + ")");
  }
  return p;
}

Shape StaticSubst::apply(const Shape &s) const {
  Shape out;
  for (auto &d : s) {
    if (auto *p = std::get_if<Poly>(&d)) {
      out.push_back(p->subst(sizes));
    } else {
      auto it = shapes.find(std::get<ShapeSym>(d).name);
      if (it == shapes.end()) out.push_back(d);
      else out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

}  // namespace rml
