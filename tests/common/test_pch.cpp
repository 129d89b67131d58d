// The source of rml_test_pch, the target that builds the test drivers' shared precompiled
// header (CMakeLists.txt, rml_test_driver). It compiles nothing of its own.
