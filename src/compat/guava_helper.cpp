#include "bloomkit/compat/guava_helper.hpp"

#include <array>
#include <string>

#include "../core/enum_names.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/compat/murmur3.hpp"
#include "bloomkit/error.hpp"
#include "codec.hpp"
#include "peer_sizing.hpp"

namespace bloomkit::guava_helper {

namespace {

constexpr std::array<bloomkit::detail::enum_name<funnel>, 3> funnel_names{{
    {funnel::string, "string"},
    {funnel::string_twice, "string-twice"},
    {funnel::long_integer, "long"},
}};

}  // namespace

std::string_view to_string(funnel f) noexcept {
  return bloomkit::detail::name_in<funnel>(funnel_names, f, "?");
}

std::optional<funnel> parse_funnel(std::string_view name) noexcept {
  return bloomkit::detail::value_in<funnel>(funnel_names, name);
}

filter_params optimal_params(std::uint64_t n, double p) {
  validate_capacity(n);
  validate_fpp(p);
  if (n > max_bits) {
    throw error(errc::invalid_argument, "capacity " + std::to_string(n) +
                                            " is past the helper's int expectedInsertions (at "
                                            "most " +
                                            std::to_string(max_bits) + ")");
  }
  const double raw = compat::detail::textbook_bits_before_truncation(n, p);
  // Java's (int) of a double past Integer.MAX_VALUE is Integer.MAX_VALUE.
  const std::uint64_t bits =
      raw >= static_cast<double>(max_bits) ? max_bits : static_cast<std::uint64_t>(raw);
  return compat::detail::textbook_params_for_bits(n, p, bits, max_hashes, "a helper bitSize");
}

void check_params(std::uint64_t bits, std::uint32_t hashes) {
  compat::detail::check_one_to(bits, max_bits, "the helper's bitSize is a positive Java int: 1 to ",
                               "");
  compat::detail::check_one_to(hashes, max_hashes, "the helper's hash count must be 1 to ", "");
}

std::string long_key(std::int64_t v) {
  std::string out(8, '\0');
  auto u = static_cast<std::uint64_t>(v);
  for (char& c : out) {
    c = static_cast<char>(u & 0xff);
    u >>= 8;
  }
  return out;
}

std::uint64_t hash64(std::string_view key, funnel f) {
  switch (f) {
    case funnel::string:
      break;
    case funnel::long_integer:
      if (key.size() != 8) {
        throw error(errc::invalid_argument,
                    "a key of the long funnel is the 8 little-endian bytes of a long (got " +
                        std::to_string(key.size()) + " bytes)");
      }
      break;
    case funnel::string_twice: {
      // murmur3_128's hasher streams: putString twice hashes the bytes twice in a row.
      std::string twice;
      twice.reserve(2 * key.size());
      twice.append(key).append(key);
      return compat::murmur3_x64_128(twice).low;
    }
  }
  return compat::murmur3_x64_128(key).low;
}

void offsets(std::string_view key, funnel f, std::uint64_t bits, std::span<std::uint64_t> out) {
  guava::mitz_32_sequence probes(hash64(key, f), bits);
  for (auto& o : out) o = probes.next();
}

}  // namespace bloomkit::guava_helper
