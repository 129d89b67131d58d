# Read by CTest after gtest_discover_tests' own include file, which sets gmm_tests_TESTS:
# every discovered gmm_tests test gets the labels array and gmm (`ctest -L gmm`).
if(gmm_tests_TESTS)
  set_tests_properties(${gmm_tests_TESTS} PROPERTIES LABELS "array;gmm")
endif()
