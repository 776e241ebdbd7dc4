// End-to-end tests of the peers' Redis layouts in the CLI (docs/CLI.md, "Peer keys"): `bloomkit
// redis --layout guava-helper|go-zero ... add|query|info` against a real redis-server and the
// vectors the peers' own code wrote (tests/data/interop/guava_helper, go_zero_new_filter), and
// `bloomkit size --layout` against the peers' sizing tables.

#include <bit>
#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "cli_with_redis.hpp"
#include "support/interop_vectors.hpp"

namespace {

using bloomkit::cli_test::parse_lines;
using bloomkit::cli_test::result;
using bloomkit::test::interop_vector;

std::vector<interop_vector> vectors(const char* peer) {
  std::vector<interop_vector> out;
  for (const auto& p : bloomkit::test::vector_files(peer)) {
    out.push_back(bloomkit::test::read_vector(p));
  }
  return out;
}

std::string bytes_of(const interop_vector& v) {
  const auto bytes = bloomkit::test::read_bytes(v.file);
  return {bytes.begin(), bytes.end()};
}

// The vector's inserted keys as the CLI reads them: text lines, or decimals for long keys.
std::string insert_lines(const interop_vector& v) {
  std::string s;
  if (v.key_type == "long") {
    for (const auto k : v.long_keys) s += std::to_string(k) + "\n";
  } else {
    for (const auto& k : v.inserted) s += k + "\n";
  }
  return s;
}

// The shortest text that reads back as d.
std::string shortest(double d) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, d).ptr;
  return {buffer, end};
}

// --layout and the peer's parameters for a vector.
std::vector<std::string> layout_of(const interop_vector& v) {
  std::vector<std::string> a = {"--bits", std::to_string(v.bits), "--hashes",
                                std::to_string(v.hashes)};
  if (v.scheme == "guava_helper") {
    a.insert(a.begin(), {"--layout", "guava-helper", "--funnel", v.funnel});
  } else {
    a.insert(a.begin(), {"--layout", "go-zero"});
  }
  return a;
}

class RedisCliPeerLayouts : public bloomkit::cli_test::CliWithRedis {};

TEST_F(RedisCliPeerLayouts, AddSetsThePeersBits) {
  for (const char* peer : {"guava_helper", "go_zero_new_filter"}) {
    for (const auto& v : vectors(peer)) {
      SCOPED_TRACE(v.name);
      auto args = layout_of(v);
      args.insert(args.end(), {"add", "users"});
      auto r = redis(args, insert_lines(v));
      ASSERT_EQ(r.status, 0) << r;
      EXPECT_EQ(r.out.rfind("added ", 0), 0u) << r;
      EXPECT_EQ(server_->raw({"GET", "users"}).str(), bytes_of(v));
      r = redis(args, insert_lines(v));
      EXPECT_EQ(r.out, "added 0 new of " + std::to_string(v.inserted.size()) + " keys\n") << r;
      server_->raw({"DEL", "users"});
    }
  }
}

// On the peer's own string: query answers as the peer did, info counts its bits.
TEST_F(RedisCliPeerLayouts, QueryAndInfoOnThePeersString) {
  for (const char* peer : {"guava_helper", "go_zero_new_filter"}) {
    for (const auto& v : vectors(peer)) {
      SCOPED_TRACE(v.name);
      server_->raw({"SET", "peer:users", bytes_of(v)});
      std::string input, expected;
      for (std::size_t i = 0; i < v.probes.size(); ++i) {
        input += v.probe_texts[i] + "\n";
        expected += (v.probes[i].second ? "1\t" : "0\t") + v.probe_texts[i] + "\n";
      }
      auto args = layout_of(v);
      args.insert(args.end(), {"query", "peer:users"});
      auto r = redis(args, input);
      ASSERT_EQ(r.status, 0) << r;
      EXPECT_EQ(r.out, expected);
      args.resize(args.size() - 2);
      args.insert(args.end(), {"info", "peer:users"});
      r = redis(args);
      ASSERT_EQ(r.status, 0) << r;
      EXPECT_EQ(r.err, "") << r;
      std::uint64_t set = 0;
      for (const unsigned char byte : bytes_of(v)) set += std::popcount(byte);
      auto fields = parse_lines(r.out);
      EXPECT_EQ(fields["layout"], v.scheme == "guava_helper" ? "guava-helper" : "go-zero");
      EXPECT_EQ(fields["bits"], std::to_string(v.bits));
      EXPECT_EQ(fields["hashes"], std::to_string(v.hashes));
      EXPECT_EQ(fields["bits_set"], std::to_string(set));
      EXPECT_DOUBLE_EQ(std::stod(fields["fill_ratio"]),
                       static_cast<double>(set) / static_cast<double>(v.bits));
      EXPECT_DOUBLE_EQ(std::stod(fields["estimated_count"]),
                       bloomkit::estimate_count(v.bits, v.hashes, set));
    }
  }
}

TEST_F(RedisCliPeerLayouts, UsageErrors) {
  const auto usage = [&](const std::vector<std::string>& args, const std::string& message) {
    const result r = redis(args);
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_NE(r.err.find(message), std::string::npos) << r;
  };
  usage({"--layout", "guava-helper", "--bits", "100", "add", "u", "a"},
        "redis add: --layout guava-helper needs --bits M and --hashes K");
  usage({"--layout", "guava-helper", "--hashes", "3", "query", "u", "a"},
        "redis query: --layout guava-helper needs --bits M and --hashes K");
  usage({"--layout", "guava-helper", "--bits", "2147483648", "--hashes", "3", "add", "u", "a"},
        "--layout guava-helper takes --bits 1 to 2147483647");
  usage({"--hashes", "3", "query", "u", "a"},
        "redis query: --hashes applies only to --layout go-zero or guava-helper");
  usage({"--funnel", "long", "query", "u", "a"},
        "redis query: --funnel applies only to --layout guava-helper");
  usage({"--layout", "go-zero", "--bits", "100", "--funnel", "string", "add", "u", "a"},
        "redis add: --funnel applies only to --layout guava-helper");
  usage({"--layout", "guava-helper", "--bits", "100", "--hashes", "3", "--funnel", "int", "add",
         "u", "a"},
        "--funnel");
  usage({"--layout", "go-zero", "--bits", "100", "--hashes", "0", "add", "u", "a"}, "--hashes");
  usage({"--layout", "go-zero", "--bits", "100", "--hashes", "256", "add", "u", "a"}, "--hashes");
  usage({"--layout", "guava-helper", "--bits", "100", "--hashes", "3", "drop", "u"},
        "redis drop works on bloomkit's own filters only; --layout guava-helper supports add, "
        "query and info");
  usage({"--layout", "guava-helper", "--bits", "100", "--hashes", "3", "create", "u"},
        "redis create: guava-helper keys are not created beforehand");
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 0);  // no usage error wrote anything
  // A key that is not a long with --funnel long: exit 1 naming it, nothing written.
  const result r = redis({"--layout", "guava-helper", "--bits", "100", "--hashes", "3", "--funnel",
                          "long", "add", "u", "12", "x1"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("key 'x1' is not a signed 64-bit decimal integer"), std::string::npos) << r;
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 0);
}

class SizePeerLayouts : public bloomkit::cli_test::Cli {};

TEST_F(SizePeerLayouts, PrintsWhatThePeerWouldChoose) {
  for (const auto& [layout, table] :
       {std::pair{"guava-helper", "guava_helper/guava_helper_sizing.txt"},
        std::pair{"go-zero", "go_zero_new_filter/go_zero_new_filter_sizing.txt"}}) {
    const auto rows = bloomkit::test::read_sizing(bloomkit::test::interop_data() / table);
    // A sample of the table (each run starts the tool): every 10th row.
    for (std::size_t i = 0; i < rows.size(); i += 10) {
      const auto& row = rows[i];
      const result r = run({"size", "--layout", layout, "--capacity", std::to_string(row.n),
                            "--fpp", shortest(row.p)});
      ASSERT_EQ(r.status, 0) << r;
      auto fields = parse_lines(r.out);
      EXPECT_EQ(fields["layout"], layout);
      EXPECT_EQ(fields["bits"], std::to_string(row.bits)) << row.n << " " << row.p;
      EXPECT_EQ(fields["hashes"], std::to_string(row.hashes)) << row.n << " " << row.p;
      EXPECT_EQ(fields["bytes"], std::to_string((row.bits + 7) / 8));
    }
  }
  const result r = run({"size", "--layout", "guava-helper", "--capacity", "1e6", "--fpp", "0.01"});
  EXPECT_EQ(r.out,
            "capacity: 1000000\nfpp: 0.01\nlayout: guava-helper\nbits: 9585058\nbytes: "
            "1198133\nhashes: 7\n");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"size", "--layout", "go-zero", "--kind", "blocked", "--capacity", "10", "--fpp", "0.1"},
           {"size", "--layout", "redisson", "--capacity", "10", "--fpp", "0.1"},
           {"size", "--layout", "guava-helper", "--capacity", "1", "--fpp", "0.999"},
           {"size", "--layout", "guava-helper", "--capacity", "3e9", "--fpp", "0.01"}}) {
    const result e = run(args);
    EXPECT_EQ(e.status, 2) << e;
  }
}

}  // namespace
