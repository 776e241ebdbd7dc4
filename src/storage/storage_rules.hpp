#pragma once
// Internal: the rules of each storage on a filter's config (m, k) and the figures a probe policy
// may bring (hashing.hpp), for the storages' ops (storage_ops.hpp).

#include <cmath>
#include <cstdint>
#include <span>

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
// The policy's own sizing (the peers'), or optimal_params (sizing.hpp).
template <class Policy>
filter_params policy_params(std::uint64_t n, double p) {
  if constexpr (requires { Policy::optimal_params(n, p); }) {
    return Policy::optimal_params(n, p);  // sized exactly as the peer sizes
  } else {
    return optimal_params(n, p);
  }
}

// Limits of each storage on a config (m, k; capacity and FPP are recorded, not checked).
void check_bit_config(std::uint64_t cells, std::uint32_t hashes);
void check_counter_config(std::uint64_t cells, std::uint32_t hashes);
void check_blocked_config(std::uint64_t bits, std::uint32_t hashes);

// Whole blocks holding at least `bits` bits; the config of a filter of `blocks` blocks.
std::uint64_t blocks_for_bits(std::uint64_t bits);
filter_config blocked_config_for_blocks(std::uint64_t blocks);
// The blocked filter's FPP from its bits, for its layout (k = hashes, sizing.hpp): split blocks
// the mean over blocks of the product over its eight words of (set bits / 32); lines the same
// over fields, raised to the lines per key.
double blocked_fpp_of(std::span<const std::uint64_t> words, std::uint32_t hashes) noexcept;
// The set bits among bits first .. first + count - 1 of `words`.
std::uint64_t count_bits(const std::uint64_t* words, std::uint64_t first,
                         std::uint64_t count) noexcept;

}  // namespace bloomkit::detail
