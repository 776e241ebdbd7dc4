// RedisBloom compat (compat/redisbloom.hpp) beyond the vectors: sizing and hashing facts, the
// older encodings, the storage allocator, and hostile chunks, RDB fields and DUMP payloads —
// each refused with an error naming the problem, never a crash.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/compat/redisbloom.hpp"
#include "support/chunk_errors.hpp"
#include "support/errors.hpp"
#include "support/keys.hpp"
#include "support/redisbloom_fields.hpp"
#include "support/redisbloom_vectors.hpp"

namespace rb = bloomkit::redisbloom;
using bloomkit::errc;

namespace {

using bloomkit::test::bytes_of;

using bloomkit::test::error_of;
constexpr auto chunk_problem_of = bloomkit::test::chunk_problem_of<rb::chunk_problem>;

rb::chain filled(std::uint64_t capacity, double p, std::uint32_t growth, bool non_scaling,
                 int keys) {
  rb::chain c = rb::chain::reserve(capacity, p, growth, non_scaling);
  for (int i = 0; i < keys; ++i) c.add("key-" + std::to_string(i));
  return c;
}

TEST(RedisBloomSizing, LinksAreSizedAsBloomInit) {
  const rb::link_fields noround = rb::size_link(100, 0.01, rb::option_noround);
  EXPECT_EQ(noround.bytes, 120u);
  EXPECT_EQ(noround.bits, 960u);
  EXPECT_EQ(noround.hashes, 7u);
  EXPECT_EQ(noround.n2, 0u);
  EXPECT_EQ(noround.entries, 100u);
  // Rounded to a power of two, the spare bits become capacity.
  const rb::link_fields rounded = rb::size_link(100, 0.01, 0);
  EXPECT_EQ(rounded.bits, 1024u);
  EXPECT_EQ(rounded.n2, 10u);
  EXPECT_EQ(rounded.entries, 106u);
  EXPECT_FALSE(rb::link_problem(noround).has_value());
  EXPECT_FALSE(rb::link_problem(rounded).has_value());
  error_of([] { rb::size_link(0, 0.01, rb::option_noround); }, errc::invalid_argument);
  error_of([] { rb::size_link(10, 1.0, rb::option_noround); }, errc::invalid_argument);
  error_of([] { rb::size_link(std::uint64_t{1} << 60, 1e-9, rb::option_noround); },
           errc::too_large);
}

TEST(RedisBloomChain, ChainsTightenAndGrowAsRedisBloom) {
  const rb::chain c = filled(100, 0.01, 2, false, 350);
  ASSERT_EQ(c.filters(), 3u);
  EXPECT_DOUBLE_EQ(c.link(0).error, 0.005);
  EXPECT_DOUBLE_EQ(c.link(1).error, 0.0025);
  EXPECT_EQ(c.link(1).entries, 200u);
  EXPECT_EQ(c.link(2).entries, 400u);
  EXPECT_EQ(c.capacity(), 700u);
  // Rates above 0.25 are capped before the first link halves them.
  EXPECT_DOUBLE_EQ(rb::chain::reserve(100, 0.5, 2, false).link(0).error, 0.125);
  EXPECT_DOUBLE_EQ(rb::chain::reserve(100, 0.5, 2, true).link(0).error, 0.5);
}

TEST(RedisBloomChain, ANonScalingChainAtCapacityIsFullAndUnchanged) {
  rb::chain c = rb::chain::reserve(10, 0.01, 2, true);
  int added = 0;
  for (int i = 0; added < 10; ++i) {
    added += c.add("k" + std::to_string(i)) == rb::add_result::added ? 1 : 0;
  }
  const rb::chain before = c;
  rb::add_result r = rb::add_result::present;
  for (int i = 0; r == rb::add_result::present; ++i) r = c.add("other" + std::to_string(i));
  EXPECT_EQ(r, rb::add_result::full);
  EXPECT_EQ(c, before);
  EXPECT_FALSE(c.expansion().has_value());
  // A batch stops at the full answer.
  std::vector<std::string_view> keys = {"k0", "x1", "x2", "x3"};
  std::vector<rb::add_result> answers(keys.size());
  const std::size_t n = c.add_many(keys, answers);
  EXPECT_EQ(answers[0], rb::add_result::present);
  EXPECT_LT(n, keys.size() + 1);
  EXPECT_EQ(answers[n - 1] == rb::add_result::full || n == keys.size(), true);
}

TEST(RedisBloomChain, GrowthZeroCannotGrowAndChangesNothing) {
  rb::chain c = rb::chain::reserve(1, 0.01, 0, false);
  EXPECT_EQ(c.add("a"), rb::add_result::added);
  const rb::chain before = c;
  EXPECT_EQ(c.add("b"), rb::add_result::cannot_grow);
  EXPECT_EQ(c, before);
  EXPECT_EQ(c.add("a"), rb::add_result::present);
}

TEST(RedisBloomHashing, ThirtyTwoBitFiltersProbeWithMurmurHash2) {
  EXPECT_EQ(rb::murmur_hash2("", 0, 0), 0u);
  EXPECT_EQ(rb::hash32("alice").a, rb::murmur_hash2("alice", 5, 0x9747b28c));
  EXPECT_EQ(rb::hash32("alice").b, rb::murmur_hash2("alice", 5, rb::hash32("alice").a));
  EXPECT_LT(rb::hash32("alice").a, std::uint64_t{1} << 32);
  // A 32-bit power-of-two chain sets exactly the masked positions of (a + i * b).
  rb::chain c = rb::chain::make(100, 0.01, rb::option_no_scaling, 2);
  EXPECT_EQ(c.link(0).n2, 10u);
  c.add("alice");
  const rb::hash_pair h = rb::hash32("alice");
  EXPECT_EQ(c.hash("alice"), h);
  std::uint64_t set = 0;
  for (unsigned char b : c.link_bits(0)) set += static_cast<unsigned>(__builtin_popcount(b));
  const auto bits = c.link_bits(0);
  for (std::uint32_t i = 0; i < c.link(0).hashes; ++i) {
    const std::uint64_t x = (h.a + i * h.b) & 1023;
    EXPECT_TRUE((bits[x >> 3] >> (x & 7)) & 1);
  }
  EXPECT_LE(set, c.link(0).hashes);
  EXPECT_TRUE(c.contains("alice"));
  EXPECT_EQ(c.debug_lines()[1].find("hashwidth:32") != std::string::npos, true);
}

using field_list = bloomkit::test::redisbloom_fields;

TEST(RedisBloomRdb, FieldsRoundTripAndEveryTruncationIsRefused) {
  const rb::chain c = filled(100, 0.01, 2, false, 250);
  field_list out;
  rb::save_fields(c, out);
  ASSERT_EQ(out.fields.size(), 4 + 8 * c.filters());
  EXPECT_EQ(rb::load_fields(out, 4), c);
  for (std::size_t keep = 0; keep < out.fields.size(); ++keep) {
    field_list cut;
    cut.fields.assign(out.fields.begin(), out.fields.begin() + static_cast<std::ptrdiff_t>(keep));
    error_of([&] { rb::load_fields(cut, 4); }, errc::corrupt_file);
  }
  error_of(
      [&] {
        out.at = 0;
        rb::load_fields(out, 5);
      },
      errc::unsupported);
}

TEST(RedisBloomRdb, HostileFieldsAreRefusedNamingTheProblem) {
  const rb::chain c = filled(100, 0.01, 2, false, 10);
  field_list good;
  rb::save_fields(c, good);
  auto with = [&](std::size_t i, std::variant<std::uint64_t, double, std::string> v) {
    field_list f = good;
    f.fields[i] = std::move(v);
    return f;
  };
  struct hostile {
    std::size_t field;
    std::variant<std::uint64_t, double, std::string> value;
    const char* names;
  };
  const hostile cases[] = {
      {1, std::uint64_t{0}, "no links"},
      {1, std::uint64_t{1000}, "1000 links"},
      {2, std::uint64_t{32}, "options"},  // 16: bloomkit's hashing bit (load_value)
      {2, std::uint64_t{1} << 40, "options"},
      {3, std::uint64_t{1} << 40, "growth"},
      {6, std::uint64_t{5000}, "hashes"},
      {8, std::uint64_t{1} << 20, "bits"},  // bits past the array
      {8, std::uint64_t{0}, "0 bits"},
      {9, std::uint64_t{64}, "n2"},
      {9, std::uint64_t{20}, "probe range"},  // 2^20 bits in a 120-byte array
      {10, std::string("short"), "bits"},
      {10, std::string(), "empty"},
      {5, 0.0, "error rate"},
      {5, 1.5, "error rate"},
      {4, 7.0, ""},  // a double where an unsigned belongs: the source refuses
  };
  for (const hostile& h : cases) {
    SCOPED_TRACE(h.names);
    field_list f = with(h.field, h.value);
    try {
      rb::load_fields(f, 4);
      ADD_FAILURE() << "accepted";
    } catch (const bloomkit::error& e) {
      EXPECT_NE(std::string(e.what()).find(h.names), std::string::npos) << e.what();
    } catch (const std::bad_variant_access&) {
      EXPECT_EQ(std::string(h.names), "");
    }
  }
}

TEST(RedisBloomRdb, OlderEncodingsLoad) {
  // Version 0: no options (32-bit hashing), growth 2, bits = entries * bpe (not rounded).
  const double bpe = -std::log(0.01) / 0.480453013918201;
  const std::uint64_t bits = static_cast<std::uint64_t>(100 * bpe);  // 958
  field_list v0;
  v0.fields = {std::uint64_t{1},
               std::uint64_t{1},
               std::uint64_t{100},
               0.01,
               std::uint64_t{7},
               bpe,
               std::string((bits + 7) / 8, '\0'),
               std::uint64_t{1}};
  rb::chain old = rb::load_fields(v0, 0);
  EXPECT_EQ(old.link(0).bits, bits);
  EXPECT_EQ(old.link(0).bytes, (bits + 7) / 8);
  EXPECT_EQ(old.growth(), 2u);
  EXPECT_EQ(old.options(), 0u);
  EXPECT_EQ(old.add("alice"), rb::add_result::added);
  const rb::hash_pair h = rb::hash32("alice");
  const auto b = old.link_bits(0);
  for (std::uint32_t i = 0; i < 7; ++i) {
    const std::uint64_t x = (h.a + i * h.b) % bits;  // modulo the unrounded count
    EXPECT_TRUE((b[x >> 3] >> (x & 7)) & 1);
  }
  // Version 3: options, no growth.
  field_list v3;
  rb::chain fresh = rb::chain::make(50, 0.01, rb::created_options, 2);
  field_list all;
  rb::save_fields(fresh, all);
  v3.fields = all.fields;
  v3.fields.erase(v3.fields.begin() + 3);  // no growth field
  EXPECT_EQ(rb::load_fields(v3, 3), fresh);
}

TEST(RedisBloomChunks, HostileHeadersAreBadData) {
  const rb::chain c = filled(100, 0.01, 2, false, 250);
  const auto header = rb::header_chunk(c);
  ASSERT_EQ(header.size(), 20 + 53 * c.filters());
  for (std::size_t n = 0; n < header.size(); ++n) {
    EXPECT_EQ(chunk_problem_of([&] {
                rb::chain_from_header({header.data(), n});
              }),
              rb::chunk_problem::bad_data)
        << n;
  }
  auto patched = [&](std::size_t offset, std::uint64_t v, int bytes) {
    auto h = header;
    for (int i = 0; i < bytes; ++i)
      h[offset + static_cast<std::size_t>(i)] = static_cast<unsigned char>(v >> (8 * i));
    return h;
  };
  const std::size_t link0 = 20;
  const std::vector<std::vector<unsigned char>> bad = {
      patched(0, c.items() + 1, 8),               // items that do not add up
      patched(8, 0, 4),                           // no links
      patched(8, 5000, 4),                        // too many links
      patched(12, 0x100, 4),                      // unknown options
      patched(link0, std::uint64_t{1} << 60, 8),  // bytes against bits
      patched(link0 + 8, 8, 8),                   // bits against bytes
      patched(link0 + 24, 0, 8),                  // error 0
      patched(link0 + 40, 99, 4),                 // hashes against bpe
      patched(link0 + 52, 64, 1),                 // n2
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(chunk_problem_of([&] { rb::chain_from_header(bad[i]); }), rb::chunk_problem::bad_data)
        << i;
  }
  // A huge but consistent link is refused before anything is allocated.
  auto huge = patched(link0, std::uint64_t{1} << 60, 8);
  huge = [&] {
    auto h = huge;
    const std::uint64_t bits = std::uint64_t{1} << 63;
    for (int i = 0; i < 8; ++i)
      h[link0 + 8 + static_cast<std::size_t>(i)] = static_cast<unsigned char>(bits >> (8 * i));
    return h;
  }();
  EXPECT_EQ(chunk_problem_of([&] { rb::chain_from_header(huge); }), rb::chunk_problem::bad_data);
  EXPECT_EQ(rb::redisbloom_text(rb::chunk_problem::bad_data), "ERR received bad data");
}

TEST(RedisBloomChunks, DataChunksAreBoundedAndOrIntoTheBits) {
  const rb::chain c = filled(100, 0.01, 2, false, 250);
  rb::chain target = rb::chain_from_header(rb::header_chunk(c));
  // An add made while the load is unfinished is kept.
  target.add("added-while-loading");
  const std::uint64_t total = c.bit_bytes();
  const std::string chunk(16, '\xff');
  EXPECT_EQ(chunk_problem_of([&] { rb::apply_chunk(target, 0, bytes_of(chunk)); }),
            rb::chunk_problem::bad_data);
  EXPECT_EQ(chunk_problem_of([&] { rb::apply_chunk(target, -5, bytes_of(chunk)); }),
            rb::chunk_problem::bad_data);
  EXPECT_EQ(chunk_problem_of([&] { rb::apply_chunk(target, 10, bytes_of(chunk)); }),
            rb::chunk_problem::bad_data);
  EXPECT_EQ(chunk_problem_of([&] { rb::apply_chunk(target, 16, bytes_of(chunk)); }),
            rb::chunk_problem::no_link);
  EXPECT_EQ(chunk_problem_of([&] {
              rb::apply_chunk(target, static_cast<std::int64_t>(total) + 17, bytes_of(chunk));
            }),
            rb::chunk_problem::no_link);
  const std::uint64_t first = c.link(0).bytes;
  EXPECT_EQ(chunk_problem_of([&] {
              rb::apply_chunk(target, static_cast<std::int64_t>(first - 8 + 16 + 1),
                              bytes_of(chunk));
            }),
            rb::chunk_problem::too_big);
  for (std::int64_t iter = 1; iter != 0;) {
    const rb::data_chunk d = rb::next_chunk(c, iter);
    if (d.next != 0) rb::apply_chunk(target, d.next, d.data);
    iter = d.next;
  }
  EXPECT_TRUE(target.contains("added-while-loading"));
  for (int i = 0; i < 250; ++i) EXPECT_TRUE(target.contains("key-" + std::to_string(i)));
}

TEST(RedisBloomDump, HostilePayloadsAreRefused) {
  const rb::chain c = filled(100, 0.01, 2, false, 250);
  const auto payload = rb::write_dump(c);
  EXPECT_EQ(rb::read_dump(payload, "p"), c);
  for (std::size_t n = 0; n < payload.size(); n += 1 + n / 16) {
    error_of([&] { rb::read_dump({payload.data(), n}, "p"); }, errc::corrupt_file);
  }
  for (std::size_t i = 0; i < payload.size(); i += 1 + i / 8) {
    auto flipped = payload;
    flipped[i] ^= 0x20;
    EXPECT_THROW(rb::read_dump(flipped, "p"), bloomkit::error) << i;
  }
  // With a matching CRC, each malformed part is named.
  auto resealed = [](std::vector<unsigned char> p) {
    const std::size_t body = p.size() - 8;
    const std::uint64_t crc = rb::crc64_jones(0, {p.data(), body});
    for (int i = 0; i < 8; ++i)
      p[body + static_cast<std::size_t>(i)] = static_cast<unsigned char>(crc >> (8 * i));
    return p;
  };
  auto wrong_type = payload;
  wrong_type[0] = 0;
  EXPECT_NE(error_of([&] { rb::read_dump(resealed(wrong_type), "p"); }, errc::unsupported)
                .find("RDB type"),
            std::string::npos);
  auto other_module = payload;
  other_module[2] ^= 0x04;  // another type name
  error_of([&] { rb::read_dump(resealed(other_module), "p"); }, errc::unsupported);
  auto newer = payload;
  newer[payload.size() - 10] = 99;
  error_of([&] { rb::read_dump(resealed(newer), "p"); }, errc::unsupported);
  EXPECT_NE(rb::crc64_jones(0, bytes_of("123456789")), 0u);
  EXPECT_EQ(rb::crc64_jones(0, bytes_of("123456789")), 0xe9c6d914c4b8d9caULL);
}

// Found by fuzz.interop_libfuzzer: a link whose bits per entry is NaN loaded, and then the chain
// was not equal to itself after a round trip.
TEST(RedisBloomDump, ANonFiniteBitsPerEntryIsRefused) {
  std::vector<unsigned char> payload = {
      0x07, 0x81, 0x30, 0x16, 0xe5, 0xa2, 0x89, 0xbe, 0xf8, 0x04, 0x02, 0x0a, 0x02, 0x01, 0x02,
      0x0d, 0x02, 0x01, 0x02, 0x0a, 0x04, 0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f, 0x02,
      0x04, 0x04, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x40, 0x40, 0x02, 0x00,
      0x05, 0x08, 0xc4, 0x15, 0x35, 0x4b, 0x29, 0xd6, 0x31, 0x0a, 0x02, 0x01, 0x00, 10,   0};
  const std::uint64_t crc = rb::crc64_jones(0, payload);  // RDB version 10, then the CRC
  for (int i = 0; i < 8; ++i) payload.push_back(static_cast<unsigned char>(crc >> (8 * i)));
  EXPECT_NE(
      error_of([&] { rb::read_dump(payload, "p"); }, errc::corrupt_file).find("bits per entry"),
      std::string::npos);
}

TEST(RedisBloomDump, LzfIsCheckedAndDecodes) {
  // A literal run then a back reference repeating it.
  const std::vector<unsigned char> lzf = {2, 'a', 'b', 'c', (1 << 5) | 0, 2};
  const auto out = rb::lzf_decompress(lzf, 6);
  EXPECT_EQ(std::string(out.begin(), out.end()), "abcabc");
  error_of([&] { rb::lzf_decompress(lzf, 7); }, errc::corrupt_file);
  error_of([&] { rb::lzf_decompress(lzf, 5); }, errc::corrupt_file);
  const std::vector<unsigned char> before_start = {0, 'a', (1 << 5) | 0, 9};
  error_of([&] { rb::lzf_decompress(before_start, 4); }, errc::corrupt_file);
  const std::vector<unsigned char> short_run = {5, 'a'};
  error_of([&] { rb::lzf_decompress(short_run, 6); }, errc::corrupt_file);
}

// An allocator that counts what it hands out.
struct counting_allocator final : bloomkit::storage_allocator {
  std::size_t live = 0;
  std::size_t bytes = 0;
  bloomkit::storage_block allocate(std::size_t n) override {
    ++live;
    bytes += n;
    void* p = std::aligned_alloc(64, (n + 63) / 64 * 64);
    std::memset(p, 0, n);
    return {static_cast<std::uint64_t*>(p), p, n};
  }
  void deallocate(const bloomkit::storage_block& b) noexcept override {
    --live;
    bytes -= b.bytes;
    std::free(b.base);
  }
};

TEST(RedisBloomChain, BitsComeFromTheInstalledAllocatorAndGoBack) {
  counting_allocator counting;
  bloomkit::storage_allocator& before = bloomkit::current_storage_allocator();
  bloomkit::set_storage_allocator(counting);
  {
    rb::chain c = filled(100, 0.01, 2, false, 350);
    EXPECT_EQ(counting.live, c.filters());
    EXPECT_EQ(counting.bytes, c.bit_bytes());
    rb::chain copy = c;
    EXPECT_EQ(counting.live, 2 * c.filters());
  }
  EXPECT_EQ(counting.live, 0u);
  bloomkit::set_storage_allocator(before);
}

}  // namespace
