// Value change dump (IEEE 1364 §18): a chronogram for waveform viewers (GTKWave). One
// time unit per cycle (`$timescale 1 ns`: cycle n at #n). A bool is a 1-bit wire, an int
// a 64-bit `integer`, a real a `real`; absent is `z`, unknown, nil and the error value
// are `x`. A real cannot hold z or x, so it has a companion wire `NAME_present` (1 when
// it has a value, z absent, x unknown / nil / error) and keeps its last value otherwise.
#pragma once
#include <stdexcept>
#include <string>

#include "formats/chronogram_table.hpp"

namespace rml::formats {

struct VcdError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws VcdError for a tensor column (a waveform holds scalars).
std::string write_vcd(const ChronogramTable &t, const std::string &scope, const std::string &comment);

}  // namespace rml::formats
