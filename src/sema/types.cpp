#include "sema/types.hpp"

namespace rml {

std::string type_str(const Type &t) {
  switch (t.kind) {
    case Type::Tensor: {
      std::string s = t.machine ? t.machine->name() : t.enum_name.empty() ? std::string(scalar_name(t.elem)) : t.enum_name;
      if (!t.shape.empty()) s += shape_str(t.shape);
      return s;
    }
    case Type::TyVar: return t.tyvar;
    case Type::Meta: return "?" + std::to_string(t.meta);
    case Type::ShapeT: return "shape";
    case Type::Error: return "<error>";
    case Type::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < t.elems.size(); ++i) s += (i ? ", " : "") + type_str(t.elems[i]);
      return s + ")";
    }
  }
  return "?";
}

Type TypeSubst::apply(const Type &t) const {
  switch (t.kind) {
    case Type::Tensor: {
      Type u = t;  // keeps an enumeration's name and a subrange
      u.shape = statics.apply(t.shape);
      return u;
    }
    case Type::TyVar: {
      auto it = tyvars.find(t.tyvar);
      return it == tyvars.end() ? t : it->second;
    }
    case Type::Tuple: {
      std::vector<Type> es;
      for (auto &e : t.elems) es.push_back(apply(e));
      return Type::tuple(std::move(es));
    }
    default: return t;
  }
}

}  // namespace rml
