// Guava interop against vectors written by the real Guava 31.1 (tests/data/interop/guava,
// tools/interop/guava/GuavaVectors.java): import, answers, positions, rebuild, export, sizing,
// bloomkit files, and every way a stream can be broken.

#include "bloomkit/compat/guava.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "file/header_codec.hpp"
#include "support/interop_vectors.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::interop_vector;
using test::read_bytes;

class guava_vector : public ::testing::TestWithParam<std::filesystem::path> {
 protected:
  void SetUp() override {
    v_ = test::read_vector(GetParam());
    bytes_ = read_bytes(v_.file);
  }
  bool mitz_32() const { return v_.scheme == "guava_murmur128_mitz_32"; }

  // Runs `check` on the imported filter of whichever strategy the stream holds, after checking
  // that it is the vector's.
  template <class Check>
  void with_imported(Check check) {
    guava::any_filter any = guava::read(bytes_, v_.file.string());
    ASSERT_EQ(any.index(), mitz_32() ? 0u : 1u);
    std::visit(check, any);
  }

  interop_vector v_;
  std::vector<unsigned char> bytes_;
};

TEST_P(guava_vector, ImportHasGuavasParameters) {
  with_imported([&](const auto& f) {
    EXPECT_EQ(f.bits(), v_.bits);
    EXPECT_EQ(f.hashes(), v_.hashes);
  });
}

TEST_P(guava_vector, AnswersAsMightContainDoes) {
  with_imported([&](const auto& f) {
    std::size_t positives = 0;
    for (const auto& [key, answer] : v_.probes) {
      ASSERT_EQ(f.contains(key), answer) << v_.name;
      positives += answer;
    }
    // The vectors hold keys Guava reports absent, so the check can fail both ways.
    EXPECT_LT(positives, v_.probes.size());
    std::vector<std::string_view> keys;
    for (const auto& p : v_.probes) keys.push_back(p.first);
    auto results = std::make_unique<bool[]>(keys.size());
    f.contains_many(keys, {results.get(), keys.size()});
    for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(results[i], v_.probes[i].second);
    // Long keys: contains(int64_t) hashes the 8 little-endian bytes, as longFunnel() does.
    for (std::int64_t key : v_.long_keys) ASSERT_TRUE(f.contains(key)) << key;
    EXPECT_EQ(v_.long_keys.empty(), v_.key_type == "string");
  });
}

TEST_P(guava_vector, PositionsAreGuavas) {
  ASSERT_FALSE(v_.positions.empty());
  with_imported([&](const auto& f) {
    using policy = typename std::decay_t<decltype(f)>::policy_type;
    for (const auto& [key, expected] : v_.positions) {
      auto seq = policy::probes(policy::hash(key), f.bits());
      std::set<std::uint64_t> ours;
      for (std::uint32_t i = 0; i < f.hashes(); ++i) ours.insert(seq.next());
      EXPECT_EQ(ours, std::set<std::uint64_t>(expected.begin(), expected.end()));
    }
  });
}

TEST_P(guava_vector, RebuildAndExportGiveGuavasBytes) {
  with_imported([&](const auto& imported) {
    using filter = std::decay_t<decltype(imported)>;
    EXPECT_EQ(guava::write(imported), bytes_);
    auto built = filter::for_capacity(v_.expected_insertions, v_.fpp);
    EXPECT_EQ(built.bits(), v_.bits);
    EXPECT_EQ(built.hashes(), v_.hashes);
    for (const auto& key : v_.inserted) built.insert(key);
    EXPECT_EQ(guava::write(built), bytes_);
    std::ostringstream out;
    guava::write(built, out);
    EXPECT_EQ(out.str(), std::string(bytes_.begin(), bytes_.end()));
  });
}

TEST_P(guava_vector, BloomkitFileRoundTrip) {
  test::temp_dir dir;
  const auto path = dir / "f.bloom";
  const key_type keys = v_.key_type == "long" ? key_type::int64 : key_type::string;
  with_imported([&](const auto& imported) {
    using filter = std::decay_t<decltype(imported)>;
    save(imported, path, keys);
    const file_header h = read_header(path);
    EXPECT_EQ(h.kind, filter_kind::classic);
    EXPECT_EQ(h.scheme, filter::scheme());
    EXPECT_EQ(h.keys(), keys);
    const filter loaded = load<filter>(path);
    EXPECT_TRUE(loaded == imported);
    EXPECT_EQ(guava::write(loaded), bytes_);
    const filter mapped = map<filter>(path);
    for (const auto& [key, answer] : v_.probes) ASSERT_EQ(mapped.contains(key), answer);
    // The other strategy and the native filter refuse the file.
    EXPECT_THROW(load<bloom_filter>(path), error);
  });
}

TEST_P(guava_vector, StreamReaderStopsAfterTheStream) {
  std::string data(bytes_.begin(), bytes_.end());
  std::istringstream in(data + data);
  const auto first = guava::read(in, "stream");
  const auto second = guava::read(in, "stream");
  EXPECT_EQ(first.index(), second.index());
  EXPECT_EQ(in.peek(), std::char_traits<char>::eof());
}

INSTANTIATE_TEST_SUITE_P(vectors, guava_vector, ::testing::ValuesIn(test::vector_files("guava")),
                         [](const auto& info) { return test::test_name(info.param); });

TEST(guava_sizing, MatchesGuavasOptimalNumOfBitsAndHashFunctions) {
  const auto rows = test::read_sizing(test::interop_data() / "guava" / "guava_sizing.txt");
  ASSERT_GT(rows.size(), 100u);
  std::size_t checked = 0;
  for (const auto& r : rows) {
    const std::uint64_t words = (r.bits + 63) / 64;
    if (words > guava::max_words || r.hashes > guava::max_hashes) {
      // Guava's create() fails on these (Ints.checkedCast); so do we, clearly.
      EXPECT_THROW(guava::optimal_params(r.n, r.p), error) << r.n << " " << r.p;
      continue;
    }
    const filter_params params = guava::optimal_params(r.n, r.p);
    EXPECT_EQ(params.bits, words * 64) << r.n << " " << r.p;
    EXPECT_EQ(params.hashes, r.hashes) << r.n << " " << r.p;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
  // create(funnel, 0, p) sizes for one key.
  EXPECT_EQ(guava::optimal_params(0, 0.01), guava::optimal_params(1, 0.01));
}

TEST(guava_sizing, RefusesWhatGuavaRefuses) {
  EXPECT_THROW(guava::optimal_params(1, 0.0), error);
  EXPECT_THROW(guava::optimal_params(1, 1.0), error);
  EXPECT_THROW(guava::optimal_params(1, 0.999), error);   // 0 bits
  EXPECT_THROW(guava::mitz_64_filter(1000, 3), error);    // not whole words
  EXPECT_THROW(guava::mitz_64_filter(1024, 256), error);  // k in one unsigned byte
}

// --- broken streams ------------------------------------------------------------------------

std::vector<unsigned char> small_stream() {
  return read_bytes(test::interop_data() / "guava" / "guava_mitz64_string_n100_p0.03.bin");
}

errc read_error(const std::vector<unsigned char>& bytes, std::string* message = nullptr) {
  try {
    guava::read(bytes, "input.guava");
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("input.guava"), std::string::npos) << e.what();
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return errc{};
}

TEST(guava_stream, EveryTruncationIsCorrupt) {
  const auto bytes = small_stream();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + n);
    std::string message;
    EXPECT_EQ(read_error(cut, &message), errc::corrupt_file) << n;
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
    std::istringstream in(std::string(cut.begin(), cut.end()));
    EXPECT_THROW(guava::read(in, "input.guava"), error);
  }
}

TEST(guava_stream, TrailingBytesAreCorrupt) {
  auto bytes = small_stream();
  bytes.push_back(0);
  EXPECT_EQ(read_error(bytes), errc::corrupt_file);
}

TEST(guava_stream, UnknownStrategyIsUnsupported) {
  auto bytes = small_stream();
  for (unsigned char ordinal : {2, 3, 0x7f, 0xff}) {
    bytes[0] = ordinal;
    std::string message;
    EXPECT_EQ(read_error(bytes, &message), errc::unsupported);
    EXPECT_NE(message.find("strategy ordinal"), std::string::npos) << message;
  }
}

TEST(guava_stream, InconsistentFieldsAreCorrupt) {
  auto zero_k = small_stream();
  zero_k[1] = 0;
  EXPECT_EQ(read_error(zero_k), errc::corrupt_file);
  for (std::uint32_t words : {0u, 0x80000000u, 0xffffffffu}) {
    auto bytes = small_stream();
    for (int i = 0; i < 4; ++i) bytes[2 + i] = static_cast<unsigned char>(words >> (24 - 8 * i));
    EXPECT_EQ(read_error(bytes), errc::corrupt_file) << words;
  }
  // A word count larger than the data: truncated, without allocating for it.
  auto big = small_stream();
  big[2] = 0x7f;
  EXPECT_EQ(read_error(big), errc::corrupt_file);
}

TEST(guava_file, OutOfRangeParametersInABloomkitFileAreCorrupt) {
  // A file whose header says guava-murmur128-mitz-64 with bits not a multiple of 64.
  test::temp_dir dir;
  const auto path = dir / "bad.bloom";
  save(bloom_filter(1000, 7), path);
  auto bytes = read_bytes(path);
  file_header h = read_header(path);
  h.scheme = hash_scheme::guava_murmur128_mitz_64;
  const auto header = encode_header(h);
  std::copy(header.begin(), header.end(), bytes.begin());
  test::write_bytes(path, bytes);
  try {
    load<guava::mitz_64_filter>(path);
    ADD_FAILURE() << "loaded";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::corrupt_file);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST(guava_filter, Mitz32OnlyReachesTheFirst2To31Bits) {
  // A property of Guava's MITZ_32 kept on purpose: probes come from a non-negative Java int.
  const std::uint64_t bits = std::uint64_t{1} << 32;
  for (int i = 0; i < 2000; ++i) {
    auto seq = guava::mitz_32_policy::probes(guava::mitz_32_policy::hash(std::to_string(i)), bits);
    for (int j = 0; j < 5; ++j) ASSERT_LT(seq.next(), std::uint64_t{1} << 31);
  }
}

}  // namespace
}  // namespace bloomkit
