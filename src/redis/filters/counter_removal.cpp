// Removes from counting cells (docs/REDIS.md, "Counting filters"): one Lua script per key, so
// that the test (all counters non-zero, the shard whole) and the decrements are one atomic step
// that no concurrent insert or remove of another client can split.
#include <algorithm>
#include <string>

#include "../client/reply_errors.hpp"
#include "batch_engine.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::redis::detail {

namespace {

// KEYS[1]: the shard. ARGV[1]: its guard bit, or -1 to check its length instead; ARGV[2]: the
// length in bytes it must have; ARGV[3..]: the key's counters (cell numbers of u4).
// Returns -1 (shard missing or short: nothing written, nothing created), 0 (the key is
// definitely absent: nothing written) or 1 (removed). As in the in-process filter
// (counting_bloom_filter::remove): a counter that n probes of the key share got n from it, so
// it must hold n; a counter at 15 is saturated (its true count is unknown) and is never
// decremented, nor does it refuse.
constexpr const char* remove_script = R"lua(
local key = KEYS[1]
local guard = tonumber(ARGV[1])
if guard >= 0 then
  if redis.call('GETBIT', key, guard) == 0 then return -1 end
elseif redis.call('STRLEN', key) < tonumber(ARGV[2]) then
  return -1
end
local get, runs, first = {}, {}, {}
for i = 3, #ARGV do
  get[#get + 1] = 'GET'; get[#get + 1] = 'u4'; get[#get + 1] = '#' .. ARGV[i]
  local cell = ARGV[i]
  if runs[cell] == nil then runs[cell] = 0; first[#first + 1] = i - 2 end
  runs[cell] = runs[cell] + 1
end
local old = redis.call('BITFIELD_RO', key, unpack(get))
local set = {}
for _, i in ipairs(first) do
  local cell, v = ARGV[i + 2], old[i]
  if v ~= 15 then
    if v < runs[cell] then return 0 end
    set[#set + 1] = 'SET'; set[#set + 1] = 'u4'; set[#set + 1] = '#' .. cell
    set[#set + 1] = v - runs[cell]
  end
end
if #set > 0 then redis.call('BITFIELD', key, unpack(set)) end
return 1
)lua";

}  // namespace

batch_commands append_remove_commands(const batch_layout& layout, const batch_plan& plan,
                                      std::vector<command>& cs) {
  batch_commands where;
  where.check = layout.check();
  if (layout.codec().write != cell_codec::write_kind::saturating_increment) {
    throw error(errc::unsupported,
                "remove: the filter has no counters (only a counting filter "
                "can remove keys)");
  }
  const bool guarded = where.check.how == string_check::kind::guard_bit;
  const std::string guard = guarded ? std::to_string(where.check.guard_bit) : "-1";
  const std::string length = std::to_string(where.check.min_bytes);
  where.checks_begin = where.checks_end = cs.size();
  where.bitfields_begin = cs.size();
  cs.reserve(cs.size() + plan.placements.size());
  for (const placement& at : plan.placements) {
    command c{{"EVAL", remove_script, "1", layout.string_key(at.string), guard, length}, 3};
    for (std::size_t i = at.first; i < at.first + at.cells; ++i) {
      c.args.push_back(std::to_string(plan.offsets[i]));
    }
    cs.push_back(std::move(c));
  }
  return where;
}

batch_answers decode_removes(const batch_plan& plan, const batch_commands& where,
                             std::span<const command> cs, std::span<const reply> replies) {
  batch_answers out;
  out.answers.assign(plan.keys, 0);
  for (std::size_t p = 0; p < plan.placements.size(); ++p) {
    const std::string& key = cs[where.bitfields_begin + p].args[3];
    const long long v =
        as_integer(replies[where.bitfields_begin + p], "remove script on '" + key + "'");
    if (v < 0) {
      if (std::find(out.broken.begin(), out.broken.end(), key) == out.broken.end()) {
        out.broken.push_back(key);
      }
      continue;
    }
    out.answers[plan.placements[p].key] |= static_cast<char>(v == 1);
  }
  return out;
}

}  // namespace bloomkit::redis::detail
