#include "window_meta.hpp"

#include <cmath>
#include <cstdlib>

#include "../../core/ceil_div.hpp"
#include "../../core/exact_double.hpp"
#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_keys.hpp"
#include "filter_meta.hpp"

namespace bloomkit::redis::detail {

std::vector<std::string> window_meta::fields() const {
  const bool words = config.slice_format == window_slice_format::words;
  std::vector<std::string> out{
      "format_version", std::to_string(words ? window_words_format_version : meta_format_version),
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
  if (words) out.insert(out.end(), {"word_bits", std::to_string(redis_window_word_bits)});
  return out;
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
  const std::uint64_t per_slice = bloomkit::detail::ceil_div(c.capacity, c.slices);
  const double p = c.target_fpp / (c.slices + 1);
  if (c.slice_format == window_slice_format::bits) {
    m.layout = shard_layout::for_capacity(per_slice, p, c.shard_bits);
    return m;
  }
  // Whole words per shard (for_bits cuts at multiples of 64), at least the sized words: more
  // words only lower the FPP.
  const word_filter_params w = word_filter_sizing(redis_window_word_bits, per_slice, p);
  m.layout = shard_layout::for_bits(w.words * redis_window_word_bits, w.hashes, c.shard_bits);
  return m;
}

window_meta decode_window_meta(const std::string& name,
                               const std::map<std::string, std::string>& f) {
  const meta_fields fields(name, f);
  const auto number = [&](const char* field) { return fields.number(field); };
  const auto corrupt = [&](const std::string& problem) { return fields.corrupt(problem); };
  const auto kind = f.find("kind");
  if (kind == f.end()) {
    throw error(errc::incompatible, fields.source() +
                                        ": a native filter, not a window filter (its meta has no "
                                        "field 'kind')");
  }
  if (kind->second != window_kind) {
    throw error(errc::unsupported,
                fields.source() + ": kind '" + kind->second + "' is not supported");
  }
  const std::uint32_t version = fields.check_version_and_scheme(window_words_format_version);
  window_meta m;
  m.config.slice_format = version == window_words_format_version ? window_slice_format::words
                                                                 : window_slice_format::bits;
  m.config.window = number("window");
  const std::uint64_t slices = number("slices");
  m.config.slices = slices > bloomkit::window_filter::max_slices
                        ? 0
                        : static_cast<std::uint32_t>(slices);  // 0: refused below
  m.config.skew = number("skew");
  m.config.capacity = number("capacity");
  const auto fpp = fields.real("target_fpp");
  if (!fpp) throw corrupt("target_fpp '" + fields.text("target_fpp") + "' is not a number");
  m.config.target_fpp = *fpp;
  try {
    validate_window(m.config);
  } catch (const error& e) {
    throw corrupt(e.what());
  }
  m.layout = fields.layout();
  if (m.config.slice_format == window_slice_format::words) {
    const std::string word_bits = fields.text("word_bits");
    if (word_bits != std::to_string(redis_window_word_bits)) {
      throw error(errc::unsupported, fields.source() + ": words of " + word_bits +
                                         " bits are not supported (this build reads 64)");
    }
    if (m.layout.shard_bits % redis_window_word_bits != 0) {
      throw corrupt("bits per shard " + std::to_string(m.layout.shard_bits) +
                    " is not a whole number of 64-bit words");
    }
    if (m.layout.hashes > max_word_hashes) {
      throw corrupt("hashes " + std::to_string(m.layout.hashes) + " out of [1, " +
                    std::to_string(max_word_hashes) + "] for words");
    }
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
  const auto& a = have.config;
  const auto& b = want.config;
  difference_list d;
  d.add("capacity", a.capacity, b.capacity);
  d.add("target_fpp", a.target_fpp, b.target_fpp);
  d.add("window", std::uint64_t{a.window}, std::uint64_t{b.window});
  d.add("slices", std::uint64_t{a.slices}, std::uint64_t{b.slices});
  d.add("skew", std::uint64_t{a.skew}, std::uint64_t{b.skew});
  d.add_layout(have.layout, want.layout);
  return d.text();
}

}  // namespace bloomkit::redis::detail
