#pragma once
// RedisBloom's Bloom filter (RedisBloom commit b28c2945, module type `MBbloom--`), bit for bit:
// its scalable chain of links, its hashing and bit layout, its BF.INFO / BF.DEBUG figures, its
// RDB fields, its BF.SCANDUMP / BF.LOADCHUNK chunks and its DUMP payload — without Redis, so
// that the module (src/redis_module/), the CLI and the tests share one implementation.
//
//   auto c = bloomkit::redisbloom::chain::reserve(1000, 0.01, 2, false);  // BF.RESERVE k 0.01 1000
//   c.add("alice");                        // add_result::added, as BF.ADD answers 1
//   c.contains("alice");                   // true
//   auto payload = bloomkit::redisbloom::write_dump(c);   // what RESTORE accepts
//
// Facts (docs/INTEROP.md, "RedisBloom"):
// - Hashing: 64-bit filters (option force64) take a = MurmurHash64A(key, seed 0xc6a4a7935bd1e995),
//   b = MurmurHash64A(key, seed a); older filters take a = MurmurHash2(key, seed 0x9747b28c),
//   b = MurmurHash2(key, seed a) (32-bit values). Probe i (0 <= i < hashes) of a link is
//   (a + i * b) mod 2^64, reduced modulo the link's bits, or masked to its low n2 bits when the
//   link's n2 is not 0 (a power-of-two link). Bit x is bit (x % 8) of byte x / 8.
// - A link for n entries at error e: bpe = -ln(e) / ln(2)^2, hashes = ceil(ln(2) * bpe); NOROUND
//   links take bits = (uint64) (n * bpe) (at least 1), others 2^(logb(n * bpe) + 1) bits with
//   n2 set and entries raised by the spare bits / bpe; bytes = bits rounded up to whole 64-bit
//   words; the link's bits are then bytes * 8.
// - A chain's first link gets error * 0.5 (error * 1 when non-scaling); each next link holds
//   entries * growth at half the previous link's error. An add checks every link first (present
//   anywhere: not added, not counted), grows when the last link holds as many items as its
//   entries, and on a full non-scaling chain changes nothing (add_result::full).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/storage_allocator.hpp"

namespace bloomkit::redisbloom {

// ---- constants -------------------------------------------------------------------------------

// Chain options (RedisBloom's BLOOM_OPT_*), stored in every encoding.
inline constexpr std::uint32_t option_noround = 1;  // bits not rounded to a power of two
inline constexpr std::uint32_t option_entries_is_bits = 2;
inline constexpr std::uint32_t option_force64 = 4;     // 64-bit hashing
inline constexpr std::uint32_t option_no_scaling = 8;  // NONSCALING
// bloomkit's own bit, which RedisBloom never sets: the chain hashes with XXH3-128 (hash
// hash_scheme::redisbloom_xxh3; the module's own BF.* keys, type bkbloom--).
inline constexpr std::uint32_t option_bloomkit_hash = 16;
// The options RedisBloom itself sets; a chain of its type (MBbloom--) holds no others.
inline constexpr std::uint32_t redisbloom_options = 15;
inline constexpr std::uint32_t known_options = redisbloom_options | option_bloomkit_hash;
// What BF.RESERVE / BF.ADD / BF.INSERT create: force64 | noround (| no_scaling).
inline constexpr std::uint32_t created_options = option_force64 | option_noround;

inline constexpr double default_error_rate = 0.01;
inline constexpr std::uint64_t default_capacity = 100;
inline constexpr std::uint32_t default_expansion = 2;
inline constexpr double error_tightening = 0.5;
// The largest hash count an error rate can give (binary64: 1075).
inline constexpr std::uint32_t max_hashes = 1075;

// The module data type and the encoding version RedisBloom writes; versions 0..4 load.
inline constexpr std::string_view type_name = "MBbloom--";
inline constexpr int encoding_version = 4;
// bloomkit's module type of chains with option_bloomkit_hash (the same fields, version 1).
inline constexpr std::string_view native_type_name = "bkbloom--";
inline constexpr int native_encoding_version = 1;
// BF.SCANDUMP's largest data chunk (16 MiB).
inline constexpr std::size_t max_chunk_bytes = std::size_t{16} << 20;
// BF.SCANDUMP header chunk: 20 bytes, then 53 per link.
inline constexpr std::size_t header_fixed_bytes = 20;
inline constexpr std::size_t header_link_bytes = 53;

// ---- hashing ---------------------------------------------------------------------------------

struct hash_pair {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  friend bool operator==(const hash_pair&, const hash_pair&) = default;
};

// Austin Appleby's MurmurHash64A (little-endian reads), and his 32-bit MurmurHash2.
std::uint64_t murmur_hash64a(const void* data, std::size_t len, std::uint64_t seed) noexcept;
std::uint32_t murmur_hash2(const void* data, std::size_t len, std::uint32_t seed) noexcept;
// The pair a chain with / without option_force64 probes with.
hash_pair hash64(std::string_view key) noexcept;
hash_pair hash32(std::string_view key) noexcept;
// The pair a chain with option_bloomkit_hash probes with: XXH3-128 of the key, a = its low half,
// b = its high half made odd (never 0: the probes of a key never all fall on one bit).
hash_pair hash_xxh3(std::string_view key) noexcept;

// ---- one link --------------------------------------------------------------------------------

// A link's fields as RedisBloom stores them (struct bloom plus the link's item count).
struct link_fields {
  std::uint64_t entries = 0;  // capacity of the link
  double error = 0;
  double bpe = 0;
  std::uint32_t hashes = 0;
  std::uint64_t bytes = 0;  // bit-array bytes, a multiple of 8 for links RedisBloom sizes now
  // The probe range of a link without n2: bytes * 8 for every link RedisBloom sizes now; older
  // encodings (version 0) may hold fewer (at most 63 fewer here).
  std::uint64_t bits = 0;
  std::uint8_t n2 = 0;     // 0, or log2 of the probe range (power-of-two links)
  std::uint64_t size = 0;  // items added to this link
  friend bool operator==(const link_fields&, const link_fields&) = default;
};

// The fields bloom_init gives a link of `entries` at `error` with `options` (its size 0). Throws
// errc::invalid_argument where RedisBloom's bloom_init fails (entries < 1, error outside (0, 1),
// a power-of-two size past 2^63 bits), errc::too_large past bloomkit's limits.
link_fields size_link(std::uint64_t entries, double error, std::uint32_t options);

// Whether RedisBloom's integrity check accepts these fields (error in (0, 1), n2 <= 63, bits >=
// 2^n2 when n2 != 0, bits != 0, hashes = ceil(ln 2 * bpe)); if not, what is wrong.
std::optional<std::string> link_problem(const link_fields& f);

// ---- the chain -------------------------------------------------------------------------------

enum class add_result : std::uint8_t {
  present = 0,      // maybe present already (BF.ADD answers 0): nothing changed
  added = 1,        // newly added (BF.ADD answers 1)
  full = 2,         // a non-scaling chain at capacity: "ERR non scaling filter is full"
  no_memory = 3,    // a new link could not be allocated (add_many only; add() throws)
  cannot_grow = 4,  // a scaling chain whose next link cannot be sized (growth 0, or entries *
                    // growth past 2^64 or bloomkit's limits): nothing changed
};

struct chain_access;  // the compat sources' way in (src/compat/redisbloom_slot.hpp)

// The most links a chain holds (a growth past it throws errc::too_large).
inline constexpr std::uint32_t max_chain_links = (std::uint32_t{1} << 24) - 1;

class chain {
 public:
  // SB_NewChain(capacity, error_rate, options, growth): one link of `capacity` at error_rate *
  // 0.5 (* 1 when non-scaling). Throws errc::invalid_argument for capacity 0 or error_rate
  // outside (0, 1), errc::too_large when the link is too large to allocate.
  static chain make(std::uint64_t capacity, double error_rate, std::uint32_t options,
                    std::uint32_t growth);
  // What BF.RESERVE / BF.INSERT / BF.ADD create: options created_options | (non_scaling ?
  // option_no_scaling : 0), growth `expansion` (stored as given also for non-scaling chains;
  // RedisBloom stores 2 after NONSCALING). Argument checks (ranges, texts) are the command's.
  // With bloomkit_hashing, option_bloomkit_hash too (the module's own BF.* keys).
  static chain reserve(std::uint64_t capacity, double error_rate, std::uint32_t expansion,
                       bool non_scaling, bool bloomkit_hashing = false);
  // A chain with these links (bits all zero; size = sum of the links' sizes unless given), as
  // BF.LOADCHUNK's header and the decoders make it. Throws errc::corrupt_file naming the bad
  // field (link_problem, unknown options, no links, item counts that do not add up),
  // errc::too_large when the bits cannot be allocated.
  static chain from_fields(std::uint64_t size, std::uint32_t options, std::uint32_t growth,
                           std::span<const link_fields> links);

  chain(const chain& other);  // deep copy (bits included)
  chain& operator=(const chain& other);
  chain(chain&& other) noexcept;
  chain& operator=(chain&& other) noexcept;
  ~chain();

  // --- adds and lookups (single-threaded: the caller serialises writes) ---
  // One key: never answers no_memory (throws errc::too_large when a new link's bits cannot be
  // allocated; nothing changed then).
  add_result add(std::string_view key);
  bool contains(std::string_view key) const noexcept;
  // In order, as BF.MADD / BF.INSERT: hashes a block of keys, prefetches, then probes; answers[i]
  // for keys[i]. Stops after the first key answered full or no_memory (that answer included) and
  // returns how many keys it answered (the reply array's length); cannot_grow does not stop it
  // (a later key already present still answers present). `failure`, when given, receives
  // the allocator's message for no_memory. answers.size() >= keys.size().
  std::size_t add_many(std::span<const std::string_view> keys, std::span<add_result> answers,
                       std::string* failure = nullptr);
  // answers[i] = 1 when keys[i] may be present, 0 when not. answers.size() >= keys.size().
  void contains_many(std::span<const std::string_view> keys,
                     std::span<std::uint8_t> answers) const noexcept;
  // The hash pair this chain probes with (hash_xxh3 with option_bloomkit_hash, else hash64 or
  // hash32 by option_force64).
  hash_pair hash(std::string_view key) const noexcept;
  bool bloomkit_hashing() const noexcept { return (options() & option_bloomkit_hash) != 0; }
  // The scheme its files record: hash_scheme::redisbloom_xxh3 with option_bloomkit_hash.
  hash_scheme file_scheme() const noexcept {
    return bloomkit_hashing() ? hash_scheme::redisbloom_xxh3 : hash_scheme::redisbloom;
  }

  // --- figures ---
  std::uint64_t capacity() const noexcept;  // BF.INFO Capacity: sum of the links' entries
  std::uint64_t items() const noexcept { return size_; }  // BF.INFO items, BF.CARD
  std::size_t filters() const noexcept { return count_options_ & max_chain_links; }
  std::uint32_t options() const noexcept { return count_options_ >> 24; }
  std::uint32_t growth() const noexcept { return growth_; }
  bool scaling() const noexcept { return (options() & option_no_scaling) == 0; }
  // BF.INFO Expansion rate: growth, or nothing (nil) for a non-scaling chain.
  std::optional<std::uint32_t> expansion() const noexcept;
  // BF.INFO Size and RedisBloom's memory callback: 32 (its chain struct) + 64 per link (its
  // link struct) + the links' bit-array bytes.
  std::uint64_t info_size() const noexcept;
  // BF.DEBUG: "size:<items>", then per link "bytes:.. bits:.. hashes:.. hashwidth:64|32
  // capacity:.. size:.. ratio:<%g of error>".
  std::vector<std::string> debug_lines() const;
  // Bytes this chain holds in memory: its own struct, its link table and each link's bits as
  // requested from the storage allocator (at most info_size()).
  std::uint64_t memory_bytes() const noexcept;
  // Bytes the bit arrays hold in all (what the value's data is).
  std::uint64_t bit_bytes() const noexcept;

  // --- the links ---
  link_fields link(std::size_t i) const noexcept;  // i < filters()
  // Link i's bit array, bytes() long, in RedisBloom's byte order.
  std::span<const unsigned char> link_bits(std::size_t i) const noexcept;
  std::span<unsigned char> mutable_link_bits(std::size_t i) noexcept;

  // Equal options, growth, size, link fields and bits.
  friend bool operator==(const chain& x, const chain& y) noexcept;

  // --- the registry's common surface (filter.hpp, filter_like): files, the CLI, Python ---
  // add() as a filter's insert: true when added. A full non-scaling chain, or one that cannot
  // grow, throws errc::too_large and changes nothing.
  bool insert(std::string_view key);
  std::size_t insert_many(std::span<const std::string_view> keys);  // how many were added
  // results[i] for keys[i]; returns how many may be present.
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;
  // Chains do not combine (their links' item counts would lose meaning): errc::incompatible.
  void merge(const chain& other);
  void intersect(const chain& other);
  void clear();                           // every bit and item count zeroed; the links stay
  std::uint64_t cells() const noexcept;   // bits over all links
  std::uint32_t hashes() const noexcept;  // the first link's
  double target_fpp() const noexcept;     // the first link's error rate
  std::uint64_t inserted() const noexcept { return size_; }
  double fill_ratio() const noexcept;
  double estimated_count() const noexcept;
  double estimated_fpp() const noexcept;
  std::size_t byte_size() const noexcept { return static_cast<std::size_t>(bit_bytes()); }
  bool read_only() const noexcept { return false; }
  static constexpr hash_scheme scheme() noexcept { return hash_scheme::redisbloom; }

 private:
  friend struct chain_access;
  struct link_slot;  // a link: its fields and its storage (src/compat/redisbloom_slot.hpp)
  chain() = default;
  void append_link(const link_fields& fields);
  void release() noexcept;

  // 32 bytes, as RedisBloom's SBChain (memory_bytes() stays at or below info_size()).
  link_slot* links_ = nullptr;              // filters() slots, from operator new
  std::uint64_t size_ = 0;                  // items
  storage_allocator* allocator_ = nullptr;  // where every link's bits come from and go back
  std::uint32_t count_options_ = 0;         // links (low 24 bits) | options << 24
  std::uint32_t growth_ = 0;
};

// ---- RDB value (type MBbloom--) --------------------------------------------------------------

// Where the fields of an RDB value come from / go to (the module binds them to RedisModuleIO;
// the DUMP codec to an RDB byte stream). Reads throw bloomkit::error when the input ends or is
// malformed; read_string's view is valid until the next read.
class field_source {
 public:
  virtual ~field_source() = default;
  virtual std::uint64_t read_unsigned() = 0;
  virtual double read_double() = 0;
  virtual std::string_view read_string() = 0;
};

class field_sink {
 public:
  virtual ~field_sink() = default;
  virtual void write_unsigned(std::uint64_t value) = 0;
  virtual void write_double(double value) = 0;
  virtual void write_string(std::string_view bytes) = 0;
};

// Encoding version 4: size, nfilters, options, growth; per link entries, error (double),
// hashes, bpe (double), bits, n2, the bit array (string), size.
void save_fields(const chain& c, field_sink& out);
// Loads encoding version `encver` (0: no options, growth nor bits/n2 — bits = entries * bpe;
// 1: + bits, n2; 2-3: + options; 4: + growth; growth 2 before 4). Throws errc::unsupported for
// another version, errc::corrupt_file naming the field for hostile input (counts, sizes, hashes,
// error rates, bits against bytes, the number of links, options, item counts), errc::too_large
// when the bits cannot be allocated. Never crashes on any input.
chain load_fields(field_source& in, int encver);
// The module type a chain's values are: native_type_name with option_bloomkit_hash, else
// type_name (the option decides the hashing, so a key's type and answers always agree).
std::string_view value_type_of(const chain& c) noexcept;
// load_fields for a value of module type `type` (type_name or native_type_name) at that type's
// encoding version (native_type_name's version 1 holds version 4's fields). Throws as
// load_fields; errc::unsupported for another type or version; errc::corrupt_file when the chain's
// option_bloomkit_hash does not match the type.
chain load_value(field_source& in, std::string_view type, int encver);
// The most links a value may declare (RedisBloom asserts fewer than 1000 when loading).
inline constexpr std::uint64_t max_links = 1000;

// ---- BF.SCANDUMP / BF.LOADCHUNK --------------------------------------------------------------

// The header chunk (BF.SCANDUMP iter 0 answers iter 1 and these bytes): packed little-endian
// u64 size, u32 nfilters, u32 options, u32 growth, then per link u64 bytes, u64 bits, u64 size,
// f64 error, f64 bpe, u32 hashes, u64 entries, u8 n2.
std::vector<unsigned char> header_chunk(const chain& c);

// A data chunk: the bytes at offset iter - 1 of the links' bit arrays laid end to end, at most
// max_bytes and never past the end of a link; next = iter + data.size(). Past the end (or iter
// < 1) next is 0 and data empty: the last BF.SCANDUMP reply.
struct data_chunk {
  std::int64_t next = 0;
  std::span<const unsigned char> data;
};
data_chunk next_chunk(const chain& c, std::int64_t iter, std::size_t max_bytes = max_chunk_bytes);

// A refused chunk: errc::corrupt_file, with what is wrong (a Problem enum, BF.*'s or CF.*'s),
// so that the module can answer with RedisBloom's text.
template <class Problem>
class basic_chunk_error : public error {
 public:
  basic_chunk_error(Problem p, const std::string& message)
      : error(errc::corrupt_file, message), problem_(p) {}
  Problem problem() const noexcept { return problem_; }

 private:
  Problem problem_;
};

// What is wrong with a chunk, so that the module can answer with RedisBloom's text.
enum class chunk_problem : std::uint8_t {
  bad_data,  // "ERR received bad data"
  no_link,   // "ERR invalid offset - no link found"
  too_big,   // "ERR invalid chunk - Too big for current filter"
};
std::string_view redisbloom_text(chunk_problem p) noexcept;
using chunk_error = basic_chunk_error<chunk_problem>;

// BF.LOADCHUNK iter 1 on an empty key: a chain of the header's links with zeroed bits. Throws
// chunk_error (bad_data) naming the problem for a header of the wrong length, no links, more
// than max_links, or a link or chain RedisBloom refuses; errc::too_large when it cannot allocate.
chain chain_from_header(std::span<const unsigned char> header);
// BF.LOADCHUNK iter > 1: ORs `data` into the bits at offset iter - data.size() - 1 (an add made
// while the load is unfinished is kept). Throws chunk_error: bad_data (iter <= 0 or iter <
// data.size()), no_link (offset past the last link), too_big (data past its link's end). Empty
// data at an offset inside a link is accepted and changes nothing, as in RedisBloom.
void apply_chunk(chain& c, std::int64_t iter, std::span<const unsigned char> data);

// ---- DUMP payload ----------------------------------------------------------------------------

// The module id of RDB's module opcode for a 9-character type name and an encoding version
// (Redis's moduleTypeEncodeId), and back. decode_module_id throws errc::corrupt_file on a bad
// character.
std::uint64_t module_id(std::string_view type_name, int encver);
struct module_type {
  std::string name;
  int encver = 0;
};
module_type decode_module_id(std::uint64_t id);

// The payload DUMP gives for a chain: type byte 7, module id (MBbloom--, encoding_version; or
// bkbloom--, native_encoding_version, for a chain with option_bloomkit_hash), the
// opcode-tagged fields, EOF, rdb_version (2 bytes LE), CRC-64 (Jones, LE). Strings are written
// uncompressed (RESTORE accepts both; RedisBloom's own payloads LZF-compress sparse bit arrays).
std::vector<unsigned char> write_dump(const chain& c, std::uint16_t rdb_version = 10);
// Reads a DUMP payload of a MBbloom-- value (any loadable encoding version, LZF strings
// included) or of a bkbloom-- one (load_value). Throws errc::corrupt_file naming `source` and the
// problem (length, CRC, type byte, module id, field opcodes, LZF data, trailing bytes),
// errc::unsupported for another module type or an RDB version above 12, errc::too_large when the
// bits cannot be allocated.
chain read_dump(std::span<const unsigned char> payload, const std::string& source);

// CRC-64 (Jones polynomial, reflected, as Redis's crc64) and the LZF decompressor RDB strings
// use (throws errc::corrupt_file when the data does not decompress to exactly `size` bytes).
std::uint64_t crc64_jones(std::uint64_t crc, std::span<const unsigned char> bytes) noexcept;
std::vector<unsigned char> lzf_decompress(std::span<const unsigned char> in, std::size_t size);

}  // namespace bloomkit::redisbloom
