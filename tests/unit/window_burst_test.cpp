// A grouped window holds its FPP for any arrival of at most `capacity` keys within a window span:
// a slot whose words took their share grows overflow parts (window_filter.hpp, "Growth"), so a
// burst does not saturate it. Measured at the worst moment of each arrival pattern on many
// independently keyed windows (support/fpp_checks.hpp), with every key of the window found.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/file.hpp"
#include "bloomkit/window_filter.hpp"
#include "support/fpp_checks.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

constexpr std::uint64_t capacity = 400;
constexpr std::uint32_t slices = 4;
constexpr std::uint64_t w = 400;  // seconds: slices of 100 s
constexpr std::uint64_t t0 = 1'000'000;

// An arrival pattern: add(filter, keys) inserts them at the pattern's times; the keys are
// `capacity` keys within one window span at most.
using pattern = std::function<void(window_filter&, std::span<const std::string_view>)>;

void at(window_filter& f, std::uint64_t t, std::span<const std::string_view> keys) {
  f.set_now(t);
  f.insert_many(keys);
}

// The window's keys, all found, and its FPP within p at the pattern's last moment.
void expect_holds(const pattern& arrive, const std::string& what) {
  const test::point pt{0.01, 0.3};
  const auto [filters, probes] = test::design(pt, capacity, 300);
  const auto m = test::measure(filters, probes, [&](std::uint64_t family) {
    window_filter f({capacity, pt.p, w, window_unit::seconds, slices});
    const test::key_family keys("key-", family, capacity);
    arrive(f, keys.views());
    auto found = std::make_unique<bool[]>(capacity);
    EXPECT_EQ(f.contains_many(keys.views(), {found.get(), capacity}), capacity) << what;
    return f;
  });
  test::expect_meets(m, pt, what);
}

TEST(WindowBurst, SteadyArrivalsAddNoOverflowParts) {
  window_filter f({capacity, 0.01, w, window_unit::seconds, slices});
  const window_filter empty = f;
  const test::key_family keys("key-", 0, 3 * capacity);
  for (std::uint64_t slice = 0; slice < 12; ++slice) {  // the sized rate, for three windows
    at(f, t0 + slice * 100 + 50, keys.views().subspan(slice * 100, 100));
  }
  for (std::size_t slot = 0; slot <= slices; ++slot) EXPECT_TRUE(f.overflow(slot).empty());
  EXPECT_EQ(f.byte_size(), empty.byte_size());
}

TEST(WindowBurst, AllKeysInOneSliceHoldTheTarget) {
  expect_holds([](window_filter& f, auto keys) { at(f, t0, keys); }, "all keys at one moment");
}

TEST(WindowBurst, TwoBurstsHoldTheTarget) {
  expect_holds(
      [](window_filter& f, auto keys) {
        at(f, t0, keys.first(capacity / 2));
        at(f, t0 + w * 5 / 6, keys.subspan(capacity / 2));
      },
      "two bursts 5/6 of a window apart");
}

TEST(WindowBurst, ABurstAtTheEndOfTheWindowHoldsTheTarget) {
  expect_holds(
      [](window_filter& f, auto keys) {
        for (std::uint64_t i = 0; i < 4; ++i) {  // a quarter of the keys over the window
          at(f, t0 + i * 100, keys.subspan(i * capacity / 16, capacity / 16));
        }
        at(f, t0 + w - 1, keys.subspan(capacity / 4));
      },
      "a burst at the end of the window");
}

// A slice's overflow parts are found, answer "new to the window" as its words do, age out with
// it, and survive save / load / map.
TEST(WindowBurst, OverflowPartsAnswerAgeAndRoundTrip) {
  window_filter f({capacity, 0.01, w, window_unit::seconds, slices});
  const test::key_family keys("key-", 7, capacity);
  f.set_now(t0);
  auto added = std::make_unique<bool[]>(capacity);
  EXPECT_GE(f.insert_many(keys.views(), {added.get(), capacity}), capacity - 2);
  const std::size_t slot = f.slice_at(t0) % (slices + 1);
  EXPECT_EQ(f.overflow(slot).size(), 3u);  // 400 keys: the words take 100, three parts the rest
  for (const auto& part : f.overflow(slot)) EXPECT_LE(part.inserted(), f.slice_share());
  EXPECT_EQ(f.inserted(), f.slot_inserted(slot) + 300);
  EXPECT_EQ(f.insert_many(keys.views()), 0u);  // every key seen within the window: none new
  test::temp_dir dir;
  save(f, dir / "w.bf");
  const auto loaded = load<window_filter>(dir / "w.bf");
  EXPECT_TRUE(loaded == f);
  auto mapped = map<window_filter>(dir / "w.bf");
  mapped.set_now(t0 + w);
  auto found = std::make_unique<bool[]>(capacity);
  EXPECT_EQ(mapped.contains_many(keys.views(), {found.get(), capacity}), capacity);
  // S + 1 slices later the slot takes a new slice: its words and parts are cleared.
  f.set_now(t0 + w + w / slices);
  f.insert("later");
  ASSERT_EQ(f.slot_slices()[slot], f.slice_at(t0) + slices + 1);
  EXPECT_TRUE(f.overflow(slot).empty());
  EXPECT_EQ(f.byte_size(),
            window_filter({capacity, 0.01, w, window_unit::seconds, slices}).byte_size());
  EXPECT_LT(f.contains_many(keys.views(), {found.get(), capacity}), 20u);
}

}  // namespace
}  // namespace bloomkit
