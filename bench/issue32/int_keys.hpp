#pragma once
// The blocked filter over 64-bit integer keys, through whichever path the library being measured
// has. BLOOMKIT_ISSUE32_NATIVE_INTS is set by CMakeLists.txt when int_api_probe.cpp compiles
// against the library (issue 32's insert_many / contains_many over std::span<const std::uint64_t>
// with the integer hash scheme); otherwise, as before issue 32, each integer's 8 bytes go through
// the string API (XXH3-64 of the bytes). Making the string views is not timed.
//
// The blocked filter's insert_many(std::span<const std::uint64_t>) already existed before issue
// 32 and takes digests, not keys, so the API cannot be detected by its signature alone: the
// native calls live in int_keys_native.hpp, next to the probe that compiles them.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "keys35.hpp"

#if BLOOMKIT_ISSUE32_NATIVE_INTS
#include "int_keys_native.hpp"
#endif

namespace bloomkit::bench::issue32 {

// A set of integer keys, with their byte strings for the string path.
struct int_batch {
  std::vector<std::uint64_t> ints;
  std::vector<std::string_view> strings;  // empty on the native path
  explicit int_batch(std::vector<std::uint64_t> v) : ints(std::move(v)) {
#if !BLOOMKIT_ISSUE32_NATIVE_INTS
    strings = as_byte_strings(ints);
#endif
  }
  std::size_t size() const noexcept {
    return ints.size();
  }
};

#if BLOOMKIT_ISSUE32_NATIVE_INTS
inline constexpr const char* int_path = "native integer API";

template <class Filter>
std::size_t insert_ints(Filter& f, const int_batch& b, std::size_t first, std::size_t count) {
  return insert_int_span(f, std::span<const std::uint64_t>(b.ints).subspan(first, count));
}
template <class Filter>
std::size_t contains_ints(const Filter& f, const int_batch& b, std::span<bool> results) {
  return contains_int_span(f, std::span<const std::uint64_t>(b.ints), results);
}
#else
inline constexpr const char* int_path = "xxh3-of-8-bytes via the string API";

inline bloomkit::blocked_bloom_filter make_int_filter(std::uint64_t n, double p) {
  return bloomkit::blocked_bloom_filter::for_capacity(n, p);
}
inline std::size_t insert_ints(bloomkit::blocked_bloom_filter& f, const int_batch& b,
                               std::size_t first, std::size_t count) {
  return f.insert_many(std::span(b.strings).subspan(first, count));
}
inline std::size_t contains_ints(const bloomkit::blocked_bloom_filter& f, const int_batch& b,
                                 std::span<bool> results) {
  return f.contains_many(std::span<const std::string_view>(b.strings), results);
}
#endif

}  // namespace bloomkit::bench::issue32
