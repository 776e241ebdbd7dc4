#pragma once
// Internal: XXH3-64 compiled into the caller (xxhash.h's XXH_INLINE_ALL), for the paths that hash
// in their own loop: the single-key path basic_filter inlines (single_key.hpp) and the blocked
// kernels' batches (src/storage/blocked_batch.hpp). The same function as the library's
// xxh3_64 (hashing.hpp), without a call per key. xxhash.h renames its inlined functions
// (XXH_INLINE_*), so a translation unit that also includes it plainly still compiles and links.

#include <cstdint>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace bloomkit::detail {

[[gnu::always_inline]] inline std::uint64_t xxh3_64_inline(std::string_view key) noexcept {
  return static_cast<std::uint64_t>(XXH3_64bits(key.data(), key.size()));
}

}  // namespace bloomkit::detail
