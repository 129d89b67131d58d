// Index functions of gathers, scatters and dynamic indexes. An index that is affine in
// the binders (Lowerer::affine) makes the gather a view; otherwise VmCompiler compiles the
// index function to straight-line code of the scalar register machine (VmProg, run by
// runtime.cpp), with bounds-checked loads and out-of-bounds results masked to 0.
#include <algorithm>
#include <cstdlib>

#include "array/exec/plan_internal.hpp"

namespace rml::exec::detail {

int VmCompiler::const_i(int64_t v) {
  VInst in;
  in.op = VInst::ConstI;
  in.dt = DT::Int;
  in.imm = v;
  in.dst = reg();
  prog.code.push_back(in);
  return in.dst;
}

int VmCompiler::const_r(double v) {
  VInst in;
  in.op = VInst::ConstR;
  in.dt = DT::Real;
  in.dimm = v;
  in.dst = reg();
  prog.code.push_back(in);
  return in.dst;
}

int VmCompiler::bin(BinOp op, DT in_dt, DT out, int a, int b) {
  VInst in;
  in.op = VInst::Bin;
  in.bin = op;
  in.in = in_dt;
  in.dt = out;
  in.a = a;
  in.b = b;
  in.dst = reg();
  prog.code.push_back(in);
  return in.dst;
}

int VmCompiler::sel(int c, int a, int b, DT dt) {
  VInst in;
  in.op = VInst::Sel;
  in.dt = dt;
  in.a = c;
  in.b = a;
  in.c = b;
  in.dst = reg();
  prog.code.push_back(in);
  return in.dst;
}

int VmCompiler::in_bounds(const std::vector<int> &cs, const Shape &dims) {
  int ok = -1;
  for (size_t k = 0; k < cs.size(); ++k) {
    VInst in;
    in.op = VInst::InB;
    in.a = cs[k];
    in.imm = dims[k];
    in.dst = reg();
    prog.code.push_back(in);
    ok = ok < 0 ? in.dst : bin(BinOp::And, DT::Int, DT::Int, ok, in.dst);
  }
  return ok;
}

int VmCompiler::load(int cap, const std::vector<int> &idx) {
  VInst in;
  in.op = VInst::Load;
  in.a = cap;
  in.dt = prog.cap_dt[static_cast<size_t>(cap)];
  in.pool = static_cast<int>(prog.pool.size());
  in.npool = static_cast<int>(idx.size());
  prog.pool.insert(prog.pool.end(), idx.begin(), idx.end());
  in.dst = reg();
  prog.code.push_back(in);
  return in.dst;
}

// A loop over `dims` (binders in consecutive registers from `first`) summing body's
// value; the body is emitted by `body(first)` and returns its value register.
int VmCompiler::loop(const Shape &dims, DT dt, const std::function<int(int)> &body) {
  int first = prog.nregs;
  for (size_t q = 0; q < dims.size(); ++q) reg();
  size_t at_loop = prog.code.size();
  VInst in;
  in.op = VInst::Loop;
  in.dt = dt;
  in.a = first;
  in.pool = static_cast<int>(prog.pool64.size());
  in.npool = static_cast<int>(dims.size());
  prog.pool64.insert(prog.pool64.end(), dims.begin(), dims.end());
  in.dst = reg();
  prog.code.push_back(in);
  int v = body(first);
  prog.code[at_loop].c = v;
  prog.code[at_loop].b = static_cast<int>(prog.code.size() - at_loop - 1);
  return prog.code[at_loop].dst;
}

int VmCompiler::cap_ssa(int id) {
  if (auto it = cap_of_ssa_.find(id); it != cap_of_ssa_.end()) return it->second;
  View v = L_.materialise(L_.val_mut(id), "read by an index function");
  prog.caps.push_back(v);
  prog.cap_dt.push_back(dt_of(L_.op(id).type.elem));
  int c = static_cast<int>(prog.caps.size()) - 1;
  cap_of_ssa_.emplace(id, c);
  return c;
}

int VmCompiler::cap_const(const std::shared_ptr<const ir::Tensor> &t) {
  if (auto it = cap_of_const_.find(t.get()); it != cap_of_const_.end()) return it->second;
  prog.caps.push_back(canonical_view(L_.const_buf(t), t->shape));
  prog.cap_dt.push_back(dt_of(t->elem));
  int c = static_cast<int>(prog.caps.size()) - 1;
  cap_of_const_.emplace(t.get(), c);
  return c;
}

int VmCompiler::at(const Term &t, const std::vector<int> &idx, const LEnv *env) {
  const Node &n = *t;
  DT dt = dt_of(n.type.elem);
  switch (n.kind) {
    case Kind::Const:
      if (n.type.shape.empty()) return dt == DT::Real ? const_r(n.value->r[0]) : const_i(n.value->i[0]);
      return load(cap_const(n.value), idx);
    case Kind::Iota: return idx.at(0);
    case Kind::Var: {
      for (const LEnv *e = env; e; e = e->next)
        if (e->name == n.name) return e->lazy ? at(e->lazy, idx, e->lazy_env) : e->reg;
      for (auto it = names_.rbegin(); it != names_.rend(); ++it)
        if (it->first == n.name) return load(cap_ssa(it->second), idx);
      fail("unbound variable '" + n.name + "' in an index function");
    }
    case Kind::Let: {
      LEnv frame;
      frame.name = n.name;
      frame.next = env;
      if (n.kids[0]->type.shape.empty()) frame.reg = at(n.kids[0], {}, env);
      else {
        frame.lazy = n.kids[0];
        frame.lazy_env = env;
      }
      return at(n.kids[1], idx, &frame);
    }
    case Kind::Cond: {
      int b = at(n.kids[0], {}, env);
      int u = at(n.kids[1], idx, env), v = at(n.kids[2], idx, env);
      return sel(b, u, v, dt);
    }
    case Kind::Unary: {
      VInst in;
      in.op = VInst::Un;
      in.un = n.un;
      in.in = dt_of(n.kids[0]->type.elem);
      in.dt = dt;
      in.a = at(n.kids[0], idx, env);
      in.dst = reg();
      prog.code.push_back(in);
      return in.dst;
    }
    case Kind::Binary: {
      int a = at(n.kids[0], idx, env), b = at(n.kids[1], idx, env);
      return bin(n.bin, dt_of(n.kids[0]->type.elem), dt, a, b);
    }
    case Kind::Index: {
      std::vector<int> cs;
      for (size_t q = 1; q < n.kids.size(); ++q) cs.push_back(at(n.kids[q], {}, env));
      if (cs.empty()) return at(n.kids[0], idx, env);
      int ok = in_bounds(cs, n.kids[0]->type.shape);
      std::vector<int> full = cs;
      full.insert(full.end(), idx.begin(), idx.end());
      int v = at(n.kids[0], full, env);
      return sel(ok, v, zero(dt), dt);
    }
    case Kind::SumOuter: {
      return loop({n.kids[0]->type.shape[0]}, dt, [&](int j) {
        std::vector<int> full{j};
        full.insert(full.end(), idx.begin(), idx.end());
        return at(n.kids[0], full, env);
      });
    }
    case Kind::Gather: {
      size_t m1 = n.binders.size();
      std::vector<LEnv> frames(m1);
      const LEnv *benv = env;
      for (size_t b = 0; b < m1; ++b) {
        frames[b].name = n.binders[b];
        frames[b].reg = idx[b];
        frames[b].next = benv;
        benv = &frames[b];
      }
      std::vector<int> cs;
      for (auto &c : n.ix) cs.push_back(at(c, {}, benv));
      std::vector<int> full = cs;
      full.insert(full.end(), idx.begin() + static_cast<long>(m1), idx.end());
      int v = at(n.kids[0], full, env);
      if (cs.empty()) return v;
      return sel(in_bounds(cs, n.kids[0]->type.shape), v, zero(dt), dt);
    }
    case Kind::Scatter: {
      size_t m1 = n.binders.size(), m2 = n.ix.size();
      Shape dom(n.kids[0]->type.shape.begin(), n.kids[0]->type.shape.begin() + static_cast<long>(m1));
      return loop(dom, dt, [&](int first) {
        std::vector<LEnv> frames(m1);
        const LEnv *benv = env;
        for (size_t b = 0; b < m1; ++b) {
          frames[b].name = n.binders[b];
          frames[b].reg = first + static_cast<int>(b);
          frames[b].next = benv;
          benv = &frames[b];
        }
        int match = -1;
        for (size_t k = 0; k < m2; ++k) {
          int e = bin(BinOp::Eq, DT::Int, DT::Int, at(n.ix[k], {}, benv), idx[k]);
          match = match < 0 ? e : bin(BinOp::And, DT::Int, DT::Int, match, e);
        }
        std::vector<int> full;
        for (size_t b = 0; b < m1; ++b) full.push_back(first + static_cast<int>(b));
        full.insert(full.end(), idx.begin() + static_cast<long>(m2), idx.end());
        int v = at(n.kids[0], full, env);
        return match < 0 ? v : sel(match, v, zero(dt), dt);
      });
    }
    case Kind::FromList: {
      std::vector<int> rest(idx.begin() + 1, idx.end());
      int acc = zero(dt);
      for (size_t q = 0; q < n.kids.size(); ++q) {
        int v = at(n.kids[q], rest, env);
        acc = sel(bin(BinOp::Eq, DT::Int, DT::Int, idx[0], const_i(static_cast<int64_t>(q))), v, acc, dt);
      }
      return acc;
    }
    case Kind::Replicate: return at(n.kids[0], std::vector<int>(idx.begin() + 1, idx.end()), env);
    case Kind::Transpose: {
      std::vector<int> x = idx;
      for (size_t p = 0; p < n.shape_arg.size(); ++p) x[static_cast<size_t>(n.shape_arg[p])] = idx[p];
      return at(n.kids[0], x, env);
    }
    case Kind::Reshape: {
      const Shape &src = n.kids[0]->type.shape;
      if (src == n.type.shape) return at(n.kids[0], idx, env);
      Strides rm = row_major(n.type.shape), srm = row_major(src);
      int lin = const_i(0);
      for (size_t d = 0; d < idx.size(); ++d)
        lin = bin(BinOp::Add, DT::Int, DT::Int, lin, bin(BinOp::Mul, DT::Int, DT::Int, idx[d], const_i(rm[d])));
      std::vector<int> x;
      for (size_t d = 0; d < src.size(); ++d) {
        int q = bin(BinOp::IDiv, DT::Int, DT::Int, lin, const_i(srm[d]));
        x.push_back(bin(BinOp::Mod, DT::Int, DT::Int, q, const_i(src[d])));
      }
      return at(n.kids[0], x, env);
    }
    case Kind::Build1: fail("build1 in an index function (run bot first)");
    case Kind::Share: fail("share in an index function (run shareToLet first)");
  }
  fail("unknown node kind");
}

std::optional<AffForm> Lowerer::affine(const Term &t, const std::vector<std::string> &binders, const SOp &o) const {
  constexpr int64_t kLimit = int64_t{1} << 31;  // no overflow in the products below
  auto small = [&](const AffForm &f) {
    if (std::llabs(f.c) > kLimit) return false;
    for (auto a : f.coef)
      if (std::llabs(a) > kLimit) return false;
    return true;
  };
  std::function<std::optional<AffForm>(const Term &)> go = [&](const Term &x) -> std::optional<AffForm> {
    AffForm f;
    f.coef.assign(binders.size(), 0);
    switch (x->kind) {
      case Kind::Const:
        if (!x->type.shape.empty()) return std::nullopt;
        f.c = x->value->i.at(0);
        return small(f) ? std::optional(f) : std::nullopt;
      case Kind::Var: {
        for (size_t b = binders.size(); b-- > 0;)
          if (binders[b] == x->name) {
            f.coef[b] = 1;
            return f;
          }
        for (auto &[name, id] : o.caps)
          if (name == x->name && op(id).kind == Kind::Const && op(id).type.shape.empty()) {
            f.c = op(id).value->i.at(0);
            return small(f) ? std::optional(f) : std::nullopt;
          }
        return std::nullopt;
      }
      case Kind::Unary: {
        if (x->un != UnOp::Neg) return std::nullopt;
        auto a = go(x->kids[0]);
        if (!a) return std::nullopt;
        a->c = -a->c;
        for (auto &v : a->coef) v = -v;
        return a;
      }
      case Kind::Binary: {
        if (x->bin != BinOp::Add && x->bin != BinOp::Sub && x->bin != BinOp::Mul) return std::nullopt;
        auto a = go(x->kids[0]);
        if (!a) return std::nullopt;
        auto b = go(x->kids[1]);
        if (!b) return std::nullopt;
        bool a_const = std::all_of(a->coef.begin(), a->coef.end(), [](int64_t v) { return v == 0; });
        bool b_const = std::all_of(b->coef.begin(), b->coef.end(), [](int64_t v) { return v == 0; });
        if (x->bin == BinOp::Mul) {
          if (!a_const && !b_const) return std::nullopt;
          const AffForm &k = a_const ? *a : *b, &v = a_const ? *b : *a;
          f.c = v.c * k.c;
          for (size_t q = 0; q < f.coef.size(); ++q) f.coef[q] = v.coef[q] * k.c;
        } else {
          int64_t s = x->bin == BinOp::Add ? 1 : -1;
          f.c = a->c + s * b->c;
          for (size_t q = 0; q < f.coef.size(); ++q) f.coef[q] = a->coef[q] + s * b->coef[q];
        }
        return small(f) ? std::optional(f) : std::nullopt;
      }
      default: return std::nullopt;
    }
  };
  return go(t);
}

}  // namespace rml::exec::detail
