// Spark's V2 filter (compat/spark_v2_filter.hpp), and the classic filter instantiated with both
// Spark policies.

#include "bloomkit/compat/spark_v2_filter.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "../kinds/filter_impl.hpp"
#include "bloomkit/compat/spark.hpp"  // the extern declarations before the definitions (clang)
#include "bloomkit/detail/result_slots.hpp"

namespace bloomkit {

template class basic_filter<spark::v1_policy, bit_storage>;
template class basic_filter<spark::v2_policy, bit_storage>;

namespace spark {
namespace {

// Keys are hashed with the seed a chunk at a time, then go through the classic filter's digest
// pipeline.
constexpr std::size_t chunk = 256;

template <class Each>
std::size_t by_chunks(std::span<const std::string_view> keys, const v2_filter& f, Each each) {
  std::array<hash_pair, chunk> digests;
  std::size_t total = 0;
  for (std::size_t at = 0; at < keys.size(); at += chunk) {
    const std::size_t n = std::min(chunk, keys.size() - at);
    f.digests_of(keys.subspan(at, n), std::span(digests).first(n));
    total += each(std::span<const hash_pair>(digests.data(), n), at);
  }
  return total;
}

}  // namespace

v2_filter v2_filter::for_capacity(std::uint64_t n, double p, std::int32_t seed) {
  return {classic_type::for_capacity(n, p), seed};
}

v2_filter::v2_filter(std::uint64_t bits, std::uint32_t hashes, std::int32_t seed)
    : bits_(bits, hashes), seed_(seed) {}

void v2_filter::digests_of(std::span<const std::string_view> keys,
                           std::span<digest_type> digests) const {
  bloomkit::detail::require_result_slots(keys.size(), digests.size(), "digests_of");
  for (std::size_t i = 0; i < keys.size(); ++i) digests[i] = digest_of(keys[i]);
}

std::size_t v2_filter::insert_many(std::span<const std::string_view> keys) {
  return by_chunks(keys, *this, [this](std::span<const hash_pair> d, std::size_t) {
    return bits_.insert_many(d);
  });
}

std::size_t v2_filter::contains_many(std::span<const std::string_view> keys,
                                     std::span<bool> results) const {
  bloomkit::detail::require_result_slots(keys.size(), results.size());
  return by_chunks(keys, *this, [this, results](std::span<const hash_pair> d, std::size_t at) {
    return bits_.contains_many(d, results.subspan(at, d.size()));
  });
}

void v2_filter::require_same_seed(const v2_filter& other, const char* operation) const {
  if (seed_ != other.seed_) {
    throw error(errc::incompatible,
                std::string("cannot ") + operation + " Spark V2 filters of different seeds (" +
                    std::to_string(seed_) + " and " + std::to_string(other.seed_) + ")");
  }
}

void v2_filter::merge(const v2_filter& other) {
  require_same_seed(other, "merge");
  bits_.merge(other.bits_);
}

void v2_filter::intersect(const v2_filter& other) {
  require_same_seed(other, "intersect");
  bits_.intersect(other.bits_);
}

}  // namespace spark
}  // namespace bloomkit
