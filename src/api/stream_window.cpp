#include "api/stream_window.hpp"

#include <algorithm>
#include <memory>

#include "driver/compiled_funs.hpp"
#include "driver/limits.hpp"
#include "stream/retime.hpp"

namespace rml::api {

StreamWindow stream_window(const stream::Plan &plan, int64_t horizon, const CheckedProgram &checked) {
  StreamWindow w;
  w.options.lag = static_cast<size_t>(horizon);
  w.options.max_window = 2 * static_cast<size_t>(horizon) + 2;
  const long double frame = 8.0L * static_cast<long double>(plan.real_words + plan.int_words) +
                            2.0L * static_cast<long double>(plan.slots.size() + plan.steps.size());
  // A retimed node (stream/retime.hpp) computes a cell up to its largest lag after its cycle,
  // and its frame stays that much longer (a post on a sampled clock looks H cycles ahead).
  w.frames = w.options.max_window;
  if (plan.has_post && w.options.retime)
    if (auto rt = stream::retime(plan, nullptr, stream::post_lookahead(horizon))) w.frames += static_cast<size_t>(rt->max_lag);
  w.bytes = frame * static_cast<long double>(w.frames);
  if (std::any_of(plan.slots.begin(), plan.slots.end(), [](const stream::Slot &s) { return s.numel != 1; }))
    stream::keep_tensor_blocks_in_heap();
  auto funs = std::make_shared<driver::CompiledFuns>(checked);
  w.options.fun_executable = [funs](const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<ir::Type> &types) {
    return &funs->executable(fn, statics, types);
  };
  return w;
}

std::string window_memory_error(const StreamWindow &w, uint64_t max_memory) {
  if (w.bytes <= static_cast<long double>(max_memory)) return "";
  return "rml: error[run.memory]: the stream window of " + std::to_string(w.frames) + " frames needs about " +
         format_bytes(static_cast<uint64_t>(w.bytes)) + ", more than --max-memory " + format_bytes(max_memory) + "\n";
}

}  // namespace rml::api
