// Value change dump (IEEE 1364 §18): a chronogram for waveform viewers (GTKWave). One
// time unit per cycle (`$timescale 1 ns`: cycle n at #n). A bool is a 1-bit wire, an int
// a 64-bit `integer`, a real a `real`; absent is `z`, unknown, nil and the error value
// are `x`. A real cannot hold z or x, so it has a companion wire `NAME_present` (1 when
// it has a value, z absent, x unknown / nil / error) and keeps its last value otherwise.
// A tensor is a signal per element, named as simulators name array words (`o[0][1]`,
// row-major), each of its elements' type; a real (or empty) tensor has one companion
// wire `NAME_present`, since the whole tensor is present or not.
#pragma once
#include <stdexcept>
#include <string>

#include "formats/chronogram_table.hpp"

namespace rml::formats {

struct VcdError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws VcdError for a column a waveform cannot hold: a value that is no bool, int, real
// or tensor of them (an enumeration's constructor), a tensor whose shape changes, a
// column that mixes bools and numbers.
std::string write_vcd(const ChronogramTable &t, const std::string &scope, const std::string &comment);

}  // namespace rml::formats
