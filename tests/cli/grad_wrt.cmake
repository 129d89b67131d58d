# rml grad --wrt a,b: the gradient of the named real parameters only (default: every
# real parameter); a name that is not a real parameter is a located error grad.wrt.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(WRITE ${WORK}/f.rml "fun f(a: real, b: real[2], c: real, k: int) : real =\n  a * sumOuter(b) + c * c * real(k);\n")
file(WRITE ${WORK}/at.json "{\"a\": 2, \"b\": [3, 4], \"c\": 5, \"k\": 2}")
# Value 2 * 7 + 25 * 2 = 64; d/da = 7, d/db = [2, 2], d/dc = 2 c k = 20.
expect_exit(0 ${RML} grad ${WORK}/f.rml --fun f --at ${WORK}/at.json)
expect_equal(OUT "{\n  \"value\": 64.0,\n  \"gradient\": {\n    \"a\": 7.0,\n    \"b\": [2.0,2.0],\n    \"c\": 20.0\n  }\n}\n")
foreach(backend compiled reference)
  expect_exit(0 ${RML} grad ${WORK}/f.rml --fun f --at ${WORK}/at.json --wrt c,a --backend ${backend})
  expect_equal(OUT "{\n  \"value\": 64.0,\n  \"gradient\": {\n    \"a\": 7.0,\n    \"c\": 20.0\n  }\n}\n")
endforeach()
expect_exit(0 ${RML} grad ${WORK}/f.rml --fun f --at ${WORK}/at.json --wrt b)
expect_equal(OUT "{\n  \"value\": 64.0,\n  \"gradient\": {\n    \"b\": [2.0,2.0]\n  }\n}\n")
# The printed gradient program has the value and b's gradient only.
expect_exit(0 ${RML} grad ${WORK}/f.rml --fun f --wrt b)
expect_text(OUT "{- b -}")
expect_no_text(OUT "{- a -}")
expect_no_text(OUT "{- c -}")

# Errors, located at the parameter (or the fun when there is no such parameter).
expect_exit(2 ${RML} grad ${WORK}/f.rml --fun f --at ${WORK}/at.json --wrt a,d)
expect_text(ERR "f.rml:1:5: error\\[grad.wrt\\]: --wrt d: 'd' is not a parameter of 'f' \\(its real parameters: a, b, c\\)")
expect_text(ERR "\\^")
expect_exit(2 ${RML} grad ${WORK}/f.rml --fun f --at ${WORK}/at.json --wrt k)
expect_text(ERR "f.rml:1:37: error\\[grad.wrt\\]: --wrt k: 'k' is not a real parameter of 'f': an int, bool or const parameter has no gradient \\(its real parameters: a, b, c\\)")
expect_exit(2 ${RML} grad ${WORK}/f.rml --fun f --at ${WORK}/at.json --wrt bb)
expect_text(ERR "did you mean 'b'\\?")
