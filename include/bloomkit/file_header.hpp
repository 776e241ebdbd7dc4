#pragma once
// The decoded 128-byte header of a filter file (docs/FORMAT.md) and the values it records: the
// filter kind, the key type, and how much of a file a reader checks.

#include <array>
#include <cstdint>

#include "bloomkit/hashing.hpp"
#include "bloomkit/key_type.hpp"

namespace bloomkit {

inline constexpr std::uint32_t file_format_version = 1;
inline constexpr std::size_t file_header_size = 128;

// The kinds a file can hold; their names and what each records are in kinds.hpp.
enum class filter_kind : std::uint32_t {
  classic = 1,
  blocked = 2,  // blocked_bloom_filter
  counting = 3,
  scalable = 4,
  window = 5,  // window_filter (window_filter.hpp)
  // RedisBloom's scalable chain (bloomkit::compat: compat/redisbloom.hpp); its file codec and
  // checks are compat's, so a build without it reads such a file as unsupported by its loader.
  redisbloom = 6,
  static_set = 7,  // static_filter (static_filter.hpp): binary fuse shards, built once; "static"
  cuckoo = 8,      // cuckoo_filter (cuckoo_filter.hpp): tables of packed fingerprints, removes
};

// Header flag bit 0: the keys are key_type::int64 (key_type.hpp). Classic files of the peers'
// schemes may set it, and files of the integer schemes (classic, blocked, counting) must; no
// other flag is defined.
inline constexpr std::uint32_t file_flag_int64_keys = 1;

// The decoded header of a filter file.
struct file_header {
  std::uint32_t format_version = file_format_version;
  filter_kind kind = filter_kind::classic;
  hash_scheme scheme = hash_scheme::xxh3_128;
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  std::uint32_t flags = 0;
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t inserted = 0;
  std::uint64_t payload_offset = 0;
  std::uint64_t payload_length = 0;
  std::uint64_t payload_checksum = 0;
  std::array<std::uint64_t, 4> kind_params{};  // reserved for kinds that need more parameters

  key_type keys() const noexcept {
    return (flags & file_flag_int64_keys) != 0 ? key_type::int64 : key_type::string;
  }
};

// How much of a file to check before trusting it.
enum class verify {
  header,  // header checksum and consistency only (constant time)
  full,    // also the payload checksum and padding (reads the whole payload once)
};

}  // namespace bloomkit
