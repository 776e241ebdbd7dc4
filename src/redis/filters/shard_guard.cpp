#include "shard_guard.hpp"

#include <cstddef>

#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "filter_scripts.hpp"

namespace bloomkit::redis::detail {

namespace {

std::string unwritten(const std::vector<reply>& replies, const std::vector<command>& cs) {
  for (std::size_t i = 0; i < replies.size(); ++i) {
    if (replies[i].is_error()) {
      return "could not remove '" + cs[i].args[3] + "' (" + replies[i].str() + ")";
    }
  }
  return {};
}

}  // namespace

command preallocate_command(const std::string& key, const shard_layout& layout, bool guarded) {
  if (guarded) {
    return command{{"BITFIELD", key, "SET", "u1", std::to_string(layout.guard_bit()), "1"}, 1};
  }
  // INCRBY by 0 sizes the string without changing a bit.
  return command{{"BITFIELD", key, "INCRBY", "u1", std::to_string(layout.shard_bits - 1), "0"}, 1};
}

error broken_shard_error(const std::string& name, const std::string& key, client* c,
                         const shard_layout& layout, bool guarded) {
  std::string problem = "is missing (evicted or deleted)";
  if (c != nullptr) {
    try {
      const reply r = c->execute(command{{"STRLEN", key}, 1});
      const std::uint64_t expected = guarded ? layout.guarded_bytes() : layout.shard_bytes();
      if (!r.is_error() && r.integer() > 0) {
        const auto length = static_cast<std::uint64_t>(r.integer());
        problem = length < expected
                      ? "is short (" + std::to_string(length) + " of " + std::to_string(expected) +
                            " bytes: overwritten or truncated)"
                      : "lacks its guard bit (overwritten)";
      }
    } catch (const error&) {
      // The lookup's own error is what matters; keep the plain description.
    }
  }
  return error(errc::not_found, "filter '" + name + "': shard '" + key + "' " + problem +
                                    ": the filter cannot answer; rebuild or push it again");
}

std::vector<std::string> broken_shards(client& c, const std::vector<std::string>& keys,
                                       const shard_layout& layout, bool guarded) {
  std::vector<command> cs;
  cs.reserve(keys.size());
  for (const auto& key : keys) {
    if (guarded) {
      cs.push_back(
          command{{"BITFIELD_RO", key, "GET", "u1", std::to_string(layout.guard_bit())}, 1});
    } else {
      cs.push_back(command{{"STRLEN", key}, 1});
    }
  }
  const auto replies = c.execute_many(cs);
  std::vector<std::string> broken;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    check_reply(replies[i], cs[i].args[0] + " " + keys[i]);
    const bool whole =
        guarded ? replies[i].elements().size() == 1 && replies[i].elements()[0].integer() == 1
                : static_cast<std::uint64_t>(replies[i].integer()) >= layout.shard_bytes();
    if (!whole) broken.push_back(keys[i]);
  }
  return broken;
}

std::string remove_orphan_shards(client& c, const std::vector<std::string>& keys,
                                 const shard_layout& layout, bool guarded) {
  if (keys.empty()) return {};
  std::vector<command> cs;
  for (const auto& key : keys) {
    cs.push_back(eval_command(remove_orphan_script, key,
                              {guarded ? std::to_string(layout.guard_bit()) : std::string("-1")}));
  }
  try {
    return unwritten(c.execute_many(cs), cs);
  } catch (const error& e) {
    return std::string("could not remove them (") + e.what() + ")";
  }
}

std::string remove_stray_meta(client& c, const std::string& meta_key) {
  const std::vector<command> cs = {eval_command(remove_stray_meta_script, meta_key, {})};
  try {
    return unwritten(c.execute_many(cs), cs);
  } catch (const error& e) {
    return std::string("could not remove '") + meta_key + "' (" + e.what() + ")";
  }
}

}  // namespace bloomkit::redis::detail
