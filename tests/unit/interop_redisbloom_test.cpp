// RedisBloom's Bloom filter (compat/redisbloom.hpp) against the vectors the real RedisBloom
// wrote (tests/data/redisbloom, or BLOOMKIT_REDISBLOOM_VECTORS): every key's DUMP decodes to a
// chain that answers every probe, BF.INFO / BF.CARD / BF.DEBUG and BF.SCANDUMP as RedisBloom did;
// LOADCHUNK of its chunks and a replay of its commands give the same chain.

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/compat/redisbloom.hpp"
#include "support/keys.hpp"
#include "support/redisbloom_vectors.hpp"
#include "support/temp_dir.hpp"

namespace rb = bloomkit::redisbloom;
using bloomkit::test::json;
using bloomkit::test::unhex;

namespace {

struct key_vector {
  std::string name;
  json doc;
  std::vector<std::string> items;
  std::vector<std::string> absent;
};

const std::vector<key_vector>& vectors() {
  static const std::vector<key_vector> all = [] {
    std::vector<key_vector> v;
    for (const auto& path : bloomkit::test::redisbloom_key_files()) {
      key_vector k;
      k.doc = bloomkit::test::read_json(path);
      k.name = k.doc["key"].str();
      for (const json& h : k.doc["items_hex"].items) k.items.push_back(unhex(h.str()));
      for (const json& h : k.doc["probes"]["absent_hex"].items) k.absent.push_back(unhex(h.str()));
      v.push_back(std::move(k));
    }
    return v;
  }();
  return all;
}

using bloomkit::test::bytes_of;

rb::chain dumped_chain(const key_vector& k) {
  return rb::read_dump(bytes_of(unhex(k.doc["dump_hex"].str())), k.name);
}

std::string answers_of(const rb::chain& c, const std::vector<std::string>& keys) {
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::uint8_t> answers(keys.size());
  c.contains_many(views, answers);
  std::string out;
  for (std::uint8_t a : answers) out.push_back(a != 0 ? '1' : '0');
  return out;
}

TEST(RedisBloomVectors, ThereAreVectors) {
  EXPECT_FALSE(vectors().empty()) << bloomkit::test::redisbloom_vectors_dir();
}

TEST(RedisBloomVectors, DumpDecodesToAChainAnsweringEveryProbeAsRedisBloom) {
  for (const key_vector& k : vectors()) {
    SCOPED_TRACE(k.name);
    const rb::chain c = dumped_chain(k);
    const json& probes = k.doc["probes"];
    EXPECT_EQ(answers_of(c, k.items), probes["added_answers"].str());
    EXPECT_EQ(answers_of(c, k.absent), probes["absent_answers"].str());
    const std::string absent = answers_of(c, k.absent);
    EXPECT_EQ(static_cast<std::uint64_t>(std::count(absent.begin(), absent.end(), '1')),
              probes["absent_true_count"].u64());
    // One key at a time answers as the batch does.
    for (std::size_t i = 0; i < k.absent.size(); i += 7) {
      EXPECT_EQ(c.contains(k.absent[i]), probes["absent_answers"].str()[i] == '1') << i;
    }
  }
}

TEST(RedisBloomVectors, InfoCardAndDebugEqualRedisBloomsReplies) {
  for (const key_vector& k : vectors()) {
    SCOPED_TRACE(k.name);
    const rb::chain c = dumped_chain(k);
    const json& info = k.doc["info"];
    EXPECT_EQ(c.capacity(), info["Capacity"].u64());
    EXPECT_EQ(c.info_size(), info["Size"].u64());
    EXPECT_EQ(c.filters(), info["Number of filters"].u64());
    EXPECT_EQ(c.items(), info["Number of items inserted"].u64());
    if (info["Expansion rate"].is_null()) {
      EXPECT_FALSE(c.expansion().has_value());
    } else {
      ASSERT_TRUE(c.expansion().has_value());
      EXPECT_EQ(*c.expansion(), info["Expansion rate"].u64());
    }
    EXPECT_EQ(c.items(), k.doc["card"].u64());
    const json& single = k.doc["info_single"];
    EXPECT_EQ(c.capacity(), single["CAPACITY"].u64());
    EXPECT_EQ(c.info_size(), single["SIZE"].u64());
    EXPECT_EQ(c.filters(), single["FILTERS"].u64());
    EXPECT_EQ(c.items(), single["ITEMS"].u64());
    std::vector<std::string> debug;
    for (const json& line : k.doc["debug"].items) debug.push_back(line.str());
    EXPECT_EQ(c.debug_lines(), debug);
    // Our own memory stays at or below what RedisBloom reports.
    EXPECT_LE(c.memory_bytes(), c.info_size());
    EXPECT_EQ(c.options(), k.doc["decoded"]["options"].u64());
    EXPECT_EQ(c.growth(), k.doc["decoded"]["growth"].u64());
  }
}

TEST(RedisBloomVectors, ScanDumpIsRedisBloomsSequenceByteForByte) {
  for (const key_vector& k : vectors()) {
    SCOPED_TRACE(k.name);
    const rb::chain c = dumped_chain(k);
    const json& seq = k.doc["scandump"];
    ASSERT_GE(seq.size(), 2u);
    EXPECT_EQ(seq[0]["iter_in"].u64(), 0u);
    EXPECT_EQ(seq[0]["iter_out"].u64(), 1u);
    const auto header = rb::header_chunk(c);
    EXPECT_EQ(std::string(header.begin(), header.end()), unhex(seq[0]["data_hex"].str()));
    std::int64_t iter = 1;
    for (std::size_t i = 1; i < seq.size(); ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(static_cast<std::uint64_t>(iter), seq[i]["iter_in"].u64());
      const rb::data_chunk chunk = rb::next_chunk(c, iter);
      EXPECT_EQ(static_cast<std::uint64_t>(chunk.next), seq[i]["iter_out"].u64());
      EXPECT_EQ(std::string(chunk.data.begin(), chunk.data.end()), unhex(seq[i]["data_hex"].str()));
      iter = chunk.next;
    }
    EXPECT_EQ(iter, 0);
  }
}

TEST(RedisBloomVectors, SmallChunksCoverTheSameBytes) {
  const key_vector& k = vectors().back();
  const rb::chain c = dumped_chain(k);
  const auto header = rb::header_chunk(c);
  rb::chain copy = rb::chain_from_header(header);
  std::size_t chunks = 0;
  for (std::int64_t iter = 1; iter != 0; ++chunks) {
    const rb::data_chunk chunk = rb::next_chunk(c, iter, 7);
    if (chunk.next != 0) rb::apply_chunk(copy, chunk.next, chunk.data);
    iter = chunk.next;
  }
  EXPECT_GT(chunks, c.filters());
  EXPECT_EQ(copy, c);
}

TEST(RedisBloomVectors, LoadChunkOfTheVectorsChunksGivesTheDumpedChain) {
  for (const key_vector& k : vectors()) {
    SCOPED_TRACE(k.name);
    const json& seq = k.doc["scandump"];
    rb::chain loaded = rb::chain_from_header(bytes_of(unhex(seq[0]["data_hex"].str())));
    for (std::size_t i = 1; i + 1 < seq.size(); ++i) {
      rb::apply_chunk(loaded, static_cast<std::int64_t>(seq[i]["iter_out"].u64()),
                      bytes_of(unhex(seq[i]["data_hex"].str())));
    }
    EXPECT_EQ(loaded, dumped_chain(k));
    // Its probes answer as RedisBloom's.
    EXPECT_EQ(answers_of(loaded, k.items), k.doc["probes"]["added_answers"].str());
  }
}

TEST(RedisBloomVectors, DumpAndRdbFieldsRoundTrip) {
  for (const key_vector& k : vectors()) {
    SCOPED_TRACE(k.name);
    const rb::chain c = dumped_chain(k);
    const auto payload = rb::write_dump(c);
    EXPECT_EQ(rb::read_dump(payload, "written"), c);
    // Where RedisBloom stored every bit array raw, our payload is its bytes exactly.
    bool raw = true;
    for (const json& l : k.doc["decoded"]["links"].items) {
      raw = raw && l["dump_string_encoding"].str() == "raw";
    }
    if (raw) {
      EXPECT_EQ(std::string(payload.begin(), payload.end()), unhex(k.doc["dump_hex"].str()));
    }
    EXPECT_EQ(rb::module_id(rb::type_name, rb::encoding_version),
              std::stoull(k.doc["decoded"]["module_id_hex"].str(), nullptr, 16));
  }
}

// Replays one recorded command on `state` and returns its reply as the vectors record it:
// {reply_type, reply, errors}.
struct reply {
  std::string type;
  std::string text;
  std::vector<std::string> errors;
};

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

reply run(std::optional<rb::chain>& state, const std::vector<std::string>& argv,
          const std::vector<std::string>& items) {
  const std::string cmd = upper(argv[0]);
  const std::string full = "ERR non scaling filter is full";
  if (cmd == "BF.RESERVE") {
    if (state) return {"error", "ERR item exists", {}};
    bool non_scaling = false;
    std::uint32_t expansion = rb::default_expansion;
    for (std::size_t i = 4; i < argv.size(); ++i) {
      if (upper(argv[i]) == "NONSCALING") non_scaling = true;
      if (upper(argv[i]) == "EXPANSION")
        expansion = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    }
    state = rb::chain::reserve(std::stoull(argv[3]), std::stod(argv[2]), expansion, non_scaling);
    return {"status", "OK", {}};
  }
  std::uint64_t capacity = rb::default_capacity;
  double error_rate = rb::default_error_rate;
  std::uint32_t expansion = rb::default_expansion;
  bool non_scaling = false;
  if (cmd == "BF.INSERT") {
    for (std::size_t i = 2; i < argv.size(); ++i) {
      const std::string a = upper(argv[i]);
      if (a == "CAPACITY") capacity = std::stoull(argv[++i]);
      if (a == "ERROR") error_rate = std::stod(argv[++i]);
      if (a == "EXPANSION") expansion = static_cast<std::uint32_t>(std::stoul(argv[++i]));
      if (a == "NONSCALING") non_scaling = true;
    }
  }
  if (!state) state = rb::chain::reserve(capacity, error_rate, expansion, non_scaling);
  std::vector<std::string_view> keys(items.begin(), items.end());
  std::vector<rb::add_result> answers(keys.size());
  const std::size_t n = state->add_many(keys, answers);
  if (cmd == "BF.ADD") {
    if (answers[0] == rb::add_result::full) return {"error", full, {}};
    return {"integer", answers[0] == rb::add_result::added ? "1" : "0", {}};
  }
  reply r{"array", "", {}};
  for (std::size_t i = 0; i < n; ++i) {
    if (answers[i] == rb::add_result::full) {
      r.text.push_back('E');
      r.errors.push_back(full);
    } else {
      r.text.push_back(answers[i] == rb::add_result::added ? '1' : '0');
    }
  }
  return r;
}

void expect_reply(const reply& got, const json& command) {
  EXPECT_EQ(got.type, command["reply_type"].str());
  EXPECT_EQ(got.text, command["reply"].str());
  std::vector<std::string> errors;
  if (command.has("errors")) {
    for (const json& e : command["errors"].items) errors.push_back(e.str());
  }
  EXPECT_EQ(got.errors, errors);
}

TEST(RedisBloomVectors, ReplayingTheCommandsGivesEveryReplyAndTheDumpedChain) {
  for (const key_vector& k : vectors()) {
    SCOPED_TRACE(k.name);
    std::optional<rb::chain> state;
    std::size_t index = 0;
    for (const json& command : k.doc["commands"].items) {
      SCOPED_TRACE(index++);
      std::vector<std::string> argv;
      for (const json& a : command["argv"].items) argv.push_back(a.str());
      const std::size_t first = command["items"][0].u64();
      const std::size_t count = command["items"][1].u64();
      std::vector<std::string> items(k.items.begin() + static_cast<std::ptrdiff_t>(first),
                                     k.items.begin() + static_cast<std::ptrdiff_t>(first + count));
      expect_reply(run(state, argv, items), command);
    }
    ASSERT_TRUE(state.has_value());
    const rb::chain dumped = dumped_chain(k);
    EXPECT_EQ(*state, dumped);
    if (k.doc.has("overflow")) {
      for (const json& command : k.doc["overflow"].items) {
        std::vector<std::string> argv;
        for (const json& a : command["argv"].items) argv.push_back(a.str());
        std::vector<std::string> items;
        for (const json& h : command["items_hex"].items) items.push_back(unhex(h.str()));
        expect_reply(run(state, argv, items), command);
      }
      EXPECT_EQ(*state, dumped);  // the overflow attempts changed nothing
    }
  }
}

TEST(RedisBloomVectors, FilterFilesHoldTheChainExactly) {
  const bloomkit::test::temp_dir dir;
  for (const key_vector& k : vectors()) {
    SCOPED_TRACE(k.name);
    const rb::chain c = dumped_chain(k);
    const auto path = dir / "chain.bloom";
    bloomkit::save(c, path);
    for (const auto mode : {bloomkit::open_mode::load, bloomkit::open_mode::map}) {
      const auto opened = bloomkit::compat::open_any(path, mode);
      ASSERT_TRUE(std::holds_alternative<rb::chain>(opened.filter));
      const rb::chain& back = std::get<rb::chain>(opened.filter);
      EXPECT_EQ(back, c);
      EXPECT_EQ(opened.header.kind, bloomkit::filter_kind::redisbloom);
      EXPECT_EQ(opened.header.inserted, c.items());
      EXPECT_EQ(answers_of(back, k.absent), k.doc["probes"]["absent_answers"].str());
      EXPECT_EQ(rb::write_dump(back), rb::write_dump(c));
    }
  }
}

TEST(RedisBloomVectors, DamagedFilterFilesAreRefused) {
  const bloomkit::test::temp_dir dir;
  // The smallest chain of several links keeps this quick.
  const key_vector* pick = &vectors().front();
  for (const key_vector& k : vectors()) {
    const std::uint64_t links = k.doc["info"]["Number of filters"].u64();
    const std::uint64_t size = k.doc["info"]["Size"].u64();
    if (links > 1 && (pick->doc["info"]["Number of filters"].u64() < 2 ||
                      size < pick->doc["info"]["Size"].u64())) {
      pick = &k;
    }
  }
  const rb::chain c = dumped_chain(*pick);
  const auto path = dir / "chain.bloom";
  bloomkit::save(c, path);
  const auto good = bloomkit::test::read_bytes(path);
  // Every byte of the header and the link table, and bytes of the bits, changed one at a time.
  const std::size_t table_end = 128 + 64 * c.filters() + 8;
  const std::size_t bits_step = std::max<std::size_t>(1, (good.size() - table_end) / 64);
  for (std::size_t i = 0; i < good.size(); i += i < table_end ? 1 : bits_step) {
    auto bad = good;
    bad[i] ^= 0x10;
    bloomkit::test::write_bytes(path, bad);
    EXPECT_THROW(bloomkit::compat::load_any(path), bloomkit::error) << i;
  }
  auto cut = good;
  cut.pop_back();
  bloomkit::test::write_bytes(path, cut);
  EXPECT_THROW(bloomkit::compat::load_any(path), bloomkit::error);
}

}  // namespace
