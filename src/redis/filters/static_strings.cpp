#include "static_strings.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include "../client/reply_errors.hpp"
#include "filter_keys.hpp"
#include "filter_meta.hpp"
#include "shard_guard.hpp"
#include "static_layout.hpp"

namespace bloomkit::redis::detail {

namespace {

// Bytes per SETRANGE / GETRANGE, as push and pull of native filters send them (transfer.cpp).
constexpr std::uint64_t table_chunk = std::uint64_t{1} << 20;
// Bytes of cells sent per round trip while writing tables.
constexpr std::uint64_t table_round_trip = std::uint64_t{8} << 20;

// Where static string `string` starts in its table: the table and the byte offset.
struct string_place {
  std::size_t table = 0;
  std::uint64_t first_byte = 0;
  std::uint64_t bits = 0;
};

string_place place_of(const static_generation& g, std::uint64_t string) {
  const auto it = std::upper_bound(g.first_string.begin(), g.first_string.end(), string);
  const auto table = static_cast<std::size_t>(it - g.first_string.begin() - 1);
  const std::uint64_t index = string - g.first_string[table];
  return {table, index * g.fields_per_string * g.fingerprint_bits / 8,
          g.string_cells(string) * g.fingerprint_bits};
}

}  // namespace

shard_layout string_layout(const static_generation& g, std::uint64_t string) {
  if (string < g.delta.shard_count) return {g.delta.shard_bits, 1, g.delta.hashes};
  return {g.string_cells(string) * g.fingerprint_bits, 1, 1};
}

std::uint64_t fields_per_string_for(unsigned shard_bits, std::uint32_t bits) {
  const std::uint64_t limit =
      std::min(std::uint64_t{1} << shard_bits, (std::uint64_t{1} << max_shard_bits_log2) - 8);
  return std::max<std::uint64_t>(8, limit / bits / 8 * 8);
}

error broken_string_error(const filter_state& f, const static_generation& g,
                          const std::string& key) {
  std::uint64_t string = 0;
  const std::size_t colon = key.rfind(':');
  if (colon == std::string::npos || !parse_u64(key.substr(colon + 1), string) ||
      string >= g.strings()) {
    string = 0;
  }
  return broken_shard_error(f.name, key, f.c, string_layout(g, string), true);
}

std::vector<std::string> broken_strings(client& c, const std::string& name,
                                        std::uint64_t generation, const static_generation& g) {
  std::vector<command> cs;
  const auto keys = shard_keys(name, generation, g.strings());
  for (std::uint64_t s = 0; s < keys.size(); ++s) {
    const std::uint64_t guard = string_layout(g, s).guard_bit();
    cs.push_back(command{{"BITFIELD_RO", keys[s], "GET", "u1", std::to_string(guard)}, 1});
  }
  std::vector<std::string> broken;
  for (std::size_t at = 0; at < cs.size(); at += 1000) {
    const std::size_t n = std::min<std::size_t>(1000, cs.size() - at);
    const auto replies = c.execute_many({cs.data() + at, n});
    for (std::size_t i = 0; i < n; ++i) {
      check_reply(replies[i], "BITFIELD_RO " + keys[at + i]);
      const auto& e = replies[i].elements();
      if (e.size() != 1 || e[0].integer() != 1) broken.push_back(keys[at + i]);
    }
  }
  return broken;
}

void write_tables(client& c, const std::string& name, std::uint64_t generation,
                  const static_generation& g, const std::vector<std::vector<unsigned char>>& cells,
                  std::vector<std::string>& created) {
  std::vector<command> cs;
  std::uint64_t pending = 0;
  const auto send = [&] {
    for (const auto& r : c.execute_many(cs)) {
      check_reply(r, "filter '" + name + "': writing its tables");
    }
    cs.clear();
    pending = 0;
  };
  std::vector<unsigned char> bytes;
  for (std::uint64_t s = g.delta.shard_count; s < g.strings(); ++s) {
    const string_place at = place_of(g, s);
    const std::string key = shard_key(name, generation, s);
    created.push_back(key);
    const std::uint64_t n = (at.bits + 7) / 8;
    const std::vector<unsigned char>& table = cells[at.table];
    bytes.assign(table.begin() + static_cast<std::ptrdiff_t>(at.first_byte),
                 table.begin() + static_cast<std::ptrdiff_t>(at.first_byte + n));
    // A table's last byte may hold the first bits of the next string's cells: not this one's.
    if (at.bits % 8 != 0) bytes.back() &= static_cast<unsigned char>((1u << (at.bits % 8)) - 1);
    reverse_bits_in_bytes(bytes);
    // First the string at its full length, zeros and its guard bit: SETRANGE past a string's
    // end would grow it greedily (Redis keeps up to 1 MiB of slack per string). A guard bit in
    // the last byte of the cells is sent with them, or SETRANGE would clear it.
    const std::uint64_t guard = string_guard_bit(at.bits);
    cs.push_back(command{{"BITFIELD", key, "SET", "u1", std::to_string(guard), "1"}, 1});
    if (guard / 8 < n) bytes[guard / 8] |= static_cast<unsigned char>(0x80u >> (guard % 8));
    for (std::uint64_t from = 0; from < n; from += table_chunk) {
      const std::uint64_t len = std::min(table_chunk, n - from);
      const auto* p = bytes.data() + from;
      if (std::all_of(p, p + len, [](unsigned char b) { return b == 0; })) continue;
      cs.push_back(command{{"SETRANGE", key, std::to_string(from),
                            std::string(reinterpret_cast<const char*>(p), len)},
                           1});
      pending += len;
    }
    if (pending >= table_round_trip) send();
  }
  if (!cs.empty()) send();
}

std::vector<std::vector<unsigned char>> read_tables(client& c, const filter_state& f,
                                                    const static_generation& g) {
  std::vector<std::vector<unsigned char>> tables;
  for (const static_table& t : g.tables)
    tables.emplace_back((t.cells() * g.fingerprint_bits + 7) / 8);
  for (std::uint64_t s = g.delta.shard_count; s < g.strings(); ++s) {
    const string_place at = place_of(g, s);
    const std::string key = shard_key(f.name, f.generation, s);
    const std::uint64_t n = (at.bits + 7) / 8;
    std::vector<command> cs;
    for (std::uint64_t from = 0; from < n; from += table_chunk) {
      const std::uint64_t len = std::min(table_chunk, n - from);
      cs.push_back(
          command{{"GETRANGE", key, std::to_string(from), std::to_string(from + len - 1)}, 1});
    }
    const auto replies = c.execute_many(cs);
    std::vector<unsigned char> bytes(n);
    for (std::size_t i = 0; i < replies.size(); ++i) {
      check_reply(replies[i], "GETRANGE " + key);
      const std::string& chunk = replies[i].str();
      const std::uint64_t from = i * table_chunk;
      if (chunk.size() != std::min(table_chunk, n - from)) throw broken_string_error(f, g, key);
      std::memcpy(bytes.data() + from, chunk.data(), chunk.size());
    }
    // The guard bit may share the last byte (Redis order: the cells' bits come first).
    if (at.bits % 8 != 0) bytes.back() &= static_cast<unsigned char>(0xffu << (8 - at.bits % 8));
    reverse_bits_in_bytes(bytes);
    std::vector<unsigned char>& table = tables[at.table];
    // The first byte of a string may be the last of the previous one's: bits are disjoint.
    for (std::uint64_t i = 0; i < n; ++i) table[at.first_byte + i] |= bytes[i];
  }
  return tables;
}

}  // namespace bloomkit::redis::detail
