// Static values: sizes as integer polynomials over static names, and shapes as lists of
// dims where an abstract shape (a `shape` parameter or a `*s` variable) may be spliced.
// Generic declarations are checked once with these symbolic values (grammar.md §3).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace rml {

struct StaticError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ShapeSym;

// Sum of monomials; a monomial is a sorted list of symbol names (repetition = power).
class Poly {
 public:
  Poly() = default;
  static Poly constant(int64_t c);
  static Poly symbol(const std::string &name);

  bool is_const() const;
  int64_t const_value() const;  // requires is_const()
  std::optional<std::string> as_symbol() const;  // exactly one symbol, coefficient 1
  std::vector<std::string> symbols() const;

  Poly operator+(const Poly &o) const;
  Poly operator-(const Poly &o) const;
  Poly operator*(const Poly &o) const;
  Poly negate() const;
  bool operator==(const Poly &o) const { return terms_ == o.terms_; }
  bool operator!=(const Poly &o) const { return !(*this == o); }
  bool operator<(const Poly &o) const { return terms_ < o.terms_; }
  std::string str() const;

  // Replace symbols by polynomials and abstract shapes by shapes (simultaneously); atoms
  // (prod, rank, s[k], div, mod, min, max) are re-evaluated once their arguments are
  // concrete.
  Poly subst(const std::map<std::string, Poly> &s, const std::map<std::string, std::vector<std::variant<Poly, ShapeSym>>> *shapes = nullptr) const;

  // An operation the polynomial ring cannot express, applied to sizes and/or one shape:
  // evaluated at once when its arguments are concrete, otherwise an opaque symbol that
  // remembers how to evaluate itself after substitution. Throws StaticError on a
  // concrete error (division by zero, index out of range).
  static Poly atom(const std::string &op, std::vector<Poly> args, const std::vector<std::variant<Poly, ShapeSym>> *shape = nullptr);

 private:
  std::map<std::vector<std::string>, int64_t> terms_;  // no zero coefficients
};

// One item of a shape: a size, or an abstract shape spliced in.
struct ShapeSym {
  std::string name;
  bool operator==(const ShapeSym &o) const { return name == o.name; }
};
using DimItem = std::variant<Poly, ShapeSym>;
using Shape = std::vector<DimItem>;

bool shape_equal(const Shape &a, const Shape &b);
std::string shape_str(const Shape &s);  // "[2, n, *s]"
bool shape_concrete(const Shape &s);    // all items constant sizes
Poly shape_product(const Shape &s);     // abstract shapes contribute the atom "prod(s)"

struct StaticValue {
  enum Kind : uint8_t { Int, ShapeV } kind = Int;
  Poly size;
  Shape shape;
  static StaticValue of_int(Poly p) { return StaticValue{Int, std::move(p), {}}; }
  static StaticValue of_shape(Shape s) { return StaticValue{ShapeV, {}, std::move(s)}; }
  std::string str() const { return kind == Int ? size.str() : shape_str(shape); }
};

// Substitution of the symbols of a generic signature at one use.
struct StaticSubst {
  std::map<std::string, Poly> sizes;     // static int params and size variables
  std::map<std::string, Shape> shapes;   // shape params and shape variables
  Shape apply(const Shape &s) const;
  Poly apply(const Poly &p) const { return p.subst(sizes, &shapes); }
};

// Largest size or element count the front end accepts (bad-input guard).
inline constexpr int64_t kMaxStaticSize = int64_t(1) << 31;

}  // namespace rml
