#pragma once
// What the CF.* commands and the MBbloomCF type ask of RedisBloom's cuckoo filter
// (bloomkit/compat/redisbloom_cuckoo.hpp, the compat library's), in one place: the module's
// files call only these, so the compat API is bound here and nowhere else (cuckoo_adapter.cpp).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/compat/redisbloom_cuckoo.hpp"
#include "rdb_io.hpp"

namespace bloomkit::redis_module {

// A key's filter: the compat library's, as it is.
using cuckoo_value = redisbloom::cuckoo::filter;

// A filter the module owns: its object in Redis's allocator (used_memory counts it, as its
// slots), freed by free_cuckoo.
void free_cuckoo(cuckoo_value* value) noexcept;
struct cuckoo_deleter {
  void operator()(cuckoo_value* value) const noexcept { free_cuckoo(value); }
};
using cuckoo_ptr = std::unique_ptr<cuckoo_value, cuckoo_deleter>;

// CF.RESERVE / CF.ADD / CF.INSERT's filter: RedisBloom's sizing (buckets = next power of two of
// capacity / bucket_size; expansion rounded up to a power of two, 0 never grows). Throws
// bloomkit::error (errc::too_large when its slots cannot be allocated).
cuckoo_ptr make_cuckoo(std::uint64_t capacity, std::uint32_t bucket_size,
                       std::uint32_t max_iterations, std::uint32_t expansion);
// The bytes make_cuckoo allocates for its slots (checked against maxmemory first).
std::uint64_t cuckoo_slot_bytes(std::uint64_t capacity, std::uint32_t bucket_size) noexcept;

enum class cuckoo_insert { inserted, exists, no_space };
// CF.ADD (unique false) / CF.ADDNX (unique true) of one item, RedisBloom's exact placement,
// kicks and growth. Throws errc::too_large when a new sub-filter cannot be allocated (nothing
// changed).
cuckoo_insert insert_item(cuckoo_value& f, std::string_view item, bool unique);
// RedisBloom's reply when a sub-filter cannot be allocated (without maxmemory's refusal).
inline constexpr std::string_view cuckoo_no_memory_text = redisbloom::cuckoo::no_memory_text;
bool contains_item(const cuckoo_value& f, std::string_view item);
std::uint64_t count_item(const cuckoo_value& f, std::string_view item);
bool delete_item(cuckoo_value& f, std::string_view item);
void compact(cuckoo_value& f);

// CF.INFO's figures, and RedisBloom's memory callback (= Size).
struct cuckoo_figures {
  std::uint64_t size = 0;
  std::uint64_t buckets = 0;
  std::uint64_t filters = 0;
  std::uint64_t items = 0;
  std::uint64_t deletes = 0;
  std::uint64_t bucket_size = 0;
  std::uint64_t expansion = 0;
  std::uint64_t max_iterations = 0;
};
cuckoo_figures figures_of(const cuckoo_value& f);

// The RDB value (encoding version 4, RedisBloom's calls in its order) and older versions.
void save_cuckoo(const cuckoo_value& f, RedisModuleIO* io);
cuckoo_ptr load_cuckoo(RedisModuleIO* io, int encver);  // throws on bad input
inline constexpr int cuckoo_encoding_version = 4;
inline constexpr const char* cuckoo_type_name = "MBbloomCF";

// CF.SCANDUMP: the 38-byte header (iterator 0 answers 1 and it), and the chunk at `iterator`
// (>= 1): next 0 when past the end.
std::vector<unsigned char> header_of(const cuckoo_value& f);
struct cuckoo_chunk {
  long long next = 0;
  std::span<const unsigned char> data;
};
cuckoo_chunk chunk_at(const cuckoo_value& f, long long iterator);

// CF.LOADCHUNK: the filter of a header (null with RedisBloom's text in `refusal` when it does
// not read: "Couldn't create filter!"); a chunk at `iterator` (false when it does not fit:
// "Couldn't load chunk!").
cuckoo_ptr from_header(std::string_view header, std::string& refusal);
bool load_chunk(cuckoo_value& f, long long iterator, std::string_view data);

}  // namespace bloomkit::redis_module
