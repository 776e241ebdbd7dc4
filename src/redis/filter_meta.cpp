#include "filter_meta.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "../exact_double.hpp"
#include "bloomkit/error.hpp"
#include "filter_keys.hpp"
#include "reply_errors.hpp"
#include "window_meta.hpp"

namespace bloomkit::redis::detail {

std::vector<std::string> filter_meta::fields() const {
  return {"format_version", std::to_string(format_version),
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
}

void adopt(filter_state& f, const filter_meta& m) {
  f.layout = m.layout;
  f.capacity = m.capacity;
  f.target_fpp = m.target_fpp;
  f.generation = m.generation;
  f.next_generation = m.next_generation;
  f.guard_generation = m.guard_generation;
}

filter_meta meta_for(std::uint64_t capacity, double fpp, unsigned shard_bits) {
  filter_meta m;
  m.layout = shard_layout::for_capacity(capacity, fpp, shard_bits);
  m.guard_generation = m.layout.has_guard_room() ? m.generation : 0;
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

filter_meta decode_meta(const std::string& name, const std::map<std::string, std::string>& f) {
  const std::string source = "filter '" + name + "': meta " + meta_key(name);
  auto corrupt = [&](const std::string& problem) -> error {
    return error(errc::corrupt_file, source + ": " + problem);
  };
  auto number = [&](const char* field) {
    const auto it = f.find(field);
    if (it == f.end()) throw corrupt(std::string("field '") + field + "' is missing");
    std::uint64_t v = 0;
    if (!parse_u64(it->second, v)) {
      throw corrupt(std::string("field '") + field + "' is not a whole number: '" + it->second +
                    "'");
    }
    return v;
  };
  // Other kinds of filter keep their own fields (window_meta.hpp).
  if (const auto kind = f.find("kind"); kind != f.end()) {
    throw error(errc::unsupported, source + ": a " + kind->second +
                                       " filter, not a native one (docs/REDIS.md, \"Window "
                                       "filters\")");
  }
  filter_meta m;
  const std::uint64_t version = number("format_version");
  if (version != meta_format_version) {
    throw error(errc::unsupported, source + ": format version " + std::to_string(version) +
                                       " is not supported (this build reads version " +
                                       std::to_string(meta_format_version) + ")");
  }
  const std::uint64_t scheme = number("hash_scheme");
  if (scheme != static_cast<std::uint32_t>(sharded_scheme)) {
    throw error(errc::unsupported,
                source + ": hash scheme " + std::to_string(scheme) + " is not supported");
  }
  m.layout.shard_bits = number("bits_per_shard");
  m.layout.shard_count = number("shard_count");
  const std::uint64_t hashes = number("hashes");
  if (hashes > max_hashes) throw corrupt("hashes " + std::to_string(hashes) + " out of range");
  m.layout.hashes = static_cast<std::uint32_t>(hashes);
  if (const std::string problem = m.layout.inconsistency(); !problem.empty()) {
    throw corrupt(problem);
  }
  m.capacity = number("capacity");
  if (m.capacity < 1) throw corrupt("capacity is 0");
  const auto fpp = f.find("target_fpp");
  if (fpp == f.end()) throw corrupt("field 'target_fpp' is missing");
  char* end = nullptr;
  m.target_fpp = std::strtod(fpp->second.c_str(), &end);
  if (end == fpp->second.c_str() || *end != '\0' || !std::isfinite(m.target_fpp) ||
      !(m.target_fpp > 0) || !(m.target_fpp < 1)) {
    throw corrupt("target_fpp '" + fpp->second + "' is not in (0, 1)");
  }
  m.generation = number("generation");
  if (m.generation < 1) throw corrupt("generation is 0");
  m.created = static_cast<std::int64_t>(number("created"));
  m.inserted = number("inserted");
  if (f.count("next_generation")) m.next_generation = number("next_generation");
  if (f.count("shard_guard")) m.guard_generation = number("shard_guard");
  if (m.guard_generation != 0 && !m.layout.has_guard_room()) {
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

std::string differences(const filter_meta& have, const filter_meta& want) {
  std::string out;
  auto add = [&](const char* field, const std::string& h, const std::string& w) {
    if (h == w) return;
    if (!out.empty()) out += ", ";
    out += std::string(field) + " " + h + " (asked " + w + ")";
  };
  add("capacity", std::to_string(have.capacity), std::to_string(want.capacity));
  add("target_fpp", bloomkit::detail::exact_double(have.target_fpp),
      bloomkit::detail::exact_double(want.target_fpp));
  add("bits_per_shard", std::to_string(have.layout.shard_bits),
      std::to_string(want.layout.shard_bits));
  add("shard_count", std::to_string(have.layout.shard_count),
      std::to_string(want.layout.shard_count));
  add("hashes", std::to_string(have.layout.hashes), std::to_string(want.layout.hashes));
  return out;
}

}  // namespace bloomkit::redis::detail
