// The text form of a kernel plan (Executable::plan(), which tests and benchmarks search
// for the kernels they expect): inputs, one line per kernel with its buffers, strides and
// the reason it exists, the outputs and the buffer reuse.
#include <sstream>

#include "array/exec/plan_internal.hpp"

namespace rml::exec::detail {

namespace {

std::string shape_str(const Shape &s) {
  std::string o = "[";
  for (size_t d = 0; d < s.size(); ++d) o += (d ? "," : "") + std::to_string(s[d]);
  return o + "]";
}

std::string view_str(const View &v) {
  std::string s = "b" + std::to_string(v.buf);
  if (v.offset) s += "+" + std::to_string(v.offset);
  if (is_broadcast(v) && ir::numel(v.shape) > 1) return s + "{bcast}";
  if (!is_canonical(v)) {
    s += "{";
    for (size_t d = 0; d < v.strides.size(); ++d) s += (d ? "," : "") + std::to_string(v.strides[d]);
    s += "}";
  }
  return s;
}

std::string prog_str(const MapProg &p) {
  std::vector<std::string> s(p.code.size());
  for (size_t q = 0; q < p.code.size(); ++q) {
    const MInst &in = p.code[q];
    auto A = [&](int k) { return s[static_cast<size_t>(k)]; };
    switch (in.op) {
      case MInst::Leaf: s[q] = view_str(p.leaves[static_cast<size_t>(in.a)]); break;
      case MInst::Un: s[q] = std::string(ir::op_name(in.un)) + "(" + A(in.a) + ")"; break;
      case MInst::Bin: s[q] = "(" + A(in.a) + " " + ir::op_name(in.bin) + " " + A(in.b) + ")"; break;
      case MInst::Sel: s[q] = "(" + A(in.a) + " ? " + A(in.b) + " : " + A(in.c) + ")"; break;
    }
  }
  return s.back();
}

const char *dt_name(DT d) { return d == DT::Real ? "real" : "int"; }

}  // namespace

std::string print_plan(const Plan &p) {
  std::ostringstream out;
  for (size_t k = 0; k < p.inputs.size(); ++k)
    out << "input b" << p.input_buf[k] << " = " << p.inputs[k].first << " : " << p.inputs[k].second.str() << "\n";
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const Kernel &ker = p.kernels[k];
    out << "k" << k << " ";
    int w = kernel_write(ker);
    const Buffer &wb = p.bufs[static_cast<size_t>(w)];
    std::visit(
        [&](const auto &b) {
          using B = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<B, MapK>) {
            out << "map     b" << w;
            if (b.out_off) out << "+" << b.out_off;
            out << " " << dt_name(b.prog.dt()) << shape_str(b.prog.shape) << " = " << prog_str(b.prog);
            out << "  (" << b.prog.ops() << " ops fused)";
          } else if constexpr (std::is_same_v<B, ReduceK>) {
            const Shape &xs = b.prog.shape;
            Shape r = b.rows ? Shape(xs.begin(), xs.end() - 1) : Shape(xs.begin() + 1, xs.end());
            out << "reduce  b" << w << " " << dt_name(b.prog.dt()) << shape_str(r) << " = sumOuter[" << (b.rows ? xs.back() : xs[0])
                << "] " << prog_str(b.prog) << (b.rows ? "  (rows)" : "  (columns)");
          } else if constexpr (std::is_same_v<B, GemmK>) {
            out << "gemm    b" << w << " = A(b" << b.a << "+" << b.a_off << " " << b.M << "x" << b.K << " strides " << b.a_rs
                << "," << b.a_cs << ") * B(b" << b.b << "+" << b.b_off << " " << b.K << "x" << b.N << " strides " << b.b_rs
                << "," << b.b_cs << "), C " << (b.c_row ? "row" : "col") << "-major";
            if (!b.loop.empty()) out << ", batch " << shape_str(b.loop);
          } else {
            out << (b.scatter ? "scatter b" : "gather  b") << w << " " << dt_name(wb.dt) << shape_str(b.out_shape) << " <- "
                << view_str(b.src) << " (" << b.m1 << " binders, " << b.m2 << " components, slices of " << b.inner
                << ", index code " << b.ix.code.size() << " ops";
            if (b.table) out << ", table of " << b.table->size() << " offsets)";
            else out << ", interpreted)";
          }
        },
        ker.body);
    if (wb.storage == Buffer::Storage::Temp) out << "  @s" << wb.slot;
    out << "  -- " << ker.note << "\n";
  }
  for (size_t k = 0; k < p.outputs.size(); ++k) {
    out << "output " << k;
    if (k < p.output_names.size() && !p.output_names[k].empty()) out << " '" << p.output_names[k] << "'";
    out << " = " << view_str(p.outputs[k].view) << " " << shape_str(p.outputs[k].view.shape) << "\n";
  }
  int temps = 0;
  for (auto &b : p.bufs) temps += b.storage == Buffer::Storage::Temp;
  out << "buffers: " << temps << " temporaries in " << p.slot_bytes.size() << " slots (" << p.reused << " reused)\n";
  return out.str();
}

}  // namespace rml::exec::detail
