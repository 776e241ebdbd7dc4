#pragma once
// RedisBloom's cuckoo filter (RedisBloom commit b28c2945, module type `MBbloomCF`), bit for bit:
// its hashing, its insert / kick-out / growth, delete with auto-compaction, CF.COMPACT, its
// CF.INFO / CF.DEBUG figures, its RDB fields, its DUMP payload and its CF.SCANDUMP /
// CF.LOADCHUNK chunks — without Redis, so that the module's CF.* commands (src/redis_module/)
// and the tests share one implementation.
//
//   auto f = bloomkit::redisbloom::cuckoo::filter::make(1000, 2, 20, 1);  // CF.RESERVE k 1000
//   f.insert("alice");          // insert_status::inserted, as CF.ADD answers 1
//   f.contains("alice");        // true (CF.EXISTS)
//   f.remove("alice");          // true (CF.DEL answers 1)
//   auto payload = bloomkit::redisbloom::cuckoo::write_dump(f);  // what RESTORE accepts
//
// Facts (docs/INTEROP.md, "RedisBloom's cuckoo filter"):
// - h = MurmurHash64A(item, seed 0); fingerprint fp = h % 255 + 1 (one byte, 0 = empty slot);
//   alt(fp, x) = x XOR (fp * 0x5bd1e995). In a sub-filter of nb buckets an item's buckets are
//   h % nb and alt(fp, h) % nb; a bucket is bucket_size consecutive slot bytes.
// - Sub-filter i has num_buckets * expansion^i buckets, num_buckets = the next power of two of
//   capacity / bucket_size (at least 1), expansion = the requested one rounded up to a power of
//   two (0 stays 0: the filter never grows).
// - Insert: the first empty slot of bucket h then bucket alt, in the newest sub-filter first, then
//   the older ones; else max_iterations kicks in the newest sub-filter from bucket h % nb (victim
//   slot 0, 1, ... cycling); a failed kick sequence is undone in reverse (the table is as before),
//   then the filter grows (expansion 0: no_space) and the insert starts over.
// - Delete: the first slot holding fp in bucket h, then alt, newest sub-filter first; then, with
//   more than one sub-filter and deletes > 10% of items, compact(false).
// - Compact: from the newest sub-filter down to the second, move each fingerprint into the first
//   older sub-filter with room in its buckets (index and alt taken from its bucket index); a
//   newest sub-filter emptied that way is freed; deletes go to 0.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/storage_allocator.hpp"

namespace bloomkit::redisbloom::cuckoo {

// ---- constants -------------------------------------------------------------------------------

// The module data type and the encoding version RedisBloom writes; versions 0..4 load (before 4:
// no deletes, bucket size, max iterations, expansion nor per-sub-filter bucket counts).
inline constexpr std::string_view type_name = "MBbloomCF";
inline constexpr int encoding_version = 4;

// RedisBloom's module configuration defaults (bf.cf-*).
inline constexpr std::uint64_t default_capacity = 1024;      // cf-initial-size
inline constexpr std::uint16_t default_bucket_size = 2;      // cf-bucket-size
inline constexpr std::uint16_t default_max_iterations = 20;  // cf-max-iterations
inline constexpr std::uint16_t default_expansion = 1;        // cf-expansion-factor
inline constexpr std::uint32_t default_max_expansions = 32;  // cf-max-expansions
// CF.RESERVE's and CF.INSERT's ranges.
inline constexpr std::uint64_t max_capacity = std::uint64_t{1} << 30;
inline constexpr std::uint16_t max_bucket_size = 255;
inline constexpr std::uint16_t max_max_iterations = 65535;
inline constexpr std::uint16_t max_expansion = 32768;
// A sub-filter's bucket count is a 56-bit field in RedisBloom.
inline constexpr std::uint64_t max_num_buckets = (std::uint64_t{1} << 56) - 1;
inline constexpr std::uint64_t max_filters = 65535;  // numFilters is 16 bits
// bloomkit's own bound on a filter's slot bytes, all sub-filters together (1 TiB): a hostile
// header or value asking for more is refused (errc::corrupt_file) before anything is allocated,
// and a growth past it answers no_memory.
inline constexpr std::uint64_t max_slot_bytes = std::uint64_t{1} << 40;
inline constexpr std::uint64_t max_sub_filter_bytes = max_slot_bytes;  // one sub-filter's
// CF.SCANDUMP's header chunk and its largest data chunk (16 MiB, as BF.SCANDUMP).
inline constexpr std::size_t header_bytes = 38;
inline constexpr std::size_t max_chunk_bytes = redisbloom::max_chunk_bytes;
// CF.INFO Size: RedisBloom's struct CuckooFilter and struct SubCF.
inline constexpr std::uint64_t info_filter_bytes = 40;
inline constexpr std::uint64_t info_sub_filter_bytes = 16;

// ---- hashing ---------------------------------------------------------------------------------

// MurmurHash64A(item, seed 0), RedisBloom's CUCKOO_GEN_HASH.
std::uint64_t hash(std::string_view item) noexcept;
// What a hash looks up: fp = h % 255 + 1, h1 = h, h2 = alt(fp, h).
struct lookup {
  std::uint64_t h1 = 0;
  std::uint64_t h2 = 0;
  std::uint8_t fp = 0;
};
lookup lookup_of(std::uint64_t hash) noexcept;
std::uint64_t alt_index(std::uint8_t fp, std::uint64_t index) noexcept;

// ---- argument rules --------------------------------------------------------------------------

// RedisBloom's texts for CF.RESERVE / CF.INSERT values out of range (the parse errors, e.g.
// "Bad capacity" or "Couldn't parse BUCKETSIZE", are the command's).
inline constexpr std::string_view reserve_capacity_text =
    "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]";
inline constexpr std::string_view insert_capacity_text =
    "Capacity must be in the range [cf-bucket-size * 2, 1073741824]";
inline constexpr std::string_view bucket_size_text =
    "BUCKETSIZE: value must be in the range [1, 255]";
inline constexpr std::string_view max_iterations_text =
    "MAXITERATIONS: value must be in the range [1, 65535]";
inline constexpr std::string_view expansion_text =
    "EXPANSION: value must be in the range [0, 32768]";
inline constexpr std::string_view full_text = "Filter is full";
inline constexpr std::string_view max_expansions_text = "Maximum expansions reached";
inline constexpr std::string_view no_memory_text = "Memory allocation failure";

// The first of CF.RESERVE's range rules these parsed values break, as RedisBloom checks them
// (max iterations, bucket size, expansion, then capacity in [2 * bucket size, 2^30]), with its
// text; nothing when all hold.
std::optional<std::string_view> reserve_problem(long long capacity, long long bucket_size,
                                                long long max_iterations, long long expansion);
// CF.INSERT / CF.INSERTNX CAPACITY: [2 * bucket_size (the configured default), 2^30].
std::optional<std::string_view> insert_capacity_problem(
    long long capacity, long long bucket_size = default_bucket_size);

// ---- the filter ------------------------------------------------------------------------------

// CuckooInsertStatus: the integer CF.INSERT answers for an item is the enum's value (-2 is
// answered as the error no_memory_text instead).
enum class insert_status : std::int8_t {
  exists = 0,      // insert_unique: present already (CF.ADDNX answers 0); nothing changed
  inserted = 1,    // CF.ADD answers 1
  no_space = -1,   // expansion 0 and no room: "Filter is full" / -1; nothing changed
  no_memory = -2,  // a new sub-filter could not be allocated or sized; nothing changed
};

// The scalar fields RedisBloom keeps (struct CuckooFilter), as its RDB value and SCANDUMP header
// carry them.
struct fields {
  std::uint64_t num_buckets = 0;  // the first sub-filter's
  std::uint64_t num_items = 0;
  std::uint64_t num_deletes = 0;
  std::uint64_t num_filters = 0;
  std::uint16_t bucket_size = 0;
  std::uint16_t max_iterations = 0;
  std::uint16_t expansion = 0;
  friend bool operator==(const fields&, const fields&) = default;
};

// One CF.INFO line: its name and value, in RedisBloom's order.
struct info_field {
  std::string_view name;
  std::uint64_t value = 0;
};

class filter {
 public:
  // CuckooFilter_Init(capacity, bucket_size, max_iterations, expansion): one sub-filter of the
  // next power of two of capacity / bucket_size buckets, expansion rounded up to a power of two.
  // Throws errc::invalid_argument for bucket_size 0 or > 255, max_iterations 0, expansion >
  // 32768 (the command's texts come from reserve_problem); errc::too_large when the slots cannot
  // be allocated or pass max_slot_bytes.
  static filter make(std::uint64_t capacity, std::uint16_t bucket_size,
                     std::uint16_t max_iterations, std::uint16_t expansion);
  // A filter with these fields and sub-filters of these bucket counts (sub_buckets.size() ==
  // f.num_filters), every slot empty: what the loaders fill. Throws errc::corrupt_file naming
  // the bad field (RedisBloom's integrity rules: bucket size 1..255, 1..65535 sub-filters, max
  // iterations >= 1, expansion <= 32768 and 0 only with one sub-filter, num_buckets a power of
  // two in 1..2^56-1; sub-filter i of num_buckets * expansion^i buckets, below 2^56; all slot
  // bytes within
  // max_slot_bytes), errc::too_large when the allocator cannot allocate.
  static filter from_fields(const fields& f, std::span<const std::uint64_t> sub_buckets);

  filter(const filter& other);  // deep copy
  filter& operator=(const filter& other);
  filter(filter&& other) noexcept;
  filter& operator=(filter&& other) noexcept;
  ~filter();

  // --- commands (single-threaded: the caller serialises writes) ---
  insert_status insert(std::string_view item);                // CF.ADD, CF.INSERT
  insert_status insert_unique(std::string_view item);         // CF.ADDNX, CF.INSERTNX
  bool contains(std::string_view item) const noexcept;        // CF.EXISTS, CF.MEXISTS
  std::uint64_t count(std::string_view item) const noexcept;  // CF.COUNT
  // CF.DEL: true (1) when a slot holding the fingerprint was emptied; may auto-compact.
  bool remove(std::string_view item);
  // CF.COMPACT is compact(true); CF.DEL's auto-compaction compact(false) (stops at the first
  // sub-filter that cannot be emptied).
  void compact(bool keep_going = true) noexcept;
  // The same by hash (hash(item)).
  insert_status insert_hash(std::uint64_t h);
  insert_status insert_unique_hash(std::uint64_t h);
  bool contains_hash(std::uint64_t h) const noexcept;
  std::uint64_t count_hash(std::uint64_t h) const noexcept;
  bool remove_hash(std::uint64_t h);
  // RedisBloom refuses CF.ADD / CF.INSERT on a filter with this many sub-filters or more
  // ("Maximum expansions reached"), before it looks at any item.
  bool max_expansions_reached(
      std::uint64_t max_expansions = default_max_expansions) const noexcept {
    return num_filters() >= max_expansions;
  }

  // --- figures ---
  fields header_fields() const noexcept;
  std::uint64_t num_buckets() const noexcept { return std::uint64_t{1} << buckets_log2_; }
  std::uint64_t num_items() const noexcept { return num_items_; }
  std::uint64_t num_deletes() const noexcept { return num_deletes_; }
  std::uint16_t num_filters() const noexcept { return num_filters_; }
  std::uint16_t bucket_size() const noexcept { return bucket_size_; }
  std::uint16_t max_iterations() const noexcept { return max_iterations_; }
  std::uint16_t expansion() const noexcept { return expansion_; }
  // CF.INFO Size and RedisBloom's mem_usage: 40 + 16 per sub-filter + the slot bytes.
  std::uint64_t info_size() const noexcept;
  // CF.INFO: Size, Number of buckets, Number of filters, Number of items inserted, Number of
  // items deleted, Bucket size, Expansion rate, Max iterations.
  std::array<info_field, 8> info() const noexcept;
  // CF.DEBUG: "bktsize:2 buckets:512 items:3 deletes:0 filters:1 max_iterations:20 expansion:1".
  std::string debug_text() const;
  // Bytes this filter holds: its struct (40), its sub-filter table (16 per sub-filter) and each
  // sub-filter's slots as the storage allocator holds them: info_size() when the allocator gives
  // exactly the bytes asked for.
  std::uint64_t memory_bytes() const noexcept;
  std::uint64_t slot_bytes() const noexcept;  // all sub-filters' slots

  // --- the sub-filters, oldest first (i < num_filters()) ---
  std::uint64_t sub_buckets(std::size_t i) const noexcept;
  // num_buckets x bucket_size slot bytes, one fingerprint per byte, 0 = empty.
  std::span<const std::uint8_t> sub_slots(std::size_t i) const noexcept;
  std::span<std::uint8_t> mutable_sub_slots(std::size_t i) noexcept;

  // Equal fields, sub-filter sizes and slots.
  friend bool operator==(const filter& x, const filter& y) noexcept;

  struct access;  // the compat sources' way in (src/compat/redisbloom_cuckoo_sub.hpp)

 private:
  struct sub;  // a sub-filter: its slots and their storage block
  filter() = default;
  bool grow();                          // CuckooFilter_Grow: false when it cannot (no_memory)
  void add_sub(std::uint64_t buckets);  // throws
  void release() noexcept;

  // 40 bytes, as RedisBloom's struct CuckooFilter (num_buckets is a power of two: its log2).
  sub* subs_ = nullptr;  // num_filters_ of them (16 bytes each), from operator new
  storage_allocator* allocator_ = nullptr;
  std::uint64_t num_items_ = 0;
  std::uint64_t num_deletes_ = 0;
  std::uint16_t num_filters_ = 0;
  std::uint16_t max_iterations_ = 0;
  std::uint16_t expansion_ = 0;
  std::uint8_t bucket_size_ = 0;
  std::uint8_t buckets_log2_ = 0;
};

// ---- RDB value (type MBbloomCF) --------------------------------------------------------------

// Encoding version 4: numFilters, numBuckets, numItems, numDeletes, bucketSize, maxIterations,
// expansion (unsigned), then per sub-filter its numBuckets (unsigned) and slot bytes (string).
void save_fields(const filter& f, field_sink& out);
// Loads encoding version `encver` (0..3: numFilters, numBuckets, numItems only, then per
// sub-filter its slot bytes; deletes 0, bucket size 2, max iterations 20, expansion 1, every
// sub-filter numBuckets). Throws errc::unsupported for another version, errc::corrupt_file
// naming the field for hostile input (from_fields' rules, a slot string of the wrong length),
// errc::too_large when it cannot allocate. Never crashes and never allocates more than the
// input's slot strings hold. (redisbloom::load_fields reads a Bloom chain from the same
// field_source: call this one qualified, cuckoo::load_fields.)
filter load_fields(field_source& in, int encver);

// The payload DUMP gives: type byte 7, module id (MBbloomCF, version 4), the opcode-tagged
// fields, EOF, rdb_version (2 bytes LE), CRC-64 (Jones, LE). Strings are written uncompressed.
std::vector<unsigned char> write_dump(const filter& f, std::uint16_t rdb_version = 10);
// Reads a DUMP payload of a MBbloomCF value (any loadable version, LZF strings included).
// Throws errc::corrupt_file naming `source` and the problem, errc::unsupported for another type
// or an RDB version above 12.
filter read_dump(std::span<const unsigned char> payload, const std::string& source);

// ---- CF.SCANDUMP / CF.LOADCHUNK --------------------------------------------------------------

// The header chunk (CF.SCANDUMP pos 0 answers pos 1 and these bytes): packed little-endian u64
// numItems, numBuckets, numDeletes, numFilters, u16 bucketSize, maxIterations, expansion. Note:
// RedisBloom answers [0, nil] to every CF.SCANDUMP of a filter whose num_items() is 0, header
// included (the module's check).
std::array<unsigned char, header_bytes> header_chunk(const filter& f);
fields decode_header(std::span<const unsigned char, header_bytes> header) noexcept;

// CF.SCANDUMP pos >= 1: the sub-filter holding byte pos - 1 of the sub-filters' slots laid end
// to end. A sub-filter of at most max_bytes comes whole, wherever pos points inside it (RedisBloom
// does so), next = pos + its size; a larger one comes in pieces of at most max_bytes from pos.
// Past the end, next is 0 and data empty (the reply [0, nil]). pos < 1 is the command's error.
using redisbloom::data_chunk;
data_chunk next_chunk(const filter& f, std::int64_t pos, std::size_t max_bytes = max_chunk_bytes);

// What RedisBloom answers for a refused CF.LOADCHUNK.
enum class chunk_problem : std::uint8_t {
  invalid_header,  // "Invalid header": pos 1 with other than 38 bytes
  cannot_create,   // "Couldn't create filter!": a header RedisBloom refuses
  cannot_load,     // "Couldn't load chunk!": empty data, a bad position, data past a sub-filter
};
std::string_view redisbloom_text(chunk_problem p) noexcept;
using chunk_error = redisbloom::basic_chunk_error<chunk_problem>;

// CF.LOADCHUNK pos 1 on a missing key: a filter of the header's fields, every slot empty, sub-
// filter i of num_buckets * expansion^i buckets. Throws chunk_error (invalid_header for a length
// other than 38, cannot_create naming the bad field), errc::too_large when it cannot allocate.
filter filter_from_header(std::span<const unsigned char> header);
// CF.LOADCHUNK pos > 1: copies `data` over the slots at offset pos - data.size() - 1 (RedisBloom
// overwrites; a position past the end lands in the last sub-filter at that offset minus all
// sub-filters' bytes, as RedisBloom's does). Throws chunk_error (cannot_load) for empty data,
// pos <= 0, pos - 1 < data.size(), or data past its sub-filter's end.
void apply_chunk(filter& f, std::int64_t pos, std::span<const unsigned char> data);

}  // namespace bloomkit::redisbloom::cuckoo
