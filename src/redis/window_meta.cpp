#include "window_meta.hpp"

#include <cmath>
#include <cstdlib>

#include "../exact_double.hpp"
#include "bloomkit/error.hpp"
#include "filter_keys.hpp"
#include "filter_meta.hpp"
#include "reply_errors.hpp"

namespace bloomkit::redis::detail {

std::vector<std::string> window_meta::fields() const {
  return {"format_version", std::to_string(meta_format_version),
          "kind",           window_kind,
          "hash_scheme",    std::to_string(static_cast<std::uint32_t>(sharded_scheme)),
          "window",         std::to_string(config.window),
          "slices",         std::to_string(config.slices),
          "skew",           std::to_string(config.skew),
          "bits_per_shard", std::to_string(layout.shard_bits),
          "shard_count",    std::to_string(layout.shard_count),
          "hashes",         std::to_string(layout.hashes),
          "capacity",       std::to_string(config.capacity),
          "target_fpp",     bloomkit::detail::exact_double(config.target_fpp),
          "created",        std::to_string(created)};
}

void validate_window(const redis_window_config& c) {
  // The in-process window's checks (capacity, fpp, slices, window length), then the skew.
  bloomkit::window_filter::validate(
      {c.capacity, c.target_fpp, c.window, window_unit::seconds, c.slices});
  if (c.skew > redis_window_filter::max_skew) {
    throw error(errc::invalid_argument, "window filter: clock skew of " + std::to_string(c.skew) +
                                            " seconds is more than the most supported, " +
                                            std::to_string(redis_window_filter::max_skew));
  }
}

window_meta window_meta_for(const redis_window_config& c) {
  validate_window(c);
  window_meta m;
  m.config = c;
  const std::uint64_t per_slice = (c.capacity + c.slices - 1) / c.slices;
  m.layout = shard_layout::for_capacity(per_slice, c.target_fpp / (c.slices + 1), c.shard_bits);
  return m;
}

window_meta decode_window_meta(const std::string& name,
                               const std::map<std::string, std::string>& f) {
  const std::string source = "filter '" + name + "': meta " + meta_key(name);
  auto corrupt = [&](const std::string& problem) -> error {
    return error(errc::corrupt_file, source + ": " + problem);
  };
  const auto kind = f.find("kind");
  if (kind == f.end()) {
    throw error(errc::incompatible,
                source + ": a native filter, not a window filter (its meta has no field 'kind')");
  }
  if (kind->second != window_kind) {
    throw error(errc::unsupported, source + ": kind '" + kind->second + "' is not supported");
  }
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
  const std::uint64_t version = number("format_version");
  if (version != meta_format_version) {
    throw error(errc::unsupported, source + ": format version " + std::to_string(version) +
                                       " is not supported (this build reads version " +
                                       std::to_string(meta_format_version) + ")");
  }
  if (number("hash_scheme") != static_cast<std::uint32_t>(sharded_scheme)) {
    throw error(errc::unsupported,
                source + ": hash scheme " + f.at("hash_scheme") + " is not supported");
  }
  window_meta m;
  m.config.window = number("window");
  const std::uint64_t slices = number("slices");
  m.config.slices = slices > bloomkit::window_filter::max_slices
                        ? 0
                        : static_cast<std::uint32_t>(slices);  // 0: refused below
  m.config.skew = number("skew");
  m.config.capacity = number("capacity");
  const auto fpp = f.find("target_fpp");
  if (fpp == f.end()) throw corrupt("field 'target_fpp' is missing");
  char* end = nullptr;
  m.config.target_fpp = std::strtod(fpp->second.c_str(), &end);
  if (end == fpp->second.c_str() || *end != '\0') {
    throw corrupt("target_fpp '" + fpp->second + "' is not a number");
  }
  try {
    validate_window(m.config);
  } catch (const error& e) {
    throw corrupt(e.what());
  }
  m.layout.shard_bits = number("bits_per_shard");
  m.layout.shard_count = number("shard_count");
  const std::uint64_t hashes = number("hashes");
  if (hashes > max_hashes) throw corrupt("hashes " + std::to_string(hashes) + " out of range");
  m.layout.hashes = static_cast<std::uint32_t>(hashes);
  if (const std::string problem = m.layout.inconsistency(); !problem.empty()) {
    throw corrupt(problem);
  }
  m.created = static_cast<std::int64_t>(number("created"));
  return m;
}

std::optional<std::map<std::string, std::string>> read_meta_fields(client& c,
                                                                   const std::string& name) {
  const std::string key = meta_key(name);
  const reply r = c.execute(command{{"HGETALL", key}, 1});
  if (r.is_error() && r.str().rfind("WRONGTYPE", 0) == 0) {
    throw error(errc::wrong_type, "filter '" + name + "': key '" + key +
                                      "' exists but is not a hash (not a bloomkit filter meta)");
  }
  check_reply(r, "filter '" + name + "': HGETALL " + key);
  const auto& e = r.elements();
  if (e.empty()) return std::nullopt;
  std::map<std::string, std::string> f;
  for (std::size_t i = 0; i + 1 < e.size(); i += 2) f[e[i].str()] = e[i + 1].str();
  return f;
}

std::string window_differences(const window_meta& have, const window_meta& want) {
  std::string out;
  auto add = [&](const char* field, const std::string& h, const std::string& w) {
    if (h == w) return;
    if (!out.empty()) out += ", ";
    out += std::string(field) + " " + h + " (asked " + w + ")";
  };
  const auto& a = have.config;
  const auto& b = want.config;
  add("capacity", std::to_string(a.capacity), std::to_string(b.capacity));
  add("target_fpp", bloomkit::detail::exact_double(a.target_fpp),
      bloomkit::detail::exact_double(b.target_fpp));
  add("window", std::to_string(a.window), std::to_string(b.window));
  add("slices", std::to_string(a.slices), std::to_string(b.slices));
  add("skew", std::to_string(a.skew), std::to_string(b.skew));
  add("bits_per_shard", std::to_string(have.layout.shard_bits),
      std::to_string(want.layout.shard_bits));
  add("shard_count", std::to_string(have.layout.shard_count),
      std::to_string(want.layout.shard_count));
  add("hashes", std::to_string(have.layout.hashes), std::to_string(want.layout.hashes));
  return out;
}

}  // namespace bloomkit::redis::detail
