#pragma once
// Internal: the rules every filter kind shares, written once: sizing and checks of a config per
// storage, the read-only check, the compatibility check of merge / intersect, the word-wise
// combination, and the count estimate's "saturated: report m" rule.

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit::detail {

// The probe policy's own limits on m and k, if it has any (interop schemes: hashing.hpp).
template <class Policy>
void check_policy_params(std::uint64_t bits, std::uint32_t hashes) {
  if constexpr (requires { Policy::check_params(bits, hashes); }) {
    Policy::check_params(bits, hashes);
  }
}
// The policy's FPP figures (hashing.hpp), or the textbook ones.
template <class Policy>
double policy_fpp(std::uint64_t bits, std::uint32_t hashes, std::uint64_t n) {
  if constexpr (requires { Policy::fpp(bits, hashes, n); }) {
    return Policy::fpp(bits, hashes, n);
  } else {
    return expected_fpp(bits, hashes, n);
  }
}
template <class Policy>
double policy_fpp_at_fill(std::uint64_t bits, std::uint32_t hashes, double fill) noexcept {
  if constexpr (requires { Policy::fpp_at_fill(bits, hashes, fill); }) {
    return Policy::fpp_at_fill(bits, hashes, fill);
  } else {
    return std::pow(fill, hashes);
  }
}

// Throws errc::read_only (one message for every kind and every write) when `read_only`.
void require_writable(bool read_only);

// Whether x is finite and in (0, 1): a target FPP, a ratio.
inline bool in_open_unit_interval(double x) noexcept {
  return std::isfinite(x) && x > 0 && x < 1;
}
// What is wrong with a composite's capacity n (named `capacity_name` in the message) and target
// FPP p, if anything: n must be at least 1, p in (0, 1).
std::string capacity_and_fpp_problem(const char* capacity_name, std::uint64_t n, double p);
// "<what> must be in lo..hi, got v" when v is outside [lo, hi], else empty.
std::string range_problem(const char* what, std::uint64_t v, std::uint64_t lo, std::uint64_t hi);

// The count the estimate gives: a filter whose every cell is set (estimate infinite or past m)
// says nothing about its count, so it reports m.
std::uint64_t count_from_estimate(double estimate, std::uint64_t cells) noexcept;

// Throws errc::incompatible naming the operation and what differs unless both have the same
// cells and hashes ("cannot merge filters: bits differ (9586 vs 19171)", docs/CLI.md).
void require_same_geometry(std::string_view kind, std::string_view cell_name,
                           const filter_config& a, const filter_config& b, const char* operation);
template <class Storage>
void require_same_geometry(const filter_config& a, const filter_config& b, const char* operation) {
  const std::string_view kind = std::same_as<Storage, bit_storage> ? "" : Storage::name;
  require_same_geometry(kind, Storage::removable ? "counters" : "bits", a, b, operation);
}

// mine[i] = op(mine[i], theirs[i]) over every word (mine is writable: checked by the caller);
// then the check of a mapped `theirs`.
template <class Op>
void combine_words(bit_array& mine, const bit_array& theirs, Op op) {
  const std::span<std::uint64_t> a = mine.mutable_words();
  const std::span<const std::uint64_t> b = theirs.words();
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = op(a[i], b[i]);
  theirs.check_source();
}

// Limits of each storage on a config (m, k; capacity and FPP are recorded, not checked).
void check_bit_config(std::uint64_t cells, std::uint32_t hashes);
void check_counter_config(std::uint64_t cells, std::uint32_t hashes);
void check_blocked_config(std::uint64_t bits, std::uint32_t hashes);
template <class Probe, class Storage>
void check_config(const filter_config& c) {
  if constexpr (std::same_as<Storage, split_block_storage>) {
    check_blocked_config(c.cells, c.hashes);
  } else if constexpr (Storage::removable) {
    check_counter_config(c.cells, c.hashes);
  } else {
    check_bit_config(c.cells, c.hashes);
  }
  check_policy_params<Probe>(c.cells, c.hashes);
}
// Throws errc::invalid_argument unless the storage holds the config's cells.
void check_storage_size(const filter_config& c, std::uint64_t storage_bits,
                        std::uint32_t bits_per_cell);
template <class Storage>
void check_storage_size(const filter_config& c, std::uint64_t storage_bits) {
  check_storage_size(c, storage_bits, Storage::bits_per_cell);
}

// Whole blocks holding at least `bits` bits; the config of a filter of `blocks` blocks.
std::uint64_t blocks_for_bits(std::uint64_t bits);
filter_config blocked_config_for_blocks(std::uint64_t blocks);
// The blocked filter's FPP from its bits: the mean over blocks of the product over its eight
// words of (set bits / 32).
double blocked_fpp_of(std::span<const std::uint64_t> words) noexcept;

// A config for n keys at FPP p.
template <class Probe, class Storage>
filter_config sized_config(std::uint64_t n, double p) {
  if constexpr (std::same_as<Storage, split_block_storage>) {
    const std::uint64_t blocks = blocked_optimal_blocks(n, p);
    return {blocks * blocked_block_bits, blocked_hashes, n, p};
  } else {
    filter_params params;
    if constexpr (requires { Probe::optimal_params(n, p); }) {
      params = Probe::optimal_params(n, p);  // sized exactly as the peer sizes
    } else {
      params = optimal_params(n, p);
    }
    const filter_config config{params.bits, params.hashes, n, p};
    check_config<Probe, Storage>(config);
    return config;
  }
}

// The config of m cells and k probes: capacity the n at which k is optimal, FPP the policy's there.
template <class Probe, class Storage>
filter_config natural_config(std::uint64_t cells, std::uint32_t hashes) {
  check_config<Probe, Storage>({cells, hashes, 0, 0});
  const std::uint64_t n = natural_capacity(cells, hashes);
  return {cells, hashes, n, policy_fpp<Probe>(cells, hashes, n)};
}

}  // namespace bloomkit::detail
