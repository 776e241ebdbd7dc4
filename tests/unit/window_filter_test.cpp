#include "bloomkit/window_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/sizing.hpp"
#include "storage/word_mask.hpp"
#include "support/errors.hpp"
#include "support/fpp_checks.hpp"
#include "support/keys.hpp"
#include "support/statistical.hpp"

namespace bloomkit {
namespace {

using test::error_of;
using test::views;

std::string key_at(std::uint64_t t, std::uint64_t i) {
  return "https://example.com/" + std::to_string(t) + "/" + std::to_string(i);
}

template <class Window>
bool contains_by_batch(const Window& f, std::string_view key) {
  const std::string_view keys[] = {key};
  bool answer = false;
  f.contains_many(keys, {&answer, 1});
  return answer;
}

// The window semantics hold for both layouts: the grouped words (window_filter) and the slot
// sub-filters (blocked_window_filter, classic_window_filter).
template <class Window>
class WindowFilter : public ::testing::Test {};
using windows = ::testing::Types<window_filter, blocked_window_filter, classic_window_filter>;
TYPED_TEST_SUITE(WindowFilter, windows);

TEST(BasicWindowFilter, SlicesAreSizedForCapacityOverSAtPOverSPlusOne) {
  const window_config c{10'000, 0.01, 3600, window_unit::seconds, 8};
  const blocked_window_filter f(c);
  const filter_config slice = blocked_window_filter::slice_config(c);
  EXPECT_EQ(slice.capacity, 1250u);
  EXPECT_DOUBLE_EQ(slice.target_fpp, 0.01 / 9);
  EXPECT_EQ(slice.cells, blocked_optimal_blocks(1250, 0.01 / 9) * 256);
  ASSERT_EQ(f.slots().size(), 9u);
  for (const auto& s : f.slots()) EXPECT_EQ(s.config(), slice);
  EXPECT_EQ(f.cells(), 9 * slice.cells);
  EXPECT_EQ(f.capacity(), 10'000u);
  EXPECT_EQ(f.hashes(), 8u);
  // Memory against one blocked filter of a window's keys at p: within the 2.5x.
  const double ratio =
      static_cast<double>(f.byte_size()) /
      static_cast<double>(blocked_bloom_filter::for_capacity(10'000, 0.01).byte_size());
  EXPECT_LT(ratio, 2.0);
  EXPECT_GT(ratio, 1.3);
  // The classic composition takes exact classic slices.
  const filter_config classic = classic_window_filter::slice_config(c);
  EXPECT_EQ(classic.cells, exact_params(1250, 0.01 / 9).bits);
}

TYPED_TEST(WindowFilter, ParametersOutOfRangeNameTheProblem) {
  const auto message = [](window_config c) {
    return error_of([&] { TypeParam f(c); }, errc::invalid_argument);
  };
  EXPECT_NE(message({0, 0.01, 60}).find("capacity"), std::string::npos);
  EXPECT_NE(message({10, 1.0, 60}).find("target fpp"), std::string::npos);
  EXPECT_NE(message({10, 0.01, 60, window_unit::seconds, 0}).find("slices"), std::string::npos);
  EXPECT_NE(message({10, 0.01, 60, window_unit::seconds, 256}).find("slices"), std::string::npos);
  EXPECT_NE(message({10, 0.01, 7, window_unit::seconds, 8}).find("at least one per slice"),
            std::string::npos);
  EXPECT_NE(message({10, 0.01, 60, window_unit{7}}).find("unit"), std::string::npos);
}

TYPED_TEST(WindowFilter, SliceOfTimeIsFloorOfTSOverW) {
  TypeParam f({100, 0.01, 90, window_unit::seconds, 8});  // slices of 11.25 s
  EXPECT_EQ(f.slice_at(0), 0u);
  EXPECT_EQ(f.slice_at(11), 0u);
  EXPECT_EQ(f.slice_at(12), 1u);
  EXPECT_EQ(f.slice_at(90), 8u);
  EXPECT_EQ(f.slice_at(1'700'000'000), 1'700'000'000ull * 8 / 90);
  const std::uint64_t late = TypeParam::max_length * 3 + 17;
  TypeParam longest({100, 0.01, TypeParam::max_length, window_unit::seconds, 255});
  EXPECT_EQ(longest.slice_at(late), 3 * 255 + 17 * 255 / TypeParam::max_length);
  f.set_now(100);
  EXPECT_EQ(f.current_slice(), 8u);
  // A slice starts at the first whole second whose slice it is.
  for (std::uint64_t e = 0; e < 40; ++e) {
    const std::uint64_t start = slice_start(e, 90, 8);
    EXPECT_EQ(f.slice_at(start), e);
    if (start > 0) {
      EXPECT_EQ(f.slice_at(start - 1), e - 1);
    }
  }
  std::uint64_t t = 5;
  f.set_clock([&t] { return t; });
  EXPECT_EQ(f.current_slice(), 0u);
  t = 45;
  EXPECT_EQ(f.current_slice(), 4u);
}

// Keys inserted every 7 seconds, crossing slice boundaries (25 s) at every phase: after each
// step every key inserted within the last W (100 s) is found, by contains and contains_many.
TYPED_TEST(WindowFilter, NoFalseNegativeWithinTheWindowAtAnyMoment) {
  TypeParam f({200, 0.01, 100, window_unit::seconds, 4});
  for (std::uint64_t now = 1'000'000; now < 1'000'600; now += 7) {
    f.set_now(now);
    for (std::uint64_t i = 0; i < 3; ++i) f.insert(key_at(now, i));
    for (std::uint64_t t = now - 100; t <= now; ++t) {
      if ((t - 1'000'000) % 7 != 0 || t < 1'000'000) continue;
      for (std::uint64_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(f.contains(key_at(t, i))) << "inserted at " << t << ", now " << now;
        ASSERT_TRUE(contains_by_batch(f, key_at(t, i))) << "inserted at " << t;
      }
    }
  }
}

// "In the last W": a key inserted in slice e is found while the current slice is e .. e + S
// (the boundary slice e + S ends between W and W + W/S after the insert), and not after.
TYPED_TEST(WindowFilter, AKeyLivesUntilItsSliceIsSOld) {
  TypeParam f({100, 0.01, 100, window_unit::seconds, 4});
  f.set_now(1010);  // slice 40 = [1000, 1025)
  f.insert("key");
  f.set_now(1024 + 100);  // slice 44: 114 s after the insert, W + W/S - 1 after slice 40 began
  EXPECT_TRUE(f.contains("key"));
  f.set_now(1125);  // slice 45: 115 s after it, W + W/S after slice 40 began
  EXPECT_FALSE(f.contains("key"));
  EXPECT_EQ(f.inserted(), 0u);
  f.set_now(1024);  // a clock that goes back sees it again
  EXPECT_TRUE(f.contains("key"));
}

// Keys older than W + W/S are forgotten: among a large old set, only false positives remain,
// at most the FPP, while the keys of the last W are all present.
TYPED_TEST(WindowFilter, KeysOlderThanTheWindowAndASliceAreForgotten) {
  TypeParam f({4000, 0.01, 400, window_unit::seconds, 4});
  f.set_now(0);
  const auto old = test::make_keys(1000, 1);
  f.insert_many(views(old));
  std::vector<std::string> recent;
  for (std::uint64_t now = 1; now <= 1000; ++now) {  // 4000 keys per 400 s: the sized rate
    f.set_now(now);
    for (std::uint64_t i = 0; i < 10; ++i) recent.push_back(key_at(now, i));
    const auto all = views(recent);
    f.insert_many(std::span(all).last(10));
  }
  std::size_t still = 0;
  for (const auto& k : old) still += f.contains(k) ? 1 : 0;
  EXPECT_LE(still, 30u);  // FPP at most 1%: 10 expected of 1000, 30 is 6 sigma
  for (std::size_t i = recent.size() - 4000; i < recent.size(); ++i) {
    ASSERT_TRUE(f.contains(recent[i])) << recent[i];
  }
}

TYPED_TEST(WindowFilter, InsertSaysWhetherTheKeyWasNewToTheWindowAndRefreshesIt) {
  TypeParam f({100, 0.01, 100, window_unit::seconds, 4});
  f.set_now(0);
  EXPECT_TRUE(f.insert("a"));
  EXPECT_FALSE(f.insert("a"));
  f.set_now(90);
  EXPECT_FALSE(f.insert("a"));  // still within the window: not new, but moved into slice 3
  f.set_now(180);               // slice 7: slice 0 is gone, slice 3 is live
  EXPECT_TRUE(f.contains("a"));
  f.set_now(250);  // slice 10: slice 3 is gone too
  EXPECT_FALSE(f.contains("a"));
  EXPECT_TRUE(f.insert("a"));
}

// The batched insert gives what a loop of insert gives, repeats and slice changes of a count
// window within one batch included.
TYPED_TEST(WindowFilter, InsertManyIsALoopOfInsert) {
  const window_config c{300, 0.01, 300, window_unit::inserts, 3};  // slices of 100 inserts
  TypeParam batched(c);
  TypeParam looped(c);
  auto keys = test::make_keys(700, 2);
  for (std::size_t i = 0; i < keys.size(); i += 9) keys[i] = keys[i / 2];  // repeats
  std::size_t added = 0;
  for (const auto& k : keys) added += looped.insert(k) ? 1 : 0;
  EXPECT_EQ(batched.insert_many(views(keys)), added);
  EXPECT_TRUE(batched == looped);
  EXPECT_EQ(batched.insert_count(), 700u);
  EXPECT_EQ(batched.current_slice(), 7u);
}

// Per-key answers: what insert() answers for each key in turn, over slice changes within the
// batch (a count window of 100-insert slices), repeats within it and keys of older slices.
TYPED_TEST(WindowFilter, InsertManyAnswersPerKeyAsALoopOfInsert) {
  const window_config c{300, 0.01, 300, window_unit::inserts, 3};
  TypeParam batched(c);
  TypeParam looped(c);
  auto keys = test::make_keys(1'000, 5);
  for (std::size_t i = 0; i < keys.size(); i += 7) keys[i] = keys[i / 2];       // recent repeats
  for (std::size_t i = 600; i < keys.size(); i += 11) keys[i] = keys[i - 450];  // forgotten
  std::vector<char> expected;
  for (const auto& k : keys) expected.push_back(looped.insert(k) ? 1 : 0);
  const std::vector<std::string_view> all = views(keys);
  std::vector<char> answers;
  std::size_t added = 0;
  for (std::size_t first = 0; first < keys.size(); first += 250) {  // batches across slices
    auto batch = std::make_unique<bool[]>(250);
    added += batched.insert_many(std::span(all).subspan(first, 250), {batch.get(), 250});
    answers.insert(answers.end(), batch.get(), batch.get() + 250);
  }
  ASSERT_EQ(answers, expected);
  EXPECT_EQ(added, static_cast<std::size_t>(std::count(expected.begin(), expected.end(), 1)));
  EXPECT_GT(added, 0u);
  EXPECT_LT(added, keys.size());
  EXPECT_TRUE(batched == looped);
  bool one = false;
  EXPECT_NE(error_of([&] { batched.insert_many(all, {&one, 1}); }, errc::invalid_argument), "");
}

// Windows of a few MiB take the prefetching pipelines (over every live slot at once): batches
// still give what loops of insert / contains give, for every layout, over slice changes, with
// repeats within a batch and keys of older slices inserted again.
template <class Window>
void expect_batches_are_loops() {
  const window_config c{4'000'000, 0.01, 400, window_unit::seconds, 4};  // slots of 1e6 keys
  Window batched(c);
  Window looped(c);
  ASSERT_GE(batched.byte_size(), std::size_t{5} << 20);
  const auto keys = test::make_keys(50'000, 17);
  for (std::uint64_t t = 0; t < 700; t += 100) {
    batched.set_now(t);
    looped.set_now(t);
    // This slice's keys: 20,000 of which a quarter came in two slices ago, and some repeats.
    std::vector<std::string> slice(
        keys.begin() + static_cast<std::ptrdiff_t>(t / 100 * 5'000),
        keys.begin() + static_cast<std::ptrdiff_t>(t / 100 * 5'000) + 20'000);
    for (std::size_t i = 0; i < slice.size(); i += 13) slice[i] = slice[i / 3];
    std::size_t added = 0;
    auto expected = std::make_unique<bool[]>(slice.size());
    for (std::size_t i = 0; i < slice.size(); ++i) {
      expected[i] = looped.insert(slice[i]);
      added += expected[i] ? 1 : 0;
    }
    // Alternate slices ask for the per-key answers.
    if (t % 200 == 0) {
      ASSERT_EQ(batched.insert_many(views(slice)), added) << "t = " << t;
    } else {
      auto answers = std::make_unique<bool[]>(slice.size());
      ASSERT_EQ(batched.insert_many(views(slice), {answers.get(), slice.size()}), added);
      for (std::size_t i = 0; i < slice.size(); ++i) {
        ASSERT_EQ(answers[i], expected[i]) << slice[i] << " at t = " << t;
      }
    }
    ASSERT_TRUE(batched == looped) << "t = " << t;
    ASSERT_EQ(batched.inserted(), looped.inserted()) << "t = " << t;
    auto answers = std::make_unique<bool[]>(keys.size());
    std::size_t present = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) present += looped.contains(keys[i]) ? 1 : 0;
    ASSERT_EQ(batched.contains_many(views(keys), {answers.get(), keys.size()}), present);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(answers[i], looped.contains(keys[i])) << keys[i] << " at t = " << t;
    }
  }
}

TYPED_TEST(WindowFilter, BatchesOverLargeWindowsAreLoops) {
  expect_batches_are_loops<TypeParam>();
}

// A count window: the last N inserts are always found; inserts older than N + N/S are gone.
TYPED_TEST(WindowFilter, CountWindowRemembersTheLastNInserts) {
  TypeParam f({1000, 0.01, 1000, window_unit::inserts, 4});  // slices of 250 inserts
  const auto keys = test::make_keys(5000, 3);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    f.insert(keys[i]);
    if (i % 97 != 0) continue;
    for (std::size_t j = i >= 999 ? i - 999 : 0; j <= i; ++j) {
      ASSERT_TRUE(f.contains(keys[j])) << j << " after " << i;
    }
  }
  std::size_t remembered = 0;
  for (std::size_t j = 0; j + 1250 < keys.size(); ++j) remembered += f.contains(keys[j]) ? 1 : 0;
  EXPECT_LE(remembered, 3750u / 100 * 3);
}

// At the sized rate, at the worst moment (the current slice full, S full slices behind it), the
// FPP of a lookup over the live slices is within p: measured on many independently keyed
// windows (support/fpp_checks.hpp).
TYPED_TEST(WindowFilter, FppOverTheWindowMeetsTheTargetAtTheSizedRate) {
  BLOOMKIT_STATISTICAL_TEST();
  const test::point pt{0.01, 0.3};
  const std::uint64_t capacity = 400;
  const std::uint32_t slices = 4;
  const auto [filters, probes] = test::design(pt, capacity, 300);
  const auto m = test::measure(filters, probes, [&](std::uint64_t family) {
    TypeParam f({capacity, pt.p, 400, window_unit::seconds, slices});
    const test::key_family keys("key-", family, 600);
    for (std::uint64_t slice = 0; slice < 6; ++slice) {  // slices 0..5; slice 0 expired
      f.set_now(slice * 100 + 99);
      f.insert_many(keys.views().subspan(slice * 100, 100));
    }
    return f;
  });
  test::expect_meets(m, pt, "window of 4 slices");
}

TYPED_TEST(WindowFilter, MergeAndIntersectAreRefused) {
  TypeParam a({100, 0.01, 100});
  const TypeParam b({100, 0.01, 100});
  EXPECT_NE(error_of([&] { a.merge(b); }, errc::unsupported).find("window"), std::string::npos);
  EXPECT_NE(error_of([&] { a.intersect(b); }, errc::unsupported).find("window"), std::string::npos);
}

TYPED_TEST(WindowFilter, ClearEmptiesEverySlot) {
  TypeParam f({100, 0.01, 100, window_unit::inserts, 4});
  f.insert("a");
  f.clear();
  EXPECT_FALSE(f.contains("a"));
  EXPECT_EQ(f.insert_count(), 0u);
  for (const auto s : f.slot_slices()) EXPECT_EQ(s, TypeParam::no_slice);
}

TYPED_TEST(WindowFilter, DefaultClockIsTheSystemClock) {
  const TypeParam f({100, 0.01, 86400});
  const auto now = static_cast<std::uint64_t>(std::time(nullptr));
  EXPECT_LE(f.now() >= now ? f.now() - now : now - f.now(), 5u);
}

// --- The grouped layout (window_filter) ---------------------------------------------------

// L = ceil(14 (S + 1) / 64) lines, wb = min(32, floor(64 L / (S + 1))) bytes (FORMAT.md).
TEST(GroupedWindow, GroupShapeFollowsTheRule) {
  const auto shape = [](std::uint32_t s) {
    const window_groups g = window_filter::group_shape(s);
    return std::pair{g.lines, g.word_bytes};
  };
  EXPECT_EQ(shape(8), std::pair(2u, 14u));  // 112-bit words in 2 lines
  EXPECT_EQ(shape(7), std::pair(2u, 16u));  // 128-bit words
  EXPECT_EQ(shape(1), std::pair(1u, 32u));
  EXPECT_EQ(shape(3), std::pair(1u, 16u));
  EXPECT_EQ(shape(4), std::pair(2u, 25u));
  EXPECT_EQ(shape(255), std::pair(56u, 14u));
  for (std::uint32_t s = 1; s <= window_filter::max_slices; ++s) {
    const window_groups g = window_filter::group_shape(s);
    EXPECT_LE((s + 1) * g.word_bytes, g.group_bytes()) << s;
    EXPECT_GE(g.word_bytes, 14u) << s;
  }
}

TEST(GroupedWindow, SlotsAreWordFiltersForCapacityOverSAtPOverSPlusOne) {
  const window_config c{10'000, 0.01, 3600, window_unit::seconds, 8};
  const window_filter f(c);
  const word_filter_params slot = word_filter_sizing(112, 1250, 0.01 / 9);
  EXPECT_EQ(f.layout().groups, slot.words);
  EXPECT_EQ(f.hashes(), slot.hashes);
  EXPECT_EQ(f.cells(), slot.words * 128 * 8);
  EXPECT_EQ(f.byte_size(), slot.words * 128 + window_filter::tail_bytes);
  EXPECT_EQ(f.scheme(), hash_scheme::xxh3_128_window_groups);
  // Memory against one blocked filter of a window's keys at p: within the 2.5x.
  const double ratio =
      static_cast<double>(f.byte_size()) /
      static_cast<double>(blocked_bloom_filter::for_capacity(10'000, 0.01).byte_size());
  EXPECT_LT(ratio, 2.5);
  EXPECT_GT(ratio, 1.5);
}

// A key sets k bits of one word: the current slot's word of the group its digest picks.
TEST(GroupedWindow, AKeySetsItsMaskInTheCurrentSlotsWordOfItsGroup) {
  window_filter f({1000, 0.01, 90, window_unit::seconds, 8});
  f.set_now(95);  // slice 8: slot 8
  f.insert("key");
  const window_groups& g = f.layout();
  const digest128 d = xxh3_128("key");
  const std::uint64_t group = detail::multiply_high(d.high, g.groups);
  std::uint64_t mask[4] = {};
  detail::word_mask(d.low, g.word_bits(), g.hashes, mask);
  std::vector<unsigned char> expected(f.byte_size(), 0);
  unsigned char* word = expected.data() + group * g.group_bytes() + 8 * g.word_bytes;
  for (std::uint32_t bit = 0; bit < g.word_bits(); ++bit) {
    if ((mask[bit / 64] >> (bit % 64) & 1) != 0) word[bit / 8] |= 1 << (bit % 8);
  }
  const auto& cells = detail::filter_access::storage(f);
  EXPECT_EQ(cells.count(), g.hashes);
  EXPECT_EQ(std::memcmp(cells.data(), expected.data(), expected.size()), 0);
  EXPECT_EQ(f.slot_inserted(8), 1u);
  EXPECT_DOUBLE_EQ(f.slot_fill_ratio(8), double(g.hashes) / double(g.groups * g.word_bits()));
}

// The AVX2 and portable batch paths set the same bits and give the same answers: words of 2, 3
// and 4 lanes (S = 3, 8, 2, 1, 4, 16), k from 1 to 16 (max_word_hashes), across rotations.
TEST(GroupedWindow, Avx2AndPortablePathsSetTheSameBitsAndAnswerAlike) {
  if (!window_filter::simd_supported()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::uint32_t k_min = max_word_hashes;
  std::uint32_t k_max = 1;
  for (const std::uint32_t slices : {1u, 2u, 3u, 4u, 8u, 16u}) {
    for (const double fpp : {0.9, 0.5, 0.01, 1e-4, 1e-8, 1e-12}) {
      const window_config c{400, fpp, 900, window_unit::seconds, slices};
      window_filter simd(c);
      window_filter portable(c);
      EXPECT_FALSE(portable.set_simd(false));
      EXPECT_TRUE(simd.simd());
      k_min = std::min(k_min, simd.hashes());
      k_max = std::max(k_max, simd.hashes());
      std::uint64_t now = 1'700'000'000;
      for (std::uint64_t round = 0; round < 6; ++round, now += 250) {
        simd.set_now(now);
        portable.set_now(now);
        std::vector<std::string> keys;
        for (std::uint64_t i = 0; i < 300; ++i) keys.push_back(key_at(round, i % 250));
        const auto v = views(keys);
        ASSERT_EQ(simd.insert_many(std::span(v).first(200)),
                  portable.insert_many(std::span(v).first(200)));
        for (std::size_t i = 200; i < v.size(); ++i)
          ASSERT_EQ(simd.insert(v[i]), portable.insert(v[i]));
        ASSERT_EQ(simd, portable) << slices << " " << fpp << " round " << round;
        std::vector<std::string> asked;
        for (std::uint64_t i = 0; i < 2000; ++i) asked.push_back(key_at(i % 8, i));
        const auto a = views(asked);
        std::unique_ptr<bool[]> from_simd(new bool[a.size()]);
        std::unique_ptr<bool[]> from_portable(new bool[a.size()]);
        EXPECT_EQ(simd.contains_many(a, {from_simd.get(), a.size()}),
                  portable.contains_many(a, {from_portable.get(), a.size()}));
        for (std::size_t i = 0; i < a.size(); ++i)
          ASSERT_EQ(from_simd[i], from_portable[i]) << a[i];
      }
    }
  }
  EXPECT_EQ(k_min, 1u);
  EXPECT_EQ(k_max, max_word_hashes);
}

// Random clocks: bursts of keys at times that move forward by 0 .. W/2 (never back), each burst
// checked against every key of the last W; and a count window at random batch sizes.
TEST(GroupedWindow, NoFalseNegativeWithinTheWindowAtRandomClocks) {
  std::mt19937_64 random(14);
  for (const std::uint32_t slices : {1u, 3u, 8u}) {
    window_filter f({300, 0.01, 1000, window_unit::seconds, slices});
    std::vector<std::pair<std::uint64_t, std::string>> inserted;
    std::uint64_t now = 1'700'000'000;
    for (int step = 0; step < 300; ++step) {
      now += random() % 501;
      f.set_now(now);
      std::vector<std::string> keys;
      for (std::uint64_t i = random() % 8; i > 0; --i) keys.push_back(key_at(now, random()));
      f.insert_many(views(keys));
      for (auto& k : keys) inserted.emplace_back(now, std::move(k));
      for (const auto& [t, k] : inserted) {
        if (now - t <= 1000) {
          ASSERT_TRUE(f.contains(k)) << k << " at " << t << ", now " << now;
        }
      }
    }
  }
  window_filter count({500, 0.01, 500, window_unit::inserts, 8});
  const auto keys = test::make_keys(5000, 9);
  const auto all = views(keys);
  for (std::size_t next = 0; next < keys.size();) {
    const std::size_t take = std::min<std::size_t>(random() % 200, keys.size() - next);
    count.insert_many(std::span(all).subspan(next, take));
    next += take;
    for (std::size_t j = next >= 500 ? next - 500 : 0; j < next; ++j) {
      ASSERT_TRUE(count.contains(keys[j])) << j << " after " << next;
    }
  }
}

// The FPP at the sized rate, at the worst moment, for small capacities and S = 8 too.
TEST(GroupedWindow, FppOverTheWindowMeetsTheTargetAtSmallCapacities) {
  BLOOMKIT_STATISTICAL_TEST();
  const test::point pt{0.01, 0.3};
  for (const auto& [capacity, slices] :
       {std::pair<std::uint64_t, std::uint32_t>{1, 4}, {10, 4}, {100, 8}, {1000, 8}}) {
    const std::uint64_t per_slice = (capacity + slices - 1) / slices;
    const auto [filters, probes] = test::design(pt, capacity, 300);
    const auto m = test::measure(filters, probes, [&](std::uint64_t family) {
      window_filter f({capacity, pt.p, 100 * std::uint64_t{slices}, window_unit::seconds, slices});
      const test::key_family keys("key-", family, per_slice * (slices + 2));
      for (std::uint64_t slice = 0; slice < slices + 2; ++slice) {  // slice 0 expired
        f.set_now(slice * 100 + 99);
        f.insert_many(keys.views().subspan(slice * per_slice, per_slice));
      }
      return f;
    });
    test::expect_meets(m, pt, "window of " + std::to_string(capacity) + " keys");
  }
}

}  // namespace
}  // namespace bloomkit
