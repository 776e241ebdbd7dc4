#include "bloomkit/compat/go_zero.hpp"

#include <cmath>
#include <string>

#include "../kinds/classic_kind.hpp"
#include "bloomkit/compat/murmur3.hpp"
#include "codec.hpp"
#include "peer_sizing.hpp"
#include "suffixed_key.hpp"

namespace bloomkit {

template class basic_filter<go_zero::policy, bit_storage>;

namespace go_zero {

filter_params optimal_params(std::uint64_t n, double p) {
  validate_capacity(n);
  validate_fpp(p);
  // fpp(m, k, n) = (1 - e^(-kn/m))^k <= p  <=>  m >= -k n / ln(1 - p^(1/k)).
  const double m = std::ceil(-static_cast<double>(hashes) * static_cast<double>(n) /
                             std::log1p(-std::pow(p, 1.0 / hashes)));
  if (!(m <= static_cast<double>(max_bits))) {
    throw error(errc::too_large, "capacity " + std::to_string(n) +
                                     " at that fpp needs more than the maximum of " +
                                     std::to_string(max_bits) + " bits");
  }
  auto bits = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(m));
  // Settle floating-point rounding at the boundary exactly.
  while (bits > 1 && expected_fpp(bits - 1, hashes, n) <= p) --bits;
  while (expected_fpp(bits, hashes, n) > p) ++bits;
  // That textbook size stands when the exact figure of 14 independent probes is within
  // textbook_slack of p (large n); a small filter, where probes of one key collide, grows to
  // the fewest bits that hold p exactly (sizing.hpp).
  if (independent_probes_fpp(bits, hashes, n) <= textbook_slack * p) return {bits, hashes};
  std::uint64_t lo = bits;  // fails
  std::uint64_t hi = bits;
  while (!(independent_probes_fpp(hi, hashes, n) <= p)) {
    if (hi >= max_bits) {
      throw error(errc::too_large, "capacity " + std::to_string(n) +
                                       " at that fpp needs more than the maximum of " +
                                       std::to_string(max_bits) + " bits");
    }
    lo = hi;
    hi = std::min(max_bits, hi * 2);
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (independent_probes_fpp(mid, hashes, n) <= p ? hi : lo) = mid;
  }
  return {hi, hashes};
}

void check_params(std::uint64_t /*bits*/, std::uint32_t k) {
  if (k != hashes) {
    throw error(errc::invalid_argument, "a go-zero filter has exactly " + std::to_string(hashes) +
                                            " hashes (got " + std::to_string(k) + ")");
  }
}

filter_params new_filter_params(std::uint64_t n, double p) {
  validate_capacity(n);
  validate_fpp(p);
  const double raw = compat::detail::textbook_bits_before_truncation(n, p);
  if (!(raw < static_cast<double>(max_redis_bits) + 1)) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " +
                                     compat::detail::exact_double(p) +
                                     " needs more than Redis's maximum of " +
                                     std::to_string(max_redis_bits) + " bits in one string");
  }
  const auto bits = static_cast<std::uint64_t>(raw);  // Go's uint() truncates
  return compat::detail::textbook_params_for_bits(n, p, bits, max_hashes, "a go-zero filter");
}

void check_any_k_params(std::uint64_t bits, std::uint32_t k) {
  compat::detail::check_one_to(bits, max_redis_bits, "a go-zero filter has 1 to ", " bits");
  compat::detail::check_one_to(k, max_hashes, "a go-zero filter has 1 to ", " hashes");
}

void sum64s(std::string_view key, std::span<std::uint64_t> out) {
  compat::detail::suffixed_key suffixed(key);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = compat::murmur3_x64_128(suffixed.with(static_cast<char>(i))).low;  // Go's byte(i)
  }
}

digest sum64s(std::string_view key) noexcept {
  digest out;
  sum64s(key, out);
  return out;
}

void positions(std::string_view key, std::uint64_t bits, std::span<std::uint64_t> out) {
  sum64s(key, out);
  for (auto& p : out) p %= bits;
}

std::vector<unsigned char> to_redis(const filter& f) {
  std::vector<unsigned char> out((f.bits() + 7) / 8, 0);
  const auto words = f.storage().words();
  for (std::size_t w = 0; w < words.size(); ++w) {
    for (std::uint64_t v = words[w]; v != 0; v &= v - 1) {
      const std::uint64_t bit = 64 * w + static_cast<unsigned>(__builtin_ctzll(v));
      out[bit / 8] |= static_cast<unsigned char>(0x80u >> (bit % 8));
    }
  }
  return out;
}

filter from_redis(std::span<const unsigned char> bytes, std::uint64_t bits,
                  const std::string& source) {
  bloomkit::detail::with_context([&] { return source + ": "; },
                                 [&] { validate_params(bits, hashes); });
  bit_array storage(bits);
  auto words = storage.mutable_words();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned v = bytes[i]; v != 0; v &= v - 1) {
      const std::uint64_t bit = 8 * i + (7 - static_cast<unsigned>(std::countr_zero(v)));
      if (bit >= bits) {
        compat::detail::fail_file(errc::corrupt_file, source,
                                  "bit " + std::to_string(bit) + " is set, past the filter's " +
                                      std::to_string(bits) + " bits (is the bit count right?)");
      }
      words[bit / 64] |= std::uint64_t{1} << (bit % 64);
    }
  }
  return compat::detail::imported_filter<filter>(bits, hashes, std::move(storage), source);
}

}  // namespace go_zero

// bloomkit files of these filters: kind classic, the peer's scheme (src/kinds/classic_kind.hpp).
template struct kind_traits<go_zero::filter>;
template struct detail::file_io<go_zero::filter>;

}  // namespace bloomkit
