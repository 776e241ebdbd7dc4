// Time never erases a live slice (window_slices.hpp): whatever times inserts and lookups carry —
// backfills, clocks that step back and ahead, far-future and millisecond times — every key
// stored within the window is found until the window has passed over it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/basic_window_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/window_filter.hpp"
#include "support/errors.hpp"
#include "support/file_checks.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::error_of;

template <class Window>
class WindowTime : public ::testing::Test {};
using windows = ::testing::Types<window_filter, blocked_window_filter, classic_window_filter>;
TYPED_TEST_SUITE(WindowTime, windows);

constexpr std::uint64_t hour = 3600;
constexpr std::uint32_t six = 6;

// A month ago: explicit times up to a month ahead of it are within the system clock's skew.
std::uint64_t a_month_ago() {
  return system_unix_seconds() / 600 * 600 - 30 * 86400;
}

// The case: 1,000 keys a minute for an hour in a 1 h window of 6 slices, then one
// backfilled insert from the day before: refused (it could not be remembered), nothing erased.
TYPED_TEST(WindowTime, ABackfillOlderThanTheWindowIsRefusedAndErasesNothing) {
  TypeParam f({60'000, 0.01, hour, window_unit::seconds, six});
  const std::uint64_t t0 = a_month_ago();
  std::vector<std::string> keys;
  for (std::uint64_t minute = 0; minute < 60; ++minute) {
    f.set_now(t0 + minute * 60);
    for (int i = 0; i < 1000; ++i) keys.push_back(std::to_string(minute) + "/" + std::to_string(i));
    std::vector<std::string_view> batch(keys.end() - 1000, keys.end());
    f.insert_many(batch);
  }
  const TypeParam before = f;
  f.set_now(t0 + 59 * 60 - 86400);
  const std::string message = error_of([&] { f.insert("late-event"); }, errc::invalid_argument);
  EXPECT_NE(message.find("older than the window"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(t0 + 59 * 60 - 86400)), std::string::npos) << message;
  EXPECT_TRUE(f == before);
  // Lookups at that time see the window as it is: the newest slice is current.
  for (const auto& k : keys) ASSERT_TRUE(f.contains(k)) << k;
  // A backfill into a live slice is stored there.
  f.set_now(t0 + 30 * 60);
  EXPECT_TRUE(f.insert("half-an-hour-late"));
  f.set_now(t0 + 59 * 60);
  EXPECT_TRUE(f.contains("half-an-hour-late"));
  for (const auto& k : keys) ASSERT_TRUE(f.contains(k)) << k;
}

TYPED_TEST(WindowTime, MillisecondTimesAreRefusedNamingThem) {
  TypeParam f({100, 0.01, hour, window_unit::seconds, six});
  const std::uint64_t ms = system_unix_seconds() * 1000;
  const std::string message = error_of([&] { f.set_now(ms); }, errc::invalid_argument);
  EXPECT_NE(message.find("milliseconds"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(ms)), std::string::npos) << message;
  f.set_clock([ms] { return ms; });
  EXPECT_NE(error_of([&] { f.insert("k"); }, errc::invalid_argument).find("milliseconds"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)f.contains("k"); }, errc::invalid_argument).find("milliseconds"),
            std::string::npos);
}

TYPED_TEST(WindowTime, AFarFutureTimeIsRefusedUnlessTheClockMoved) {
  TypeParam f({100, 0.01, hour, window_unit::seconds, six});
  f.set_now(a_month_ago());
  f.insert("kept");
  const std::uint64_t ahead = system_unix_seconds() + 86400;
  f.set_now(ahead);
  const std::string message = error_of([&] { f.insert("k"); }, errc::invalid_argument);
  EXPECT_NE(message.find("ahead of the system clock"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(ahead)), std::string::npos) << message;
  error_of([&] { (void)f.contains("kept"); }, errc::invalid_argument);
  f.set_now(a_month_ago() + 60);
  EXPECT_TRUE(f.contains("kept"));
  // Said to have moved, the clock moves the window: the old slices are passed over.
  f.set_now(ahead);
  f.set_clock_moved(true);
  EXPECT_TRUE(f.insert("k"));
  EXPECT_FALSE(f.contains("kept"));
  EXPECT_EQ(f.current_slice(), f.slice_at(ahead));
}

// The default clock behind the newest slice (written by a process whose clock was later): an
// insert goes to the newest slice, kept a window from there.
TYPED_TEST(WindowTime, TheDefaultClockBehindTheNewestSliceInsertsIntoIt) {
  TypeParam f({100, 0.01, hour, window_unit::seconds, six});
  const std::uint64_t later = system_unix_seconds() + 200;
  f.set_now(later);
  f.insert("from-a-later-clock");
  f.use_system_clock();
  EXPECT_EQ(f.current_slice(), f.slice_at(later));
  f.insert("now");
  f.set_now(later + hour - 1);
  f.set_clock_moved(true);
  EXPECT_TRUE(f.contains("now"));
  EXPECT_TRUE(f.contains("from-a-later-clock"));
}

// A count window's counter near 2^64 (a crafted file) is refused on load: counted on, it would
// wrap and the window would skip to slices it never wrote.
TYPED_TEST(WindowTime, ACountWindowCounterNear2To64IsRefused) {
  TypeParam f({100, 0.01, 100, window_unit::inserts, 4});
  f.insert("a");
  test::temp_dir dir;
  save(f, dir / "w.bf");
  const auto good = test::read_bytes(dir / "w.bf");
  test::write_forged(good, dir / "bad.bf", [](file_header& h) { h.kind_params[3] = ~0ull - 5; });
  const std::string message =
      error_of([&] { load_any((dir / "bad.bf").string()); }, errc::corrupt_file);
  EXPECT_NE(message.find("past the limit"), std::string::npos) << message;
}

// The model: the newest slice any insert went to, and for each key the newest slice it went to.
// A lookup at clock time c sees slice L = max(slice(c), newest); a key stored in slice e must be
// found while L <= e + S.
struct window_model {
  std::uint64_t newest = 0;
  bool any = false;
  std::map<std::string, std::uint64_t> stored;
};

template <class Window>
void check_no_false_negative(const Window& f, const window_model& m, std::uint64_t clock,
                             const std::string& where) {
  const std::uint64_t at = f.slice_at(clock);
  const std::uint64_t live_from = m.any ? std::max(at, m.newest) : at;
  ASSERT_EQ(f.current_slice(), live_from) << where;
  std::vector<std::string_view> due;
  for (const auto& [key, slice] : m.stored) {
    if (slice + f.slices() >= live_from) due.push_back(key);
  }
  auto answers = std::make_unique<bool[]>(due.size());
  ASSERT_EQ(f.contains_many(due, {answers.get(), due.size()}), due.size()) << where;
  for (std::size_t i = 0; i < due.size(); i += 7) ASSERT_TRUE(f.contains(due[i])) << where;
}

// Thousands of random sequences of insert and lookup times per layout.
TYPED_TEST(WindowTime, NoFalseNegativeUnderAnySequenceOfTimes) {
  const std::uint64_t w = hour;
  const std::uint64_t base = a_month_ago();
  const std::uint64_t system = system_unix_seconds();
  for (std::uint64_t run = 0; run < 1000; ++run) {
    std::mt19937_64 rng(run);
    const auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {
      return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    };
    TypeParam f({400, 0.01, w, window_unit::seconds, six});
    window_model m;
    std::uint64_t clock = base;
    std::uint64_t keys = 0;
    for (int step = 0; step < 30; ++step) {
      const std::string where = "run " + std::to_string(run) + " step " + std::to_string(step);
      const std::uint64_t newest_time = m.any ? slice_start(m.newest, w, six) : base;
      std::uint64_t t = clock;
      bool moved = false;
      switch (uniform(0, 8)) {
        case 0:  // time goes on
        case 1:
        case 2:
        case 3:
          t = newest_time + uniform(0, w / 4);
          break;
        case 4:
          t = newest_time - std::min(newest_time, uniform(0, 2 * w));
          break;  // backfill
        case 5:
          t = newest_time - std::min(newest_time, uniform(0, 30 * w));
          break;  // steps back
        case 6:
          t = system + 400 + uniform(0, 1000 * w);
          break;  // far future: refused
        case 7:
          t = newest_time + uniform(w, 3 * w);
          break;  // an idle window
        default:  // the clock really moved
          t = newest_time + uniform(0, 20 * w);
          moved = true;
          break;
      }
      if (uniform(0, 9) == 0) {  // now and then a time in milliseconds
        const std::uint64_t ms = t * 1000;
        EXPECT_NE(error_of([&] { f.set_now(ms); }, errc::invalid_argument).find("milliseconds"),
                  std::string::npos);
      }
      f.set_now(t);
      f.set_clock_moved(moved);
      const bool future = t > system_unix_seconds() + TypeParam::max_clock_skew && !moved;
      const std::uint64_t e = f.slice_at(t);
      const bool too_old = m.any && e + f.slices() < m.newest;
      std::vector<std::string> batch;
      for (std::uint64_t i = uniform(1, 8); i > 0; --i) batch.push_back(std::to_string(keys++));
      if (uniform(0, 3) == 0 && !m.stored.empty()) batch.push_back(m.stored.begin()->first);
      const std::vector<std::string_view> views(batch.begin(), batch.end());
      if (future) {
        error_of([&] { f.insert_many(views); }, errc::invalid_argument);
        error_of([&] { (void)f.contains(batch[0]); }, errc::invalid_argument);
        continue;
      }
      clock = t;
      if (too_old) {
        EXPECT_NE(error_of([&] { f.insert_many(views); }, errc::invalid_argument)
                      .find("older than the window"),
                  std::string::npos);
      } else {
        f.insert_many(views);
        m.newest = m.any ? std::max(m.newest, e) : e;
        m.any = true;
        for (const auto& k : batch) m.stored[k] = std::max(m.stored[k], e);
      }
      check_no_false_negative(f, m, clock, where);
      if (::testing::Test::HasFatalFailure()) return;
    }
    if (run % 50 == 0) {  // saved and mapped, the file answers alike at any clock
      test::temp_dir dir;
      save(f, dir / "w.bf");
      auto mapped = map<TypeParam>(dir / "w.bf");
      for (const std::uint64_t t : {clock, clock - std::min<std::uint64_t>(clock, 5 * w)}) {
        mapped.set_now(t);
        check_no_false_negative(mapped, m, t, "mapped, run " + std::to_string(run));
      }
    }
  }
}

}  // namespace
}  // namespace bloomkit
