// insert_many(digests, added): per-key results of batched inserts (basic_filter and scalable
// chains) agree key for key with a loop of insert(), including repeats within one batch and
// batches across a chain's growths.

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "support/keys.hpp"

namespace bloomkit {
namespace {

using test::make_keys;

// 4000 keys, then the first 1500 again, then 500 more, with a key repeated right after itself:
// repeats that are in the filter before the batch and repeats the batch itself inserts.
std::vector<std::string> keys_with_repeats(std::uint64_t set) {
  auto keys = make_keys(4000, set);
  const auto again = make_keys(1500, set);
  keys.insert(keys.end(), again.begin(), again.end());
  const auto more = make_keys(500, set + 1000);
  keys.insert(keys.end(), more.begin(), more.end());
  keys.insert(keys.begin() + 10, keys[9]);
  return keys;
}

// The batch hash, checked against digest_of key by key.
template <class Filter>
std::vector<typename Filter::digest_type> digests_of(const std::vector<std::string>& keys) {
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<typename Filter::digest_type> digests(keys.size());
  Filter::digests_of(views, digests);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_TRUE(digests[i] == Filter::digest_of(keys[i])) << i;
  }
  return digests;
}

// Inserts `keys` into `single` one by one and into `batched` in batches of `batch`; every
// per-key result and the counts must agree.
template <class Filter>
void expect_same_results(Filter& single, Filter& batched, const std::vector<std::string>& keys,
                         std::size_t batch) {
  const auto digests = digests_of<Filter>(keys);
  const auto added = std::make_unique<bool[]>(keys.size());
  std::size_t count = 0;
  for (std::size_t at = 0; at < keys.size(); at += batch) {
    const std::size_t n = std::min(batch, keys.size() - at);
    count += batched.insert_many(std::span(digests).subspan(at, n), {added.get() + at, n});
  }
  std::size_t expected_count = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool expected = single.insert(keys[i]);
    expected_count += expected;
    ASSERT_EQ(added[i], expected) << "key " << i;
  }
  EXPECT_EQ(count, expected_count);
  EXPECT_EQ(batched.inserted(), single.inserted());
  EXPECT_GT(expected_count, 4000u);  // the new keys counted...
  EXPECT_LT(expected_count, 4600u);  // ...and no repeat
  EXPECT_FALSE(added[10]);           // the key right after itself
  EXPECT_FALSE(added[4001]);         // a repeat of a key of an earlier batch
}

TEST(InsertResults, BasicFiltersMatchALoopOfInsert) {
  for (std::size_t batch : {1u, 7u, 1000u, 10000u}) {
    auto blocked_single = blocked_bloom_filter::for_capacity(20000, 0.01);
    auto blocked_batched = blocked_bloom_filter::for_capacity(20000, 0.01);
    expect_same_results(blocked_single, blocked_batched, keys_with_repeats(1), batch);
    EXPECT_EQ(blocked_single, blocked_batched);
    auto classic_single = bloom_filter::for_capacity(20000, 0.01);
    auto classic_batched = bloom_filter::for_capacity(20000, 0.01);
    expect_same_results(classic_single, classic_batched, keys_with_repeats(2), batch);
    EXPECT_EQ(classic_single, classic_batched);
  }
  // Past 1 MiB the classic insert runs the prefetching pipeline (inserts lag the hashing).
  auto large_single = bloom_filter::for_capacity(2'000'000, 0.01);
  auto large_batched = bloom_filter::for_capacity(2'000'000, 0.01);
  ASSERT_GT(large_batched.byte_size(), std::size_t{1} << 20);
  expect_same_results(large_single, large_batched, keys_with_repeats(8), 1000);
  EXPECT_EQ(large_single, large_batched);
}

TEST(InsertResults, CountingFilterReportsWhetherACounterWasZero) {
  auto single = counting_bloom_filter::for_capacity(20000, 0.01);
  auto batched = counting_bloom_filter::for_capacity(20000, 0.01);
  const auto keys = keys_with_repeats(3);
  const auto digests = digests_of<counting_bloom_filter>(keys);
  const auto added = std::make_unique<bool[]>(keys.size());
  batched.insert_many(digests, {added.get(), keys.size()});
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(added[i], single.insert(keys[i])) << i;
  EXPECT_EQ(batched, single);
  EXPECT_EQ(batched.inserted(), keys.size());  // a counting filter counts every insert
}

TEST(InsertResults, ScalableChainsMatchALoopOfInsertAcrossGrowths) {
  for (std::size_t batch : {1u, 333u, 1000u, 10000u}) {
    scalable_blocked_bloom_filter blocked_single(100, 0.01);
    scalable_blocked_bloom_filter blocked_batched(100, 0.01);
    expect_same_results(blocked_single, blocked_batched, keys_with_repeats(4), batch);
    EXPECT_EQ(blocked_single, blocked_batched);
    EXPECT_GT(blocked_batched.sub_filter_count(), 3u);
    scalable_bloom_filter classic_single(100, 0.01, 3);
    scalable_bloom_filter classic_batched(100, 0.01, 3);
    expect_same_results(classic_single, classic_batched, keys_with_repeats(5), batch);
    EXPECT_EQ(classic_single, classic_batched);
  }
}

TEST(InsertResults, ScalableLookupsByDigestMatchContains) {
  scalable_blocked_bloom_filter f(100, 0.01);
  const auto held = make_keys(5000, 6);
  for (const auto& k : held) f.insert(k);
  auto probe = make_keys(2000, 6);  // held, in every sub-filter
  const auto absent = make_keys(2000, 7);
  probe.insert(probe.end(), absent.begin(), absent.end());
  const auto digests = digests_of<scalable_blocked_bloom_filter>(probe);
  const auto results = std::make_unique<bool[]>(probe.size());
  std::size_t expected = 0;
  for (const auto& k : probe) expected += f.contains(k);
  EXPECT_EQ(f.contains_many(digests, {results.get(), probe.size()}), expected);
  for (std::size_t i = 0; i < probe.size(); ++i) ASSERT_EQ(results[i], f.contains(probe[i])) << i;
  for (std::size_t i = 0; i < 2000; ++i) ASSERT_TRUE(results[i]);
}

TEST(InsertResults, ResultSlotsMustMatchTheBatch) {
  auto f = blocked_bloom_filter::for_capacity(100, 0.01);
  scalable_blocked_bloom_filter chain(100, 0.01);
  const std::uint64_t digests[2] = {1, 2};
  bool one[1];
  EXPECT_THROW(f.insert_many(std::span(digests), std::span(one)), error);
  EXPECT_THROW(chain.insert_many(std::span(digests), std::span(one)), error);
  EXPECT_THROW(chain.contains_many(std::span(digests), std::span(one)), error);
  const std::vector<std::string_view> keys = {"a", "b"};
  std::uint64_t digest[1];
  EXPECT_THROW(blocked_bloom_filter::digests_of(keys, digest), error);
}

}  // namespace
}  // namespace bloomkit
