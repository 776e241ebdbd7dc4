// Spark's murmur3_x86_32, the (h1, h2) pair, Spark's sizing and limits, and the V1 figures
// (compat/spark_policy.hpp).

#include "bloomkit/compat/spark_policy.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "bloomkit/error.hpp"
#include "codec.hpp"
#include "peer_sizing.hpp"

namespace bloomkit::spark {
namespace {

constexpr std::uint32_t mix_k1(std::uint32_t k) noexcept {
  return std::rotl(k * 0xcc9e2d51u, 15) * 0x1b873593u;
}
constexpr std::uint32_t mix_h1(std::uint32_t h, std::uint32_t k) noexcept {
  return std::rotl(h ^ k, 13) * 5u + 0xe6546b64u;
}
constexpr std::uint32_t fmix(std::uint32_t h, std::uint32_t length) noexcept {
  h ^= length;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

}  // namespace

std::int32_t murmur3_x86_32(std::string_view bytes, std::int32_t seed) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t aligned = bytes.size() - bytes.size() % 4;
  auto h = static_cast<std::uint32_t>(seed);
  for (std::size_t i = 0; i < aligned; i += 4) {
    const std::uint32_t block = std::uint32_t{p[i]} | std::uint32_t{p[i + 1]} << 8 |
                                std::uint32_t{p[i + 2]} << 16 | std::uint32_t{p[i + 3]} << 24;
    h = mix_h1(h, mix_k1(block));
  }
  // Spark's tail: each byte sign-extended (Java byte to int) and mixed as a block.
  for (std::size_t i = aligned; i < bytes.size(); ++i) {
    const auto b = static_cast<std::int32_t>(static_cast<signed char>(p[i]));
    h = mix_h1(h, mix_k1(static_cast<std::uint32_t>(b)));
  }
  // Java passes the length as an int: keys of 2^31 bytes or more cannot reach Spark.
  return static_cast<std::int32_t>(fmix(h, static_cast<std::uint32_t>(bytes.size())));
}

hash_pair hash_pair_of(std::string_view key, std::int32_t seed) noexcept {
  const std::int32_t h1 = murmur3_x86_32(key, seed);
  return {h1, murmur3_x86_32(key, h1)};
}

filter_params optimal_params(std::uint64_t n, double p) {
  validate_fpp(p);
  if (n == 0) throw error(errc::invalid_argument, "a Spark filter expects at least 1 item");
  // Java: (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2))), truncated.
  const double raw = compat::detail::textbook_bits_before_truncation(n, p);
  if (!(raw < static_cast<double>(max_words * 64 + 1))) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " +
                                     compat::detail::exact_double(p) +
                                     " needs more than Spark's maximum of " +
                                     std::to_string(max_words * 64) + " bits");
  }
  return params_for_bits(n, static_cast<std::uint64_t>(raw));
}

filter_params params_for_bits(std::uint64_t n, std::uint64_t num_bits) {
  if (n == 0) throw error(errc::invalid_argument, "a Spark filter expects at least 1 item");
  const std::uint64_t words = (num_bits + 63) / 64;
  if (num_bits == 0 || words > max_words) {
    throw error(num_bits == 0 ? errc::invalid_argument : errc::too_large,
                "a Spark filter has 1 to " + std::to_string(max_words * 64) + " bits (asked " +
                    std::to_string(num_bits) + ")");
  }
  // Java: Math.max(1, (int) Math.round((double) numBits / n * Math.log(2))), from the requested
  // numBits, before BitArray rounds it up to whole words.
  const double k = compat::detail::textbook_hashes_before_max(num_bits, n);
  if (k > max_hashes) {
    throw error(errc::too_large, "fpp calls for " + compat::detail::exact_double(k) +
                                     " hashes, more than bloomkit's maximum of " +
                                     std::to_string(max_hashes));
  }
  return {words * 64, std::max<std::uint32_t>(1, static_cast<std::uint32_t>(k))};
}

void check_params(std::uint64_t bits, std::uint32_t hashes) {
  compat::detail::check_one_to(hashes, max_hashes, "a Spark filter has 1 to ", " hashes");
  if (bits == 0 || bits % 64 != 0 || bits / 64 > max_words) {
    throw error(errc::invalid_argument, "a Spark filter has a whole number of 64-bit words, 1 to " +
                                            std::to_string(max_words) + " (got " +
                                            std::to_string(bits) + " bits)");
  }
}

double v1_policy::fpp(std::uint64_t bits, std::uint32_t hashes, std::uint64_t n) {
  return expected_fpp(std::min(bits, v1_reachable_bits), hashes, n);
}

double v1_policy::fpp_at_fill(std::uint64_t bits, std::uint32_t hashes, double fill) noexcept {
  const auto reachable = static_cast<double>(std::min(bits, v1_reachable_bits));
  const double share = std::min(1.0, fill * static_cast<double>(bits) / reachable);
  return std::pow(share, hashes);
}

}  // namespace bloomkit::spark
