#pragma once
// The native integer-key calls of issue 32 (int_keys.hpp), as branch int-keys has them (commit
// 5a9bb01): a blocked filter made with key_type::int64, insert_integers / contains_integers over
// spans of fixed-width integers. int_api_probe.cpp compiles this header at configure time and
// the harness uses it only when it compiles; adjust it if the API changes.

#include <cstddef>
#include <cstdint>
#include <span>

#include "bloomkit/blocked_bloom_filter.hpp"

namespace bloomkit::bench::issue32 {

inline bloomkit::blocked_bloom_filter make_int_filter(std::uint64_t n, double p) {
  return bloomkit::blocked_bloom_filter::for_capacity(n, p, bloomkit::key_type::int64);
}
inline std::size_t insert_int_span(bloomkit::blocked_bloom_filter& f,
                                   std::span<const std::uint64_t> keys) {
  return f.insert_integers(keys);
}
inline std::size_t contains_int_span(const bloomkit::blocked_bloom_filter& f,
                                     std::span<const std::uint64_t> keys, std::span<bool> results) {
  return f.contains_integers(keys, results);
}

}  // namespace bloomkit::bench::issue32
