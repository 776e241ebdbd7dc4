#pragma once
// BF.SCANDUMP's iterators past 1, which BF.LOADCHUNK reads back. As RedisBloom's clients use them
// they are opaque numbers; bloomkit's carry, in a positive long long:
//   bits 0..51   1 + the payload offset just after the chunk (where the chunk goes);
//   bit 52       the chunk is the dump's last (LOADCHUNK then checks the image is complete);
//   bits 53..62  a tag of the dumped filter's shape (its kind and part sizes), never 0.
// A key deleted and recreated with another shape during a dump is then noticed: SCANDUMP refuses
// an iterator whose tag is not its filter's, and LOADCHUNK a chunk whose tag is not its header's,
// instead of a copy that ends "OK" and stays half-loaded for ever. (A recreated filter of the same
// shape fails the payload checksum at the last chunk instead; one tag in 1023 collides, and the
// payload checksum still catches it.) Iterators without a tag or flag (an AOF rewrite's LOADCHUNK
// commands, `redis push --module`'s, RedisBloom's "1 + offset") are read as plain offsets.

#include <cstddef>
#include <cstdint>
#include <span>

namespace bloomkit::redis_module {

// Payload bytes per BF.SCANDUMP chunk, and per BF.LOADCHUNK of `redis push --module`: well
// under Redis's 512 MB bulk-string limit, large enough that a pass costs few round trips.
inline constexpr std::size_t chunk_payload_bytes = std::size_t{8} << 20;

struct chunk_iterator {
  std::uint64_t end = 0;  // 1 + the payload offset just after the chunk
  bool last = false;      // the dump's last chunk
  std::uint32_t tag = 0;  // the dumped filter's shape_tag; 0: none given
};

inline constexpr int chunk_tag_shift = 53;
inline constexpr std::uint64_t chunk_end_mask = (std::uint64_t{1} << 52) - 1;
inline constexpr std::uint64_t chunk_last_bit = std::uint64_t{1} << 52;

inline long long encode_chunk_iterator(const chunk_iterator& it) noexcept {
  return static_cast<long long>((it.end & chunk_end_mask) | (it.last ? chunk_last_bit : 0) |
                                (std::uint64_t{it.tag} << chunk_tag_shift));
}

// `iterator` must be positive.
inline chunk_iterator decode_chunk_iterator(long long iterator) noexcept {
  const auto bits = static_cast<std::uint64_t>(iterator);
  return {bits & chunk_end_mask, (bits & chunk_last_bit) != 0,
          static_cast<std::uint32_t>(bits >> chunk_tag_shift)};
}

// The tag of a filter image of kind `kind` (its kind byte) whose parts take
// `part_bytes` bytes each: 1..1023.
std::uint32_t chunk_shape_tag(std::uint8_t kind,
                              std::span<const std::uint64_t> part_bytes) noexcept;

}  // namespace bloomkit::redis_module
