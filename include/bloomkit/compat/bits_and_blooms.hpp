#pragma once
// bits-and-blooms/bloom v3 (Go, github.com/bits-and-blooms/bloom/v3; tested against v3.3.1 with
// bitset 1.2.2): read and write its WriteTo() binary format and its MarshalJSON() text, size
// filters as NewWithEstimates() does, and answer exactly as Test() does.
//
//   auto f = bloomkit::bits_and_blooms::read_json(text, "users.json");
//   f.contains("alice");
//
// Its probes: sum256 gives four 64-bit words, h0 and h1 from murmur3 x64 128 (seed 0) of the key,
// h2 and h3 of the key followed by the byte 1; location i = h[i % 2] + i * h[2 + ((i + i % 2) % 4)
// / 2] (mod 2^64), reduced with '%' modulo m. Go reads the key's blocks in the machine's byte
// order, so these are the locations of a little-endian machine (docs/INTEROP.md).

#include <array>
#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"

namespace bloomkit::bits_and_blooms {

// EstimateParameters(n, p): m = ceil(-n ln p / (ln 2)^2), k = ceil(ln 2 * m / n), both at least 1
// (New() forces that). Throws errc::invalid_argument for n = 0 or p outside (0, 1).
filter_params optimal_params(std::uint64_t n, double p);

using digest = std::array<std::uint64_t, 4>;  // sum256
digest sum256(std::string_view key) noexcept;

// The i-th location before the reduction modulo m (Go's bloom.Locations()).
constexpr std::uint64_t location(const digest& h, std::uint64_t i) noexcept {
  return h[i % 2] + i * h[2 + ((i + i % 2) % 4) / 2];
}

using sequence = indexed_probe_sequence<digest, location>;

struct policy : probe_policy<hash_scheme::bits_and_blooms_v3, digest, sequence, sum256> {
  static filter_params optimal_params(std::uint64_t n, double p) {
    return bits_and_blooms::optimal_params(n, p);
  }
};

// for_capacity(n, p) sizes as NewWithEstimates(n, p) does.
using filter = basic_bloom_filter<policy>;

// WriteTo(): m, k (big-endian uint64), then the bitset's WriteTo(): its length in bits
// (big-endian uint64) and its words (big-endian uint64). Throws errc::corrupt_file naming
// `source` for truncated or inconsistent input, errc::unsupported for a bitset whose word count
// differs from m's (a filter made by FromWithM() over a longer slice).
filter read(std::span<const unsigned char> bytes, const std::string& source);
// Reads one WriteTo() stream from `in` and stops after it, as ReadFrom() does.
filter read(std::istream& in, const std::string& source);
std::vector<unsigned char> write(const filter& f);
void write(const filter& f, std::ostream& out);

// MarshalJSON(): {"m":M,"k":K,"b":"<base64 of the bitset's WriteTo() bytes>"}. The reader takes
// the keys in any order with JSON whitespace, and both base64 alphabets (URL, Go's default, and
// standard, after bitset.Base64StdEncoding()); the writer writes exactly what Go writes.
filter read_json(std::string_view text, const std::string& source);
filter read_json(std::istream& in, const std::string& source);
std::string write_json(const filter& f);
void write_json(const filter& f, std::ostream& out);

}  // namespace bloomkit::bits_and_blooms

namespace bloomkit {

// bloomkit filter files holding these filters: save / load / map (file.hpp), kind classic, scheme
// bits-and-blooms-v3.
extern template class basic_filter<bits_and_blooms::policy, bit_storage>;

}  // namespace bloomkit
