// Module keys from a client (key_commands.hpp).

#include "key_commands.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "../../module_value/module_value.hpp"
#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "key_errors.hpp"

namespace bloomkit::redis_module {

namespace {

// One command per keys_per_module_command keys: `head` (e.g. BF.MEXISTS NAME) then the keys.
std::vector<redis::command> commands_of(const std::vector<std::string>& head,
                                        std::span<const std::string_view> keys) {
  std::vector<redis::command> commands;
  for (std::size_t first = 0; first < keys.size(); first += keys_per_module_command) {
    const std::size_t count = std::min(keys_per_module_command, keys.size() - first);
    redis::command c{head, 1};
    c.args.reserve(head.size() + count);
    for (std::size_t i = first; i < first + count; ++i) c.args.emplace_back(keys[i]);
    commands.push_back(std::move(c));
  }
  return commands;
}

// The per-key integer replies of the commands, in order, into answers; returns how many were 1.
std::size_t answers_of(const std::string& name, const std::vector<redis::reply>& replies,
                       std::span<bool> answers) {
  std::size_t ones = 0;
  std::size_t i = 0;
  for (const redis::reply& r : replies) {
    if (r.is_error()) throw_reply_error(name, r.str());
    for (const redis::reply& answer : r.elements()) {
      if (answer.is_error()) {
        throw error(errc::server_error, key_named(name) + ": " + answer.str() + " (" +
                                            std::to_string(i) + " keys before it were added)");
      }
      const bool one = answer.integer() == 1;
      if (!answers.empty()) answers[i] = one;
      ones += one ? 1 : 0;
      ++i;
    }
  }
  return ones;
}

// The reply to TYPE name: not_found when there is no key, wrong_type when it is not a module
// filter (bloomkit1, bkbloom-- or MBbloom--). Returns whether it is of RedisBloom's type
// (MBbloom--), whose commands are BF.* (command_for).
bool check_type(const std::string& name, const redis::reply& r) {
  if (r.is_error()) throw_reply_error(name, r.str());
  if (r.str() == "none") throw error(errc::not_found, key_named(name) + " does not exist");
  if (r.str() != module_type_name && r.str() != redisbloom::type_name &&
      r.str() != redisbloom::native_type_name) {
    throw error(errc::wrong_type,
                key_named(name) + " holds a " + r.str() + ", not a module filter");
  }
  return r.str() == redisbloom::type_name;
}

}  // namespace

module_key module_key::open(redis::client& c, std::string name) {
  module_key key(c, std::move(name));
  key.redisbloom_ = check_type(key.name_, c.execute(redis::command{{"TYPE", key.name_}, 1}));
  return key;
}

bool module_key::insert(std::string_view key) {
  bool fresh = false;
  insert_many({&key, 1}, {&fresh, 1});
  return fresh;
}

bool module_key::contains(std::string_view key) {
  bool present = false;
  contains_many({&key, 1}, {&present, 1});
  return present;
}

std::size_t module_key::insert_many(std::span<const std::string_view> keys, std::span<bool> fresh) {
  if (!fresh.empty()) detail::require_result_slots(keys.size(), fresh.size(), "insert_many");
  if (keys.empty()) return 0;
  const std::vector<redis::command> commands =
      commands_of({command_for(redisbloom_, "INSERT"), name_, "NOCREATE", "ITEMS"}, keys);
  return answers_of(name_, client_.execute_many(commands), fresh);
}

std::size_t module_key::contains_many(std::span<const std::string_view> keys,
                                      std::span<bool> results) {
  detail::require_result_slots(keys.size(), results.size());
  if (keys.empty()) return 0;
  // BF.MEXISTS answers 0 for a key that does not exist (RedisBloom's rule): TYPE after the
  // lookups, in the same round trip, tells a missing key from absent items. A key gone at any
  // point of the pipeline is gone at its end (unless created again meanwhile).
  std::vector<redis::command> commands =
      commands_of({command_for(redisbloom_, "MEXISTS"), name_}, keys);
  commands.push_back(redis::command{{"TYPE", name_}, 1});
  std::vector<redis::reply> replies = client_.execute_many(commands);
  check_type(name_, replies.back());
  replies.pop_back();
  return answers_of(name_, replies, results);
}

void module_key::expire(std::uint64_t seconds) {
  const redis::reply r =
      client_.execute(redis::command{{"EXPIRE", name_, std::to_string(seconds)}, 1});
  if (r.is_error()) throw_reply_error(name_, r.str());
  if (r.integer() == 0) throw error(errc::not_found, key_named(name_) + " does not exist");
}

void module_key::drop() {
  const redis::reply r = client_.execute(redis::command{{"UNLINK", name_}, 1});
  if (r.is_error()) throw_reply_error(name_, r.str());
  if (r.integer() == 0) throw error(errc::not_found, key_named(name_) + " does not exist");
}

void convert_module_key(redis::client& c, const std::string& name) {
  const redis::reply r = c.execute(redis::command{{"BK.CONVERT", name}, 1});
  if (r.is_error()) throw_reply_error(name, r.str());
}

std::vector<module_info_field> module_key::info() {
  return module_key_info(client_, name_);
}

std::vector<module_info_field> module_key_info(redis::client& c, const std::string& name) {
  const redis::reply r = c.execute(redis::command{{"BK.INFO", name}, 1});
  if (r.is_error()) throw_reply_error(name, r.str());
  const std::vector<redis::reply>& e = r.elements();
  std::vector<module_info_field> fields;
  for (std::size_t i = 0; i + 1 < e.size(); i += 2) {
    module_info_field f{e[i].str(), std::string()};
    const redis::reply& v = e[i + 1];
    if (v.type() == redis::reply::kind::integer) {
      f.value = v.integer();
    } else {
      // RESP2 sends a double as text: a field that is all one number is a double, but for
      // slice_fill (one number per live slice, sometimes only one), text as `bloomkit info`
      // prints it.
      const std::string& text = v.str();
      double number = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (f.name != "slice_fill" && ec == std::errc() && end == text.data() + text.size() &&
          !text.empty()) {
        f.value = number;
      } else {
        f.value = text;
      }
    }
    fields.push_back(std::move(f));
  }
  return fields;
}

}  // namespace bloomkit::redis_module
