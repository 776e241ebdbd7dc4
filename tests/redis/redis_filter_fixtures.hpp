#pragma once
// What the redis_filter tests share: their names (using-declarations), snapshots and key listings
// of a server, batch inserts and lookups, the shard a key lands in, and the RedisFilterSingle
// fixture (one server per suite, emptied before every test).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "support/errors.hpp"
#include "support/keys.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"

namespace bloomkit::redis_filter_test {

using namespace std::chrono_literals;
using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::redis_filter;
using bloomkit::test::error_of;
using bloomkit::test::make_keys;
using bloomkit::test::redis_server;
using bloomkit::test::single_server_client_test;
using bloomkit::test::views;

// Every key of the server with its DUMP: equal snapshots mean nothing was written.
using snapshot = std::map<std::string, std::string>;
inline snapshot take_snapshot(const redis_server& s) {
  snapshot out;
  const auto keys = s.raw({"KEYS", "*"});  // a named reply: elements() refers into it
  for (const auto& k : keys.elements()) {
    out[k.str()] = s.raw({"DUMP", k.str()}).str();
  }
  return out;
}

inline std::set<std::string> keys_of(const redis_server& s, const std::string& pattern) {
  std::set<std::string> out;
  const auto keys = s.raw({"KEYS", pattern});
  for (const auto& k : keys.elements()) out.insert(k.str());
  return out;
}

// Inserts keys in batches of 1000; returns the number of new ones.
inline std::size_t insert_all(redis_filter& f, const std::vector<std::string>& keys) {
  const auto v = views(keys);
  std::size_t fresh = 0;
  for (std::size_t i = 0; i < v.size(); i += 1000) {
    fresh += f.insert_many(std::span(v).subspan(i, std::min<std::size_t>(1000, v.size() - i)));
  }
  return fresh;
}

inline std::size_t count_present(redis_filter& f, const std::vector<std::string>& keys) {
  const auto v = views(keys);
  std::vector<char> buffer(v.size());
  auto* results = reinterpret_cast<bool*>(buffer.data());
  return f.contains_many(v, {results, v.size()});
}

inline constexpr auto npos = std::string::npos;

// The key of the shard `key` lands in.
inline std::string shard_of(const redis_filter& f, std::string_view key,
                            std::uint64_t generation = 1) {
  return f.name() + ":" + std::to_string(generation) + ":" +
         std::to_string(f.layout().shard_of(bloomkit::xxh3_128(key)));
}

// The first of `keys` whose shard is not `shard`.
inline std::string key_outside(const redis_filter& f, const std::vector<std::string>& keys,
                               const std::string& shard) {
  for (const auto& k : keys) {
    if (shard_of(f, k) != shard) return k;
  }
  ADD_FAILURE() << "every key is in " << shard;
  return {};
}

class RedisFilterSingle : public single_server_client_test {};

}  // namespace bloomkit::redis_filter_test
