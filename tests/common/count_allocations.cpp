#include "common/count_allocations.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

// GCC sees free() of what `new` returned once these are inlined into their callers: right
// here by construction (every new is malloc or aligned_alloc).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
std::atomic<long> g_allocations{0};

void *counted(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void *counted_aligned(std::size_t n, std::align_val_t a) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t al = static_cast<std::size_t>(a);
  return std::aligned_alloc(al, (n + al - 1) / al * al);  // a multiple of the alignment, as aligned_alloc asks
}
}  // namespace

long rml::test::allocations() { return g_allocations.load(); }

// Every replaceable form, so that no allocation escapes the count and every pair matches
// (AddressSanitizer reports new through one form and delete through another).
void *operator new(std::size_t n) {
  if (void *p = counted(n)) return p;
  throw std::bad_alloc();
}
void *operator new[](std::size_t n) {
  if (void *p = counted(n)) return p;
  throw std::bad_alloc();
}
void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return counted(n); }
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return counted(n); }
void *operator new(std::size_t n, std::align_val_t a) {
  if (void *p = counted_aligned(n, a)) return p;
  throw std::bad_alloc();
}
void *operator new[](std::size_t n, std::align_val_t a) {
  if (void *p = counted_aligned(n, a)) return p;
  throw std::bad_alloc();
}
void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept { return counted_aligned(n, a); }
void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept { return counted_aligned(n, a); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }
