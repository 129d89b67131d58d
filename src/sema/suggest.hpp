// "Did you mean ...?" for a misspelt name: the user's own names are searched first, the
// prelude's only when none of the user's is close (a user who types `movag` means their
// `movavg`, not a prelude function one edit further away).
#pragma once
#include <string>
#include <vector>

namespace rml {

// Levenshtein distance (insertions, deletions, substitutions).
size_t edit_distance(const std::string &a, const std::string &b);

// The closest candidate within a distance that grows with the name's length (1 for names
// of up to 3 characters, 2 up to 6, then 3, and always fewer edits than the name has
// characters); "" when none is that close. Ties: the first.
std::string closest_name(const std::string &name, const std::vector<std::string> &candidates);

// closest_name over `own`, else over `prelude`.
std::string suggest_name(const std::string &name, const std::vector<std::string> &own,
                         const std::vector<std::string> &prelude);

// The candidates within that distance, closest first (at most `max`), for error messages
// that list near names.
std::vector<std::string> near_names(const std::string &name, const std::vector<std::string> &candidates, size_t max = 5);

}  // namespace rml
