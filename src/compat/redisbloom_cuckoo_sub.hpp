#pragma once
// What the cuckoo compat files share beyond the public API (redisbloom_cuckoo.hpp): a sub-filter
// as it is held, and the loaders' way to build a filter one sub-filter at a time.

#include <cstdint>
#include <span>
#include <string>

#include "bloomkit/compat/redisbloom_cuckoo.hpp"

namespace bloomkit::redisbloom::cuckoo {

// 16 bytes, as RedisBloom's SubCF: the slots and, packed, the storage block's bytes (low 48
// bits) and how far the slots sit past the block's start (high 16 bits). Its bucket count is
// the filter's num_buckets * expansion^i.
struct filter::sub {
  std::uint8_t* slots = nullptr;
  std::uint64_t held_offset = 0;

  static constexpr std::uint64_t low48 = (std::uint64_t{1} << 48) - 1;
  std::uint64_t held() const noexcept { return held_offset & low48; }
  storage_block block() const noexcept {
    return {reinterpret_cast<std::uint64_t*>(slots), slots - (held_offset >> 48),
            static_cast<std::size_t>(held())};
  }
};

struct filter::access {
  // A filter of these fields with no sub-filter yet (fields checked as from_fields does, the
  // sub-filter count included). Throws errc::corrupt_file naming the field.
  static filter empty(const fields& f);
  // Sub-filter i's buckets: num_buckets * expansion^i, or 0 past max_num_buckets.
  static std::uint64_t buckets_of(const filter& f, std::size_t i) noexcept;
  // Appends sub-filter `index` (== f.num_filters()) of `buckets` buckets, every slot empty.
  // Throws errc::corrupt_file naming it unless buckets == buckets_of(f, index) != 0 and the
  // filter's slot bytes stay within max_slot_bytes.
  static std::span<std::uint8_t> append(filter& f, std::uint64_t buckets, std::size_t index);
  struct steps;  // the insert / kick / relocate steps (redisbloom_cuckoo_ops.cpp)
};

[[noreturn]] inline void corrupt(const std::string& what) {
  throw error(errc::corrupt_file, "RedisBloom cuckoo filter: " + what);
}

}  // namespace bloomkit::redisbloom::cuckoo
