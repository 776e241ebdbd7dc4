// Writes the golden vectors of the native formats (tests/data/golden; run tools/golden/generate):
// for every native kind and hash scheme, a small filter of fixed keys as a bloomkit file, and a
// text file with its parameters, its keys, the answers of contains() and, for some keys, the
// digest and the bit positions. Positions come from the formulas of docs/FORMAT.md
// (tests/support/golden_reference.hpp) and must equal what the library sets, or nothing is
// written.
//
//   bloomkit_golden_writer DIR

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <xxhash.h>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "support/golden_build.hpp"
#include "support/golden_reference.hpp"
#include "support/golden_vectors.hpp"
#include "support/temp_dir.hpp"

namespace {

using bloomkit::test::golden_vector;
using bloomkit::test::key_operation;

std::string le_bytes(std::int64_t value) {
  std::string out;
  auto u = static_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i, u >>= 8) out.push_back(static_cast<char>(u & 0xff));
  return out;
}

// Inserted keys: the empty key, bytes that are not text, then "golden-<i>"; for long keys the
// extremes, then a spread of values. Absent keys are of the same shape.
std::vector<std::string> keys(const std::string& key_type, std::size_t count, bool absent) {
  std::vector<std::string> out;
  if (key_type == "long") {
    if (!absent) {
      for (std::int64_t x :
           {std::int64_t{0}, std::int64_t{-1}, std::numeric_limits<std::int64_t>::min(),
            std::numeric_limits<std::int64_t>::max()}) {
        out.push_back(le_bytes(x));
      }
    }
    for (std::int64_t i = 0; out.size() < count; ++i) {
      out.push_back(le_bytes(absent ? -1000003 * (i + 1) : 7919 * i + 1));
    }
    return out;
  }
  if (!absent) {
    out.push_back("");
    out.push_back(std::string("\0\xff\x80 bytes", 9));
  }
  for (std::size_t i = 0; out.size() < count; ++i) {
    out.push_back((absent ? "absent-" : "golden-") + std::to_string(i));
  }
  return out;
}

// The digest and positions of one key by the document's formulas; throws unless the library sets
// exactly these bits (counting: these counters, as often as they occur).
void place(golden_vector& v, const std::string& key, const bloomkit::compat::any_filter* loaded) {
  namespace ref = bloomkit::golden;
  auto& p = v.placement(key);
  const auto d = ref::xxh3_128_of(key);
  const auto check = [&](const std::vector<std::uint64_t>& positions, std::uint64_t sub_bits,
                         std::uint32_t sub_hashes) {
    const auto library = bloomkit::test::library_positions(v, key, sub_bits, sub_hashes);
    if (library != bloomkit::test::counted(positions, v.kind == "counting")) {
      throw std::runtime_error(v.name + ": the library's positions of key " +
                               bloomkit::test::key_text(key, v.key_type) +
                               " are not docs/FORMAT.md's");
    }
  };
  if (bloomkit::test::grouped_window(v)) {
    p.digest = {d.h1, d.h2};
    p.positions = ref::window_group_positions(d, v.bits, v.slices, v.hashes);
    check(p.positions, 0, 0);
    return;
  }
  if (v.kind == "blocked" || v.kind == "window") {
    // A window's slots are blocked filters of bits / (slices + 1) bits each.
    const std::uint64_t bits = v.kind == "window" ? v.bits / (v.slices + 1) : v.bits;
    const auto h = ref::xxh3_64_of(key);
    p.digest = {h};
    p.block = ref::split_block_of(h, bits);
    p.positions = ref::split_block_positions(h, bits);
    check(p.positions, 0, 0);
    return;
  }
  p.digest = {d.h1, d.h2};
  if (v.kind == "scalable") {
    for (const auto& sub : std::get<bloomkit::scalable_bloom_filter>(*loaded).sub_filters()) {
      p.sub_positions.push_back(ref::xxh3_128_positions(d, sub.bits(), sub.hashes()));
      check(p.sub_positions.back(), sub.bits(), sub.hashes());
    }
    return;
  }
  p.probe_values = ref::xxh3_128_probe_values(d, v.hashes);
  if (v.shards != 0) {
    p.shard = ref::shard_of(d, v.shards);
    p.positions = ref::sharded_positions(d, v.bits, v.hashes, v.shards);
  } else {
    p.positions = ref::xxh3_128_positions(d, v.bits, v.hashes);
  }
  check(p.positions, 0, 0);
}

// contains() of the written file: by the library for the kinds it loads, by the bits at the
// document's positions for the local copy of a sharded Redis filter.
bool answer(const golden_vector& v, const bloomkit::compat::any_filter* loaded,
            const bloomkit::bit_array* raw_bits, const std::string& key) {
  if (loaded) {
    return std::visit([&](const auto& f) { return bloomkit::test::contains_key(f, key); }, *loaded);
  }
  for (auto i : bloomkit::golden::sharded_positions(bloomkit::golden::xxh3_128_of(key), v.bits,
                                                    v.hashes, v.shards)) {
    if (!raw_bits->test(i)) return false;
  }
  return true;
}

// Saves the vector's filter to `file`, then records in v its header's counts, the answers of
// the saved filter for `inserted` (all present unless removed) and for absent keys, and the
// placements of some keys.
void record(golden_vector& v, const std::filesystem::path& file,
            const std::vector<std::string>& inserted, const std::vector<std::string>& removed) {
  bloomkit::test::build_golden(v, file, bloomkit::test::insert_path::one_by_one);
  // The header and the filter from one open of the file.
  std::optional<bloomkit::compat::any_filter> loaded;
  std::optional<bloomkit::raw_filter> raw;
  bloomkit::file_header header;
  if (v.shards != 0) {
    raw = bloomkit::load_raw(file);
    header = raw->header;
  } else {
    auto opened = bloomkit::compat::open_any(file, bloomkit::open_mode::load);
    loaded = std::move(opened.filter);
    header = opened.header;
  }
  v.inserted = header.inserted;
  if (v.kind == "scalable") {
    v.bits = header.bits;
    v.sub_filters = header.kind_params[3];
  }
  const auto* filter = loaded ? &*loaded : nullptr;
  const auto* bits = raw ? &raw->bits : nullptr;

  std::set<std::string> gone(removed.begin(), removed.end());
  if (v.kind == "window") {  // a count window forgets all but its last W inserts
    gone.insert(inserted.begin(), inserted.end() - static_cast<std::ptrdiff_t>(v.window));
  }
  const auto absent = keys(v.key_type, 200, true);
  for (const auto& k : inserted) {
    const bool yes = answer(v, filter, bits, k);
    if (!yes && gone.count(k) == 0) throw std::runtime_error(v.name + ": a false negative");
    v.probes.emplace_back(k, yes);
  }
  for (const auto& k : absent) v.probes.emplace_back(k, answer(v, filter, bits, k));
  // Positions where a vector records them (golden_build.hpp, placed).
  if (bloomkit::test::placed(v)) {
    for (std::size_t i = 0; i < 6; ++i) place(v, inserted[i], filter);
    for (std::size_t i = 0; i < 3; ++i) place(v, absent[i], filter);
  }
}

void write_text(const golden_vector& v, const std::filesystem::path& dir) {
  std::ofstream out(dir / (v.name + ".txt"));
  bloomkit::test::write_vector(v, out);
  if (!out.flush()) throw std::runtime_error("cannot write " + (dir / v.name).string() + ".txt");
}

// A small vector: its file is committed beside it.
void write(golden_vector v, const std::vector<std::string>& removed,
           const std::filesystem::path& dir) {
  v.file = dir / (v.name + ".bloom");
  const auto inserted = keys(v.key_type, v.kind == "scalable" ? 60 : 100, false);
  for (const auto& k : inserted) v.operations.push_back({false, k});
  if (v.kind == "counting" || v.kind == "static" || v.kind == "cuckoo") {
    for (std::size_t i = 0; i < 10; ++i) v.operations.push_back({false, inserted[i]});
  }
  for (const auto& k : removed) v.operations.push_back({true, k});
  record(v, v.file, inserted, removed);
  write_text(v, dir);
}

// A vector of a filter of 1 MiB or more (the pipelined insert and lookup paths), 100,000 keys:
// only its size and checksum are committed, and the answers for the first 200 keys.
void write_large(golden_vector v, const std::filesystem::path& dir) {
  v.numbered_prefix = "large-";
  v.numbered_count = 100000;
  std::vector<std::string> sample;
  for (std::uint64_t i = 0; i < v.numbered_count; ++i) {
    v.operations.push_back({false, v.numbered_prefix + std::to_string(i)});
    if (i < 200) sample.push_back(v.operations.back().key);
  }
  const bloomkit::test::temp_dir scratch;
  const auto file = scratch / (v.name + ".bloom");
  record(v, file, sample, {});
  const auto bytes = bloomkit::test::read_bytes(file);
  v.file_size = bytes.size();
  v.file_xxh64 = XXH64(bytes.data(), bytes.size(), 0);
  write_text(v, dir);
}

// A vector of a kind sized by for_capacity(n, p): its m and k are that sizing's.
template <class Filter>
golden_vector sized(std::string name, std::string kind, std::string key_type,
                    std::uint64_t capacity = 100) {
  golden_vector v;
  v.name = std::move(name);
  v.kind = std::move(kind);
  v.scheme = std::string(bloomkit::to_string(Filter::scheme()));
  v.key_type = std::move(key_type);
  v.capacity = capacity;
  v.target_fpp = 0.01;
  const auto f = Filter::for_capacity(v.capacity, v.target_fpp);
  v.bits = f.cells();
  v.hashes = f.hashes();
  return v;
}

}  // namespace

// A count window of 40 inserts in 4 slices of 10, sized for `capacity` keys at 0.05 (slots of
// capacity / 4 keys at 0.01): the 100 keys fill slices 0..9; the current slice is 10, so slices
// 6..9 are live, slice 5 lies in a slot it no longer counts for, and the first 60 keys are
// forgotten. bits and hashes are the header's: the slots' total (blocked) or the group array's.
template <class Window>
golden_vector window_vector(const std::string& name, std::uint64_t capacity) {
  const bloomkit::window_config config{capacity, 0.05, 40, bloomkit::window_unit::inserts, 4};
  golden_vector v;
  v.name = name;
  v.kind = "window";
  v.scheme = std::string(to_string(Window::scheme()));
  v.capacity = config.capacity;
  v.target_fpp = config.target_fpp;
  v.window = config.length;
  v.slices = config.slices;
  const Window empty(config);
  v.bits = empty.cells();
  v.hashes = empty.hashes();
  return v;
}

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bloomkit_golden_writer DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  using namespace bloomkit;
  for (const std::string type : {"string", "long"}) {
    write(sized<bloom_filter>("classic_" + type, "classic", type), {}, dir);
    write(sized<blocked_bloom_filter>("blocked_" + type, "blocked", type), {}, dir);
    // Keys 0..9 twice (counters of 2), keys 90..99 removed again.
    const auto inserted = keys(type, 100, false);
    write(sized<counting_bloom_filter>("counting_" + type, "counting", type),
          {inserted.begin() + 90, inserted.end()}, dir);

    // The chain of docs/FORMAT.md's example: n0 = 10, p = 0.05, s = 2, r = 0.5, 60 keys, so 3
    // sub-filters.
    golden_vector s;
    s.name = "scalable_" + type;
    s.kind = "scalable";
    s.scheme = std::string(to_string(scalable_bloom_filter::scheme()));
    s.key_type = type;
    s.capacity = 10;
    s.target_fpp = 0.05;
    s.growth = 2;
    s.tightening = 0.5;
    write(s, {}, dir);
  }
  // Filters of integer keys (key type long, flag 1): the integer schemes 6 and 7.
  {
    const auto integer_vector = [&]<class Filter>(std::type_identity<Filter>, std::string kind,
                                                  hash_scheme scheme) {
      golden_vector v = sized<Filter>(kind + "_splitmix64_long", kind, "long");
      v.scheme = std::string(to_string(scheme));
      v.flags = file_flag_int64_keys;
      return v;
    };
    write(
        integer_vector(std::type_identity<bloom_filter>{}, "classic", hash_scheme::splitmix64_128),
        {}, dir);
    write(integer_vector(std::type_identity<blocked_bloom_filter>{}, "blocked",
                         hash_scheme::splitmix64_split_block),
          {}, dir);
    const auto inserted = keys("long", 100, false);
    write(integer_vector(std::type_identity<counting_bloom_filter>{}, "counting",
                         hash_scheme::splitmix64_128),
          {inserted.begin() + 90, inserted.end()}, dir);
  }

  // The same chain of blocked sub-filters (the module's BF.RESERVE chain; scheme
  // xxh3-64-split-block): sub-filters of whole 256-bit blocks.
  golden_vector chain;
  chain.name = "scalable_blocked_string";
  chain.kind = "scalable";
  chain.scheme = std::string(to_string(scalable_blocked_bloom_filter::scheme()));
  chain.key_type = "string";
  chain.capacity = 10;
  chain.target_fpp = 0.05;
  chain.growth = 2;
  chain.tightening = 0.5;
  write(chain, {}, dir);

  // A count window of 40 inserts in 4 slices of 10, blocked slots sized for 10 keys at 0.01: the
  // 100 keys fill slices 0..9; the current slice is 10, so slices 6..9 are live, slice 5 lies in
  // a slot it no longer counts for, and the first 60 keys are forgotten.
  write(window_vector<blocked_window_filter>("window_string", 40), {}, dir);
  // The same count window of classic slots (scheme xxh3-128).
  write(window_vector<classic_window_filter>("window_classic_string", 40), {}, dir);
  // The same count window in grouped words (scheme 3), sized for N = 400 keys (so that its slots
  // have several words): 5 words of 200 bits in each group of 2 lines, sized by
  // word_filter_sizing(200, 100, 0.01).
  write(window_vector<window_filter>("window_groups_string", 400), {}, dir);
  // The same count window sized for N = 8 keys (a share of 2 per slice): each slice's 10 inserts
  // fill its words' share and 4 overflow parts of 2 (flag bit 1, FORMAT.md "Overflow parts").
  golden_vector overflow = window_vector<window_filter>("window_groups_overflow_string", 8);
  overflow.flags = 2;
  write(overflow, {}, dir);

  // A static filter of the 100 keys (10 of them twice) at p = 0.01: 7-bit fingerprints, one shard.
  golden_vector st;
  st.name = "static_string";
  st.kind = "static";
  st.scheme = std::string(to_string(static_filter::scheme()));
  st.capacity = 100;
  st.target_fpp = 0.01;
  st.hashes = 3;
  st.bits = static_filter::bits_for(100, st.target_fpp);
  write(st, {}, dir);

  // A cuckoo filter for 100 keys at p = 0.01 (b = 4, f = 10, 38 buckets): keys 0..9 twice (two
  // copies of their fingerprints), keys 90..99 removed again.
  {
    const auto inserted = keys("string", 100, false);
    write(sized<cuckoo_filter>("cuckoo_string", "cuckoo", "string"),
          {inserted.begin() + 90, inserted.end()}, dir);
  }

  // The local copy of a Redis filter of 4 shards of 1024 bits (bloomkit redis pull).
  golden_vector r;
  r.name = "classic_redis_sharded_string";
  r.kind = "classic";
  r.scheme = std::string(to_string(hash_scheme::redis_sharded_xxh3));
  r.bits = 4096;
  r.hashes = 7;
  r.shards = 4;
  r.capacity = 400;
  r.target_fpp = 0.01;
  write(r, {}, dir);

  // Filters past the size where inserts and lookups take the pipelined paths.
  write_large(sized<bloom_filter>("large_classic", "classic", "string", 1000000), dir);
  write_large(sized<blocked_bloom_filter>("large_blocked", "blocked", "string", 1000000), dir);
  write_large(sized<counting_bloom_filter>("large_counting", "counting", "string", 1000000), dir);

  // The int64-key flag, which only interop schemes take: Guava's default strategy over longs.
  auto g = sized<guava::mitz_64_filter>("classic_guava_mitz64_long_flag", "classic", "long");
  g.flags = file_flag_int64_keys;
  write(g, {}, dir);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bloomkit_golden_writer: %s\n", e.what());
  return 1;
}
