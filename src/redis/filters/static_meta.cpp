#include "static_meta.hpp"

#include <cmath>
#include <sstream>

#include "../../core/ceil_div.hpp"
#include "../../core/exact_double.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_meta.hpp"
#include "static_scheme.hpp"
#include "window_meta.hpp"

namespace bloomkit::redis::detail {

namespace {

constexpr std::uint32_t max_fingerprint_bits = 32;
constexpr std::uint32_t max_shard_log2 = 24;
constexpr std::uint32_t max_segment_length = std::uint32_t{1} << 18;

std::string tables_text(const std::vector<static_table>& tables) {
  std::string out;
  for (const static_table& t : tables) {
    if (!out.empty()) out += ' ';
    out += std::to_string(t.seed) + ':' + std::to_string(t.segment_length) + ':' +
           std::to_string(t.segment_count) + ':' + std::to_string(t.keys);
  }
  return out;
}

// "seed:length:count:keys ..." back to tables; false when malformed.
bool parse_tables(const std::string& text, std::vector<static_table>& out) {
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    std::uint64_t v[4] = {};
    std::size_t from = 0;
    for (int i = 0; i < 4; ++i) {
      const std::size_t to = i < 3 ? item.find(':', from) : item.size();
      if (to == std::string::npos || !parse_u64(item.substr(from, to - from), v[i])) return false;
      from = to + 1;
    }
    const std::uint64_t length = v[1];
    const std::uint64_t count = v[2];
    if (length == 0 || length > max_segment_length || (length & (length - 1)) != 0 || count == 0 ||
        count > 0xffffffffu) {
      return false;
    }
    out.push_back(
        {v[0], static_cast<std::uint32_t>(length), static_cast<std::uint32_t>(count), v[3]});
  }
  return true;
}

shard_layout delta_layout(const meta_fields& f, const std::string& prefix) {
  shard_layout l;
  l.shard_bits = f.number((prefix + "delta_bits_per_shard").c_str());
  l.shard_count = f.number((prefix + "delta_shard_count").c_str());
  const std::uint64_t hashes = f.number((prefix + "delta_hashes").c_str());
  if (l.shard_count == 0) return {};
  if (hashes > max_hashes) throw f.corrupt("delta hashes " + std::to_string(hashes));
  l.hashes = static_cast<std::uint32_t>(hashes);
  if (std::string problem = l.inconsistency(); !problem.empty()) {
    throw f.corrupt("delta: " + problem);
  }
  if (!l.has_guard_room()) throw f.corrupt("delta shards of 2^32 bits have no guard bit");
  // 64-bit words, k bits of one word per key (delta_layout).
  if (l.shard_bits % 64 != 0 || l.hashes > max_word_hashes) {
    throw f.corrupt("delta of " + std::to_string(l.shard_bits) + "-bit shards and " +
                    std::to_string(l.hashes) + " hashes is not one of 64-bit words");
  }
  return l;
}

std::vector<std::string> delta_fields(const shard_layout& delta, const std::string& prefix) {
  return {prefix + "delta_bits_per_shard", std::to_string(delta.shard_bits),
          prefix + "delta_shard_count",    std::to_string(delta.shard_count),
          prefix + "delta_hashes",         std::to_string(delta.hashes)};
}

}  // namespace

std::uint64_t static_generation::string_cells(std::uint64_t string) const {
  // The table whose strings include `string`: first_string is sorted.
  std::size_t lo = 0;
  std::size_t hi = tables.size();
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (first_string[mid] <= string) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const std::uint64_t at = (string - first_string[lo]) * fields_per_string;
  const std::uint64_t cells = tables[lo].cells();
  return cells - at < fields_per_string ? cells - at : fields_per_string;
}

std::uint64_t static_generation::static_bits() const noexcept {
  std::uint64_t cells = 0;
  for (const static_table& t : tables) cells += t.cells();
  return cells * fingerprint_bits;
}

std::string static_generation::derive() {
  first_string.clear();
  if (fingerprint_bits < 1 || fingerprint_bits > max_fingerprint_bits) {
    return "fingerprint bits " + std::to_string(fingerprint_bits) + " out of [1, 32]";
  }
  if (shard_log2 > max_shard_log2) return "static shards 2^" + std::to_string(shard_log2);
  if (tables.size() != (std::size_t{1} << shard_log2)) {
    return std::to_string(tables.size()) + " tables for 2^" + std::to_string(shard_log2) +
           " static shards";
  }
  // A string's cells and its guard bit stay below Redis's 2^32-bit limit.
  if (fields_per_string < 1 ||
      fields_per_string > ((std::uint64_t{1} << max_shard_bits_log2) - 8) / fingerprint_bits) {
    return "fields per string " + std::to_string(fields_per_string) + " out of range";
  }
  first_string.reserve(tables.size() + 1);
  std::uint64_t next = delta.shard_count;
  for (const static_table& t : tables) {
    first_string.push_back(next);
    next += bloomkit::detail::ceil_div(t.cells(), fields_per_string);
  }
  first_string.push_back(next);
  return {};
}

std::vector<std::string> generation_fields(const static_generation& g) {
  std::vector<std::string> out = {"fingerprint_bits",
                                  std::to_string(g.fingerprint_bits),
                                  "shard_log2",
                                  std::to_string(g.shard_log2),
                                  "tables",
                                  tables_text(g.tables),
                                  "fields_per_string",
                                  std::to_string(g.fields_per_string),
                                  "keys",
                                  std::to_string(g.keys),
                                  "delta_capacity",
                                  std::to_string(g.delta_capacity),
                                  "delta_fpp",
                                  bloomkit::detail::exact_double(g.delta_fpp)};
  const auto delta = delta_fields(g.delta, "");
  out.insert(out.end(), delta.begin(), delta.end());
  return out;
}

std::vector<std::string> next_delta_fields(const shard_layout& delta) {
  return delta_fields(delta, "next_");
}

std::vector<std::string> static_meta::fields() const {
  std::vector<std::string> out = {"format_version", std::to_string(format_version),
                                  "kind",           static_kind,
                                  "hash_scheme",    std::to_string(static_scheme_number),
                                  "target_fpp",     bloomkit::detail::exact_double(target_fpp),
                                  "shard_bits",     std::to_string(shard_bits),
                                  "generation",     std::to_string(generation),
                                  "created",        std::to_string(created),
                                  "inserted",       std::to_string(inserted),
                                  "shard_guard",    std::to_string(generation)};
  const auto g = generation_fields(current);
  out.insert(out.end(), g.begin(), g.end());
  return out;
}

bool is_static_meta(const std::map<std::string, std::string>& fields) {
  const auto kind = fields.find("kind");
  return kind != fields.end() && kind->second == static_kind;
}

static_meta decode_static_meta(const std::string& name,
                               const std::map<std::string, std::string>& f) {
  const meta_fields fields(name, f);
  if (!is_static_meta(f)) {
    const auto kind = f.find("kind");
    throw error(errc::incompatible, fields.source() + ": a " +
                                        (kind == f.end() ? std::string("native") : kind->second) +
                                        " filter, not a static one");
  }
  const std::uint64_t version = fields.number("format_version");
  if (version != 1) {
    throw error(errc::unsupported, fields.source() + ": format version " + std::to_string(version) +
                                       " is not supported (this build reads version 1)");
  }
  if (fields.number("hash_scheme") != static_scheme_number) {
    throw error(errc::unsupported, fields.source() + ": hash scheme " + fields.text("hash_scheme") +
                                       " is not supported");
  }
  static_meta m;
  const auto fpp = fields.real("target_fpp");
  m.target_fpp = fpp.value_or(0);
  if (!fpp || !std::isfinite(m.target_fpp) || !(m.target_fpp > 0) || !(m.target_fpp < 1)) {
    throw fields.corrupt("target_fpp '" + fields.text("target_fpp") + "' is not in (0, 1)");
  }
  const std::uint64_t shard_bits = fields.number("shard_bits");
  if (shard_bits < min_shard_bits_log2 || shard_bits > max_shard_bits_log2) {
    throw fields.corrupt("shard_bits " + std::to_string(shard_bits) + " out of range");
  }
  m.shard_bits = static_cast<unsigned>(shard_bits);
  m.generation = fields.number("generation");
  if (m.generation < 1) throw fields.corrupt("generation is 0");
  m.created = static_cast<std::int64_t>(fields.number("created"));
  m.inserted = fields.text("inserted").starts_with('-') ? 0 : fields.number("inserted");
  static_generation& g = m.current;
  const std::uint64_t b = fields.number("fingerprint_bits");
  const std::uint64_t s = fields.number("shard_log2");
  g.fingerprint_bits = b > max_fingerprint_bits ? 0 : static_cast<std::uint32_t>(b);
  g.shard_log2 = s > max_shard_log2 ? max_shard_log2 + 1 : static_cast<std::uint32_t>(s);
  if (!parse_tables(fields.text("tables"), g.tables)) {
    throw fields.corrupt("field 'tables' is not a list of seed:segment_length:segment_count:keys");
  }
  g.fields_per_string = fields.number("fields_per_string");
  g.keys = fields.number("keys");
  g.delta_capacity = fields.number("delta_capacity");
  const auto delta_fpp = fields.real("delta_fpp");
  g.delta_fpp = delta_fpp.value_or(-1);
  if (!delta_fpp || !(g.delta_fpp >= 0) || !(g.delta_fpp < 1)) {
    throw fields.corrupt("delta_fpp '" + fields.text("delta_fpp") + "' is not in [0, 1)");
  }
  g.delta = delta_layout(fields, "");
  if (std::string problem = g.derive(); !problem.empty()) throw fields.corrupt(problem);
  if (fields.has("next_generation")) {
    m.next_generation = fields.number("next_generation");
    if (fields.has("next_delta_shard_count")) m.next_delta = delta_layout(fields, "next_");
  }
  return m;
}

std::optional<static_meta> read_static_meta(client& c, const std::string& name) {
  const auto fields = read_meta_fields(c, name);
  if (!fields) return std::nullopt;
  return decode_static_meta(name, *fields);
}

}  // namespace bloomkit::redis::detail
