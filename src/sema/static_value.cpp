#include "sema/static_value.hpp"

#include <algorithm>
#include <mutex>

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

namespace {
struct AtomDef {
  std::string op;
  std::vector<Poly> args;
  bool has_shape = false;
  Shape shape;
};
// Atoms are interned by their canonical text; the table only grows.
std::map<std::string, AtomDef> &atom_table() {
  static std::map<std::string, AtomDef> t;
  return t;
}
std::mutex &atom_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

Poly Poly::atom(const std::string &op, std::vector<Poly> args, const Shape *shape) {
  bool concrete = std::all_of(args.begin(), args.end(), [](const Poly &p) { return p.is_const(); });
  if (shape) concrete = concrete && shape_concrete(*shape);
  if (concrete) {
    auto v = [&](size_t k) { return args.at(k).const_value(); };
    if (op == "prod" || op == "rank" || op == "index") {
      std::vector<int64_t> dims;
      for (auto &d : *shape) dims.push_back(std::get<Poly>(d).const_value());
      if (op == "rank") return Poly::constant(static_cast<int64_t>(dims.size()));
      if (op == "prod") {
        int64_t p = 1;
        for (auto d : dims) p = checked_mul(p, d);
        return Poly::constant(p);
      }
      int64_t k = v(0);
      if (k < 0 || static_cast<size_t>(k) >= dims.size())
        throw StaticError("index " + std::to_string(k) + " is out of range for the shape " + shape_str(*shape));
      return Poly::constant(dims[static_cast<size_t>(k)]);
    }
    if (op == "div" || op == "mod") {
      if (v(1) == 0) throw StaticError("division by zero in a static expression");
      if (v(0) == INT64_MIN && v(1) == -1) throw StaticError("static arithmetic overflows 64 bits");
      return Poly::constant(op == "div" ? v(0) / v(1) : v(0) % v(1));
    }
    if (op == "min") return Poly::constant(std::min(v(0), v(1)));
    if (op == "max") return Poly::constant(std::max(v(0), v(1)));
    throw StaticError("unknown static operation " + op);
  }
  std::string name = op + "(";
  if (shape) name += shape_str(*shape) + (args.empty() ? "" : ", ");
  for (size_t k = 0; k < args.size(); ++k) name += (k ? ", " : "") + args[k].str();
  name += ")";
  {
    std::lock_guard<std::mutex> lock(atom_mutex());
    auto &t = atom_table();
    if (!t.count(name)) t[name] = AtomDef{op, args, shape != nullptr, shape ? *shape : Shape{}};
  }
  return Poly::symbol(name);
}

Poly Poly::subst(const std::map<std::string, Poly> &s, const std::map<std::string, Shape> *shapes) const {
  Poly r;
  for (auto &[m, c] : terms_) {
    Poly t = Poly::constant(c);
    for (auto &sym : m) {
      auto it = s.find(sym);
      if (it != s.end()) {
        t = t * it->second;
        continue;
      }
      AtomDef def;
      bool is_atom = false;
      {
        std::lock_guard<std::mutex> lock(atom_mutex());
        auto a = atom_table().find(sym);
        if (a != atom_table().end()) {
          def = a->second;
          is_atom = true;
        }
      }
      if (!is_atom) {
        t = t * Poly::symbol(sym);
        continue;
      }
      std::vector<Poly> args;
      for (auto &p : def.args) args.push_back(p.subst(s, shapes));
      if (def.has_shape) {
        StaticSubst ss;
        ss.sizes = s;
        if (shapes) ss.shapes = *shapes;
        Shape sh = ss.apply(def.shape);
        t = t * Poly::atom(def.op, std::move(args), &sh);
      } else {
        t = t * Poly::atom(def.op, std::move(args));
      }
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
    else {
      Shape one{d};
      p = p * Poly::atom("prod", {}, &one);
    }
  }
  return p;
}

Shape StaticSubst::apply(const Shape &s) const {
  Shape out;
  for (auto &d : s) {
    if (auto *p = std::get_if<Poly>(&d)) {
      out.push_back(p->subst(sizes, &shapes));
    } else {
      auto it = shapes.find(std::get<ShapeSym>(d).name);
      if (it == shapes.end()) out.push_back(d);
      else out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

}  // namespace rml
