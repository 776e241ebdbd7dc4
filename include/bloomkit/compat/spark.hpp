#pragma once
// Apache Spark's BloomFilter (org.apache.spark.util.sketch): V1 (Spark 2.0 on) and V2 (Spark 4.1
// on, SPARK-47547). Read and write its writeTo() bytes, size filters as BloomFilter.create does,
// and answer exactly as mightContain*() does.
//
//   auto any = bloomkit::spark::read(bytes, "ids.bin");        // V1 or V2, by its version field
//   std::visit([](const auto& f) { return f.contains("alice"); }, any);  // putString / putBinary
//   std::visit([](const auto& f) { return f.contains(std::int64_t{42}); }, any);  // putLong
//   auto out = bloomkit::spark::write(std::get<bloomkit::spark::v2_filter>(any));  // same bytes
//
// Hashing, both versions: h1 = murmur3_x86_32(bytes, seed), h2 = murmur3_x86_32(bytes, h1), with
// Spark's murmur3 (Murmur3_x86_32.hashUnsafeBytes: each tail byte, sign-extended, is mixed as a
// block of its own). The bytes are the UTF-8 of a string (putString is putBinary of them, so
// strings and byte arrays are one key type), or the 8 little-endian bytes of a long (putLong,
// which is bloomkit's integral keys: key_type::int64 in bloomkit files).
//   V1 (seed 0): probe i = 1..k is c = h1 + i*h2 in 32-bit arithmetic, c = ~c when negative,
//     c % bits. c < 2^31, so no bit at or above 2^31 is ever set: a V1 filter past 2^31 bits
//     (about 10^8 items) answers as if it had 2^31 bits and misses its FPP (v1_bits_lost).
//   V2 (the header's seed): c = h1 * (2^31 - 1) in 64 bits; probe i = 1..k adds h2 to c, then
//     takes ~c when negative and c % bits.
// bits is always 64 * numWords (Spark's bitSize), never the requested numBits. A V1 filter is the
// classic filter with the V1 probe policy; a V2 filter is the classic filter with the V2 policy
// and its seed (spark_v2_filter.hpp). bloomkit files record the version as the hash scheme
// (spark-v1 = 16, spark-v2 = 17), a V2 seed in kind_params[0] and putLong keys in the key-type
// flag (docs/FORMAT.md). See docs/INTEROP.md for the format.

#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/compat/spark_policy.hpp"
#include "bloomkit/compat/spark_v2_filter.hpp"
#include "bloomkit/file.hpp"

namespace bloomkit::spark {

using v1_filter = basic_bloom_filter<v1_policy>;  // create(Version.V1, n, numBits, seed)
// v2_filter (spark_v2_filter.hpp): what BloomFilter.create(n, p) makes since Spark 4.1.
using any_filter = std::variant<v1_filter, v2_filter>;

// The version field of a filter's bytes.
inline version version_of(const v1_filter&) noexcept {
  return version::v1;
}
inline version version_of(const v2_filter&) noexcept {
  return version::v2;
}
version version_of(const any_filter& f) noexcept;
// The seed of the V2 header; 0 for V1 (Spark reads V1 filters back with seed 0).
inline std::int32_t seed_of(const v1_filter&) noexcept {
  return 0;
}
inline std::int32_t seed_of(const v2_filter& f) noexcept {
  return f.seed();
}
std::int32_t seed_of(const any_filter& f) noexcept;

// A V1 filter of more than 2^31 bits: its bits past 2^31 can never be set, so it answers as a
// filter of 2^31 bits would and its FPP is far above the one it was sized for. The bits it can
// never use (0 when none): what `info` warns of (rebuild as V2, or convert to a native kind).
std::uint64_t v1_bits_lost(std::uint64_t bits) noexcept;

// Decodes writeTo() bytes: version (big-endian int: 1 or 2), numHashFunctions (int), for V2 the
// seed (int), numWords (int), then numWords big-endian longs. Throws errc::corrupt_file naming
// `source` and the field for a truncated or inconsistent stream (k or numWords not positive, bits
// past bloomkit's limits) or trailing bytes, errc::unsupported for a version other than 1 and 2.
any_filter read(std::span<const unsigned char> bytes, const std::string& source);
// Reads one filter from `in` and stops after it, as BloomFilter.readFrom() does.
any_filter read(std::istream& in, const std::string& source);

// The writeTo() bytes of the filter, byte for byte what Spark writes for the same bits.
std::vector<unsigned char> write(const v1_filter& filter);
std::vector<unsigned char> write(const v2_filter& filter);
std::vector<unsigned char> write(const any_filter& filter);
void write(const v1_filter& filter, std::ostream& out);
void write(const v2_filter& filter, std::ostream& out);
void write(const any_filter& filter, std::ostream& out);

}  // namespace bloomkit::spark

namespace bloomkit {

// bloomkit filter files holding V1 filters: the classic kind's traits (kinds.hpp), scheme
// spark-v1. V2 filters: kind_traits<spark::v2_filter> (spark_kind.hpp).
extern template class basic_filter<spark::v1_policy, bit_storage>;
extern template class basic_filter<spark::v2_policy, bit_storage>;

}  // namespace bloomkit

#include "bloomkit/compat/spark_kind.hpp"
