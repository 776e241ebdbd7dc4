// BF.SCANDUMP's iterators (chunk_iterator.hpp).

#include "chunk_iterator.hpp"

#include <xxhash.h>

namespace bloomkit::redis_module {

std::uint32_t chunk_shape_tag(std::uint8_t kind,
                              std::span<const std::uint64_t> part_bytes) noexcept {
  XXH64_hash_t h = XXH64(&kind, sizeof kind, 0);
  for (std::uint64_t bytes : part_bytes) h = XXH64(&bytes, sizeof bytes, h);
  return static_cast<std::uint32_t>(h % 1023) + 1;
}

}  // namespace bloomkit::redis_module
