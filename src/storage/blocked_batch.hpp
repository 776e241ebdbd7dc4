#pragma once
// Internal: a batch of keys for the blocked filter's kernels (blocked_kernels.hpp,
// line_kernels.hpp), and the one loop shape that feeds a pipeline its digests.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "../core/key_stream.hpp"
#include "bloomkit/detail/xxh3_inline.hpp"
#include "bloomkit/hashing.hpp"

namespace bloomkit::detail {

// The keys of a batch, or their digests (XXH3-64) when the caller hashed them already, or
// integer keys (hash_scheme::splitmix64_split_block: digest splitmix64_digest(x)).
struct blocked_batch {
  const std::string_view* keys = nullptr;
  const std::uint64_t* digests = nullptr;
  std::size_t size = 0;
  const std::uint64_t* integers = nullptr;
};

// The most slots (a window's filters) the slot kernels take at once.
inline constexpr std::size_t max_kernel_slots = 256;

// Internal linkage on purpose: each ISA's translation unit compiles its own copy.
namespace {

// run(digest_at), digest_at(i) the digest of key i. Keys are hashed here, inline, so that hashing
// overlaps the memory accesses in the pipeline; the keys are read as a stream (key_stream.hpp).
// Distance: one_line_per_key for one filter, lines_per_key for a window's slots.
template <key_stream_distance Distance = one_line_per_key, class Run>
auto over_batch(blocked_batch batch, Run run) noexcept {
  if (batch.keys != nullptr) {
    return run(
        streamed_digests<Distance>(std::span(batch.keys, batch.size),
                                   [](std::string_view k) noexcept { return xxh3_64_inline(k); }));
  }
  if (batch.integers != nullptr) {
    return run(
        streamed_digests<Distance>(std::span(batch.integers, batch.size),
                                   [](std::uint64_t x) noexcept { return splitmix64_digest(x); }));
  }
  return run(streamed_digests<Distance>(
      std::span(batch.digests, batch.size), [](std::uint64_t d) noexcept { return d; },
      key_reads::again));
}

}  // namespace
}  // namespace bloomkit::detail
