#pragma once
// Lookups and inserts of an open native filter handle (internal; docs/REDIS.md, "Operations"
// and "Generations and rebuild"): the batch engine over the handle's generations, plus what
// rides in the same round trip: the count of new keys (HINCRBY N:meta inserted) and the re-read
// of the meta's generation (HMGET), so a single-key insert is one round trip and no Lua runs.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/redis_filter.hpp"

namespace bloomkit::redis::detail {

// What the meta read that rides with a call's commands found.
struct meta_view {
  bool exists = false;
  bool changed = false;  // generation, next_generation or shard_guard differ from the handle's
};

// Runs `cs`, then sends the count of new keys still pending (HINCRBY N:meta inserted) and
// re-reads the meta's generation (HMGET): in the same pipeline on a single server, where they
// execute after `cs`; right after `cs` on a cluster. Updates f's view of the meta and returns
// the replies of `cs`. A count sent to a filter dropped meanwhile made a stray N:meta of that
// one field: it is removed. Native and static filters.
std::vector<reply> run_checked(filter_state& f, std::vector<command>& cs, meta_view& view);

// Inserts keys into every generation a writer must reach (the current one, and the one a
// rebuild is filling); out[key] = new in the current generation. Returns the number of new
// keys; their count travels with the handle's next call.
std::size_t write_keys(filter_state& f, std::span<const std::string_view> keys,
                       std::vector<char>& out);
// Removes keys from a counting filter's generations like write_keys writes them (a script per
// key: counter_removal.cpp); out[key] = removed from the current generation (false: definitely
// absent). Returns the number removed.
std::size_t remove_keys(filter_state& f, std::span<const std::string_view> keys,
                        std::vector<char>& out);
// Looks keys up in the current generation; out[key] = present. Returns the number present.
// `also`, when given, runs in the same pipeline (one round trip on a single server) and its
// replies land in *also_replies.
std::size_t read_keys(filter_state& f, std::span<const std::string_view> keys,
                      std::vector<char>& out, std::span<const command> also = {},
                      std::vector<reply>* also_replies = nullptr);
// Sends the pending count now (a round trip with only the count and the meta check).
void flush_count(filter_state& f);
// WAIT for options.wait_replicas replicas; fewer is errc::timeout.
void wait_for_replicas(const filter_state& f);

// The error of shard `key` that a write found missing, after removing what the write created
// (`cleanup` says what could not be removed).
error broken_write(const std::string& name, const shard_layout& layout, const std::string& key,
                   bool guarded, const std::string& cleanup);

}  // namespace bloomkit::redis::detail
