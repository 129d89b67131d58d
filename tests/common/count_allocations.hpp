// Counts heap allocations: count_allocations.cpp replaces every form of the global
// operator new and delete (plain, array, nothrow, sized, aligned), so that a program that
// links it can ask how many allocations a piece of code made. Replacing them is
// process-wide: link it only into a binary of its own (stream_alloc_tests, bench_stream).
#pragma once

namespace rml::test {

// Allocations through operator new since the program started.
long allocations();

}  // namespace rml::test
