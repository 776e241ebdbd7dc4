// A RedisBloom link's sizing (bloom_init) and integrity rule (bloom_validate_integrity), from
// RedisBloom's deps/bloom/bloom.c: the same double arithmetic and constants, so that the sizes
// come out identical (redisbloom.hpp).

#include <cmath>
#include <limits>
#include <string>

#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/sizing.hpp"
#include "redisbloom_rules.hpp"

namespace bloomkit::redisbloom {

namespace {

// RedisBloom's truncated constants: ln(2) and ln(2)^2.
constexpr double ln2 = 0.693147180559945;
constexpr double ln2_squared = 0.480453013918201;

std::string link_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

[[noreturn]] void refuse_link(const std::string& what) {
  throw error(errc::invalid_argument, "RedisBloom link: " + what);
}

// double -> uint64 as C converts it (truncation), for values known to be in range.
std::uint64_t c_truncate(double v) {
  if (!(v >= 0)) refuse_link("size " + link_text(v) + " out of range");
  if (v >= 18446744073709551616.0) {
    throw error(errc::too_large, "RedisBloom link of " + link_text(v) + " bits: past 2^64");
  }
  return static_cast<std::uint64_t>(v);
}

}  // namespace

double bits_per_entry(double error) noexcept {
  const double bpe = -(std::log(error) / ln2_squared);
  return bpe < 0 ? -bpe : bpe;
}

std::optional<std::uint32_t> hashes_for(double bpe) noexcept {
  const double k = std::ceil(ln2 * bpe);
  if (!(k >= 0) || k > static_cast<double>(max_hashes)) return std::nullopt;  // NaN too
  return static_cast<std::uint32_t>(k);
}

link_fields size_link(std::uint64_t entries, double rate, std::uint32_t options) {
  if (entries < 1) refuse_link("capacity 0");
  if (!(rate > 0 && rate < 1)) refuse_link("error rate " + link_text(rate) + " outside (0, 1)");
  link_fields f;
  f.error = rate;
  f.entries = entries;
  f.bpe = bits_per_entry(rate);
  std::uint64_t bits = 0;
  if ((options & option_entries_is_bits) != 0) {
    if (entries > 63) refuse_link("2^" + std::to_string(entries) + " bits");
    f.n2 = static_cast<std::uint8_t>(entries);
    bits = std::uint64_t{1} << f.n2;
    f.entries = c_truncate(static_cast<double>(bits) / f.bpe);
  } else if ((options & option_noround) != 0) {
    bits = c_truncate(static_cast<double>(entries) * f.bpe);
    if (bits == 0) bits = 1;
  } else {
    const double wanted = static_cast<double>(entries) * f.bpe;
    const double bn2 = std::logb(wanted);
    // RedisBloom refuses past 2^63 bits; below one bit its n2 would wrap (never made).
    if (!(bn2 >= 0) || bn2 > 62)
      refuse_link("power-of-two size for " + link_text(wanted) + " bits");
    f.n2 = static_cast<std::uint8_t>(bn2 + 1);
    bits = std::uint64_t{1} << f.n2;
    const std::uint64_t spare_bits = c_truncate(static_cast<double>(bits) - wanted);
    f.entries += c_truncate(static_cast<double>(spare_bits) / f.bpe);
  }
  if (bits > max_bits) {
    throw error(errc::too_large, "RedisBloom link of " + std::to_string(bits) +
                                     " bits: more than bloomkit's " + std::to_string(max_bits));
  }
  f.bytes = bits % 64 != 0 ? (bits / 64 + 1) * 8 : bits / 8;
  f.bits = f.bytes * 8;
  const auto k = hashes_for(f.bpe);
  if (!k) refuse_link("error rate " + link_text(rate) + " needs too many hashes");
  f.hashes = *k;
  return f;
}

std::optional<std::string> link_problem(const link_fields& f) {
  if (!(f.error > 0 && f.error < 1)) return "error rate " + link_text(f.error) + " outside (0, 1)";
  if (f.n2 > 63) return "n2 " + std::to_string(f.n2) + " above 63";
  if (f.bits == 0) return std::string("0 bits");
  if (f.n2 != 0 && f.bits < (std::uint64_t{1} << f.n2)) {
    return std::to_string(f.bits) + " bits below 2^n2 (n2 " + std::to_string(f.n2) + ")";
  }
  if (f.bytes > std::numeric_limits<std::uint64_t>::max() / 8 || f.bits != f.bytes * 8) {
    return std::to_string(f.bits) + " bits for " + std::to_string(f.bytes) + " bytes";
  }
  const auto k = hashes_for(f.bpe);
  if (!k || *k != f.hashes) {
    return std::to_string(f.hashes) + " hashes for " + link_text(f.bpe) + " bits per entry";
  }
  return std::nullopt;
}

std::optional<std::string> storage_problem(const link_fields& f) {
  if (f.bytes == 0) return std::string("an empty bit array");
  if (f.bytes > max_bits / 8) {
    return std::to_string(f.bytes) + " bytes of bits: more than bloomkit's " +
           std::to_string(max_bits / 8);
  }
  if (f.bits == 0) return std::string("0 bits");
  if (f.bits > f.bytes * 8 || f.bytes * 8 - f.bits > max_bits_gap) {
    return std::to_string(f.bits) + " bits for " + std::to_string(f.bytes) + " bytes";
  }
  if (f.n2 > 63) return "n2 " + std::to_string(f.n2) + " above 63";
  if (f.n2 != 0 && (std::uint64_t{1} << f.n2) > f.bytes * 8) {
    return "2^" + std::to_string(f.n2) + " probe range past " + std::to_string(f.bytes) + " bytes";
  }
  if (f.hashes > max_hashes) {
    return std::to_string(f.hashes) + " hashes: more than " + std::to_string(max_hashes);
  }
  if (!(f.error > 0 && f.error < 1)) return "error rate " + link_text(f.error) + " outside (0, 1)";
  // NaN would also make the chain unequal to itself after a round trip.
  if (!(f.bpe >= 0 && f.bpe < std::numeric_limits<double>::infinity())) {
    return "bits per entry " + link_text(f.bpe) + " not a finite number";
  }
  return std::nullopt;
}

}  // namespace bloomkit::redisbloom
