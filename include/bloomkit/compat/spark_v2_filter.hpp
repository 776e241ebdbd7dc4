#pragma once
// A Spark V2 BloomFilter (compat/spark.hpp): the classic filter with the V2 probe policy, and the
// seed of its header, with which every key is hashed. The bits, k and figures are its classic
// filter's (classic()); keys go through digest_of(key), which hashes with the seed.
//
//   auto f = bloomkit::spark::v2_filter::for_capacity(1'000'000, 0.01, 42);  // create(...) V2
//   f.insert("alice");                    // putString("alice")
//   f.contains(std::int64_t{7});          // mightContainLong(7)

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "bloomkit/compat/spark_policy.hpp"
#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/filter.hpp"

namespace bloomkit::spark {

class v2_filter : public bloomkit::detail::integral_keys<v2_filter> {
 public:
  using classic_type = basic_bloom_filter<v2_policy>;
  using policy_type = v2_policy;
  using storage_type = bit_storage;
  using digest_type = hash_pair;
  static constexpr bool blocked = false;
  static constexpr bool counting = false;

  // BloomFilter.create(Version.V2, n, optimalNumOfBits(n, p), seed).
  static v2_filter for_capacity(std::uint64_t n, double p, std::int32_t seed = 0);
  // A V2 filter of `bits` bits (a multiple of 64) and k = hashes (spark::check_params).
  v2_filter(std::uint64_t bits, std::uint32_t hashes, std::int32_t seed = 0);
  // The filter of these bits and this seed.
  v2_filter(classic_type bits, std::int32_t seed) noexcept : bits_(std::move(bits)), seed_(seed) {}

  std::int32_t seed() const noexcept { return seed_; }
  // The bits, k and figures. Its own insert / contains hash with seed 0: use this filter's (or
  // its digest_of) for keys.
  const classic_type& classic() const noexcept { return bits_; }

  // putString / putBinary (the bytes) and, by the integral overloads, putLong (8 little-endian
  // bytes; narrower integers hash their own width: widen to std::int64_t as Spark does).
  bool insert(std::string_view key) { return bits_.insert_digest(digest_of(key)); }
  bool contains(std::string_view key) const { return bits_.contains_digest(digest_of(key)); }
  using bloomkit::detail::integral_keys<v2_filter>::insert;
  using bloomkit::detail::integral_keys<v2_filter>::contains;

  // A key's (h1, h2) under this filter's seed; filters of the same seed share digests.
  digest_type digest_of(std::string_view key) const noexcept { return hash_pair_of(key, seed_); }
  void digests_of(std::span<const std::string_view> keys, std::span<digest_type> digests) const;
  bool insert_digest(const digest_type& d) { return bits_.insert_digest(d); }
  bool contains_digest(const digest_type& d) const { return bits_.contains_digest(d); }
  bool contains_digest_unchecked(const digest_type& d) const noexcept {
    return bits_.contains_digest_unchecked(d);
  }

  // Batched, as basic_filter's (digests computed in chunks, then its pipeline).
  std::size_t insert_many(std::span<const std::string_view> keys);
  std::size_t insert_many(std::span<const digest_type> digests) {
    return bits_.insert_many(digests);
  }
  std::size_t insert_many(std::span<const digest_type> digests, std::span<bool> added) {
    return bits_.insert_many(digests, added);
  }
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;
  std::size_t contains_many(std::span<const digest_type> digests, std::span<bool> results) const {
    return bits_.contains_many(digests, results);
  }

  // mergeInPlace / intersectInPlace: errc::incompatible unless both have the same bits, k and
  // seed (Spark's IncompatibleMergeException).
  void merge(const v2_filter& other);
  void intersect(const v2_filter& other);
  void clear() { bits_.clear(); }

  std::uint64_t cells() const noexcept { return bits_.cells(); }
  std::uint64_t bits() const noexcept { return bits_.bits(); }
  std::uint32_t hashes() const noexcept { return bits_.hashes(); }
  std::uint64_t capacity() const noexcept { return bits_.capacity(); }
  double target_fpp() const noexcept { return bits_.target_fpp(); }
  std::uint64_t inserted() const noexcept { return bits_.inserted(); }
  double estimated_count() const noexcept { return bits_.estimated_count(); }
  double estimated_fpp() const noexcept { return bits_.estimated_fpp(); }
  double fill_ratio() const noexcept { return bits_.fill_ratio(); }
  std::size_t byte_size() const noexcept { return bits_.byte_size(); }
  bool read_only() const noexcept { return bits_.read_only(); }
  const filter_config& config() const noexcept { return bits_.config(); }
  const bit_array& storage() const noexcept { return bits_.storage(); }
  static constexpr hash_scheme scheme() noexcept { return v2_policy::scheme; }

  // Same bits, k, seed and cells (Spark's equals).
  friend bool operator==(const v2_filter& a, const v2_filter& b) noexcept {
    return a.seed_ == b.seed_ && a.bits_ == b.bits_;
  }

 private:
  void require_same_seed(const v2_filter& other, const char* operation) const;

  classic_type bits_;
  std::int32_t seed_ = 0;
};

static_assert(filter_like<v2_filter>);

}  // namespace bloomkit::spark
