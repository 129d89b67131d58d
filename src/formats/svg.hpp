// A chronogram drawn as the paper draws its figures: a column per cycle, a row per
// variable; absent as a short dash, unknown `?` and nil in grey, the error value ‖ in
// red; marked cells (a counterexample's failing cell, rml diff's first difference) boxed
// in red. Standalone SVG 1.1.
//
// A long run wraps into bands of cycles stacked downwards, each with its cycle numbers and
// the names again, at most 16 000 px wide: renderers refuse pictures over 32 767 px on a
// side. A cell or name too long for a band is cut short with '…' (whole in its tooltip).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/chronogram_table.hpp"

namespace rml::formats {

struct CellMark {
  size_t row, cycle;  // row: an index into names
};

// Text as XML character data or an attribute value (&, <, >, " escaped).
std::string xml_escape(const std::string &s);

struct SvgError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws SvgError when even the bands would be higher than 32 767 px (the message
// suggests fewer variables or cycles) rather than draw a picture no renderer shows.
std::string write_svg(const ChronogramTable &t, const std::string &title, const std::vector<CellMark> &marks = {});

}  // namespace rml::formats
