#include "filter_meta.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "../../core/exact_double.hpp"
#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "filter_keys.hpp"
#include "window_meta.hpp"

namespace bloomkit::redis::detail {

std::vector<std::string> filter_meta::fields() const {
  std::vector<std::string> out = {
      "format_version", std::to_string(format_version),
      "hash_scheme",    std::to_string(static_cast<std::uint32_t>(scheme)),
      "bits_per_shard", std::to_string(layout.shard_bits),
      "shard_count",    std::to_string(layout.shard_count),
      "hashes",         std::to_string(layout.hashes),
      "capacity",       std::to_string(capacity),
      "target_fpp",     bloomkit::detail::exact_double(target_fpp),
      "generation",     std::to_string(generation),
      "created",        std::to_string(created),
      "inserted",       std::to_string(inserted),
      "shard_guard",    std::to_string(guard_generation)};
  // Only counting metas name a kind: a bit filter's meta stays what older builds read, and an
  // older build refuses a counting one instead of reading its counters as bits.
  if (cell_bits != 1) out.insert(out.end(), {"kind", counting_kind});
  return out;
}

void adopt(filter_state& f, const filter_meta& m) {
  f.layout = m.layout;
  f.capacity = m.capacity;
  f.target_fpp = m.target_fpp;
  f.generation = m.generation;
  f.next_generation = m.next_generation;
  f.guard_generation = m.guard_generation;
  f.cell_bits = m.cell_bits;
}

filter_meta meta_for(std::uint64_t capacity, double fpp, unsigned shard_bits,
                     std::uint32_t cell_bits) {
  filter_meta m;
  m.cell_bits = cell_bits;
  const unsigned cell_log2 = cell_bits == 1 ? 0 : 2;
  if (cell_log2 > 0 && shard_bits < min_shard_bits_log2 + cell_log2) {
    throw error(errc::invalid_argument, "shard bits of a counting filter must be at least " +
                                            std::to_string(min_shard_bits_log2 + cell_log2) +
                                            " (2^" + std::to_string(min_shard_bits_log2) +
                                            " 4-bit counters), got " + std::to_string(shard_bits));
  }
  m.layout = shard_layout::for_capacity(capacity, fpp, shard_bits - cell_log2);
  m.guard_generation = m.stored().has_guard_room() ? m.generation : 0;
  m.capacity = capacity;
  m.target_fpp = fpp;
  return m;
}

bool parse_u64(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  out = v;
  return true;
}

meta_fields::meta_fields(const std::string& name, const std::map<std::string, std::string>& fields)
    : source_("filter '" + name + "': meta " + meta_key(name)), fields_(fields) {}

error meta_fields::corrupt(const std::string& problem) const {
  return error(errc::corrupt_file, source_ + ": " + problem);
}

const std::string& meta_fields::text(const char* field) const {
  const auto it = fields_.find(field);
  if (it == fields_.end()) throw corrupt(std::string("field '") + field + "' is missing");
  return it->second;
}

std::uint64_t meta_fields::number(const char* field) const {
  const std::string& t = text(field);
  std::uint64_t v = 0;
  if (!parse_u64(t, v)) {
    throw corrupt(std::string("field '") + field + "' is not a whole number: '" + t + "'");
  }
  return v;
}

std::optional<double> meta_fields::real(const char* field) const {
  const std::string& t = text(field);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::uint32_t meta_fields::check_version_and_scheme(std::uint32_t newest) const {
  const std::uint64_t version = number("format_version");
  if (version < meta_format_version || version > newest) {
    const std::string reads =
        newest == meta_format_version
            ? "version " + std::to_string(newest)
            : "versions " + std::to_string(meta_format_version) + " to " + std::to_string(newest);
    throw error(errc::unsupported, source_ + ": format version " + std::to_string(version) +
                                       " is not supported (this build reads " + reads + ")");
  }
  const std::uint64_t scheme = number("hash_scheme");
  if (scheme != static_cast<std::uint32_t>(sharded_scheme)) {
    throw error(errc::unsupported,
                source_ + ": hash scheme " + std::to_string(scheme) + " is not supported");
  }
  return static_cast<std::uint32_t>(version);
}

shard_layout meta_fields::layout() const {
  shard_layout l;
  l.shard_bits = number("bits_per_shard");
  l.shard_count = number("shard_count");
  const std::uint64_t hashes = number("hashes");
  if (hashes > max_hashes) throw corrupt("hashes " + std::to_string(hashes) + " out of range");
  l.hashes = static_cast<std::uint32_t>(hashes);
  if (const std::string problem = l.inconsistency(); !problem.empty()) throw corrupt(problem);
  return l;
}

filter_meta decode_meta(const std::string& name, const std::map<std::string, std::string>& f) {
  const meta_fields fields(name, f);
  const auto number = [&](const char* field) { return fields.number(field); };
  const auto corrupt = [&](const std::string& problem) { return fields.corrupt(problem); };
  // Other kinds of filter keep their own fields (window_meta.hpp).
  std::uint32_t cell_bits = 1;
  if (const auto kind = f.find("kind"); kind != f.end() && kind->second == counting_kind) {
    cell_bits = counter_bits;
  } else if (kind != f.end()) {
    const std::string section = kind->second == "static" ? "Static filters" : "Window filters";
    throw error(errc::unsupported, fields.source() + ": a " + kind->second +
                                       " filter, not a native one (docs/REDIS.md, \"" + section +
                                       "\")");
  }
  fields.check_version_and_scheme();
  filter_meta m;
  m.cell_bits = cell_bits;
  m.layout = fields.layout();
  if (const std::string problem = m.stored().inconsistency(); !problem.empty()) {
    throw corrupt("counters: " + problem);
  }
  m.capacity = number("capacity");
  if (m.capacity < 1) throw corrupt("capacity is 0");
  const auto fpp = fields.real("target_fpp");
  m.target_fpp = fpp.value_or(0);
  if (!fpp || !std::isfinite(m.target_fpp) || !(m.target_fpp > 0) || !(m.target_fpp < 1)) {
    throw corrupt("target_fpp '" + fields.text("target_fpp") + "' is not in (0, 1)");
  }
  m.generation = number("generation");
  if (m.generation < 1) throw corrupt("generation is 0");
  m.created = static_cast<std::int64_t>(number("created"));
  // Removes from a counting filter decrement it; more removes than counted inserts (a pushed
  // file's count, a lost count) take it below 0, which reads as 0.
  m.inserted = fields.text("inserted").starts_with('-') ? 0 : number("inserted");
  if (fields.has("next_generation")) m.next_generation = number("next_generation");
  if (fields.has("shard_guard")) m.guard_generation = number("shard_guard");
  if (m.guard_generation != 0 && !m.stored().has_guard_room()) {
    throw corrupt("shards of 2^32 bits have no room for a guard bit");
  }
  return m;
}

std::optional<filter_meta> read_meta(client& c, const std::string& name) {
  const auto fields = read_meta_fields(c, name);
  if (!fields) return std::nullopt;
  return decode_meta(name, *fields);
}

filter_meta require_meta(client& c, const std::string& name) {
  auto m = read_meta(c, name);
  if (!m) {
    throw error(errc::not_found,
                "filter '" + name + "' does not exist (no key '" + meta_key(name) + "')");
  }
  return *m;
}

void difference_list::add(const char* field, const std::string& have, const std::string& want) {
  if (have == want) return;
  if (!out_.empty()) out_ += ", ";
  out_ += std::string(field) + " " + have + " (asked " + want + ")";
}
void difference_list::add(const char* field, std::uint64_t have, std::uint64_t want) {
  add(field, std::to_string(have), std::to_string(want));
}
void difference_list::add(const char* field, double have, double want) {
  add(field, bloomkit::detail::exact_double(have), bloomkit::detail::exact_double(want));
}
void difference_list::add_layout(const shard_layout& have, const shard_layout& want) {
  add("bits_per_shard", have.shard_bits, want.shard_bits);
  add("shard_count", have.shard_count, want.shard_count);
  add("hashes", std::uint64_t{have.hashes}, std::uint64_t{want.hashes});
}

std::string differences(const filter_meta& have, const filter_meta& want) {
  difference_list d;
  const auto kind = [](const filter_meta& m) { return m.cell_bits == 1 ? "bit" : counting_kind; };
  d.add("kind", kind(have), kind(want));
  d.add("capacity", have.capacity, want.capacity);
  d.add("target_fpp", have.target_fpp, want.target_fpp);
  d.add_layout(have.layout, want.layout);
  return d.text();
}

}  // namespace bloomkit::redis::detail
