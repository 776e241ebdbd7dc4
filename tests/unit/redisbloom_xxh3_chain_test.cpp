// RedisBloom's chain with bloomkit's hashing (option_bloomkit_hash, scheme redisbloom-xxh3): what
// the module's BF.* keys (type bkbloom--) are. RedisBloom's sizing, XXH3-128 probes: no false
// negatives, the FPP the sizing promises, and every encoding (RDB fields, chunks, DUMP, files)
// carrying the bit, with the RedisBloom type refusing it and bloomkit's type requiring it.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/hashing.hpp"
#include "compat/redisbloom_slot.hpp"
#include "file/header_codec.hpp"
#include "support/redisbloom_fields.hpp"
#include "support/temp_dir.hpp"

namespace rb = bloomkit::redisbloom;
using bloomkit::errc;

namespace {

std::vector<std::string> keys_from(const std::string& prefix, std::size_t n) {
  std::vector<std::string> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::size_t present_count(const rb::chain& c, const std::vector<std::string>& keys) {
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::uint8_t> answers(keys.size());
  c.contains_many(views, answers);
  std::size_t n = 0;
  for (std::uint8_t a : answers) n += a;
  return n;
}

rb::chain filled(std::uint64_t capacity, double p, std::uint32_t expansion, bool nonscaling,
                 const std::vector<std::string>& keys) {
  rb::chain c = rb::chain::reserve(capacity, p, expansion, nonscaling, true);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<rb::add_result> answers(keys.size());
  EXPECT_EQ(c.add_many(views, answers), keys.size());
  return c;
}

using field_list = bloomkit::test::redisbloom_fields;

template <class F>
void expect_error(F f, errc expected) {
  try {
    f();
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return;
  }
  ADD_FAILURE() << "no error";
}

TEST(RedisBloomXxh3Chain, HashIsXxh3WithAnOddStride) {
  for (const std::string& key : std::vector<std::string>{"", "a", "alice", std::string(100, 'x')}) {
    const bloomkit::digest128 d = bloomkit::xxh3_128(key);
    const rb::hash_pair h = rb::hash_xxh3(key);
    EXPECT_EQ(h.a, d.low);
    EXPECT_EQ(h.b, d.high | 1);
  }
  const rb::chain c = rb::chain::reserve(1000, 0.01, 2, false, true);
  EXPECT_TRUE(c.bloomkit_hashing());
  EXPECT_EQ(c.options(), rb::created_options | rb::option_bloomkit_hash);
  EXPECT_EQ(c.hash("alice"), rb::hash_xxh3("alice"));
  EXPECT_EQ(c.file_scheme(), bloomkit::hash_scheme::redisbloom_xxh3);
  EXPECT_EQ(bloomkit::to_string(c.file_scheme()), "redisbloom-xxh3");
  // RedisBloom's sizing, link for link.
  const rb::chain theirs = rb::chain::reserve(1000, 0.01, 2, false);
  EXPECT_EQ(c.link(0), theirs.link(0));
  EXPECT_EQ(c.info_size(), theirs.info_size());
  EXPECT_EQ(rb::value_type_of(c), rb::native_type_name);
  EXPECT_EQ(rb::value_type_of(theirs), rb::type_name);
}

TEST(RedisBloomXxh3Chain, NoFalseNegativesAndTheSizingsRateAtCapacity) {
  const auto absent = keys_from("absent:", 200'000);
  for (const double p : {1e-2, 1e-3}) {
    for (const bool nonscaling : {true, false}) {
      SCOPED_TRACE(std::to_string(p) + (nonscaling ? " NONSCALING" : " scaling"));
      const auto keys = keys_from("key:", 20'000);
      const rb::chain c = filled(20'000, p, 2, nonscaling, keys);
      EXPECT_EQ(c.filters(), 1u);
      EXPECT_EQ(present_count(c, keys), keys.size());
      // The link's error: p (NONSCALING) or p / 2; five sigma of room.
      const double e = nonscaling ? p : p / 2;
      const double rate = static_cast<double>(present_count(c, absent)) / absent.size();
      EXPECT_LE(rate, e + 5 * std::sqrt(e / absent.size())) << rate;
      EXPECT_GE(rate, e / 2) << rate;  // the bits are used, not wasted
    }
  }
}

TEST(RedisBloomXxh3Chain, AGrowingChainKeepsEveryKeyWithinItsBound) {
  const auto keys = keys_from("key:", 7000);
  const rb::chain c = filled(1000, 0.01, 2, false, keys);
  EXPECT_EQ(c.filters(), 3u);  // 1000 + 2000 + 4000
  EXPECT_EQ(present_count(c, keys), keys.size());
  const auto absent = keys_from("absent:", 100'000);
  const double rate = static_cast<double>(present_count(c, absent)) / absent.size();
  EXPECT_LE(rate, 0.01 + 5 * std::sqrt(0.01 / absent.size()));
  // A key present in any link is not added again.
  rb::chain again = c;
  for (const std::string& k : keys) ASSERT_EQ(again.add(k), rb::add_result::present);
  EXPECT_EQ(again, c);
}

// The batched paths reduce probes by multiplication (Lemire's constant), the single-key ones by
// division with a running remainder: both give position(h, i), for RedisBloom's hashing too.
TEST(RedisBloomXxh3Chain, BatchedAndSingleKeyPathsAgree) {
  const auto keys = keys_from("key:", 30'000);
  const auto absent = keys_from("absent:", 30'000);
  for (const bool ours : {true, false}) {
    // Odd link sizes (not powers of two), a growing chain of several links.
    rb::chain batched = rb::chain::reserve(997, 0.003, 3, false, ours);
    rb::chain single = batched;
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<rb::add_result> answers(keys.size());
    ASSERT_EQ(batched.add_many(views, answers), keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(single.add(keys[i]), answers[i]) << i;
    EXPECT_EQ(batched, single);
    EXPECT_GE(batched.filters(), 3u);
    std::vector<std::string_view> absent_views(absent.begin(), absent.end());
    std::vector<std::uint8_t> found(absent.size());
    batched.contains_many(absent_views, found);
    for (std::size_t i = 0; i < absent.size(); ++i) {
      ASSERT_EQ(found[i] != 0, single.contains(absent[i])) << i;
    }
    // And against the definition: probe i of link l is (a + i*b mod 2^64) mod its bits.
    const rb::hash_pair h = batched.hash(keys[0]);
    const rb::link_fields f = batched.link(0);
    const auto bits = batched.link_bits(0);
    for (std::uint32_t i = 0; i < f.hashes; ++i) {
      const std::uint64_t x = (h.a + i * h.b) % f.bits;
      EXPECT_TRUE((bits[x >> 3] >> (x & 7)) & 1);
    }
  }
}

// The batched reduction (an inverse, two multiplications, at most two subtractions) is x mod m
// for every 64-bit x and every probe range a link can have.
TEST(RedisBloomXxh3Chain, MultiplyReductionIsTheRemainder) {
  using slot = rb::chain_access::slot_type;
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  const auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (const std::uint64_t m :
       {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{63}, std::uint64_t{64},
        std::uint64_t{1152}, std::uint64_t{11072}, std::uint64_t{1000003}, std::uint64_t{28755176},
        (std::uint64_t{1} << 46) - 1, std::uint64_t{1} << 46, (std::uint64_t{1} << 46) + 64}) {
    slot::reducer r;
    r.inverse = UINT64_MAX / m;
    for (const std::uint64_t x : {std::uint64_t{0}, m - 1, m, UINT64_MAX, UINT64_MAX - m,
                                  UINT64_MAX / m * m, UINT64_MAX / m * m - 1}) {
      ASSERT_EQ(slot::reduce(x, m, r), x % m) << m << " " << x;
    }
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t x = next();
      ASSERT_EQ(slot::reduce(x, m, r), x % m) << m << " " << x;
    }
  }
}

TEST(RedisBloomXxh3Chain, RdbFieldsRoundTripAndTheTypesRefuseTheOthersBit) {
  const rb::chain ours = filled(100, 0.01, 2, false, keys_from("k", 250));
  field_list out;
  rb::save_fields(ours, out);
  EXPECT_EQ(rb::load_value(out, rb::native_type_name, rb::native_encoding_version), ours);
  out.at = 0;
  expect_error([&] { rb::load_value(out, rb::type_name, rb::encoding_version); },
               errc::corrupt_file);
  out.at = 0;
  expect_error([&] { rb::load_value(out, rb::native_type_name, 2); }, errc::unsupported);

  rb::chain theirs = rb::chain::reserve(100, 0.01, 2, false);
  theirs.add("x");
  field_list rb_out;
  rb::save_fields(theirs, rb_out);
  EXPECT_EQ(rb::load_value(rb_out, rb::type_name, rb::encoding_version), theirs);
  rb_out.at = 0;
  expect_error([&] { rb::load_value(rb_out, rb::native_type_name, rb::native_encoding_version); },
               errc::corrupt_file);
}

TEST(RedisBloomXxh3Chain, ChunksAndDumpCarryTheBit) {
  const rb::chain c = filled(1000, 0.001, 4, false, keys_from("k", 3000));
  rb::chain loaded = rb::chain_from_header(rb::header_chunk(c));
  EXPECT_TRUE(loaded.bloomkit_hashing());
  for (rb::data_chunk chunk = rb::next_chunk(c, 1, 1000); chunk.next != 0;
       chunk = rb::next_chunk(c, chunk.next, 1000)) {
    rb::apply_chunk(loaded, chunk.next, chunk.data);
  }
  EXPECT_EQ(loaded, c);

  const std::vector<unsigned char> dump = rb::write_dump(c);
  EXPECT_EQ(rb::read_dump(dump, "dump"), c);
  // The payload names bloomkit's type: type byte 7, then the module id.
  EXPECT_EQ(dump[0], 7);
}

TEST(RedisBloomXxh3Chain, FilesRecordTheSchemeAndRefuseAMismatch) {
  const bloomkit::test::temp_dir dir;
  const rb::chain c = filled(500, 0.01, 2, true, keys_from("k", 400));
  const auto path = dir / "chain.bloom";
  bloomkit::save(c, path);
  for (const auto mode : {bloomkit::open_mode::load, bloomkit::open_mode::map}) {
    const auto opened = bloomkit::compat::open_any(path, mode);
    ASSERT_TRUE(std::holds_alternative<rb::chain>(opened.filter));
    EXPECT_EQ(std::get<rb::chain>(opened.filter), c);
    EXPECT_EQ(opened.header.scheme, bloomkit::hash_scheme::redisbloom_xxh3);
    EXPECT_EQ(opened.header.kind, bloomkit::filter_kind::redisbloom);
  }
  EXPECT_EQ(bloomkit::load<rb::chain>(path), c);
  // The same file claiming RedisBloom's scheme (its header resealed) is refused: the option bit
  // says bloomkit's hashing.
  auto bytes = bloomkit::test::read_bytes(path);
  bloomkit::file_header h =
      bloomkit::decode_header({bytes.data(), bloomkit::file_header_size}, "chain.bloom");
  h.scheme = bloomkit::hash_scheme::redisbloom;
  const auto forged = bloomkit::encode_header(h);
  std::copy(forged.begin(), forged.end(), bytes.begin());
  bloomkit::test::write_bytes(path, bytes);
  expect_error([&] { bloomkit::compat::load_any(path); }, errc::corrupt_file);
  // A RedisBloom chain's file keeps scheme 14.
  const auto theirs_path = dir / "theirs.bloom";
  bloomkit::save(rb::chain::reserve(500, 0.01, 2, true), theirs_path);
  EXPECT_EQ(bloomkit::compat::open_any(theirs_path, bloomkit::open_mode::load).header.scheme,
            bloomkit::hash_scheme::redisbloom);
}

}  // namespace
