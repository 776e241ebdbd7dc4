#pragma once
// What the cuckoo compat files share beyond the public API (redisbloom_cuckoo.hpp): a sub-filter
// as it is held, and the loaders' way to build a filter one sub-filter at a time.

#include <cstdint>
#include <span>
#include <string>

#include "bloomkit/compat/redisbloom_cuckoo.hpp"

namespace bloomkit::redisbloom::cuckoo {

// 32 bytes: the slots (num_buckets x bucket_size bytes) and the storage block they sit in.
struct filter::sub {
  std::uint8_t* slots = nullptr;
  void* base = nullptr;
  std::uint64_t num_buckets = 0;
  std::uint64_t held = 0;  // the block's bytes, as the allocator gave them
};

struct filter::access {
  // A filter of these fields with no sub-filter yet (fields checked as from_fields does, the
  // sub-filter count included). Throws errc::corrupt_file naming the field.
  static filter empty(const fields& f);
  // Appends a sub-filter of `buckets` buckets (checked: 1..max_num_buckets, the filter's slot
  // bytes within max_slot_bytes; errc::corrupt_file naming sub-filter `index`), every slot empty.
  static std::span<std::uint8_t> append(filter& f, std::uint64_t buckets, std::size_t index);
  struct steps;  // the insert / kick / relocate steps (redisbloom_cuckoo_ops.cpp)
};

[[noreturn]] inline void corrupt(const std::string& what) {
  throw error(errc::corrupt_file, "RedisBloom cuckoo filter: " + what);
}

}  // namespace bloomkit::redisbloom::cuckoo
