#pragma once
// Internal: the rules every filter kind shares, written once: sizing and checks of a config per
// storage, the read-only check, the compatibility check of merge / intersect, the word-wise
// combination, and the count estimate's "saturated: report m" rule.

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "../storage/storage_ops.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit::detail {

// Throws errc::invalid_argument: hash scheme `scheme` has no integer scheme (a peer's).
[[noreturn]] void refuse_integer_keys(hash_scheme scheme);

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
  require_same_geometry(Storage::ops::message_kind, Storage::ops::cell_name, a, b, operation);
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

// The storage's limits on a config (m, k; capacity and FPP are recorded, not checked), then the
// probe policy's.
template <class Probe, class Storage>
void check_config(const filter_config& c) {
  Storage::ops::check_config(c.cells, c.hashes);
  check_policy_params<Probe>(c.cells, c.hashes);
  if (c.keys != key_type::string && !integer_probe_policy<Probe>)
    refuse_integer_keys(Probe::scheme);
}
// Throws errc::invalid_argument unless the storage holds the config's cells.
void check_storage_size(const filter_config& c, std::uint64_t storage_bits,
                        std::uint32_t bits_per_cell);
template <class Storage>
void check_storage_size(const filter_config& c, std::uint64_t storage_bits) {
  check_storage_size(c, storage_bits, Storage::bits_per_cell);
}

// A config for n keys at FPP p: the storage's sizing (the probe policy's own, if it has one).
template <class Probe, class Storage>
filter_config sized_config(std::uint64_t n, double p) {
  return Storage::ops::template sized_config<Probe>(n, p);
}

// The config of m cells and k probes: capacity the n at which k is optimal, FPP the policy's there.
template <class Probe, class Storage>
filter_config natural_config(std::uint64_t cells, std::uint32_t hashes) {
  check_config<Probe, Storage>({cells, hashes, 0, 0});
  const std::uint64_t n = natural_capacity(cells, hashes);
  return {cells, hashes, n, policy_fpp<Probe>(cells, hashes, n)};
}

}  // namespace bloomkit::detail
