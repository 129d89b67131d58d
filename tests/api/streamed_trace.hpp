// What the tests of a streamed run share (test_run_streamed.cpp, test_native_run.cpp): a
// node with post, a program loaded from text, a trace held as text that counts how often the run opens it,
// and the rendered diagnostics of a run from an index on.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rml/rml.hpp"

namespace rml::api::testing {

// A node with post and an assumption: the stream back end runs it on a window.
inline const char *kBackfillAssumed = R"(node backfill(i: int, bp: bool) -> (o: int)
  assume always eventually bp within 3;
  o = merge bp (i when bp) ((post o) when not bp);
)";

inline Program load_streamed(const std::string &name, const std::string &text, const LoadOptions &o = {}) {
  auto p = load_text(name, text, o);
  if (!p) ADD_FAILURE() << p.failure().text();
  return *p;
}

struct CountedTrace {
  std::string text;
  int opens = 0;
  TraceStream stream(bool rereadable) {
    return {"t.csv", [this](std::string &) -> std::shared_ptr<std::istream> {
              ++opens;
              return std::make_shared<std::istringstream>(text);
            },
            rereadable};
  }
};

inline std::vector<std::string> rendered(const std::vector<Diagnostic> &ds, size_t from = 0) {
  std::vector<std::string> out;
  for (size_t k = from; k < ds.size(); ++k) out.push_back(ds[k].rendered);
  return out;
}

}  // namespace rml::api::testing
