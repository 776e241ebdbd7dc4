// bits-and-blooms/bloom v3 interop against vectors written by the real library (v3.3.1,
// tests/data/interop/bits_and_blooms, tools/interop/bits_and_blooms/vectors.go): WriteTo and
// MarshalJSON import and export, answers, locations, rebuild, sizing, broken input.

#include "bloomkit/compat/bits_and_blooms.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "support/interop_vectors.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

namespace bnb = bits_and_blooms;
using test::read_bytes;

std::string read_text(const std::filesystem::path& p) {
  const auto bytes = read_bytes(p);
  return {bytes.begin(), bytes.end()};
}

class bnb_vector : public ::testing::TestWithParam<std::filesystem::path> {
 protected:
  void SetUp() override {
    v_ = test::read_vector(GetParam());
    bytes_ = read_bytes(v_.file);
    json_ = read_text(v_.json);
  }
  void expect_answers(const bnb::filter& f) const {
    for (const auto& [key, answer] : v_.probes) ASSERT_EQ(f.contains(key), answer) << v_.name;
  }
  test::interop_vector v_;
  std::vector<unsigned char> bytes_;
  std::string json_;
};

TEST_P(bnb_vector, ImportsWriteToAndJsonWithItsParametersAndAnswers) {
  const bnb::filter binary = bnb::read(bytes_, v_.file.string());
  const bnb::filter json = bnb::read_json(json_, v_.json.string());
  for (const auto* f : {&binary, &json}) {
    EXPECT_EQ(f->bits(), v_.bits);
    EXPECT_EQ(f->hashes(), v_.hashes);
    expect_answers(*f);
  }
  EXPECT_TRUE(binary == json);
  // Unless the filter is saturated, some probes must be absent, so the check can fail both ways.
  if (binary.fill_ratio() < 1) {
    std::size_t positives = 0;
    for (const auto& p : v_.probes) positives += p.second;
    EXPECT_LT(positives, v_.probes.size());
  }
}

TEST_P(bnb_vector, LocationsAreGos) {
  ASSERT_FALSE(v_.positions.empty());
  for (const auto& [key, expected] : v_.positions) {
    ASSERT_EQ(expected.size(), v_.hashes);
    const bnb::digest h = bnb::sum256(key);
    auto seq = bnb::policy::probes(h, v_.bits);
    for (std::uint32_t i = 0; i < v_.hashes; ++i) {
      EXPECT_EQ(bnb::location(h, i), expected[i]) << i;
      EXPECT_EQ(seq.next(), expected[i] % v_.bits) << i;
    }
  }
}

TEST_P(bnb_vector, RebuildAndExportGiveGosBytes) {
  auto built = bnb::filter::for_capacity(v_.expected_insertions, v_.fpp);
  EXPECT_EQ(built.bits(), v_.bits);
  EXPECT_EQ(built.hashes(), v_.hashes);
  for (const auto& key : v_.inserted) built.insert(key);
  EXPECT_EQ(bnb::write(built), bytes_);
  EXPECT_EQ(bnb::write_json(built), json_);
  const bnb::filter imported = bnb::read(bytes_, v_.file.string());
  EXPECT_EQ(bnb::write(imported), bytes_);
  EXPECT_EQ(bnb::write_json(imported), json_);
  std::ostringstream out;
  bnb::write(imported, out);
  EXPECT_EQ(out.str(), std::string(bytes_.begin(), bytes_.end()));
  std::ostringstream json_out;
  bnb::write_json(imported, json_out);
  EXPECT_EQ(json_out.str(), json_);
}

TEST_P(bnb_vector, BloomkitFileRoundTrip) {
  test::temp_dir dir;
  const auto path = dir / "f.bloom";
  const bnb::filter imported = bnb::read(bytes_, v_.file.string());
  save(imported, path);
  EXPECT_EQ(read_header(path).scheme, hash_scheme::bits_and_blooms_v3);
  const auto loaded = load<bnb::filter>(path);
  EXPECT_TRUE(loaded == imported);
  EXPECT_EQ(bnb::write(loaded), bytes_);
  expect_answers(map<bnb::filter>(path));
}

TEST_P(bnb_vector, StreamReaderStopsAfterTheStream) {
  std::istringstream in(std::string(bytes_.begin(), bytes_.end()) + "rest");
  EXPECT_TRUE(bnb::read(in, "stream") == bnb::read(bytes_, "bytes"));
  std::string rest;
  in >> rest;
  EXPECT_EQ(rest, "rest");
  std::istringstream json_in(json_);
  EXPECT_TRUE(bnb::read_json(json_in, "json") == bnb::read(bytes_, "bytes"));
}

INSTANTIATE_TEST_SUITE_P(vectors, bnb_vector,
                         ::testing::ValuesIn(test::vector_files("bits_and_blooms")),
                         [](const auto& info) { return test::test_name(info.param); });

TEST(bnb_sizing, MatchesEstimateParameters) {
  const auto rows = test::read_sizing(test::interop_data() / "bits_and_blooms" / "bnb_sizing.txt");
  ASSERT_GT(rows.size(), 100u);
  for (const auto& r : rows) {
    const filter_params params = bnb::optimal_params(r.n, r.p);
    EXPECT_EQ(params.bits, std::max<std::uint64_t>(1, r.bits)) << r.n << " " << r.p;
    EXPECT_EQ(params.hashes, std::max<std::uint32_t>(1, r.hashes)) << r.n << " " << r.p;
  }
  EXPECT_THROW(bnb::optimal_params(0, 0.01), error);
}

// --- broken input ----------------------------------------------------------------------

std::vector<unsigned char> small_bits_and_blooms_stream() {
  return read_bytes(test::interop_data() / "bits_and_blooms" / "bnb_n100_p0.03.bin");
}

template <class Read>
errc read_error(Read read, std::string* message = nullptr) {
  try {
    read();
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("input"), std::string::npos) << e.what();
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return errc{};
}

errc binary_error(const std::vector<unsigned char>& bytes, std::string* message = nullptr) {
  return read_error([&] { bnb::read(bytes, "input.bin"); }, message);
}

errc json_error(const std::string& text, std::string* message = nullptr) {
  return read_error([&] { bnb::read_json(text, "input.json"); }, message);
}

void put_u64(std::vector<unsigned char>& bytes, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<unsigned char>(v >> (56 - 8 * i));
}

TEST(bnb_stream, EveryTruncationIsCorrupt) {
  const auto bytes = small_bits_and_blooms_stream();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::string message;
    EXPECT_EQ(binary_error({bytes.begin(), bytes.begin() + n}, &message), errc::corrupt_file);
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  }
  auto longer = bytes;
  longer.push_back(1);
  EXPECT_EQ(binary_error(longer), errc::corrupt_file);
}

TEST(bnb_stream, InconsistentFieldsAreRefused) {
  auto zero_m = small_bits_and_blooms_stream();
  put_u64(zero_m, 0, 0);
  EXPECT_EQ(binary_error(zero_m), errc::corrupt_file);
  auto zero_k = small_bits_and_blooms_stream();
  put_u64(zero_k, 8, 0);
  EXPECT_EQ(binary_error(zero_k), errc::corrupt_file);
  auto huge_k = small_bits_and_blooms_stream();
  put_u64(huge_k, 8, std::uint64_t{1} << 40);
  EXPECT_EQ(binary_error(huge_k), errc::corrupt_file);
  auto huge_m = small_bits_and_blooms_stream();
  put_u64(huge_m, 0, ~std::uint64_t{0});
  EXPECT_EQ(binary_error(huge_m), errc::corrupt_file);
  // A bitset of another word count than m's (FromWithM over a longer slice).
  auto other_length = small_bits_and_blooms_stream();
  put_u64(other_length, 16, 64 * 100);
  std::string message;
  EXPECT_EQ(binary_error(other_length, &message), errc::unsupported);
  EXPECT_NE(message.find("bitset"), std::string::npos) << message;
  // A bit past m in the last word (m = 730: bits 730..767 of word 11 must be 0; its most
  // significant byte comes first).
  auto past_m = small_bits_and_blooms_stream();
  past_m[24 + 11 * 8] |= 0x80;
  EXPECT_EQ(binary_error(past_m), errc::corrupt_file);
}

TEST(bnb_json, AcceptsWhitespaceAnyOrderAndTheStandardAlphabet) {
  const auto bytes = small_bits_and_blooms_stream();
  const bnb::filter expected = bnb::read(bytes, "bin");
  std::string json = bnb::write_json(expected);
  const std::size_t b = json.find("\"b\":\"");
  std::string b64 = json.substr(b + 5, json.size() - b - 7);
  std::string std_b64 = b64;
  for (char& c : std_b64) c = c == '-' ? '+' : c == '_' ? '/' : c;
  const std::string reordered = " {\n \"b\" : \"" + std_b64 + "\",\t\"k\": 6 ,\"m\":730 }\n";
  EXPECT_TRUE(bnb::read_json(reordered, "input.json") == expected);
}

TEST(bnb_json, BrokenJsonIsCorruptAndNamed) {
  const std::string good = bnb::write_json(bnb::read(small_bits_and_blooms_stream(), "bin"));
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_EQ(json_error(good.substr(0, n)), errc::corrupt_file) << n;
  }
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_EQ(json_error(with("\"m\":730", "\"m\":-730")), errc::corrupt_file);
  EXPECT_EQ(json_error(with("\"m\":730", "\"m\":99999999999999999999999")), errc::corrupt_file);
  EXPECT_EQ(json_error(with("\"m\":730", "\"m\":0730")), errc::corrupt_file);
  EXPECT_EQ(json_error(with("\"m\":730", "\"m\":800")), errc::unsupported);  // bitset words
  EXPECT_EQ(json_error(with("\"m\":730", "\"x\":730")), errc::corrupt_file);
  EXPECT_EQ(json_error(with("\"k\":6", "\"m\":6")), errc::corrupt_file);  // duplicate
  EXPECT_EQ(json_error(with("\"b\":\"", "\"b\":\"!")), errc::corrupt_file);
  EXPECT_EQ(json_error(with("\"b\":\"", "\"b\":\"\\u0041")), errc::corrupt_file);
  EXPECT_EQ(json_error(good + "x"), errc::corrupt_file);
  std::string message;
  EXPECT_EQ(json_error(with(",\"k\":6", ""), &message), errc::corrupt_file);
  EXPECT_NE(message.find("missing field \"k\""), std::string::npos) << message;
}

}  // namespace
}  // namespace bloomkit
