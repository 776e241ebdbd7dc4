// Spark's BloomFilter beyond the vectors: hostile writeTo bytes (every truncation and flipped
// byte refused or read exactly), the fields named in errors, bloomkit files of both versions,
// merge rules, Spark's sizing and its refusals, the murmur3 tail, and V1's 2^31 limit against V2.

#include <gtest/gtest.h>
#include <murmurhash.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/compat/spark.hpp"
#include "support/errors.hpp"
#include "support/file_checks.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace bloomkit;

std::vector<unsigned char> small_v1() {
  spark::v1_filter f(256, 3);
  for (const char* key : {"a", "bc", "def", "ghij"}) f.insert(key);
  return spark::write(f);
}

std::vector<unsigned char> small_v2(std::int32_t seed = -123456) {
  spark::v2_filter f(192, 4, seed);
  for (std::int64_t key : {1, 2, 3, -4}) f.insert(key);
  return spark::write(f);
}

// Spark's bytes read from a span and from a stream: the same filter, or the same error.
spark::any_filter read_both(const std::vector<unsigned char>& bytes) {
  std::string text(bytes.begin(), bytes.end());
  std::istringstream in(text);
  std::optional<error> stream_error;
  std::optional<spark::any_filter> from_stream;
  try {
    from_stream = spark::read(in, "spark.bin");
  } catch (const error& e) {
    stream_error = e;
  }
  try {
    auto f = spark::read(bytes, "spark.bin");
    // A stream stops after the filter: trailing bytes are the span reader's concern only.
    EXPECT_TRUE(from_stream.has_value());
    if (from_stream) {
      EXPECT_TRUE(spark::write(*from_stream) == bytes);
    }
    return f;
  } catch (const error&) {
    if (!stream_error && from_stream) {
      EXPECT_GT(in.rdbuf()->in_avail(), 0);  // it stopped before the bytes the span refused
    }
    throw;
  }
}

TEST(SparkCodec, EveryTruncationIsRefusedNamingTheSourceAndWhatIsMissing) {
  for (const auto& good : {small_v1(), small_v2()}) {
    for (std::size_t len = 0; len < good.size(); ++len) {
      const std::vector<unsigned char> cut(good.begin(), good.begin() + len);
      const std::string message = test::error_of([&] { read_both(cut); }, errc::corrupt_file);
      EXPECT_NE(message.find("spark.bin"), std::string::npos) << message;
      EXPECT_NE(message.find("truncated"), std::string::npos) << message;
    }
  }
}

TEST(SparkCodec, EveryFlippedByteIsRefusedOrReadExactly) {
  for (const auto& good : {small_v1(), small_v2()}) {
    std::size_t refused = 0, read = 0;
    for (std::size_t pos = 0; pos < good.size(); ++pos) {
      for (unsigned char flip : {0x01, 0x02, 0x10, 0x40, 0x80, 0xff}) {
        auto bad = good;
        bad[pos] ^= flip;
        try {
          const auto f = read_both(bad);
          EXPECT_TRUE(spark::write(f) == bad) << pos;  // what the bytes say, exactly
          ++read;
        } catch (const error& e) {
          EXPECT_TRUE(e.code() == errc::corrupt_file || e.code() == errc::unsupported) << e.what();
          EXPECT_NE(std::string(e.what()).find("spark.bin"), std::string::npos) << e.what();
          ++refused;
        }
      }
    }
    EXPECT_GT(refused, 0u);
    EXPECT_GT(read, 0u);
  }
}

// The bytes of a header with these fields (no words).
std::vector<unsigned char> header(std::int32_t version, std::int32_t k, std::int32_t words,
                                  std::int32_t seed = 0) {
  std::vector<unsigned char> out;
  const auto put = [&](std::int32_t v) {
    for (int i = 3; i >= 0; --i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
  };
  put(version);
  put(k);
  if (version == 2) put(seed);
  put(words);
  return out;
}

TEST(SparkCodec, FieldsOutOfRangeAreNamed) {
  const auto refused = [](std::vector<unsigned char> bytes, errc code, const std::string& what) {
    bytes.resize(bytes.size() + 64, 0);  // enough words for the cases that get that far
    const std::string message = test::error_of([&] { spark::read(bytes, "in.bin"); }, code);
    EXPECT_NE(message.find(what), std::string::npos) << message;
  };
  refused(header(3, 7, 1), errc::unsupported, "version 3");
  refused(header(0, 7, 1), errc::unsupported, "version 0");
  refused(header(1, 0, 1), errc::corrupt_file, "numHashFunctions 0");
  refused(header(2, -5, 1), errc::corrupt_file, "numHashFunctions -5");
  refused(header(1, 7, 0), errc::corrupt_file, "numWords 0");
  refused(header(2, 7, -1, 9), errc::corrupt_file, "numWords -1");
  refused(header(1, 5000, 1), errc::corrupt_file, "numHashFunctions 5000");
  // More words announced than there are bytes: refused before anything is allocated for them.
  refused(header(1, 7, 0x7fffffff), errc::corrupt_file, "2147483647 words");
  auto longer = small_v2();
  longer.push_back(0);
  EXPECT_NE(test::error_of([&] { spark::read(longer, "in.bin"); }, errc::corrupt_file)
                .find("unexpected bytes"),
            std::string::npos);
}

TEST(SparkCodec, StreamReaderStopsAfterEachFilter) {
  const auto a = small_v1(), b = small_v2(77);
  std::string both(a.begin(), a.end());
  both.append(b.begin(), b.end());
  std::istringstream in(both);
  const auto first = spark::read(in, "stream");
  const auto second = spark::read(in, "stream");
  EXPECT_TRUE(spark::write(first) == a);
  EXPECT_TRUE(spark::write(second) == b);
  EXPECT_EQ(spark::seed_of(second), 77);
  EXPECT_EQ(spark::version_of(first), spark::version::v1);
}

TEST(SparkFiles, BloomkitFilesKeepTheVersionTheSeedAndTheKeyType) {
  const test::temp_dir dir;
  spark::v2_filter v2 = spark::v2_filter::for_capacity(1000, 0.01, -7);
  spark::v1_filter v1 = spark::v1_filter::for_capacity(1000, 0.01);
  std::vector<std::int64_t> keys;
  for (std::int64_t i = 0; i < 500; ++i) keys.push_back(i * 1'000'003 - 250'000'000);
  for (auto k : keys) {
    v2.insert(k);
    v1.insert(k);
  }
  save(v2, dir / "v2.bloom", key_type::int64);
  save(v1, dir / "v1.bloom");
  for (const open_mode mode : {open_mode::load, open_mode::map}) {
    const auto two = compat::open_any(dir / "v2.bloom", mode);
    ASSERT_TRUE(std::holds_alternative<spark::v2_filter>(two.filter));
    const auto& f2 = std::get<spark::v2_filter>(two.filter);
    EXPECT_EQ(two.header.scheme, hash_scheme::spark_v2);
    EXPECT_EQ(two.header.keys(), key_type::int64);
    EXPECT_EQ(two.header.kind_params[0], 0xfffffff9u);  // the seed's 32 bits
    EXPECT_EQ(f2.seed(), -7);
    EXPECT_TRUE(spark::write(f2) == spark::write(v2));
    for (auto k : keys) ASSERT_TRUE(f2.contains(k));
    const auto one = compat::open_any(dir / "v1.bloom", mode);
    ASSERT_TRUE(std::holds_alternative<spark::v1_filter>(one.filter));
    EXPECT_EQ(one.header.scheme, hash_scheme::spark_v1);
    EXPECT_EQ(one.header.keys(), key_type::string);
    EXPECT_TRUE(spark::write(std::get<spark::v1_filter>(one.filter)) == spark::write(v1));
  }
  // Files of the other kinds' readers are not taken for Spark's.
  EXPECT_EQ(test::code_of([&] { load<bloom_filter>(dir / "v2.bloom"); }), errc::unsupported);
}

TEST(SparkFiles, DamagedFilesAndForgedSeedsAreRefused) {
  const test::temp_dir dir;
  spark::v2_filter f(128, 3, 5);
  f.insert("x");
  save(f, dir / "good.bloom");
  const auto good = test::read_bytes(dir / "good.bloom");
  const auto path = dir / "bad.bloom";
  const auto readers = test::all_readers<spark::v2_filter>();
  // Flipped bytes meet the checksums of every classic file (file_test); truncations the reader.
  test::expect_every_truncation_rejected(good, path, readers);
  test::write_forged(good, path, [](file_header& h) { h.kind_params[0] = 1ull << 32; });
  test::expect_refused(path, "seed", readers);
  test::write_forged(good, path, [](file_header& h) { h.kind_params[1] = 1; });
  test::expect_refused(path, "reserved", readers);
  test::write_forged(good, path, [](file_header& h) { h.kind_params[0] = 6; });
  EXPECT_EQ(load<spark::v2_filter>(path).seed(), 6);
}

TEST(SparkFilters, MergeAndIntersectNeedTheSameBitsHashesAndSeed) {
  spark::v2_filter a(640, 3, 1), b(640, 3, 2), c(640, 4, 1), d(704, 3, 1), e(640, 3, 1);
  a.insert("one");
  e.insert("two");
  for (auto* other : {&b, &c, &d}) {
    EXPECT_EQ(test::code_of([&] { a.merge(*other); }), errc::incompatible);
    EXPECT_EQ(test::code_of([&] { a.intersect(*other); }), errc::incompatible);
  }
  a.merge(e);
  EXPECT_TRUE(a.contains("one") && a.contains("two"));
  a.intersect(e);
  EXPECT_TRUE(a.contains("two"));
}

TEST(SparkSizing, RefusesWhatCreateRefuses) {
  EXPECT_EQ(test::code_of([] { spark::optimal_params(0, 0.01); }), errc::invalid_argument);
  EXPECT_EQ(test::code_of([] { spark::optimal_params(10, 0.0); }), errc::invalid_argument);
  EXPECT_EQ(test::code_of([] { spark::optimal_params(10, 1.0); }), errc::invalid_argument);
  EXPECT_EQ(test::code_of([] { spark::params_for_bits(10, 0); }), errc::invalid_argument);
  EXPECT_EQ(test::code_of([] { spark::optimal_params(100'000'000'000'000, 0.01); }),
            errc::too_large);
  EXPECT_EQ(test::code_of([] { spark::v1_filter(100, 3); }), errc::invalid_argument);  // not *64
  // numBits rounds up to whole words; k comes from the requested numBits.
  EXPECT_EQ(spark::params_for_bits(1000, 1000), (filter_params{1024, 1}));
  EXPECT_EQ(spark::params_for_bits(1000, 9585), (filter_params{9600, 7}));
}

TEST(SparkHashing, MurmurTailIsSparksAndAlignedInputsAreTheReference) {
  std::mt19937_64 rng(7);
  std::size_t tails_differ = 0;
  for (std::size_t len = 0; len < 40; ++len) {
    std::string key(len, '\0');
    for (auto& c : key) c = static_cast<char>(rng());
    for (std::int32_t seed : {0, 42, -1}) {
      std::uint32_t reference = 0;
      lmmh_x86_32(key.data(), static_cast<unsigned>(len), static_cast<std::uint32_t>(seed),
                  &reference);
      const auto spark_hash = static_cast<std::uint32_t>(spark::murmur3_x86_32(key, seed));
      if (len % 4 == 0) {
        EXPECT_EQ(spark_hash, reference) << len;
      } else {
        tails_differ += spark_hash != reference;
      }
    }
  }
  EXPECT_GT(tails_differ, 0u);  // the tail is not the reference's
}

// V1's indexes stay below 2^31 whatever the bits (SPARK-47547); V2's reach the whole filter.
TEST(SparkProbes, V1StaysBelowTwoToThe31AndV2ReachesEveryBit) {
  const std::uint64_t bits = std::uint64_t{1} << 34;
  std::uint64_t v1_max = 0, v2_max = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto h = spark::hash_pair_of("key" + std::to_string(i), 0);
    spark::v1_sequence s1(h, bits);
    spark::v2_sequence s2(h, bits);
    for (int j = 0; j < 7; ++j) {
      v1_max = std::max(v1_max, s1.next());
      v2_max = std::max(v2_max, s2.next());
    }
  }
  EXPECT_LT(v1_max, spark::v1_reachable_bits);
  EXPECT_GT(v2_max, bits - bits / 1000);
  EXPECT_EQ(spark::v1_bits_lost(bits), bits - spark::v1_reachable_bits);
  EXPECT_EQ(spark::v1_bits_lost(spark::v1_reachable_bits), 0u);
}

}  // namespace
