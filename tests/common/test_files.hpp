// Shared by the file-driven test suites.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <string>

namespace rml::test {

// gtest parameter names: the file's stem, alphanumeric.
inline std::string file_test_name(const ::testing::TestParamInfo<std::string> &pi) {
  std::string n = std::filesystem::path(pi.param).stem().string();
  for (char &ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

}  // namespace rml::test
