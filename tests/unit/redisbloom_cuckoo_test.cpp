// RedisBloom's cuckoo filter against the vectors the real RedisBloom wrote
// (tests/data/redisbloom-cuckoo, or BLOOMKIT_REDISBLOOM_CUCKOO_VECTORS): every logged command
// replayed gives RedisBloom's reply and its final slot bytes, its DUMP payload and its SCANDUMP
// chunks load to the same filter, and every probe answers as RedisBloom did.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bloomkit/compat/redisbloom_cuckoo.hpp"
#include "compat/rdb_payload.hpp"
#include "support/json.hpp"
#include "support/keys.hpp"
#include "support/redisbloom_cuckoo_replay.hpp"
#include "support/redisbloom_vectors.hpp"
#include "support/sha256.hpp"

#ifndef BLOOMKIT_REDISBLOOM_CUCKOO_DATA
#error "BLOOMKIT_REDISBLOOM_CUCKOO_DATA must name tests/data/redisbloom-cuckoo"
#endif

namespace {

namespace cf = bloomkit::redisbloom::cuckoo;
using bloomkit::test::json;
using bloomkit::test::resp_reply;
using bloomkit::test::unhex;

std::filesystem::path vectors_dir() {
  const char* env = std::getenv("BLOOMKIT_REDISBLOOM_CUCKOO_VECTORS");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                        : std::filesystem::path(BLOOMKIT_REDISBLOOM_CUCKOO_DATA);
}

struct cuckoo_key_vector {
  std::string name;
  json doc;
};

// Every key file, read once.
const std::vector<cuckoo_key_vector>& cuckoo_vectors() {
  static const std::vector<cuckoo_key_vector> all = [] {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(vectors_dir() / "keys")) {
      if (e.path().extension() == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<cuckoo_key_vector> out;
    for (const auto& path : files) {
      cuckoo_key_vector k{path.filename().string(), bloomkit::test::read_json(path)};
      out.push_back(std::move(k));
    }
    return out;
  }();
  return all;
}

std::vector<std::string> full_argv(const json& command) {
  std::vector<std::string> argv;
  for (const json& a : command["argv"].items) argv.push_back(a.str());
  for (const json& h : command["items_hex"].items) argv.push_back(unhex(h.str()));
  return argv;
}

using bloomkit::test::bytes_of;

// The final state the vector records: fields, CF.INFO, CF.DEBUG, each sub-filter's slots.
void expect_final_state(const cf::filter& f, const json& final_state, const std::string& where) {
  const json& info = final_state["cf_info"];
  for (const auto& field : f.info()) {
    EXPECT_EQ(field.value, info[field.name].u64()) << where << ": CF.INFO " << field.name;
  }
  EXPECT_EQ(f.debug_text(), final_state["cf_debug"].str()) << where;
  const json& decoded = final_state["dump_decoded"];
  const json& subs = decoded["sub_filters"];
  ASSERT_EQ(f.num_filters(), subs.size()) << where;
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const auto slots = f.sub_slots(i);
    EXPECT_EQ(f.sub_buckets(i), subs[i]["num_buckets"].u64()) << where << " sub " << i;
    EXPECT_EQ(slots.size(), subs[i]["bytes"].u64()) << where << " sub " << i;
    EXPECT_EQ(bloomkit::test::sha256_hex(slots), subs[i]["sha256"].str()) << where << " sub " << i;
    std::uint64_t nonzero = 0;
    for (std::uint8_t s : slots) nonzero += s != 0 ? 1 : 0;
    EXPECT_EQ(nonzero, subs[i]["nonzero_slots"].u64()) << where << " sub " << i;
  }
}

// Every probe's CF.EXISTS, CF.MEXISTS and CF.COUNT.
void expect_probes(const cf::filter& f, const json& probes, const std::string& where) {
  std::size_t wrong = 0;
  for (const json& p : probes.items) {
    const std::string item = unhex(p["item_hex"].str());
    const bool exists = f.contains(item);
    const std::uint64_t count = f.count(item);
    if (exists != (p["exists"].u64() == 1) || exists != (p["mexists"].u64() == 1) ||
        count != p["count"].u64()) {
      if (++wrong <= 3) {
        ADD_FAILURE() << where << ": probe " << p["item_hex"].str() << " exists " << exists
                      << " count " << count << ", RedisBloom " << p["exists"].u64() << " / "
                      << p["count"].u64();
      }
    }
  }
  EXPECT_EQ(wrong, 0u) << where;
}

// The CF.SCANDUMP loop over f, as the vector records it.
void expect_scandump(const cf::filter& f, const json& seq, const std::string& where) {
  bloomkit::test::cuckoo_replay replay;
  replay.keys.emplace("k", f);
  for (const json& step : seq.items) {
    const auto got = replay.run({"CF.SCANDUMP", "k", step["request_iterator"].number()});
    ASSERT_TRUE(got) << where;
    const resp_reply want = resp_reply::array(
        {resp_reply::integer(std::stoll(step["iterator"].number())),
         step["data_hex"].is_null() ? resp_reply::nil()
                                    : resp_reply::bulk(unhex(step["data_hex"].str()))});
    EXPECT_EQ(*got, want) << where << ": SCANDUMP " << step["request_iterator"].number();
  }
}

TEST(RedisBloomCuckooVectors, ThereAreVectors) {
  EXPECT_GE(cuckoo_vectors().size(), 1u) << vectors_dir();
}

TEST(RedisBloomCuckooVectors, ReplayingTheCommandsGivesEveryReplyAndTheFinalFilter) {
  for (const cuckoo_key_vector& k : cuckoo_vectors()) {
    bloomkit::test::cuckoo_replay replay;
    std::size_t index = 0, wrong = 0, checked = 0;
    for (const json& command : k.doc["commands"].items) {
      const auto argv = full_argv(command);
      const auto got = replay.run(argv);
      ++index;
      if (!got) continue;
      ++checked;
      const resp_reply want = resp_reply::from_json(command["reply"]);
      if (*got != want && ++wrong <= 3) {
        ADD_FAILURE() << k.name << ": command " << index << " " << argv[0] << ": " << got->show()
                      << ", RedisBloom " << want.show();
      }
    }
    EXPECT_EQ(wrong, 0u) << k.name;
    EXPECT_GT(checked, 0u) << k.name;
    const auto it = replay.keys.find(k.doc["key"].str());
    ASSERT_NE(it, replay.keys.end()) << k.name;
    expect_final_state(it->second, k.doc["final"], k.name + " (replayed)");
    expect_probes(it->second, k.doc["probes"], k.name + " (replayed)");
    expect_scandump(it->second, k.doc["scandump"], k.name + " (replayed)");
  }
}

TEST(RedisBloomCuckooVectors, DumpPayloadLoadsToRedisBloomsFilter) {
  for (const cuckoo_key_vector& k : cuckoo_vectors()) {
    const json& final_state = k.doc["final"];
    const std::string payload = unhex(final_state["dump_hex"].str());
    const cf::filter f = cf::read_dump(bytes_of(payload), k.name);
    const json& decoded = final_state["dump_decoded"];
    EXPECT_EQ(decoded["module_encver"].u64(), 4u) << k.name;
    expect_final_state(f, final_state, k.name + " (DUMP)");
    expect_probes(f, k.doc["probes"], k.name + " (DUMP)");
    // Written back (uncompressed), it reads to the same filter.
    const auto again = cf::write_dump(f);
    EXPECT_EQ(cf::read_dump(again, "rewritten"), f) << k.name;
    // The storage: the slot bytes as RedisBloom counts them, and bloomkit's bookkeeping (its
    // struct and sub-filter table) at most 8 + 16 bytes per sub-filter more than RedisBloom's.
    EXPECT_EQ(f.info_size(), final_state["cf_info"]["Size"].u64()) << k.name;
    EXPECT_LT(f.info_size(), final_state["memory_usage"].u64()) << k.name;
  }
}

// dump.rdb's entries: type byte 7, the key name, then the same module value as the DUMP payload,
// read through the field_source the module backs with RedisModule_Load*.
TEST(RedisBloomCuckooVectors, RdbFileEntriesLoadToTheDumpedFilters) {
  const json index = bloomkit::test::read_json(vectors_dir() / "rdb_keys.json");
  std::ifstream in(vectors_dir() / index["file"].str(), std::ios::binary);
  const std::string rdb((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rdb.size(), index["bytes"].u64());
  std::size_t loaded = 0;
  for (const json& entry : index["keys"].items) {
    if (entry["type"].str() != cf::type_name) continue;
    const std::string where = entry["key"].str();
    const auto at = static_cast<std::size_t>(entry["rdb_entry_offset"].u64());
    const auto n = static_cast<std::size_t>(entry["rdb_entry_bytes"].u64());
    ASSERT_LE(at + n, rdb.size()) << where;
    namespace rdb_io = bloomkit::redisbloom::rdb;
    rdb_io::reader r(bytes_of(rdb).subspan(at, n), where);
    EXPECT_EQ(r.byte(), rdb_io::type_module_2) << where;
    EXPECT_EQ(std::string(r.string()), where);
    const auto type = bloomkit::redisbloom::decode_module_id(r.length());
    EXPECT_EQ(type.name, cf::type_name) << where;
    rdb_io::payload_source fields(r);
    const cf::filter f = cf::load_fields(fields, type.encver);
    rdb_io::end_of_value(r);
    const json k = bloomkit::test::read_json(vectors_dir() / entry["file"].str());
    EXPECT_EQ(f, cf::read_dump(bytes_of(unhex(k["final"]["dump_hex"].str())), where)) << where;
    ++loaded;
  }
  EXPECT_EQ(loaded, cuckoo_vectors().size());
}

TEST(RedisBloomCuckooVectors, ScanDumpChunksLoadToTheDumpedFilter) {
  for (const cuckoo_key_vector& k : cuckoo_vectors()) {
    const json& seq = k.doc["scandump"];
    const cf::filter dumped =
        cf::read_dump(bytes_of(unhex(k.doc["final"]["dump_hex"].str())), k.name);
    if (dumped.num_items() == 0) {
      // RedisBloom answers [0, nil] at once: nothing to load, the key stays absent.
      ASSERT_EQ(seq.size(), 1u) << k.name;
      EXPECT_TRUE(seq[0]["data_hex"].is_null()) << k.name;
      continue;
    }
    bloomkit::test::cuckoo_replay replay;
    for (const json& step : seq.items) {
      if (step["iterator"].number() == "0") break;
      const auto got = replay.run(
          {"CF.LOADCHUNK", "k", step["iterator"].number(), unhex(step["data_hex"].str())});
      ASSERT_TRUE(got) << k.name;
      EXPECT_EQ(*got, resp_reply::simple("OK")) << k.name;
    }
    const cf::filter& loaded = replay.keys.at("k");
    EXPECT_EQ(loaded, dumped) << k.name;
    const json& header = k.doc["final"]["scandump_header"];
    const auto fields = cf::decode_header(cf::header_chunk(loaded));
    EXPECT_EQ(fields.num_items, header["num_items"].u64()) << k.name;
    EXPECT_EQ(fields.num_buckets, header["num_buckets"].u64()) << k.name;
    EXPECT_EQ(fields.num_filters, header["num_filters"].u64()) << k.name;
    expect_probes(loaded, k.doc["probes"], k.name + " (LOADCHUNK)");
    // Small chunks cover the same bytes, each within its sub-filter.
    std::vector<std::uint8_t> all, pieces;
    for (std::size_t i = 0; i < loaded.num_filters(); ++i) {
      const auto s = loaded.sub_slots(i);
      all.insert(all.end(), s.begin(), s.end());
    }
    for (std::int64_t pos = 1;;) {
      const auto chunk = cf::next_chunk(loaded, pos, 7);
      if (chunk.data.empty()) break;
      pieces.insert(pieces.end(), chunk.data.begin(), chunk.data.end());
      pos = chunk.next;
    }
    EXPECT_EQ(pieces, all) << k.name;
  }
}

TEST(RedisBloomCuckooVectors, SessionRepliesThatTheFilterDecides) {
  const json sessions = bloomkit::test::read_json(vectors_dir() / "sessions.json");
  std::size_t checked = 0;
  for (const char* part : {"resp2", "resp3"}) {
    bloomkit::test::cuckoo_replay replay;
    for (const json& command : sessions[part].items) {
      const auto argv = full_argv(command);
      // Other key types and arity are the module's.
      if (argv.size() < 2 || !argv[1].starts_with("cf:")) continue;
      const resp_reply want = resp_reply::from_json(command["reply"]);
      if (want.type == resp_reply::kind::error &&
          want.text.find("wrong number of arguments") != std::string::npos) {
        continue;
      }
      auto got = replay.run(argv);
      if (!got) continue;
      ++checked;
      // RESP3's CF.INSERT answers booleans: a full filter's -1 is false there.
      if (std::string_view(part) == "resp3" && argv[0] == "CF.INSERT") {
        for (resp_reply& x : got->items) x.number = x.number == 1 ? 1 : 0;
      }
      EXPECT_EQ(*got, want) << part << ": " << argv[0] << " " << argv[1] << ": " << got->show()
                            << ", RedisBloom " << want.show();
    }
  }
  EXPECT_GT(checked, 10u);
}

}  // namespace
