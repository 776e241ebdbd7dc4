// Every write to a filter that maps a file is refused the same way: errc::read_only with one
// message, checked before anything else (so an incompatible merge into a mapped filter is a
// read-only error too), and the mapped bits stay as they were.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/file.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::temp_dir;
using test::views;

constexpr const char* read_only_message =
    "filter is read-only (it maps a file); load it to modify it";

void expect_read_only(const std::function<void()>& write, const std::string& what) {
  try {
    write();
    ADD_FAILURE() << what << ": no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::read_only) << what << ": " << e.what();
    EXPECT_EQ(std::string(e.what()), read_only_message) << what;
  }
}

template <class Filter>
void check_writes_refused(Filter filled, Filter other, const std::string& kind) {
  temp_dir dir;
  save(filled, dir / "f.bloom");
  auto mapped = map<Filter>(dir / "f.bloom");
  expect_read_only([&] { mapped.insert("x"); }, kind + " insert");
  expect_read_only([&] { mapped.insert_many(std::vector<std::string_view>{"y"}); },
                   kind + " insert_many");
  expect_read_only([&] { mapped.merge(other); }, kind + " merge");
  expect_read_only([&] { mapped.merge(mapped); }, kind + " merge with itself");
  if constexpr (requires { mapped.intersect(other); }) {
    expect_read_only([&] { mapped.intersect(other); }, kind + " intersect");
  }
  expect_read_only([&] { mapped.clear(); }, kind + " clear");
  EXPECT_TRUE(mapped == filled) << kind << ": the mapped bits changed";
}

template <class Filter>
Filter filled(Filter f) {
  f.insert_many(views(make_keys(500, 1)));
  return f;
}

TEST(ReadOnly, EveryWriteToAMappedFilterIsRefusedWithOneMessage) {
  check_writes_refused(filled(bloom_filter::for_capacity(1000, 0.01)),
                       bloom_filter::for_capacity(50, 0.01), "classic");
  check_writes_refused(filled(blocked_bloom_filter::for_capacity(1000, 0.01)),
                       blocked_bloom_filter::for_capacity(50, 0.01), "blocked");
  check_writes_refused(filled(counting_bloom_filter::for_capacity(1000, 0.01)),
                       counting_bloom_filter::for_capacity(50, 0.01), "counting");
}

// Integer keys take the same door: every write of a mapped filter of integer keys, the
// concurrent ones too, is refused with the one message.
template <class Filter>
void check_integer_writes_refused(const std::string& kind) {
  temp_dir dir;
  auto filled = Filter::for_capacity(1000, 0.01, key_type::int64);
  const std::vector<std::uint64_t> keys{1, 2, 3};
  filled.insert_integers(std::span<const std::uint64_t>(keys));
  save(filled, dir / "f.bloom");
  auto mapped = map<Filter>(dir / "f.bloom");
  expect_read_only([&] { mapped.insert_integer(4); }, kind + " insert_integer");
  expect_read_only([&] { mapped.insert_integers(std::span<const std::uint64_t>(keys)); },
                   kind + " insert_integers");
  expect_read_only([&] { mapped.insert_integer_concurrent(4); },
                   kind + " insert_integer_concurrent");
  expect_read_only([&] { mapped.insert_integers_concurrent(std::span<const std::uint64_t>(keys)); },
                   kind + " insert_integers_concurrent");
  EXPECT_TRUE(mapped == filled) << kind << ": the mapped bits changed";
}

TEST(ReadOnly, IntegerWritesToAMappedFilterAreRefusedWithOneMessage) {
  check_integer_writes_refused<bloom_filter>("classic");
  check_integer_writes_refused<blocked_bloom_filter>("blocked");
}

}  // namespace
}  // namespace bloomkit
