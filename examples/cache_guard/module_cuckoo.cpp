#include "module_cuckoo.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "bloomkit/error.hpp"

namespace cache_guard {

namespace {

using bloomkit::errc;
using bloomkit::error;
using bloomkit::redis::command;
using bloomkit::redis::reply;

// The fill a CF table of bucket size b reaches before it counts as full (RedisBloom's
// documentation: 55% at b = 1, 80% at 3, 95% at 4; Fan et al.: 84% at 2), rounded down.
constexpr std::array<double, 4> fill_of_bucket_size{0.5, 0.84, 0.8, 0.95};
// A lookup compares the 8-bit fingerprint (1..255) with the 2b slots of its two buckets, of which
// a share `load` is taken: FPP about 2 b load / 255. The load a table of bucket size b is sized
// for at fpp: its fill, or less where the fill would pass fpp.
double design_load(std::uint32_t b, double fpp) {
  return std::min(fill_of_bucket_size[b - 1], fpp * 255 / (2.0 * b));
}
// Below this load the filter takes more memory than the counting filter: refused.
constexpr double min_design_load = 0.1;
// The type names TYPE answers for a CF key (RedisBloom's, kept by bloomkit's module) and for a
// BK.RESERVE key (bloomkit's).
constexpr const char* cf_type = "MBbloomCF";
constexpr const char* bk_type = "bloomkit1";
// Forces a command set at create (README.md, "--filter cuckoo"): cf or bk.
constexpr const char* commands_variable = "CACHE_GUARD_CUCKOO_COMMANDS";
// CF.INSERT items per command (one round trip carries several).
constexpr std::size_t items_per_command = 1000;

bool contains_text(const std::string& text, std::string_view what) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return lower.find(what) != std::string::npos;
}

// An error reply as the error of what failed: no CF.* commands, a key of another type, a
// missing filter, or the server's own error.
[[noreturn]] void throw_reply(const reply& r, const std::string& what) {
  const std::string& text = r.str();
  if (contains_text(text, "unknown command")) {
    throw error(errc::unsupported,
                "--filter cuckoo needs the bloomkit Redis module (loaded with --loadmodule: its "
                "BK.* native cuckoo filter) or the CF.* commands (RedisBloom or Redis 8), and "
                "this server has neither (" +
                    what + ": " + text +
                    "). Load the module, or use --filter counting: the client-side counting "
                    "filter, for servers where modules are not allowed");
  }
  if (contains_text(text, "wrongtype")) throw error(errc::wrong_type, what + ": " + text);
  if (contains_text(text, "not found")) throw error(errc::not_found, what + ": " + text);
  throw error(errc::server_error, what + ": " + text);
}

const reply& checked(const reply& r, const std::string& what) {
  if (r.is_error()) throw_reply(r, what);
  return r;
}

template <class T>
T number_field(const reply& r, const std::string& what) {
  if (r.is_nil()) throw error(errc::corrupt_file, what + " is missing");
  const std::string& s = r.str();
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    throw error(errc::corrupt_file, what + " is not a number: '" + s + "'");
  }
  return v;
}

// Items a CF.INSERT / BK.INSERT reply says were added; errc::too_large when one found no room
// (CF.INSERT: -1 for it; BK.INSERT: its last element is "ERR non scaling filter is full").
std::size_t added_by(const reply& r, const std::string& what) {
  std::size_t added = 0;
  for (const reply& e : checked(r, what).elements()) {
    if (e.is_error() && !contains_text(e.str(), "full")) throw_reply(e, what);
    const long long v = e.is_error() ? -1 : e.integer();
    if (v < 0) {
      throw error(errc::too_large,
                  what +
                      ": the filter is full (no room for an id even after "
                      "growing, or a native one): it is reloaded at a larger capacity");
    }
    added += v == 1;
  }
  return added;
}

// The `kind` field of a BK.INFO reply (field, value, ...), or "" when it has none.
std::string kind_of(const reply& info) {
  const auto& e = info.elements();
  for (std::size_t i = 0; i + 1 < e.size(); i += 2) {
    if (e[i].str() == "kind") return e[i + 1].str();
  }
  return "";
}

// fpp as text that reads back as the same double.
std::string exact_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// The command set create uses: the variable's, else nullopt (ask the server).
std::optional<module_cuckoo::command_set> forced_commands() {
  const char* v = std::getenv(commands_variable);
  if (v == nullptr || *v == '\0') return std::nullopt;
  const std::string value = v;
  if (value == "cf") return module_cuckoo::command_set::cf;
  if (value == "bk") return module_cuckoo::command_set::bk;
  throw error(errc::invalid_argument, std::string(commands_variable) + "='" + value +
                                          "': give cf (CF.*) or bk (bloomkit's BK.*)");
}

const char* name_of(module_cuckoo::command_set s) {
  return s == module_cuckoo::command_set::bk ? "bk" : "cf";
}

}  // namespace

void module_cuckoo::append_inserts(std::vector<command>& cs, const std::string& key,
                                   std::span<const std::string_view> keys) const {
  const char* insert = commands_ == command_set::bk ? "BK.INSERT" : "CF.INSERT";
  for (std::size_t at = 0; at < keys.size(); at += items_per_command) {
    command c{{insert, key, "NOCREATE", "ITEMS"}, 1};
    const std::size_t end = std::min(keys.size(), at + items_per_command);
    for (std::size_t i = at; i < end; ++i) c.args.emplace_back(keys[i]);
    cs.push_back(std::move(c));
  }
}

std::uint32_t module_cuckoo::bucket_size_for(double fpp) {
  std::uint32_t best = 1;
  for (std::uint32_t b = 2; b <= fill_of_bucket_size.size(); ++b) {
    if (design_load(b, fpp) > design_load(best, fpp)) best = b;
  }
  if (!(design_load(best, fpp) >= min_design_load)) {
    throw error(errc::invalid_argument,
                "--filter cuckoo: --p " + exact_text(fpp) +
                    " is below what CF.* filters reach in reasonable memory (8-bit fingerprints: "
                    "about 2 b load / 255); use --p 0.0008 or more, or --filter counting");
  }
  return best;
}

bool module_cuckoo::is_cuckoo(bloomkit::redis::client& c, const std::string& name) {
  return checked(c.execute(command{{"EXISTS", name + ":cuckoo"}, 1}), "EXISTS").integer() == 1;
}

std::vector<std::string> module_cuckoo::keys_of(const std::string& name) {
  return {name, name + ":cuckoo", name + ":cuckoo-next"};
}

module_cuckoo module_cuckoo::create(bloomkit::redis::client& c, const std::string& name,
                                    std::uint64_t capacity, double fpp) {
  module_cuckoo f(c, name);
  f.capacity_ = capacity;
  f.fpp_ = fpp;
  f.generation_ = 1;
  f.created_ = std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  const auto forced = forced_commands();
  f.commands_ = forced.value_or(command_set::bk);
  if (f.commands_ == command_set::bk) {
    // The first command tells whether the server has BK.* (bloomkit's module).
    const reply r = f.reserve_reply(name);
    if (r.is_error() && !forced && contains_text(r.str(), "unknown command")) {
      f.commands_ = command_set::cf;
    } else {
      checked(r, "BK.RESERVE " + name);
    }
  }
  if (f.commands_ == command_set::cf) {
    f.bucket_size_ = bucket_size_for(fpp);
    f.reserve(name);
  }
  checked(c.execute(command{{"HSET", f.meta_key(), "commands", name_of(f.commands_), "capacity",
                             std::to_string(capacity), "fpp", exact_text(fpp), "bucket_size",
                             std::to_string(f.bucket_size_), "created", std::to_string(f.created_),
                             "generation", "1"},
                            1}),
          "HSET " + f.meta_key());
  return f;
}

module_cuckoo module_cuckoo::open(bloomkit::redis::client& c, const std::string& name) {
  module_cuckoo f(c, name);
  const std::vector<command> cs{{{"HMGET", f.meta_key(), "capacity", "fpp", "bucket_size",
                                  "created", "generation", "commands"},
                                 1},
                                {{"TYPE", name}, 1}};
  const auto replies = c.execute_many(cs);
  const reply& meta = checked(replies[0], "HMGET " + f.meta_key());
  const std::string& type = checked(replies[1], "TYPE " + name).str();
  if (meta.elements().empty() || meta.elements()[0].is_nil() || type == "none") {
    throw error(errc::not_found, "cuckoo filter '" + name + "' does not exist");
  }
  const auto& m = meta.elements();
  // An older service's meta has no `commands`: it made CF keys.
  const std::string commands = m.size() > 5 && !m[5].is_nil() ? m[5].str() : "cf";
  if (commands != "cf" && commands != "bk") {
    throw error(errc::corrupt_file,
                f.meta_key() + " commands is '" + commands + "', neither cf nor bk");
  }
  f.commands_ = commands == "bk" ? command_set::bk : command_set::cf;
  const char* want = f.commands_ == command_set::bk ? bk_type : cf_type;
  if (type != want) {
    throw error(errc::wrong_type,
                "'" + name + "' is a " + type + ", not a cuckoo filter (" + want + ")");
  }
  // Every bloomkit kind is a bloomkit1 key: only BK.INFO's `kind` tells a cuckoo filter.
  if (f.commands_ == command_set::bk) {
    const std::string kind = kind_of(checked(c.execute(command{{"BK.INFO", name}, 1}), "BK.INFO"));
    if (kind != "cuckoo") {
      throw error(errc::wrong_type, "'" + name + "' is a bloomkit " +
                                        (kind.empty() ? std::string("filter") : kind) +
                                        " filter, not a cuckoo filter");
    }
  }
  const std::string in = "cuckoo filter '" + name + "': " + f.meta_key() + " ";
  f.capacity_ = number_field<std::uint64_t>(m[0], in + "capacity");
  f.fpp_ = std::stod(m[1].is_nil() ? "0" : m[1].str());
  f.bucket_size_ = number_field<std::uint32_t>(m[2], in + "bucket_size");
  f.created_ = number_field<std::int64_t>(m[3], in + "created");
  f.generation_ = number_field<std::uint64_t>(m[4], in + "generation");
  return f;
}

reply module_cuckoo::reserve_reply(const std::string& key) {
  if (commands_ == command_set::bk) {
    // The native kind sizes its table for `capacity` at fpp itself.
    return c_->execute(
        command{{"BK.RESERVE", key, std::to_string(std::max<std::uint64_t>(capacity_, 1)),
                 exact_text(fpp_), "KIND", "cuckoo"},
                1});
  }
  const double load = design_load(bucket_size_, fpp_);
  const auto room = static_cast<std::uint64_t>(std::ceil(static_cast<double>(capacity_) / load));
  return c_->execute(command{{"CF.RESERVE", key, std::to_string(std::max<std::uint64_t>(room, 1)),
                              "BUCKETSIZE", std::to_string(bucket_size_), "EXPANSION", "2"},
                             1});
}

void module_cuckoo::reserve(const std::string& key) {
  checked(reserve_reply(key), (commands_ == command_set::bk ? "BK.RESERVE " : "CF.RESERVE ") + key);
}

bool module_cuckoo::contains_with(std::string_view key, std::span<const command> also,
                                  std::vector<reply>& also_replies) {
  const std::string mexists = commands_ == command_set::bk ? "BK.MEXISTS" : "CF.MEXISTS";
  std::vector<command> cs{{{mexists, name_, std::string(key)}, 1}, {{"EXISTS", name_}, 1}};
  cs.insert(cs.end(), also.begin(), also.end());
  auto replies = c_->execute_many(cs);
  const reply& answer = checked(replies[0], mexists + " " + name_);
  if (checked(replies[1], "EXISTS " + name_).integer() != 1) {
    throw error(errc::not_found, "cuckoo filter '" + name_ + "' does not exist (any more)");
  }
  if (answer.elements().size() != 1) {
    throw error(errc::server_error, mexists + " " + name_ + ": unexpected reply");
  }
  also_replies.assign(std::make_move_iterator(replies.begin() + 2),
                      std::make_move_iterator(replies.end()));
  return answer.elements()[0].integer() == 1;
}

std::size_t module_cuckoo::insert_keys(std::span<const std::string_view> keys) {
  std::vector<command> cs;
  append_inserts(cs, next_key(), keys);
  const std::size_t next_commands = cs.size();
  append_inserts(cs, name_, keys);
  const auto replies = c_->execute_many(cs);
  for (std::size_t i = 0; i < next_commands; ++i) {
    // No next filter (no rebuild runs): "not found", harmless; anything else is an id the new
    // filter may lack.
    if (!replies[i].is_error() || !contains_text(replies[i].str(), "not found")) {
      added_by(replies[i], "insert into " + next_key());
    }
  }
  std::size_t added = 0;
  for (std::size_t i = next_commands; i < replies.size(); ++i) {
    added += added_by(replies[i], "insert into " + name_);
  }
  return added;
}

bool module_cuckoo::insert(std::string_view key) {
  return insert_keys({&key, 1}) == 1;
}

std::size_t module_cuckoo::insert_many(std::span<const std::string_view> keys) {
  return insert_keys(keys);
}

bool module_cuckoo::remove(std::string_view key) {
  if (commands_ == command_set::bk) {
    const reply r = c_->execute(command{{"BK.REMOVE", name_, std::string(key)}, 1});
    const auto& answers = checked(r, "BK.REMOVE " + name_).elements();
    return answers.size() == 1 && answers[0].integer() == 1;
  }
  return checked(c_->execute(command{{"CF.DEL", name_, std::string(key)}, 1}), "CF.DEL " + name_)
             .integer() == 1;
}

void module_cuckoo::rebuild(const bloomkit::redis::key_source& source) {
  const std::string next = next_key();
  const std::uint64_t live_capacity = capacity_;
  try {
    for (;;) {
      checked(c_->execute(command{{"UNLINK", next}, 1}), "UNLINK " + next);
      reserve(next);
      try {
        source([&](std::span<const std::string_view> keys) {
          std::vector<command> cs;
          append_inserts(cs, next, keys);
          for (const reply& r : c_->execute_many(cs)) added_by(r, "insert into " + next);
        });
        break;
      } catch (const error& e) {
        // A native table the ids outgrew: again at twice its capacity (CF.* grows by itself).
        // An insert while the next key is gone skips it, but its row is read by the new pass.
        if (e.code() != errc::too_large || commands_ != command_set::bk) throw;
        capacity_ *= 2;
      }
    }
    checked(c_->execute(command{{"RENAME", next, name_}, 1}), "RENAME " + next);
  } catch (...) {
    capacity_ = live_capacity;
    try {
      c_->execute(command{{"UNLINK", next}, 1});
    } catch (const std::exception&) {
      // Left behind: the next rebuild unlinks it first.
    }
    throw;
  }
  std::vector<command> cs{{{"HINCRBY", meta_key(), "generation", "1"}, 1}};
  if (capacity_ != live_capacity) {
    cs.push_back({{"HSET", meta_key(), "capacity", std::to_string(capacity_)}, 1});
  }
  const auto replies = c_->execute_many(cs);
  for (const reply& r : replies) checked(r, "HINCRBY " + meta_key());
  generation_ = static_cast<std::uint64_t>(replies[0].integer());
}

}  // namespace cache_guard
