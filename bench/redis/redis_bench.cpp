// bloomkit_redis_bench: keys per second and redis-server CPU per key of three ways to keep a
// Bloom filter in Redis, on the same server(s) and the same keys (bench/bench_keys.hpp):
//
//   bloomkit  redis_filter::insert_many / contains_many, batches of 1000 keys: BITFIELD (_RO)
//             commands of several keys each, pipelined, node-parallel on a cluster; k from p.
//   gozero    go-zero's core/bloom pattern: one EVALSHA per key (a round trip each) of a Lua
//             script that runs 14 SETBIT (insert) or GETBIT (lookup, stops at the first 0);
//             positions computed client-side as go-zero does: murmur3 Sum64 (the first 64 bits
//             of MurmurHash3 x64_128, seed 0) of key ++ byte(i), i = 0..13, modulo the bits.
//   perbit    the naive client: one SETBIT / GETBIT round trip per bit (the same 14 positions;
//             lookups stop at the first 0).
//   single    redis_filter::insert / contains, one key per call (one round trip each): what a
//             service pays per request. Not in the default --methods.
//   counting  bloomkit's counting filter (redis_counting_filter: 4-bit counters, OVERFLOW SAT
//             INCRBY u4 / GET u4) through the same batches as `bloomkit`, on the same keys (the
//             bloomkit key count), and its remove_many (one EVAL per key). Not in the default
//             --methods.
//
// Every method gets a filter of the same m bits (sized for --capacity keys at --fpp), fully
// preallocated before timing. Server CPU is used_cpu_sys + used_cpu_user (INFO CPU) summed over
// every master, before and after. Output: one JSON object per line and measurement; bench/redis/
// run starts the servers, runs rounds and summarises medians.
//
//   bloomkit_redis_bench --url redis[s]://127.0.0.1:6379 [--tls-ca FILE] [--rounds 3]
//   [--keys-bloomkit 200000]
//                        [--keys-gozero 20000] [--keys-perbit 2000] [--capacity 1e8] [--fpp 0.01]
//                        [--methods bloomkit,gozero,perbit,single,counting] [--label single]
//                        [--keys-single 20000]
//                        [--keys-per-command 64]

#include <murmurhash.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/counting_filter.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "redis_measure.hpp"

namespace {

using namespace bloomkit;
using bench::insert_all;
using bench::measure;
using bench::measurement;
using redis::command;

constexpr std::size_t batch = 1000;
constexpr int gozero_hashes = 14;

// go-zero's scripts, in our words: set every offset in ARGV; test them, false at the first 0.
constexpr const char* gozero_set_script =
    "for _, offset in ipairs(ARGV) do redis.call('setbit', KEYS[1], offset, 1) end";
constexpr const char* gozero_test_script =
    "for _, offset in ipairs(ARGV) do "
    "if tonumber(redis.call('getbit', KEYS[1], offset)) == 0 then return false end end "
    "return true";

struct options {
  std::string url = "redis://127.0.0.1:6379";
  std::string tls_ca;  // --tls-ca: for rediss:// URLs (TLS rows beside the plaintext ones)
  int rounds = 3;
  std::size_t keys_bloomkit = 200000;
  std::size_t keys_gozero = 20000;
  std::size_t keys_perbit = 2000;
  std::size_t keys_single = 20000;
  std::uint64_t capacity = 100000000;
  double fpp = 0.01;
  std::string label = "single";
  std::string methods = "bloomkit,gozero,perbit";
  std::size_t keys_per_command = redis::filter_options{}.keys_per_command;
};

// go-zero's positions: Sum64(key ++ byte(i)) % bits.
void gozero_offsets(std::string_view key, std::uint64_t bits, std::vector<std::string>& out) {
  std::string buf(key);
  buf.push_back('\0');
  out.clear();
  for (int i = 0; i < gozero_hashes; ++i) {
    buf.back() = static_cast<char>(i);
    std::uint64_t h[2];
    lmmh_x64_128(buf.data(), static_cast<unsigned>(buf.size()), 0, h);
    out.push_back(std::to_string(h[0] % bits));
  }
}

void report(const options& o, const char* method, const char* op, int round, std::size_t keys,
            const measurement& m) {
  std::printf(
      "{\"topology\": \"%s\", \"method\": \"%s\", \"op\": \"%s\", \"round\": %d, \"keys\": %zu, "
      "\"seconds\": %.6f, \"server_cpu_seconds\": %.6f, \"keys_per_second\": %.1f, "
      "\"cpu_seconds_per_million_keys\": %.4f, \"client_cpu_seconds_per_million_keys\": %.4f, "
      "\"positive\": %zu}\n",
      o.label.c_str(), method, op, round, keys, m.seconds, m.cpu, keys / m.seconds,
      m.cpu / keys * 1e6, m.client_cpu / keys * 1e6, m.positive);
  std::fflush(stdout);
}

// `bloomkit` (bit filter) or `counting` (counting filter): the same batches.
void run_bloomkit(redis::client& c, const options& o, int round, const bench::key_set& keys,
                  const char* method = "bloomkit") {
  const std::string name = std::string("bench:") + method + ":" + std::to_string(round);
  redis::filter_options fo;
  fo.keys_per_command = o.keys_per_command;
  const auto shard_bits = redis::default_shard_bits_log2;
  redis::redis_filter f =
      std::string_view(method) == "counting"
          ? redis::redis_counting_filter::create(c, name, o.capacity, o.fpp, shard_bits, fo)
          : redis::redis_filter::create(c, name, o.capacity, o.fpp, shard_bits, fo);
  const auto all = keys.keys();
  const auto ins = measure(c, [&] { return insert_all(f, all, batch); });
  report(o, method, "insert", round, all.size(), ins);
  const auto look = measure(c, [&] {
    std::size_t present = 0;
    bool results[batch];
    for (std::size_t i = 0; i < all.size(); i += batch) {
      const std::size_t n = std::min(batch, all.size() - i);
      present += f.contains_many(all.subspan(i, n), {results, n});
    }
    return present;
  });
  report(o, method, "contains", round, all.size(), look);
  if (std::string_view(method) == "counting") {
    // Removes: one EVAL of the remove script per key, pipelined in the same batches.
    redis::redis_counting_filter counting = redis::redis_counting_filter::open(c, name, fo);
    const auto rm = measure(c, [&] {
      std::size_t removed = 0;
      for (std::size_t i = 0; i < all.size(); i += batch) {
        removed += counting.remove_many(all.subspan(i, std::min(batch, all.size() - i)));
      }
      return removed;
    });
    report(o, method, "remove", round, all.size(), rm);
  }
  f.drop();
}

void run_single(redis::client& c, const options& o, int round, const bench::key_set& keys) {
  const std::string name = "bench:single:" + std::to_string(round);
  auto f = redis::redis_filter::create(c, name, o.capacity, o.fpp);
  const auto all = keys.keys();
  const auto ins = measure(c, [&] {
    std::size_t fresh = 0;
    for (auto k : all) fresh += f.insert(k);
    return fresh;
  });
  report(o, "single", "insert", round, all.size(), ins);
  const auto look = measure(c, [&] {
    std::size_t present = 0;
    for (auto k : all) present += f.contains(k);
    return present;
  });
  report(o, "single", "contains", round, all.size(), look);
  f.drop();
}

// A plain string of `bits` bits, preallocated like the filter's shards (not timed).
std::string make_plain_key(redis::client& c, const std::string& name, std::uint64_t bits) {
  c.execute(command{{"UNLINK", name}});
  c.execute(command{{"SETRANGE", name, std::to_string((bits + 7) / 8 - 1), std::string(1, '\0')}});
  return name;
}

void run_gozero(redis::client& c, const options& o, int round, const bench::key_set& keys,
                std::uint64_t bits) {
  const std::string key = make_plain_key(c, "bench:gozero:" + std::to_string(round), bits);
  std::string set_sha, test_sha;
  for (const auto& r : c.execute_on_masters(command{{"SCRIPT", "LOAD", gozero_set_script}, 0})) {
    set_sha = r.str();
  }
  for (const auto& r : c.execute_on_masters(command{{"SCRIPT", "LOAD", gozero_test_script}, 0})) {
    test_sha = r.str();
  }
  std::vector<std::string> offsets;
  auto call = [&](const std::string& sha, std::string_view k) {
    gozero_offsets(k, bits, offsets);
    command cmd{{"EVALSHA", sha, "1", key}, 3};
    cmd.args.insert(cmd.args.end(), offsets.begin(), offsets.end());
    return c.execute(cmd);
  };
  const auto all = keys.keys();
  const auto ins = measure(c, [&] {
    for (auto k : all) call(set_sha, k);
    return all.size();  // go-zero's Add does not say whether the key was new
  });
  report(o, "gozero", "insert", round, all.size(), ins);
  const auto look = measure(c, [&] {
    std::size_t present = 0;
    for (auto k : all) present += call(test_sha, k).integer() == 1;
    return present;
  });
  report(o, "gozero", "contains", round, all.size(), look);
  c.execute(command{{"UNLINK", key}});
}

void run_perbit(redis::client& c, const options& o, int round, const bench::key_set& keys,
                std::uint64_t bits) {
  const std::string key = make_plain_key(c, "bench:perbit:" + std::to_string(round), bits);
  std::vector<std::string> offsets;
  const auto all = keys.keys();
  const auto ins = measure(c, [&] {
    std::size_t fresh = 0;
    for (auto k : all) {
      gozero_offsets(k, bits, offsets);
      bool changed = false;
      for (const auto& off : offsets) {
        changed |= c.execute(command{{"SETBIT", key, off, "1"}}).integer() == 0;
      }
      fresh += changed;
    }
    return fresh;
  });
  report(o, "perbit", "insert", round, all.size(), ins);
  const auto look = measure(c, [&] {
    std::size_t present = 0;
    for (auto k : all) {
      gozero_offsets(k, bits, offsets);
      bool all_set = true;
      for (const auto& off : offsets) {
        if (c.execute(command{{"GETBIT", key, off}}).integer() == 0) {
          all_set = false;
          break;
        }
      }
      present += all_set;
    }
    return present;
  });
  report(o, "perbit", "contains", round, all.size(), look);
  c.execute(command{{"UNLINK", key}});
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* v = argv[i + 1];
    if (flag == "--url")
      o.url = v;
    else if (flag == "--tls-ca")
      o.tls_ca = v;
    else if (flag == "--rounds")
      o.rounds = std::atoi(v);
    else if (flag == "--keys-bloomkit")
      o.keys_bloomkit = static_cast<std::size_t>(std::atof(v));
    else if (flag == "--keys-gozero")
      o.keys_gozero = static_cast<std::size_t>(std::atof(v));
    else if (flag == "--keys-perbit")
      o.keys_perbit = static_cast<std::size_t>(std::atof(v));
    else if (flag == "--keys-single")
      o.keys_single = static_cast<std::size_t>(std::atof(v));
    else if (flag == "--capacity")
      o.capacity = static_cast<std::uint64_t>(std::atof(v));
    else if (flag == "--fpp")
      o.fpp = std::atof(v);
    else if (flag == "--label")
      o.label = v;
    else if (flag == "--methods")
      o.methods = v;
    else if (flag == "--keys-per-command")
      o.keys_per_command = static_cast<std::size_t>(std::atof(v));
    else {
      std::fprintf(stderr, "bloomkit_redis_bench: unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    redis::client_options client_options;
    client_options.tls.ca_file = o.tls_ca;
    redis::client c = redis::client::connect(o.url, client_options);
    const std::uint64_t bits = optimal_bits(o.capacity, o.fpp);
    const auto keys_bloomkit = bench::make_insert_keys(o.keys_bloomkit);
    const auto keys_gozero = bench::make_insert_keys(o.keys_gozero);
    const auto keys_perbit = bench::make_insert_keys(o.keys_perbit);
    const auto keys_single = bench::make_insert_keys(o.keys_single);
    std::mt19937 rng(12345);
    for (int round = 0; round < o.rounds; ++round) {
      // Interleave: the order of the methods changes from round to round.
      std::vector<int> order = {0, 1, 2, 3, 4};
      std::shuffle(order.begin(), order.end(), rng);
      for (int method : order) {
        static const char* const names[] = {"bloomkit", "gozero", "perbit", "single", "counting"};
        if (("," + o.methods + ",").find(std::string(",") + names[method] + ",") ==
            std::string::npos) {
          continue;
        }
        if (method == 0) run_bloomkit(c, o, round, keys_bloomkit);
        if (method == 1) run_gozero(c, o, round, keys_gozero, bits);
        if (method == 2) run_perbit(c, o, round, keys_perbit, bits);
        if (method == 3) run_single(c, o, round, keys_single);
        if (method == 4) run_bloomkit(c, o, round, keys_bloomkit, "counting");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit_redis_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
