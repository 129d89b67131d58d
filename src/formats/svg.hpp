// A chronogram drawn as the paper draws its figures: a column per cycle, a row per
// variable; absent as a short dash, unknown `?` and nil in grey, the error value ‖ in
// red; marked cells (a counterexample's failing cell, rml diff's first difference) boxed
// in red. Standalone SVG 1.1.
#pragma once
#include <string>
#include <vector>

#include "formats/chronogram_table.hpp"

namespace rml::formats {

struct CellMark {
  size_t row, cycle;  // row: an index into names
};

// Text as XML character data or an attribute value (&, <, >, " escaped).
std::string xml_escape(const std::string &s);

std::string write_svg(const ChronogramTable &t, const std::string &title, const std::vector<CellMark> &marks = {});

}  // namespace rml::formats
