// static_filter: the sizing of the fingerprints and shards and the build of the shards on threads
// (the batched lookups: static_lookups.cpp).

#include "bloomkit/static_filter.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "bloomkit/error.hpp"
#include "static/distinct_shard_count.hpp"
#include "static/pack_tables.hpp"
#include "static/parallel_for.hpp"

namespace bloomkit {

namespace {

[[noreturn]] void refuse_change() {
  throw error(errc::invalid_argument, std::string(static_filter_takes_no_inserts));
}

}  // namespace

bool static_filter::insert(std::string_view) {
  refuse_change();
}
std::size_t static_filter::insert_many(std::span<const std::string_view>) {
  refuse_change();
}
bool static_filter::remove(std::string_view) {
  refuse_change();
}
void static_filter::merge(const static_filter&) {
  refuse_change();
}
void static_filter::intersect(const static_filter&) {
  refuse_change();
}
void static_filter::clear() {
  refuse_change();
}

std::uint32_t static_filter::fingerprint_bits_for(double fpp) {
  const auto text = [](double p) {
    char out[32];
    std::snprintf(out, sizeof out, "%.6g", p);
    return std::string(out);
  };
  if (!(fpp > 0.0 && fpp < 1.0)) {
    throw error(errc::invalid_argument, "static filter: fpp must be in (0, 1), not " + text(fpp));
  }
  if (fpp < std::ldexp(1.0, -static_cast<int>(static_shard::max_fingerprint_bits))) {
    throw error(errc::invalid_argument, "static filter: fpp must be at least 2^-32 (" +
                                            text(std::ldexp(1.0, -32)) +
                                            ", 32-bit fingerprints), not " + text(fpp));
  }
  std::uint32_t bits = 1;
  while (std::ldexp(1.0, -static_cast<int>(bits)) > fpp) ++bits;
  return bits;
}

std::uint32_t static_filter::shard_bits_for(std::uint64_t n) noexcept {
  std::uint32_t s = 0;
  while (s < max_shard_bits && (n >> s) > max_shard_keys) ++s;
  // n / 2^s rounds down: one more shard when the remainder would take it past the bound.
  if (s < max_shard_bits && (n >> s) == max_shard_keys && (n & ((std::uint64_t{1} << s) - 1)) != 0)
    ++s;
  return s;
}

std::uint64_t static_filter::first_seed(std::uint32_t index) noexcept {
  return static_shard::next_seed(0x5ca1ab1e00000000ULL + index);
}

namespace {
// Over the shards of n keys spread evenly (n mod 2^s of them one key more): Σ size(keys, b).
template <class Size>
std::uint64_t sum_over_shards(std::uint64_t n, double fpp, Size size) {
  const std::uint32_t b = static_filter::fingerprint_bits_for(fpp);
  const std::uint32_t s = static_filter::shard_bits_for(n);
  const std::uint64_t shards = std::uint64_t{1} << s;
  const std::uint64_t each = n >> s, more = n & (shards - 1);
  std::uint64_t total = (shards - more) * size(each, b);
  if (more != 0) total += more * size(each + 1, b);
  return total;
}
}  // namespace

std::uint64_t static_filter::bits_for(std::uint64_t n, double fpp) {
  return sum_over_shards(n, fpp, [](std::uint64_t keys, std::uint32_t b) {
    return detail::fuse_geometry_for(keys).cells() * b;
  });
}

std::uint64_t static_filter::bytes_for(std::uint64_t n, double fpp) {
  return sum_over_shards(n, fpp, static_shard::bytes_for);
}

static_filter static_filter::build(std::span<const std::string_view> keys, double fpp,
                                   unsigned threads) {
  fingerprint_bits_for(fpp);  // the error before the hashing
  std::vector<std::uint64_t> hashes(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = xxh3_64(keys[i]);
  return build_from_hashes(std::move(hashes), fpp, threads);
}

namespace {

// The shards of `hashes` in 2^s shards by their top s bits, built on `threads` threads. `hashes`
// is regrouped by shard and, as every shard build leaves it, holds the same set on return.
std::vector<static_shard> build_shards(std::vector<std::uint64_t>& hashes, std::uint32_t b,
                                       std::uint32_t s, unsigned threads) {
  const std::size_t shard_count = std::size_t{1} << s;
  // The hashes grouped by shard (a counting sort on the top s bits).
  std::vector<std::size_t> start(shard_count + 1, 0);
  if (s != 0) {
    for (const std::uint64_t h : hashes) ++start[static_filter::shard_of(h, s) + 1];
    for (std::size_t i = 0; i < shard_count; ++i) start[i + 1] += start[i];
    std::vector<std::uint64_t> grouped(hashes.size());
    std::vector<std::size_t> at(start.begin(), start.end() - 1);
    for (const std::uint64_t h : hashes) grouped[at[static_filter::shard_of(h, s)]++] = h;
    hashes = std::move(grouped);
  } else {
    start[1] = hashes.size();
  }
  std::vector<std::optional<static_shard>> built(shard_count);
  detail::parallel_for(shard_count, threads, [&](std::uint64_t i) {
    const std::span<std::uint64_t> part(hashes.data() + start[i], start[i + 1] - start[i]);
    built[i] =
        static_shard::build(part, b, static_filter::first_seed(static_cast<std::uint32_t>(i)));
  });
  std::vector<static_shard> shards;
  shards.reserve(shard_count);
  for (auto& shard : built) shards.push_back(std::move(*shard));
  return shards;
}

}  // namespace

static_filter static_filter::build_from_hashes(std::vector<std::uint64_t> hashes, double fpp,
                                               unsigned threads) {
  const std::uint32_t b = fingerprint_bits_for(fpp);
  detail::distinct_shards built = detail::build_for_distinct_keys(
      hashes.size(), [&](std::uint32_t s) { return build_shards(hashes, b, s, threads); });
  detail::pack_tables(built.shards);
  return from_shards(fpp, b, built.shard_bits, std::move(built.shards));
}

static_filter static_filter::from_shards(double fpp, std::uint32_t fingerprint_bits,
                                         std::uint32_t shard_bits,
                                         std::vector<static_shard> shards) {
  fingerprint_bits_for(fpp);
  if (shard_bits > max_shard_bits || shards.size() != (std::uint64_t{1} << shard_bits)) {
    throw error(errc::invalid_argument, "static filter: " + std::to_string(shards.size()) +
                                            " shards for shard bits " + std::to_string(shard_bits) +
                                            " (2^bits expected)");
  }
  static_filter f;
  for (const auto& shard : shards) {
    if (shard.fingerprint_bits() != fingerprint_bits) {
      throw error(errc::invalid_argument,
                  "static filter: a shard of " + std::to_string(shard.fingerprint_bits()) +
                      "-bit fingerprints in a filter of " + std::to_string(fingerprint_bits));
    }
    f.keys_ += shard.keys();
    f.slots_ += shard.cells();
  }
  f.shards_ = std::move(shards);
  f.target_fpp_ = fpp;
  f.fingerprint_bits_ = fingerprint_bits;
  f.shard_bits_ = shard_bits;
  return f;
}

static_filter static_filter::over_file(double fpp, std::uint32_t fingerprint_bits,
                                       std::uint32_t shard_bits, std::vector<static_shard> shards,
                                       const mapped_file* file) {
  static_filter f = from_shards(fpp, fingerprint_bits, shard_bits, std::move(shards));
  f.source_ = file;
  return f;
}

bool operator==(const static_filter& a, const static_filter& b) noexcept {
  return a.target_fpp_ == b.target_fpp_ && a.fingerprint_bits_ == b.fingerprint_bits_ &&
         a.shard_bits_ == b.shard_bits_ && a.shards_ == b.shards_;
}

double static_filter::bits_per_key() const noexcept {
  return keys_ == 0 ? 0.0 : static_cast<double>(bits()) / static_cast<double>(keys_);
}

double static_filter::load() const noexcept {
  return slots_ == 0 ? 0.0 : static_cast<double>(keys_) / static_cast<double>(slots_);
}

double static_filter::fpp() const noexcept {
  return std::ldexp(1.0, -static_cast<int>(fingerprint_bits_));
}

std::size_t static_filter::byte_size() const noexcept {
  std::size_t bytes = 0;
  for (const auto& shard : shards_) bytes += shard.bytes().size();
  return bytes;
}

}  // namespace bloomkit
