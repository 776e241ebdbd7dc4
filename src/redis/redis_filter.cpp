#include "bloomkit/redis/redis_filter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../exact_double.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/redis/eviction.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_keys.hpp"
#include "reply_errors.hpp"
#include "shard_guard.hpp"
#include "sharded_file.hpp"

namespace bloomkit::redis {

namespace {

// Bytes per GETRANGE / SETRANGE of push and pull: large enough to amortise a round trip, small
// enough not to hold Redis for more than about a millisecond.
constexpr std::uint64_t transfer_chunk = std::uint64_t{1} << 20;

// Creates the meta only if it does not exist: two clients creating the same filter at once
// cannot overwrite each other's meta (the loser compares parameters instead).
constexpr const char* create_meta_script =
    "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end "
    "redis.call('HSET', KEYS[1], unpack(ARGV)) return 1";
// The rebuild's flip: one atomic step from generation g to the rebuilt one.
constexpr const char* flip_script =
    "if redis.call('HGET', KEYS[1], 'next_generation') ~= ARGV[1] then return 0 end "
    "redis.call('HSET', KEYS[1], 'generation', ARGV[1], 'inserted', ARGV[2], "
    "'shard_guard', ARGV[3]) "
    "redis.call('HDEL', KEYS[1], 'next_generation') return 1";

using detail::meta_key;
using detail::shard_key;

command make_command(std::vector<std::string> args, std::size_t key_index = 1) {
  return command{std::move(args), key_index};
}

command eval_command(const char* script, const std::string& key, std::vector<std::string> argv) {
  std::vector<std::string> args = {"EVAL", script, "1", key};
  for (auto& a : argv) args.push_back(std::move(a));
  return make_command(std::move(args), 3);
}

using detail::check_reply;

std::int64_t as_integer(const reply& r, const std::string& what) {
  check_reply(r, what);
  if (r.type() != reply::kind::integer) {
    throw error(errc::server_error, what + ": unexpected reply " + r.to_string());
  }
  return r.integer();
}

// Removes keys, best effort: used to undo a failed create or rebuild, where the original error
// is what the caller must see.
void unlink_quietly(client& c, const std::vector<std::string>& keys) noexcept {
  try {
    std::vector<command> cs;
    for (const auto& k : keys) cs.push_back(make_command({"UNLINK", k}));
    if (!cs.empty()) c.execute_many(cs);
  } catch (...) {
  }
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

}  // namespace

// The meta hash, decoded and validated.
struct redis_filter::meta {
  std::uint32_t format_version = meta_format_version;
  hash_scheme scheme = hash_scheme::redis_sharded_xxh3;
  shard_layout layout;
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t generation = 1;
  std::uint64_t next_generation = 0;
  std::int64_t created = 0;
  std::uint64_t inserted = 0;
  // The generation whose shards carry a guard bit (shard_layout::guard_bit), 0 for none.
  // Filters made before guards, shards of 2^32 bits, and a generation an older bloomkit rebuilt
  // have none: their shards are checked by length instead.
  std::uint64_t guard_generation = 0;

  bool guarded() const noexcept { return guard_generation != 0 && guard_generation == generation; }

  std::vector<std::string> fields() const {
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
};

// The batch engine and the meta codec, with access to redis_filter's members.
struct filter_ops {
  using meta = redis_filter::meta;

  // The meta a filter of these parameters has (created left 0).
  static meta meta_for(std::uint64_t capacity, double fpp, unsigned shard_bits) {
    meta m;
    m.layout = shard_layout::for_capacity(capacity, fpp, shard_bits);
    m.guard_generation = m.layout.has_guard_room() ? m.generation : 0;
    m.capacity = capacity;
    m.target_fpp = fpp;
    return m;
  }

  // Reads N:meta: nullopt when it does not exist. Throws wrong_type, unsupported, incompatible.
  static std::optional<meta> read_meta(client& c, const std::string& name) {
    const std::string key = meta_key(name);
    const reply r = c.execute(make_command({"HGETALL", key}));
    if (r.is_error() && r.str().rfind("WRONGTYPE", 0) == 0) {
      throw error(errc::wrong_type, "filter '" + name + "': key '" + key +
                                        "' exists but is not a hash (not a bloomkit filter meta)");
    }
    check_reply(r, "filter '" + name + "': HGETALL " + key);
    const auto& e = r.elements();
    if (e.empty()) return std::nullopt;
    std::map<std::string, std::string> f;
    for (std::size_t i = 0; i + 1 < e.size(); i += 2) f[e[i].str()] = e[i + 1].str();
    return decode_meta(name, f);
  }

  static meta decode_meta(const std::string& name, const std::map<std::string, std::string>& f) {
    const std::string source = "filter '" + name + "': meta " + meta_key(name);
    auto bad = [&](const std::string& problem) -> error {
      return error(errc::incompatible, source + ": " + problem);
    };
    auto number = [&](const char* field) {
      const auto it = f.find(field);
      if (it == f.end()) throw bad(std::string("field '") + field + "' is missing");
      std::uint64_t v = 0;
      if (!parse_u64(it->second, v)) {
        throw bad(std::string("field '") + field + "' is not a whole number: '" + it->second + "'");
      }
      return v;
    };
    meta m;
    const std::uint64_t version = number("format_version");
    if (version != meta_format_version) {
      throw error(errc::unsupported, source + ": format version " + std::to_string(version) +
                                         " is not supported (this build reads version " +
                                         std::to_string(meta_format_version) + ")");
    }
    const std::uint64_t scheme = number("hash_scheme");
    if (scheme != static_cast<std::uint32_t>(hash_scheme::redis_sharded_xxh3)) {
      throw error(errc::unsupported,
                  source + ": hash scheme " + std::to_string(scheme) + " is not supported");
    }
    m.layout.shard_bits = number("bits_per_shard");
    m.layout.shard_count = number("shard_count");
    const std::uint64_t hashes = number("hashes");
    if (hashes > max_hashes) throw bad("hashes " + std::to_string(hashes) + " out of range");
    m.layout.hashes = static_cast<std::uint32_t>(hashes);
    if (const std::string problem = m.layout.inconsistency(); !problem.empty()) throw bad(problem);
    m.capacity = number("capacity");
    if (m.capacity < 1) throw bad("capacity is 0");
    const auto fpp = f.find("target_fpp");
    if (fpp == f.end()) throw bad("field 'target_fpp' is missing");
    char* end = nullptr;
    m.target_fpp = std::strtod(fpp->second.c_str(), &end);
    if (end == fpp->second.c_str() || *end != '\0' || !std::isfinite(m.target_fpp) ||
        !(m.target_fpp > 0) || !(m.target_fpp < 1)) {
      throw bad("target_fpp '" + fpp->second + "' is not in (0, 1)");
    }
    m.generation = number("generation");
    if (m.generation < 1) throw bad("generation is 0");
    m.created = static_cast<std::int64_t>(number("created"));
    m.inserted = number("inserted");
    if (f.count("next_generation")) m.next_generation = number("next_generation");
    if (f.count("shard_guard")) m.guard_generation = number("shard_guard");
    if (m.guard_generation != 0 && !m.layout.has_guard_room()) {
      throw bad("shards of 2^32 bits have no room for a guard bit");
    }
    return m;
  }

  // "capacity 1000 (asked 2000), hashes 7 (asked 10)": what differs between two metas.
  static std::string differences(const meta& have, const meta& want) {
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

  // Fails with already_exists naming the first of `keys` that exists. Writes nothing.
  static void require_absent(client& c, const std::string& name,
                             const std::vector<std::string>& keys) {
    std::vector<command> cs;
    for (const auto& k : keys) cs.push_back(make_command({"EXISTS", k}));
    const auto replies = c.execute_many(cs);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (as_integer(replies[i], "EXISTS " + keys[i]) != 0) {
        throw error(errc::already_exists,
                    "filter '" + name + "': key '" + keys[i] + "' exists but " + meta_key(name) +
                        " does not (left by an interrupted create, or another create is "
                        "running); `bloomkit redis drop " +
                        name + "` (redis_filter::drop) removes every key of the name");
      }
    }
  }

  // Preallocates shard strings one at a time (detail::preallocate_command: full length, zero
  // bits, the guard bit set), harmless even on a shard another client already uses. `created`
  // gets every key this call may have allocated.
  static void preallocate(client& c, const std::vector<std::string>& keys,
                          const shard_layout& layout, bool guarded,
                          std::vector<std::string>& created) {
    for (const auto& key : keys) {
      created.push_back(key);
      const reply r = c.execute(detail::preallocate_command(key, layout, guarded));
      check_reply(r, "preallocating shard '" + key + "'");
    }
  }

  // Throws broken_shard_error for the first of `keys` that is missing or short.
  static void require_whole(client& c, const std::string& name,
                            const std::vector<std::string>& keys, const shard_layout& layout,
                            bool guarded) {
    const auto broken = detail::broken_shards(c, keys, layout, guarded);
    if (!broken.empty()) {
      throw detail::broken_shard_error(name, broken.front(), &c, layout, guarded);
    }
  }

  // create / push: preallocate generation 1, fill it (push), then write the meta last.
  // Returns the meta now in Redis (ours, or an identical one a concurrent create wrote).
  static meta create_with(client& c, const std::string& name, const meta& want,
                          const std::function<void(const std::vector<std::string>&)>& fill) {
    if (const auto have = read_meta(c, name)) {
      const std::string diff = differences(*have, want);
      if (diff.empty() && !fill) return *have;
      throw error(errc::already_exists,
                  "filter '" + name + "' already exists" +
                      (diff.empty() ? std::string() : " with other parameters: " + diff));
    }
    const auto keys = detail::shard_keys(name, 1, want.layout.shard_count);
    require_absent(c, name, keys);
    std::vector<std::string> created;
    try {
      preallocate(c, keys, want.layout, want.guarded(), created);
      if (fill) fill(keys);
      // A shard evicted or deleted meanwhile (and maybe recreated short by a push's SETRANGE):
      // fail now rather than make a filter that cannot answer.
      require_whole(c, name, keys, want.layout, want.guarded());
      const reply r = c.execute(eval_command(create_meta_script, meta_key(name), want.fields()));
      if (as_integer(r, "writing " + meta_key(name)) == 1) return want;
    } catch (...) {
      unlink_quietly(c, created);
      throw;
    }
    // Another client created the filter between our check and our meta write.
    const auto have = read_meta(c, name);
    if (have && differences(*have, want).empty() && !fill) return *have;
    // Undo only the shards the winner does not use.
    const std::uint64_t theirs = have ? have->layout.shard_count : 0;
    unlink_quietly(c, std::vector<std::string>(
                          keys.begin() + static_cast<std::ptrdiff_t>(
                                             std::min<std::uint64_t>(theirs, keys.size())),
                          keys.end()));
    throw error(errc::already_exists,
                "filter '" + name + "' was created by another client" +
                    (have ? " with other parameters: " + differences(*have, want) : std::string()));
  }

  static meta require_meta(client& c, const std::string& name) {
    auto m = read_meta(c, name);
    if (!m) {
      throw error(errc::not_found,
                  "filter '" + name + "' does not exist (no key '" + meta_key(name) + "')");
    }
    return *m;
  }

  // ---- batches ----

  struct plan {
    std::uint32_t k = 0;
    std::vector<std::uint64_t> offsets;  // k per key, in key order
    std::vector<std::uint32_t> order;    // key indices sorted by shard
    struct group {
      std::uint64_t shard;
      std::size_t begin, end;  // range of `order`
    };
    std::vector<group> groups;  // one BITFIELD each
  };

  static plan make_plan(const redis_filter& f, std::span<const std::string_view> keys) {
    plan p;
    const shard_layout& layout = f.layout_;
    p.k = layout.hashes;
    p.offsets.resize(keys.size() * p.k);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> by_shard(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const digest128 d = xxh3_128(keys[i]);
      layout.offsets(d, p.offsets.data() + i * p.k);
      by_shard[i] = {layout.shard_of(d), static_cast<std::uint32_t>(i)};
    }
    if (layout.shard_count > 1) std::sort(by_shard.begin(), by_shard.end());
    p.order.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) p.order[i] = by_shard[i].second;
    const std::size_t per_command = std::max<std::size_t>(1, f.options_.keys_per_command);
    std::size_t i = 0;
    while (i < keys.size()) {
      std::size_t j = i + 1;
      while (j < keys.size() && j - i < per_command && by_shard[j].first == by_shard[i].first) ++j;
      p.groups.push_back({by_shard[i].first, i, j});
      i = j;
    }
    return p;
  }

  // One generation's commands for a plan: a BITFIELD (write) or BITFIELD_RO per group, whose
  // first operation reads the shard's guard bit (GET u1 <guard>: 0 for a missing or short shard,
  // and for one the write itself just created); for a filter without guards, a STRLEN per shard
  // touched instead, before a write (which would grow a short shard) and after a read.
  // Where a batch's commands are in the round trip's command list.
  struct batch {
    bool guarded = false;
    std::size_t checks_begin = 0, checks_end = 0;  // the STRLENs
    std::size_t bitfields_begin = 0;               // p.groups.size() BITFIELDs from here
  };

  static batch make_batch(const redis_filter& f, const plan& p, std::uint64_t generation,
                          bool write, std::vector<command>& cs) {
    batch b;
    b.guarded = generation != 0 && generation == f.guard_generation_;
    cs.reserve(cs.size() + p.groups.size() + (b.guarded ? 0 : p.groups.size()));
    auto add_checks = [&] {
      b.checks_begin = cs.size();
      for (std::size_t g = 0; !b.guarded && g < p.groups.size(); ++g) {
        if (g > 0 && p.groups[g].shard == p.groups[g - 1].shard) continue;
        cs.push_back(make_command({"STRLEN", shard_key(f.name_, generation, p.groups[g].shard)}));
      }
      b.checks_end = cs.size();
    };
    if (write) add_checks();
    b.bitfields_begin = cs.size();
    const std::string guard_bit = std::to_string(f.layout_.guard_bit());
    for (const auto& g : p.groups) {
      command c;
      c.args.reserve(5 + (g.end - g.begin) * p.k * (write ? 4 : 3));
      c.args.emplace_back(write ? "BITFIELD" : "BITFIELD_RO");
      c.args.push_back(shard_key(f.name_, generation, g.shard));
      if (b.guarded) c.args.insert(c.args.end(), {"GET", "u1", guard_bit});
      for (std::size_t o = g.begin; o < g.end; ++o) {
        const std::uint64_t* off = p.offsets.data() + std::size_t{p.order[o]} * p.k;
        for (std::uint32_t i = 0; i < p.k; ++i) {
          c.args.emplace_back(write ? "SET" : "GET");
          c.args.emplace_back("u1");
          c.args.push_back(std::to_string(off[i]));
          if (write) c.args.emplace_back("1");
        }
      }
      cs.push_back(std::move(c));
    }
    if (!write) add_checks();
    return b;
  }

  // Decodes a batch's replies: out[key] = some old bit was 0 (write: new) / every bit is 1
  // (read: present). `broken` gets the shards found missing or short; their keys answer false.
  static void decode(const redis_filter& f, const plan& p, const batch& b,
                     std::span<const command> cs, std::span<const reply> replies, bool write,
                     std::vector<char>& out, std::vector<std::string>& broken) {
    out.assign(p.order.size(), 0);
    const std::size_t first = broken.size();
    for (std::size_t i = b.checks_begin; i < b.checks_end; ++i) {
      const std::string& key = cs[i].args[1];
      const auto length = as_integer(replies[i], "STRLEN " + key);
      if (static_cast<std::uint64_t>(length) < f.layout_.shard_bytes()) broken.push_back(key);
    }
    const std::size_t skip = b.guarded ? 1 : 0;
    for (std::size_t g = 0; g < p.groups.size(); ++g) {
      const reply& r = replies[b.bitfields_begin + g];
      const std::string& key = cs[b.bitfields_begin + g].args[1];
      check_reply(r, std::string(write ? "BITFIELD " : "BITFIELD_RO ") + key);
      const auto& bits = r.elements();
      const auto& grp = p.groups[g];
      if (bits.size() != skip + (grp.end - grp.begin) * p.k) {
        throw error(errc::server_error,
                    "BITFIELD " + key + ": " + std::to_string(bits.size()) + " values for " +
                        std::to_string(skip + (grp.end - grp.begin) * p.k) + " fields");
      }
      if (b.guarded && bits[0].integer() == 0) {
        if (broken.size() == first || broken.back() != key) broken.push_back(key);
        continue;
      }
      if (std::find(broken.begin() + static_cast<std::ptrdiff_t>(first), broken.end(), key) !=
          broken.end()) {
        continue;
      }
      std::size_t at = skip;
      for (std::size_t o = grp.begin; o < grp.end; ++o) {
        bool zero_seen = false;
        for (std::uint32_t i = 0; i < p.k; ++i) zero_seen |= bits[at++].integer() == 0;
        out[p.order[o]] = write ? zero_seen : !zero_seen;
      }
    }
  }

  struct meta_view {
    bool exists = false;
    bool changed = false;  // generation, next_generation or shard_guard differ from the handle's
  };

  // Runs `cs`, then sends the count of new keys still pending (HINCRBY N:meta inserted) and
  // re-reads the meta's generation (HMGET): in the same pipeline on a single server, where they
  // execute after `cs`; right after `cs` on a cluster. Updates f's view of the meta and returns
  // the replies of `cs`. A count sent to a filter dropped meanwhile made a stray N:meta of that
  // one field: it is removed.
  static std::vector<reply> run_checked(redis_filter& f, std::vector<command>& cs,
                                        meta_view& view) {
    client& c = *f.client_;
    const std::string key = meta_key(f.name_);
    const std::uint64_t count = f.pending_count_;
    std::vector<command> tail;
    if (count > 0) {
      tail.push_back(make_command({"HINCRBY", key, "inserted", std::to_string(count)}));
    }
    tail.push_back(make_command({"HMGET", key, "generation", "next_generation", "shard_guard"}));
    std::vector<reply> replies;
    std::vector<reply> tail_replies;
    if (!c.is_cluster()) {
      const std::size_t n = cs.size();
      cs.insert(cs.end(), tail.begin(), tail.end());
      try {
        replies = c.execute_many(cs);
      } catch (...) {
        cs.resize(n);
        throw;
      }
      cs.resize(n);
      tail_replies.assign(std::make_move_iterator(replies.begin() + static_cast<std::ptrdiff_t>(n)),
                          std::make_move_iterator(replies.end()));
      replies.resize(n);
    } else {
      if (!cs.empty()) replies = c.execute_many(cs);
      tail_replies = c.execute_many(tail);
    }
    bool counted = false;
    if (count > 0) {
      f.pending_count_ -= count;
      const reply& r = tail_replies.front();
      counted = !r.is_error();
      if (!counted) {
        // Not an error of the call: its keys are in. inserted is now too low; say so.
        f.uncounted_ += count;
        f.count_refusal_ = "HINCRBY " + key + ": " + r.str();
      }
    }
    const reply& r = tail_replies.back();
    check_reply(r, "filter '" + f.name_ + "': HMGET " + key);
    const auto& e = r.elements();
    std::uint64_t generation = 0;
    view.exists = e.size() == 3 && !e[0].is_nil() && parse_u64(e[0].str(), generation);
    if (!view.exists) {
      if (counted) detail::remove_stray_meta(c, key);
      return replies;
    }
    std::uint64_t next = 0;
    if (!e[1].is_nil() && !parse_u64(e[1].str(), next)) next = 0;
    std::uint64_t guarded = 0;
    if (!e[2].is_nil() && !parse_u64(e[2].str(), guarded)) guarded = 0;
    view.changed =
        generation != f.generation_ || next != f.next_generation_ || guarded != f.guard_generation_;
    f.generation_ = generation;
    f.next_generation_ = next;
    f.guard_generation_ = guarded;
    return replies;
  }

  static error gone(const redis_filter& f) {
    return error(errc::not_found,
                 "filter '" + f.name_ + "' no longer exists (no key '" + meta_key(f.name_) + "')");
  }

  // The error for shard `key` that a write found missing (after removing what the write
  // created: `cleanup` says what could not be removed).
  static error broken_write(const redis_filter& f, const std::string& key, bool guarded,
                            const std::string& cleanup) {
    const error e = detail::broken_shard_error(f.name_, key, nullptr, f.layout_, guarded);
    if (cleanup.empty()) return e;
    return error(e.code(), std::string(e.what()) + " (" + cleanup + "; `bloomkit redis drop " +
                               f.name_ + "` removes it)");
  }

  // Writes keys to every generation a writer must reach (the current one, and the one a
  // rebuild is filling); out[key] = new in the current generation. A shard that the write found
  // missing is removed again (the write created it) and, in the current generation, is
  // errc::not_found; in a rebuild's generation it fails the rebuild, not this write.
  static std::size_t write(redis_filter& f, std::span<const std::string_view> keys,
                           std::vector<char>& out) {
    if (keys.empty()) return 0;
    const plan p = make_plan(f, keys);
    std::map<std::uint64_t, std::vector<char>> written;  // generation -> its answers
    for (int attempt = 0;; ++attempt) {
      std::vector<std::uint64_t> targets;
      for (std::uint64_t g : {f.generation_, f.next_generation_}) {
        if (g != 0 && !written.count(g)) targets.push_back(g);
      }
      std::vector<batch> batches;
      std::vector<command> cs;
      for (std::uint64_t g : targets) batches.push_back(make_batch(f, p, g, true, cs));
      meta_view view;
      const auto replies = run_checked(f, cs, view);
      std::vector<std::vector<std::string>> broken(targets.size());
      std::vector<std::string> orphans;
      for (std::size_t t = 0; t < targets.size(); ++t) {
        decode(f, p, batches[t], cs, replies, true, written[targets[t]], broken[t]);
        orphans.insert(orphans.end(), broken[t].begin(), broken[t].end());
      }
      const bool guarded = !batches.empty() && batches.front().guarded;
      const std::string cleanup =
          detail::remove_orphan_shards(*f.client_, orphans, f.layout_, guarded);
      if (!view.exists) throw gone(f);
      for (std::size_t t = 0; t < targets.size(); ++t) {
        if (targets[t] == f.generation_ && !broken[t].empty()) {
          throw broken_write(f, broken[t].front(), guarded, cleanup);
        }
      }
      const bool complete = written.count(f.generation_) &&
                            (f.next_generation_ == 0 || written.count(f.next_generation_));
      if (!view.changed || complete) break;
      if (attempt > 8) {
        throw error(errc::server_error,
                    "filter '" + f.name_ + "': its generation keeps changing during a write");
      }
    }
    out = written[f.generation_];
    std::size_t fresh = 0;
    for (char x : out) fresh += x;
    f.pending_count_ += fresh;  // sent with the next call (run_checked) or flush()
    wait_for_replicas(f);
    return fresh;
  }

  // A rebuild's fill: writes keys into `generation` only; returns the number of new ones.
  static std::size_t write_into(redis_filter& f, std::span<const std::string_view> keys,
                                std::uint64_t generation) {
    const plan p = make_plan(f, keys);
    std::vector<command> cs;
    const batch b = make_batch(f, p, generation, true, cs);
    const auto replies = f.client_->execute_many(cs);
    std::vector<char> out;
    std::vector<std::string> broken;
    decode(f, p, b, cs, replies, true, out, broken);
    if (!broken.empty()) {
      const std::string cleanup =
          detail::remove_orphan_shards(*f.client_, broken, f.layout_, b.guarded);
      throw broken_write(f, broken.front(), b.guarded, cleanup);
    }
    std::size_t fresh = 0;
    for (char x : out) fresh += x;
    return fresh;
  }

  static void wait_for_replicas(redis_filter& f) {
    if (f.options_.wait_replicas <= 0) return;
    const long long acked =
        f.client_->wait_replicas(f.options_.wait_replicas, f.options_.wait_timeout);
    if (acked < f.options_.wait_replicas) {
      throw error(errc::timeout, "filter '" + f.name_ + "': only " + std::to_string(acked) +
                                     " of " + std::to_string(f.options_.wait_replicas) +
                                     " replicas acknowledged the write within " +
                                     std::to_string(f.options_.wait_timeout.count()) + " ms");
    }
  }

  // Sends the pending count now (a round trip with only the count and the meta check).
  static void flush(redis_filter& f) {
    if (f.pending_count_ == 0) return;
    std::vector<command> none;
    meta_view view;
    run_checked(f, none, view);
    if (!view.exists) throw gone(f);
  }

  static std::size_t read(redis_filter& f, std::span<const std::string_view> keys,
                          std::vector<char>& out) {
    if (keys.empty()) return 0;
    const plan p = make_plan(f, keys);
    for (int attempt = 0;; ++attempt) {
      const std::uint64_t generation = f.generation_;
      std::vector<command> cs;
      const batch b = make_batch(f, p, generation, false, cs);
      meta_view view;
      const auto replies = run_checked(f, cs, view);
      if (!view.exists) throw gone(f);
      // Answers from the generation current when the meta was read are good; after a flip the
      // old one may already be expired, so read again from the new one.
      if (generation == f.generation_) {
        std::vector<std::string> broken;
        decode(f, p, b, cs, replies, false, out, broken);
        if (!broken.empty()) {
          throw detail::broken_shard_error(f.name_, broken.front(), f.client_, f.layout_,
                                           b.guarded);
        }
        break;
      }
      if (attempt > 8) {
        throw error(errc::server_error,
                    "filter '" + f.name_ + "': its generation keeps changing during a read");
      }
    }
    std::size_t present = 0;
    for (char x : out) present += x;
    return present;
  }
};

redis_filter::redis_filter(client& c, std::string name, const meta& m, filter_options options)
    : client_(&c),
      name_(std::move(name)),
      layout_(m.layout),
      capacity_(m.capacity),
      target_fpp_(m.target_fpp),
      generation_(m.generation),
      next_generation_(m.next_generation),
      guard_generation_(m.guard_generation),
      options_(options) {}

namespace {

void validate_name(const std::string& name) {
  if (name.empty()) throw error(errc::invalid_argument, "a filter name must not be empty");
}

}  // namespace

redis_filter redis_filter::create(client& c, std::string name, std::uint64_t capacity, double fpp,
                                  unsigned shard_bits, filter_options options) {
  validate_name(name);
  meta want = filter_ops::meta_for(capacity, fpp, shard_bits);
  want.created = static_cast<std::int64_t>(std::time(nullptr));
  const meta m = filter_ops::create_with(c, name, want, nullptr);
  return redis_filter(c, std::move(name), m, options);
}

redis_filter redis_filter::open(client& c, std::string name, filter_options options) {
  validate_name(name);
  const meta m = filter_ops::require_meta(c, name);
  return redis_filter(c, std::move(name), m, options);
}

redis_filter redis_filter::open(client& c, std::string name, std::uint64_t capacity, double fpp,
                                unsigned shard_bits, filter_options options) {
  validate_name(name);
  const meta want = filter_ops::meta_for(capacity, fpp, shard_bits);
  const meta m = filter_ops::require_meta(c, name);
  if (const std::string diff = filter_ops::differences(m, want); !diff.empty()) {
    throw error(errc::incompatible, "filter '" + name + "' has other parameters: " + diff);
  }
  return redis_filter(c, std::move(name), m, options);
}

bool redis_filter::insert(std::string_view key) {
  std::vector<char> out;
  return filter_ops::write(*this, {&key, 1}, out) == 1;
}

bool redis_filter::contains(std::string_view key) {
  std::vector<char> out;
  return filter_ops::read(*this, {&key, 1}, out) == 1;
}

// Batches larger than this go out in several round trips, so that a call with millions of keys
// never builds (and Redis never buffers) hundreds of MiB of commands at once.
constexpr std::size_t max_keys_per_round_trip = 8192;

std::size_t redis_filter::insert_many(std::span<const std::string_view> keys,
                                      std::span<bool> fresh) {
  if (!fresh.empty())
    bloomkit::detail::require_result_slots(keys.size(), fresh.size(), "insert_many");
  std::size_t n = 0;
  std::vector<char> out;
  for (std::size_t at = 0; at < keys.size(); at += max_keys_per_round_trip) {
    const std::size_t count = std::min(max_keys_per_round_trip, keys.size() - at);
    n += filter_ops::write(*this, keys.subspan(at, count), out);
    if (!fresh.empty()) {
      for (std::size_t i = 0; i < count; ++i) fresh[at + i] = out[i] != 0;
    }
  }
  return n;
}

std::size_t redis_filter::contains_many(std::span<const std::string_view> keys,
                                        std::span<bool> results) {
  bloomkit::detail::require_result_slots(keys.size(), results.size());
  std::size_t n = 0;
  std::vector<char> out;
  for (std::size_t at = 0; at < keys.size(); at += max_keys_per_round_trip) {
    const std::size_t count = std::min(max_keys_per_round_trip, keys.size() - at);
    n += filter_ops::read(*this, keys.subspan(at, count), out);
    for (std::size_t i = 0; i < count; ++i) results[at + i] = out[i] != 0;
  }
  return n;
}

filter_info redis_filter::info() {
  filter_ops::flush(*this);
  client& c = *client_;
  const meta m = filter_ops::require_meta(c, name_);
  layout_ = m.layout;
  generation_ = m.generation;
  next_generation_ = m.next_generation;
  guard_generation_ = m.guard_generation;
  filter_info out;
  out.name = name_;
  out.format_version = m.format_version;
  out.scheme = m.scheme;
  out.layout = m.layout;
  out.capacity = m.capacity;
  out.target_fpp = m.target_fpp;
  out.generation = m.generation;
  out.created = m.created;
  out.inserted = m.inserted;
  // Every shard: its length (and guard bit), its set bits, its time to live.
  const auto keys = detail::shard_keys(name_, m.generation, m.layout.shard_count);
  const auto broken = detail::broken_shards(c, keys, m.layout, m.guarded());
  if (!broken.empty()) {
    const error e = detail::broken_shard_error(name_, broken.front(), &c, m.layout, m.guarded());
    throw error(e.code(), std::string(e.what()) + (broken.size() > 1
                                                       ? " (" + std::to_string(broken.size() - 1) +
                                                             " more shards are missing or short)"
                                                       : std::string()));
  }
  std::vector<command> cs;
  for (const auto& key : keys) {
    cs.push_back(make_command({"BITCOUNT", key}));
    cs.push_back(make_command({"PTTL", key}));
  }
  cs.push_back(make_command({"PTTL", meta_key(name_)}));
  const auto replies = c.execute_many(cs);
  const std::int64_t pttl = as_integer(replies.back(), "PTTL " + meta_key(name_));
  out.ttl_ms = pttl >= 0 ? pttl : -1;
  std::size_t ttl_mismatches = 0;
  std::string first_mismatch;
  // Each shard is a filter of its own, and a stranger lands in one uniformly: the FPP is the
  // mean of the shards' figures for their fill ratios (sizing.hpp, fpp_at_fill).
  double fpp_sum = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    // BITCOUNT counts the guard bit of a guarded shard too.
    const auto set = static_cast<std::uint64_t>(as_integer(replies[2 * j], "BITCOUNT " + keys[j])) -
                     (m.guarded() ? 1 : 0);
    out.bits_set += set;
    fpp_sum += fpp_at_fill(m.layout.shard_bits, m.layout.hashes,
                           static_cast<double>(set) / static_cast<double>(m.layout.shard_bits));
    // A shard that expires before the meta leaves a filter that cannot answer; one that does
    // not expire with it outlives it.
    const std::int64_t shard_ttl = as_integer(replies[2 * j + 1], "PTTL " + keys[j]);
    const bool mismatch =
        out.ttl_ms < 0 ? shard_ttl >= 0 : shard_ttl < 0 || shard_ttl + 1000 < out.ttl_ms;
    if (mismatch && ttl_mismatches++ == 0) {
      const auto seconds = [](std::int64_t ms) {
        return ms < 0 ? std::string("never") : "in " + std::to_string((ms + 999) / 1000) + " s";
      };
      first_mismatch = "'" + keys[j] + "' expires " + seconds(shard_ttl) + ", " + meta_key(name_) +
                       " " + seconds(out.ttl_ms);
    }
  }
  if (ttl_mismatches > 0) {
    out.warnings.push_back("filter '" + name_ + "': " + std::to_string(ttl_mismatches) +
                           " shards expire other than its meta (" + first_mismatch +
                           "); `bloomkit redis expire " + name_ +
                           " SECONDS` sets one time to live on every key");
  }
  if (std::string w = eviction_warning(c, "filter '" + name_ + "'", out.ttl_ms >= 0); !w.empty()) {
    out.warnings.push_back(std::move(w));
  }
  if (uncounted_ > 0) {
    out.inserted_stale = true;
    out.warnings.push_back("filter '" + name_ + "': inserted is too low by at least " +
                           std::to_string(uncounted_) + ": the server refused to count them (" +
                           count_refusal_ + ")");
  }
  const double bits = static_cast<double>(m.layout.total_bits());
  const double set = static_cast<double>(out.bits_set);
  out.fill_ratio = set / bits;
  out.estimated_count = set >= bits ? HUGE_VAL : -bits / m.layout.hashes * std::log1p(-set / bits);
  out.estimated_fpp = fpp_sum / static_cast<double>(m.layout.shard_count);
  return out;
}

void redis_filter::flush() {
  filter_ops::flush(*this);
}

std::uint64_t redis_filter::inserted() {
  filter_ops::flush(*this);  // the count of the last call goes first
  return filter_ops::require_meta(*client_, name_).inserted;
}

double redis_filter::estimated_count() {
  return info().estimated_count;
}

void redis_filter::expire(std::chrono::seconds ttl) {
  if (ttl.count() < 1) {
    throw error(errc::invalid_argument,
                "expire: seconds must be at least 1, got " + std::to_string(ttl.count()));
  }
  const meta m = filter_ops::require_meta(*client_, name_);
  std::vector<std::string> keys;
  for (std::uint64_t g : {m.generation, m.next_generation}) {
    if (g == 0) continue;
    const auto shards = detail::shard_keys(name_, g, m.layout.shard_count);
    keys.insert(keys.end(), shards.begin(), shards.end());
  }
  keys.push_back(meta_key(name_));
  std::vector<command> cs;
  for (const auto& k : keys) cs.push_back(make_command({"EXPIRE", k, std::to_string(ttl.count())}));
  const auto replies = client_->execute_many(cs);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (as_integer(replies[i], "EXPIRE " + keys[i]) != 1) {
      throw error(errc::not_found, "filter '" + name_ + "': key '" + keys[i] +
                                       "' does not exist (the filter is incomplete or was "
                                       "dropped meanwhile)");
    }
  }
}

void redis_filter::drop() {
  pending_count_ = 0;  // the filter is going: nothing left to count
  drop(*client_, name_);
}

std::size_t redis_filter::drop(client& c, const std::string& name) {
  validate_name(name);
  const std::string key = meta_key(name);
  // The meta first, so that every client sees "does not exist" at once; then the shards of the
  // generations it names, at once (no scan needed); then everything of the name's key shapes
  // that is left, on every master: orphans of interrupted creates, rebuilds and old writers.
  const reply type = c.execute(make_command({"TYPE", key}));
  check_reply(type, "filter '" + name + "': TYPE " + key);
  if (type.str() != "none" && type.str() != "hash") {
    throw error(errc::wrong_type, "filter '" + name + "': key '" + key + "' exists but is not a " +
                                      "hash (not a bloomkit filter meta); nothing was deleted");
  }
  std::optional<meta> m;
  if (type.str() == "hash") {
    try {
      m = filter_ops::read_meta(c, name);
    } catch (const error&) {
      // A meta this build cannot read: its keys are still found by their names below.
    }
  }
  std::size_t removed = 0;
  auto unlink = [&](const std::vector<std::string>& keys) {
    for (std::size_t at = 0; at < keys.size(); at += 1000) {
      std::vector<command> cs;
      for (std::size_t i = at; i < std::min(keys.size(), at + 1000); ++i) {
        cs.push_back(make_command({"UNLINK", keys[i]}));
      }
      for (const auto& r : c.execute_many(cs)) {
        removed += static_cast<std::size_t>(as_integer(r, "filter '" + name + "': UNLINK"));
      }
    }
  };
  unlink({key});
  if (m) {
    for (std::uint64_t g : {m->generation, m->next_generation}) {
      if (g != 0) unlink(detail::shard_keys(name, g, m->layout.shard_count));
    }
  }
  unlink(detail::find_filter_keys(c, name));
  if (removed == 0) {
    throw error(errc::not_found,
                "filter '" + name + "' does not exist (no key '" + key + "', no shard keys)");
  }
  return removed;
}

void redis_filter::rebuild(std::span<const std::string_view> keys, rebuild_options options) {
  rebuild(
      [keys](const key_sink& sink) {
        for (std::size_t i = 0; i < keys.size(); i += 1000) {
          sink(keys.subspan(i, std::min<std::size_t>(1000, keys.size() - i)));
        }
      },
      options);
}

void redis_filter::rebuild(const key_source& source, rebuild_options options) {
  client& c = *client_;
  const meta m = filter_ops::require_meta(c, name_);
  if (m.next_generation != 0) {
    throw error(errc::already_exists, "filter '" + name_ + "': a rebuild into generation " +
                                          std::to_string(m.next_generation) +
                                          " is running (or was interrupted: HDEL " +
                                          meta_key(name_) + " next_generation to clear it)");
  }
  layout_ = m.layout;
  generation_ = m.generation;
  next_generation_ = 0;
  guard_generation_ = m.guard_generation;
  // The new generation gets guard bits whenever they fit, also when the old one had none.
  const bool guarded = m.layout.has_guard_room();
  const std::uint64_t target = m.generation + 1;
  const auto keys = detail::shard_keys(name_, target, m.layout.shard_count);
  // Shards of `target` are not referenced by the meta: leftovers of an interrupted rebuild.
  unlink_quietly(c, keys);
  std::vector<std::string> created;
  bool marked = false;
  try {
    filter_ops::preallocate(c, keys, m.layout, guarded, created);
    // From here on every writer also writes into `target` (it reads next_generation with each
    // batch), so nothing inserted during the rebuild is lost at the flip.
    const reply r = c.execute(
        make_command({"HSETNX", meta_key(name_), "next_generation", std::to_string(target)}));
    if (as_integer(r, "HSETNX " + meta_key(name_)) != 1) {
      throw error(errc::already_exists, "filter '" + name_ + "': another rebuild started");
    }
    marked = true;
    // Fill only `target`: a filter handle that sees just the new generation.
    redis_filter fill = *this;
    fill.generation_ = target;
    fill.next_generation_ = 0;
    fill.guard_generation_ = guarded ? target : 0;
    fill.pending_count_ = 0;
    std::uint64_t fresh = 0;
    std::uint64_t given = 0;
    source([&](std::span<const std::string_view> batch) {
      given += batch.size();
      for (std::size_t at = 0; at < batch.size(); at += max_keys_per_round_trip) {
        const auto part = batch.subspan(at, std::min(max_keys_per_round_trip, batch.size() - at));
        fresh += filter_ops::write_into(fill, part, target);
      }
    });
    if (given == 0 && !options.allow_empty) {
      throw error(errc::invalid_argument,
                  "filter '" + name_ +
                      "': the rebuild's source gave no keys: refusing to replace the filter with "
                      "an empty one (--allow-empty, rebuild_options::allow_empty, allows it)");
    }
    filter_ops::wait_for_replicas(fill);
    // A shard of the new generation evicted or deleted during the fill: fail before the flip
    // rather than switch to a filter that cannot answer.
    filter_ops::require_whole(c, name_, keys, m.layout, guarded);
    const reply flipped = c.execute(eval_command(
        flip_script, meta_key(name_),
        {std::to_string(target), std::to_string(fresh), std::to_string(guarded ? target : 0)}));
    if (as_integer(flipped, "flipping " + meta_key(name_)) != 1) {
      throw error(errc::server_error, "filter '" + name_ + "': the rebuild's mark on " +
                                          meta_key(name_) + " vanished before the flip");
    }
  } catch (...) {
    if (marked) {
      try {
        c.execute(make_command({"HDEL", meta_key(name_), "next_generation"}));
      } catch (...) {
      }
    }
    unlink_quietly(c, created);
    next_generation_ = 0;
    throw;
  }
  generation_ = target;
  next_generation_ = 0;
  guard_generation_ = guarded ? target : 0;
  // The old generation stays for readers that read it just before the flip, then expires.
  // A TTL on the filter carries over to the new generation.
  std::vector<command> cs;
  const std::string grace = std::to_string(std::max<long long>(1, options_.rebuild_grace.count()));
  for (const auto& k : detail::shard_keys(name_, m.generation, m.layout.shard_count)) {
    cs.push_back(make_command({"PEXPIRE", k, grace}));
  }
  const std::int64_t pttl =
      as_integer(c.execute(make_command({"PTTL", meta_key(name_)})), "PTTL " + meta_key(name_));
  if (pttl > 0) {
    for (const auto& k : keys) cs.push_back(make_command({"PEXPIRE", k, std::to_string(pttl)}));
  }
  for (const auto& r : c.execute_many(cs)) check_reply(r, "filter '" + name_ + "': PEXPIRE");
}

// ---- push / pull ----

redis_filter redis_filter::push(client& c, const std::filesystem::path& file, std::string name,
                                filter_options options) {
  validate_name(name);
  raw_filter raw = load_raw(file);
  const file_header& h = raw.header;
  if (h.scheme == hash_scheme::redis_sharded_xxh3) {
    if (const std::string problem = detail::sharded_file_inconsistency(h); !problem.empty()) {
      throw error(errc::corrupt_file, file.string() + ": inconsistent header: " + problem);
    }
  }
  meta want;
  want.capacity = h.capacity;
  want.target_fpp = h.target_fpp;
  want.inserted = h.inserted;
  want.created = static_cast<std::int64_t>(std::time(nullptr));
  if (h.kind != filter_kind::classic) {
    throw error(errc::unsupported, file.string() + ": a " + std::string(to_string(h.kind)) +
                                       " filter cannot be pushed to Redis");
  }
  if (h.scheme == hash_scheme::xxh3_128) {
    if (h.bits > (std::uint64_t{1} << max_shard_bits_log2)) {
      throw error(errc::unsupported,
                  file.string() + ": an xxh3-128 filter of " + std::to_string(h.bits) +
                      " bits probes across all its bits, so it must be one Redis string, and a "
                      "Redis string holds at most 2^32 bits; create a sharded filter in Redis "
                      "instead (bloomkit redis create / rebuild)");
    }
    want.layout = {h.bits, 1, h.hashes};
  } else if (h.scheme == hash_scheme::redis_sharded_xxh3) {
    want.layout = {h.bits / h.kind_params[0], h.kind_params[0], h.hashes};
  } else {
    throw error(errc::unsupported, file.string() + ": hash scheme " +
                                       std::string(to_string(h.scheme)) +
                                       " cannot be expressed as a Redis filter");
  }
  if (const std::string problem = want.layout.inconsistency(); !problem.empty()) {
    throw error(errc::unsupported, file.string() + ": " + problem);
  }
  want.guard_generation = want.layout.has_guard_room() ? want.generation : 0;
  auto* bytes = reinterpret_cast<unsigned char*>(raw.bits.mutable_words().data());
  reverse_bits_in_bytes({bytes, raw.bits.byte_size()});
  const shard_layout layout = want.layout;
  // A guard bit in a spare bit of the shard's last byte (shard_layout::guard_bit) is part of the
  // bytes sent: set it there, or SETRANGE would clear the one preallocation set.
  if (want.guarded() && layout.guard_bit() / 8 < layout.shard_bytes()) {
    for (std::uint64_t j = 0; j < layout.shard_count; ++j) {
      bytes[j * (layout.shard_bits / 8) + layout.guard_bit() / 8] |=
          static_cast<unsigned char>(0x80u >> (layout.guard_bit() % 8));
    }
  }
  const meta m = filter_ops::create_with(c, name, want, [&](const std::vector<std::string>& keys) {
    const std::uint64_t shard_bytes = layout.shard_bytes();
    for (std::uint64_t j = 0; j < layout.shard_count; ++j) {
      const unsigned char* shard = bytes + j * (layout.shard_bits / 8);
      std::vector<command> cs;
      for (std::uint64_t at = 0; at < shard_bytes; at += transfer_chunk) {
        const std::uint64_t n = std::min(transfer_chunk, shard_bytes - at);
        // The shard is preallocated with zeros: all-zero chunks need no write.
        if (std::all_of(shard + at, shard + at + n, [](unsigned char b) { return b == 0; })) {
          continue;
        }
        cs.push_back(make_command({"SETRANGE", keys[j], std::to_string(at),
                                   std::string(reinterpret_cast<const char*>(shard + at), n)}));
      }
      for (const auto& r : c.execute_many(cs)) check_reply(r, "SETRANGE " + keys[j]);
    }
  });
  return redis_filter(c, std::move(name), m, options);
}

void redis_filter::pull(const std::filesystem::path& file) {
  filter_ops::flush(*this);
  client& c = *client_;
  for (int attempt = 0;; ++attempt) {
    const meta m = filter_ops::require_meta(c, name_);
    const shard_layout& layout = m.layout;
    filter_ops::require_whole(c, name_, detail::shard_keys(name_, m.generation, layout.shard_count),
                              layout, m.guarded());
    bit_array bits(layout.total_bits());
    auto* bytes = reinterpret_cast<unsigned char*>(bits.mutable_words().data());
    const std::uint64_t shard_bytes = layout.shard_bytes();
    for (std::uint64_t j = 0; j < layout.shard_count; ++j) {
      const std::string key = shard_key(name_, m.generation, j);
      std::vector<command> cs;
      for (std::uint64_t at = 0; at < shard_bytes; at += transfer_chunk) {
        const std::uint64_t n = std::min(transfer_chunk, shard_bytes - at);
        cs.push_back(
            make_command({"GETRANGE", key, std::to_string(at), std::to_string(at + n - 1)}));
      }
      const auto replies = c.execute_many(cs);
      unsigned char* shard = bytes + j * (layout.shard_bits / 8);
      for (std::size_t i = 0; i < replies.size(); ++i) {
        check_reply(replies[i], "GETRANGE " + key);
        const std::string& chunk = replies[i].str();
        const std::uint64_t at = i * transfer_chunk;
        const std::uint64_t n = std::min(transfer_chunk, shard_bytes - at);
        if (chunk.size() != n) {
          throw detail::broken_shard_error(name_, key, &c, layout, m.guarded());
        }
        std::memcpy(shard + at, chunk.data(), n);
      }
    }
    reverse_bits_in_bytes({bytes, bits.byte_size()});
    // A shard string is whole bytes; bits past m in the last byte must stay 0 in a file.
    if (layout.shard_bits % 8 != 0 && layout.shard_count == 1) {
      bytes[shard_bytes - 1] &= static_cast<unsigned char>((1u << (layout.shard_bits % 8)) - 1);
    }
    // A rebuild that flipped meanwhile: the bits may mix two generations; read again.
    const meta after = filter_ops::require_meta(c, name_);
    if (after.generation != m.generation) {
      if (attempt < 3) continue;
      throw error(errc::server_error,
                  "filter '" + name_ + "' was rebuilt repeatedly while being pulled");
    }
    file_header h;
    h.kind = filter_kind::classic;
    h.bits = layout.total_bits();
    h.hashes = layout.hashes;
    h.capacity = m.capacity;
    h.target_fpp = m.target_fpp;
    h.inserted = m.inserted;
    if (layout.shard_count == 1) {
      h.scheme = hash_scheme::xxh3_128;
    } else {
      h.scheme = hash_scheme::redis_sharded_xxh3;
      h.kind_params[0] = layout.shard_count;
    }
    save_raw(h, bits, file);
    return;
  }
}

}  // namespace bloomkit::redis
