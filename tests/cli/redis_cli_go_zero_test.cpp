// `bloomkit redis --layout go-zero`: go-zero core/bloom keys, checked against the bytes of
// tests/data/interop/go_zero; add, query, info, and the usage and type errors.

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "redis_cli_fixture.hpp"
#include "support/interop_vectors.hpp"

namespace {

using namespace bloomkit::redis_cli_test;

class RedisCliGoZero : public RedisCli {
 protected:
  static std::string bytes_of(const bloomkit::test::interop_vector& v) {
    const auto bytes = bloomkit::test::read_bytes(v.file);
    return {bytes.begin(), bytes.end()};
  }
  static std::string lines_of(const std::vector<std::string>& keys) {
    std::string s;
    for (const auto& k : keys) s += k + "\n";
    return s;
  }
  std::vector<bloomkit::test::interop_vector> vectors_ = [] {
    std::vector<bloomkit::test::interop_vector> out;
    for (const auto& p : bloomkit::test::vector_files("go_zero")) {
      out.push_back(bloomkit::test::read_vector(p));
    }
    return out;
  }();
};

TEST_F(RedisCliGoZero, AddWritesGoZerosBytes) {
  ASSERT_FALSE(vectors_.empty());
  for (const auto& v : vectors_) {
    SCOPED_TRACE(v.name);
    const std::string bits = std::to_string(v.bits);
    auto r = redis({"add", "users", "--layout", "go-zero", "--bits", bits}, lines_of(v.inserted));
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.out.rfind("added ", 0), 0u) << r;
    EXPECT_NE(r.out.find(" new of " + std::to_string(v.inserted.size()) + " keys\n"),
              std::string::npos)
        << r;
    EXPECT_EQ(server_->raw({"GET", "users"}).str(), bytes_of(v));
    // Again: nothing new, same bytes.
    r = redis({"--layout", "go-zero", "--bits", bits, "add", "users"}, lines_of(v.inserted));
    EXPECT_EQ(r.out, "added 0 new of " + std::to_string(v.inserted.size()) + " keys\n") << r;
    EXPECT_EQ(server_->raw({"GET", "users"}).str(), bytes_of(v));
    server_->raw({"DEL", "users"});
  }
}

TEST_F(RedisCliGoZero, QueryAndInfoOnGoZerosBytes) {
  for (const auto& v : vectors_) {
    SCOPED_TRACE(v.name);
    server_->raw({"SET", "bloom:users", bytes_of(v)});
    std::string input, expected;
    std::size_t present = 0;
    for (std::size_t i = 0; i < v.probes.size(); ++i) {
      input += v.probe_texts[i] + "\n";
      expected += (v.probes[i].second ? "1\t" : "0\t") + v.probe_texts[i] + "\n";
      present += v.probes[i].second;
    }
    const std::string bits = std::to_string(v.bits);
    auto r = redis({"query", "bloom:users", "--layout", "go-zero", "--bits", bits}, input);
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.out, expected);
    r = redis({"query", "bloom:users", "--layout", "go-zero", "--bits", bits, "--count"}, input);
    EXPECT_EQ(r.out, "present=" + std::to_string(present) +
                         " absent=" + std::to_string(v.probes.size() - present) + "\n")
        << r;
    r = redis({"info", "bloom:users", "--layout", "go-zero", "--bits", bits, "--json"});
    ASSERT_EQ(r.status, 0) << r;
    std::uint64_t set = 0;
    for (unsigned char byte : bloomkit::test::read_bytes(v.file)) set += std::popcount(byte);
    EXPECT_NE(r.out.find("\"name\": \"bloom:users\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"layout\": \"go-zero\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"bits\": " + bits + ","), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"hashes\": 14,"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"bits_set\": " + std::to_string(set) + ","), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"estimated_count\": "), std::string::npos) << r.out;
    r = redis({"info", "bloom:users", "--layout", "go-zero", "--bits", bits});
    EXPECT_NE(r.out.find("layout: go-zero\n"), std::string::npos) << r;
    EXPECT_EQ(r.err, "") << r;
  }
  // A key that does not exist answers absent to everything: info says so.
  auto r = redis({"info", "nothing", "--layout", "go-zero", "--bits", "1000"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.err.rfind("bloomkit: warning: go-zero filter key 'nothing' does not exist", 0), 0u)
      << r;
}

TEST_F(RedisCliGoZero, UsageAndTypeErrors) {
  auto r = redis({"add", "users", "--layout", "go-zero", "a"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_NE(r.err.find("--layout go-zero needs --bits M"), std::string::npos) << r;
  r = redis({"query", "users", "--bits", "1000", "a"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_NE(r.err.find("--bits applies only to --layout go-zero"), std::string::npos) << r;
  for (const char* bits : {"0", "4294967297", "x", "-1"}) {
    r = redis({"add", "users", "--layout", "go-zero", "--bits", bits, "a"});
    EXPECT_EQ(r.status, 2) << bits << r;
  }
  r = redis({"add", "users", "--layout", "redisson", "--bits", "1000", "a"});
  EXPECT_EQ(r.status, 2) << r;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"create", "users", "--capacity", "10", "--fpp", "0.1"},
           {"drop", "users"},
           {"expire", "users", "10"},
           {"pull", "users", "out.bloom"}}) {
    auto a = args;
    a.insert(a.end(), {"--layout", "go-zero", "--bits", "1000"});
    r = redis(a);
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_NE(r.err.find("--layout go-zero supports add, query and info"), std::string::npos) << r;
  }
  // create: go-zero keys are not created beforehand, whatever else the command line lacks.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--layout", "go-zero", "--bits", "1000", "create", "users"},
           {"--layout", "go-zero", "create", "users", "--capacity", "10", "--fpp", "0.1"}}) {
    r = redis(args);
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_EQ(r.err.rfind("bloomkit: error: redis create: go-zero keys are not created beforehand "
                          "(go-zero's New(store, key, bits) writes nothing; the first add creates "
                          "the key): run `bloomkit redis --layout go-zero --bits M add users`; "
                          "--layout go-zero supports add, query and info\n",
                          0),
              0u)
        << r;
  }
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 0);  // no usage error wrote anything
  server_->raw({"HSET", "users", "f", "v"});
  r = redis({"add", "users", "--layout", "go-zero", "--bits", "1000", "a"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("'users'"), std::string::npos) << r;
  EXPECT_NE(r.err.find("WRONGTYPE"), std::string::npos) << r;
}

}  // namespace
