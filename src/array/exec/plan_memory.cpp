// Step 3 of planning, the memory plan: temporary buffers get physical slots from their
// lifetimes. A buffer's slot is freed after the last kernel that reads it and reused by
// a later buffer of the same byte size. Inputs and constants have no slot to share, and
// the buffers of outputs are never freed.
#include <algorithm>
#include <map>
#include <set>

#include "array/exec/plan_internal.hpp"

namespace rml::exec::detail {

void Lowerer::assign_slots() {
  const size_t nk = plan.kernels.size();
  std::vector<int64_t> last(plan.bufs.size(), -1);
  for (size_t k = 0; k < nk; ++k)
    for (int b : kernel_reads(plan.kernels[k])) last[static_cast<size_t>(b)] = static_cast<int64_t>(k);
  for (auto &o : plan.outputs) last[static_cast<size_t>(o.view.buf)] = static_cast<int64_t>(nk);
  std::multimap<int64_t, int> free_slots;  // bytes → slot
  auto bytes = [&](const Buffer &b) {
    return std::max<int64_t>(8, b.size * static_cast<int64_t>(b.dt == DT::Real ? opt_.real_bytes : 8));
  };
  for (size_t k = 0; k < nk; ++k) {
    Buffer &w = plan.bufs[static_cast<size_t>(kernel_write(plan.kernels[k]))];
    if (w.storage == Buffer::Storage::Temp && w.slot < 0) {
      int64_t by = bytes(w);
      if (auto it = free_slots.find(by); it != free_slots.end()) {
        w.slot = it->second;
        free_slots.erase(it);
        ++plan.reused;
      } else {
        w.slot = static_cast<int>(plan.slot_bytes.size());
        plan.slot_bytes.push_back(by);
      }
    }
    // Free after the kernel: a kernel never writes into a slot it reads.
    std::set<int> seen;
    std::vector<int> touched = kernel_reads(plan.kernels[k]);
    touched.push_back(kernel_write(plan.kernels[k]));
    for (int b : touched) {
      const Buffer &x = plan.bufs[static_cast<size_t>(b)];
      if (x.storage != Buffer::Storage::Temp || x.slot < 0 || !seen.insert(b).second) continue;
      if (last[static_cast<size_t>(b)] <= static_cast<int64_t>(k) && last[static_cast<size_t>(b)] != -2) {
        free_slots.emplace(bytes(x), x.slot);
        last[static_cast<size_t>(b)] = -2;  // freed once
      }
    }
  }
}

}  // namespace rml::exec::detail
