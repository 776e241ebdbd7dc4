#pragma once
// Makes the filter a golden vector describes through bloomkit's public API (the sizing of its
// kind, then its operations in order) and saves it: tools/golden/generate writes the committed
// files with it, and the golden test makes them again and compares the bytes. Also the bits a
// filter of the vector's parameters sets for one key, as the library sets them.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/redis/shard_layout.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/static_filter.hpp"
#include "bloomkit/window_filter.hpp"
#include "support/golden_vectors.hpp"

namespace bloomkit::test {

// A window of grouped words (scheme 3), not of blocked slots (scheme 2).
inline bool grouped_window(const golden_vector& v) {
  return v.kind == "window" && v.scheme == "xxh3-128-window-groups";
}

// Whether a vector records its keys' digests and positions: not the peers' (tests/data/interop
// holds theirs), nor the compositions whose parts are other vectors' kinds (a scalable chain of
// blocked filters, a window of classic slots: the blocked and classic vectors pin those parts'
// positions, and their own bytes are pinned by the committed file).
inline bool placed(const golden_vector& v) {
  // Static filters: their cells depend on the whole set; golden_test checks their lookups
  // against the document's instead (golden::static_contains).
  // Cuckoo filters: a fingerprint's slot depends on the kicks before it; golden_test checks
  // their lookups against the document's (golden::cuckoo_contains).
  // Integer schemes: integer_keys_test checks their digests and positions against the
  // document's formulas.
  return !v.scheme.starts_with("guava") && !v.scheme.starts_with("splitmix64") &&
         v.kind != "static" && v.kind != "cuckoo" &&
         !(v.kind == "scalable" && v.scheme == "xxh3-64-split-block") &&
         !(v.kind == "window" && v.scheme == "xxh3-128");
}

// One insert() per key, or the batched insert_many() over each run of inserts.
enum class insert_path { one_by_one, batched };

inline std::int64_t as_int64(const std::string& key) {
  std::uint64_t u = 0;
  for (std::size_t i = key.size(); i-- > 0;) u = (u << 8) | static_cast<unsigned char>(key[i]);
  return static_cast<std::int64_t>(u);
}

// Whether the vector's filter takes integer keys by an integer scheme (key_type.hpp).
inline bool integer_scheme(const golden_vector& v) {
  return v.scheme.starts_with("splitmix64");
}

// Runs the vector's operations on f; keys of type long go through the integral overloads (and
// the batches of a filter of integer keys through insert_integers).
template <class Filter>
void apply_operations(Filter& f, const golden_vector& v, insert_path how) {
  const bool integral = v.key_type == "long";
  std::vector<std::string_view> run;
  const auto flush = [&] {
    if (run.empty()) return;
    if constexpr (requires { f.keys(); }) {
      if (f.keys() == key_type::int64) {
        std::vector<std::int64_t> values;
        for (auto k : run) values.push_back(as_int64(std::string(k)));
        f.insert_integers(std::span<const std::int64_t>(values));
        run.clear();
        return;
      }
    }
    f.insert_many(run);
    run.clear();
  };
  for (const auto& op : v.operations) {
    if (op.remove) {
      flush();
      if constexpr (requires { f.remove(op.key); }) {
        if (integral) f.remove(as_int64(op.key));
        if (!integral) f.remove(std::string_view(op.key));
      } else {
        throw std::runtime_error(v.name + ": remove on a " + v.kind + " filter");
      }
    } else if (how == insert_path::batched) {
      run.push_back(op.key);
    } else if (integral) {
      f.insert(as_int64(op.key));
    } else {
      f.insert(std::string_view(op.key));
    }
  }
  flush();
}

// contains(key) of a filter, by the integer of an integer-keyed filter (its key bytes' value).
template <class Filter>
bool contains_key(const Filter& f, const std::string& key) {
  if constexpr (requires { f.keys(); }) {
    if (f.keys() == key_type::int64) return f.contains(as_int64(key));
  }
  return f.contains(key);
}

// for_capacity(capacity, target_fpp) of the vector's kind, checked against its bits and hashes:
// a mismatch means the sizing changed, which changes the files `create` writes.
template <class Filter>
Filter sized(const golden_vector& v) {
  auto f = [&] {
    if constexpr (requires { Filter::for_capacity(1, 0.1, key_type::int64); }) {
      return Filter::for_capacity(v.capacity, v.target_fpp,
                                  integer_scheme(v) ? key_type::int64 : key_type::string);
    } else {
      return Filter::for_capacity(v.capacity, v.target_fpp);
    }
  }();
  if (f.cells() != v.bits || f.hashes() != v.hashes) {
    throw std::runtime_error(v.name + ": for_capacity(" + std::to_string(v.capacity) + ", " +
                             exact(v.target_fpp) + ") gives m = " + std::to_string(f.cells()) +
                             ", k = " + std::to_string(f.hashes()) +
                             ", the vector m = " + std::to_string(v.bits) +
                             ", k = " + std::to_string(v.hashes) + ": the sizing changed");
  }
  return f;
}

inline redis::shard_layout sharded_layout(const golden_vector& v) {
  return {v.bits / v.shards, v.shards, v.hashes};
}

// Sets a key's bits in the shards laid side by side (scheme 20); whether one was new.
inline bool insert_sharded(const redis::shard_layout& layout, bit_array& bits,
                           std::string_view key) {
  const auto d = xxh3_128(key);
  const std::uint64_t base = layout.shard_of(d) * layout.shard_bits;
  std::vector<std::uint64_t> offsets(layout.hashes);
  layout.offsets(d, offsets.data());
  bool changed = false;
  for (auto o : offsets) changed |= bits.set(base + o);
  return changed;
}

// The local copy of a sharded Redis filter (scheme 20), as `bloomkit redis pull` writes it: the
// shards' bits side by side; inserted counts the inserts that set a bit.
inline void save_sharded(const golden_vector& v, const std::filesystem::path& out) {
  const auto layout = sharded_layout(v);
  bit_array bits(v.bits);
  file_header h;
  h.kind = filter_kind::classic;
  h.scheme = hash_scheme::redis_sharded_xxh3;
  h.bits = v.bits;
  h.hashes = v.hashes;
  h.capacity = v.capacity;
  h.target_fpp = v.target_fpp;
  h.kind_params[0] = v.shards;
  for (const auto& op : v.operations) h.inserted += insert_sharded(layout, bits, op.key);
  save_raw(h, bits, out);
}

inline void build_golden(const golden_vector& v, const std::filesystem::path& out, insert_path how,
                         bool simd = true) {
  if (v.kind == "classic" && (v.scheme == "xxh3-128" || v.scheme == "splitmix64-128")) {
    auto f = sized<bloom_filter>(v);
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "classic" && v.scheme == "guava-murmur128-mitz-64") {
    auto f = sized<guava::mitz_64_filter>(v);
    apply_operations(f, v, how);
    save(f, out, v.flags != 0 ? key_type::int64 : key_type::string);
  } else if (v.kind == "classic" && v.scheme == "redis-sharded-xxh3") {
    save_sharded(v, out);
  } else if (v.kind == "blocked") {
    auto f = sized<blocked_bloom_filter>(v);
    f.set_simd(simd);
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "counting") {
    auto f = sized<counting_bloom_filter>(v);
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "scalable" && v.scheme == "xxh3-128") {
    scalable_bloom_filter f(v.capacity, v.target_fpp, v.growth, v.tightening, v.memory_ceiling);
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "scalable" && v.scheme == "xxh3-64-split-block") {
    scalable_blocked_bloom_filter f(v.capacity, v.target_fpp, v.growth, v.tightening,
                                    v.memory_ceiling);
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "window" && v.scheme == "xxh3-64-split-block") {
    blocked_window_filter f({v.capacity, v.target_fpp, v.window, window_unit::inserts, v.slices});
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "window" && v.scheme == "xxh3-128") {
    classic_window_filter f({v.capacity, v.target_fpp, v.window, window_unit::inserts, v.slices});
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "window" && v.scheme == "xxh3-128-window-groups") {
    window_filter f({v.capacity, v.target_fpp, v.window, window_unit::inserts, v.slices});
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "cuckoo") {
    auto f = sized<cuckoo_filter>(v);
    apply_operations(f, v, how);
    save(f, out);
  } else if (v.kind == "static") {
    // Built once from the inserted keys (duplicates included), whatever the insert path.
    std::vector<std::string_view> keys;
    for (const auto& op : v.operations) keys.push_back(op.key);
    save(static_filter::build(keys, v.target_fpp), out);
  } else {
    throw std::runtime_error(v.name + ": no golden vectors for " + v.kind + " / " + v.scheme);
  }
}

// The set bits of storage (for counting filters: the non-zero counters, with their counts). Word
// by word, skipping the zero ones: a vector's filter is built and read for every key, and reading
// its millions of bits one at a time was nearly all of the large vectors' tests.
inline std::map<std::uint64_t, std::uint32_t> set_positions(const bit_array& storage,
                                                            unsigned cell_bits = 1) {
  std::map<std::uint64_t, std::uint32_t> out;
  const std::span<const std::uint64_t> words = storage.words();
  const std::uint64_t cell_mask = (std::uint64_t{1} << cell_bits) - 1;  // cells never straddle
  for (std::size_t w = 0; w < words.size(); ++w) {
    for (std::uint64_t word = words[w]; word != 0;) {
      const auto bit = static_cast<unsigned>(std::countr_zero(word)) / cell_bits * cell_bits;
      const std::uint64_t position = std::uint64_t{w} * 64 + bit;
      if (position >= storage.size()) break;
      out[position / cell_bits] = static_cast<std::uint32_t>((word >> bit) & cell_mask);
      word &= ~(cell_mask << bit);
    }
  }
  return out;
}

// The same, for a list of positions in probe order: each position with how often it occurs.
inline std::map<std::uint64_t, std::uint32_t> counted(const std::vector<std::uint64_t>& positions,
                                                      bool counting) {
  std::map<std::uint64_t, std::uint32_t> out;
  for (auto p : positions) out[p] = counting ? out[p] + 1 : 1;
  return out;
}

// What a filter of the vector's kind and size sets for `key` alone (counting: its counters),
// by the library. Scalable: in a classic filter of sub-filter `sub`'s bits and hashes.
inline std::map<std::uint64_t, std::uint32_t> library_positions(const golden_vector& v,
                                                                const std::string& key,
                                                                std::uint64_t sub_bits = 0,
                                                                std::uint32_t sub_hashes = 0) {
  if (v.kind == "classic" && v.scheme == "xxh3-128") {
    bloom_filter f(v.bits, v.hashes);
    f.insert(key);
    return set_positions(f.storage());
  }
  if (v.kind == "classic" && v.scheme == "redis-sharded-xxh3") {
    bit_array bits(v.bits);
    insert_sharded(sharded_layout(v), bits, key);
    return set_positions(bits);
  }
  if (v.kind == "blocked") {
    auto f = blocked_bloom_filter(v.bits);
    f.insert(key);
    return set_positions(f.storage());
  }
  if (v.kind == "counting") {
    counting_bloom_filter f(v.bits, v.hashes);
    f.insert(key);
    return set_positions(f.storage(), 4);
  }
  if (grouped_window(v)) {
    window_filter f({v.capacity, v.target_fpp, v.window, window_unit::inserts, v.slices});
    f.insert(key);
    return set_positions(detail::filter_access::storage(f));
  }
  if (v.kind == "window") {
    auto f = blocked_bloom_filter(v.bits / (v.slices + 1));
    f.insert(key);
    return set_positions(f.storage());
  }
  if (v.kind == "scalable") {
    bloom_filter f(sub_bits, sub_hashes);
    f.insert(key);
    return set_positions(f.storage());
  }
  throw std::runtime_error(v.name + ": no positions for " + v.kind + " / " + v.scheme);
}

}  // namespace bloomkit::test
