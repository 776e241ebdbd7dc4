#include "bloomkit/redis/go_zero_filter.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/eviction.hpp"
#include "bloomkit/sizing.hpp"
#include "reply_errors.hpp"

namespace bloomkit::redis {

namespace {

// As redis_filter: batches larger than this go out in several round trips, so a call with
// millions of keys never builds (and Redis never buffers) hundreds of MiB of commands at once.
constexpr std::size_t max_keys_per_round_trip = 8192;

using detail::check_reply;

std::string describe_key(const std::string& key) {
  return "go-zero filter key '" + key + "'";
}

}  // namespace

go_zero_filter::go_zero_filter(client& c, std::string key, std::uint64_t bits,
                               go_zero_options options)
    : client_(&c), key_(std::move(key)), bits_(bits), options_(options) {
  if (bits_ < 1 || bits_ > max_bits) {
    throw error(errc::invalid_argument, describe_key(key_) + ": bits must be 1 to " +
                                            std::to_string(max_bits) + " (got " +
                                            std::to_string(bits_) + ")");
  }
  options_.keys_per_command = std::max<std::size_t>(1, options_.keys_per_command);
}

// One round trip: BITFIELD (write) or BITFIELD_RO of keys_per_command keys each, pipelined; out[i]
// = key i was new (write) / is present (read). Returns the number of true answers.
std::size_t go_zero_filter::run(std::span<const std::string_view> keys, bool write,
                                std::span<bool> out) {
  std::vector<command> cs;
  cs.reserve((keys.size() + options_.keys_per_command - 1) / options_.keys_per_command);
  for (std::size_t at = 0; at < keys.size(); at += options_.keys_per_command) {
    const std::size_t end = std::min(keys.size(), at + options_.keys_per_command);
    command c;
    c.args.reserve(2 + (end - at) * go_zero::hashes * (write ? 4 : 3));
    c.args.emplace_back(write ? "BITFIELD" : "BITFIELD_RO");
    c.args.push_back(key_);
    for (std::size_t i = at; i < end; ++i) {
      auto probes = go_zero::policy::probes(go_zero::policy::hash(keys[i]), bits_);
      for (std::uint32_t j = 0; j < go_zero::hashes; ++j) {
        c.args.emplace_back(write ? "SET" : "GET");
        c.args.emplace_back("u1");
        c.args.push_back(std::to_string(probes.next()));
        if (write) c.args.emplace_back("1");
      }
    }
    cs.push_back(std::move(c));
  }
  const std::vector<reply> replies = client_->execute_many(cs);
  const std::string what = std::string(write ? "BITFIELD " : "BITFIELD_RO ") + key_;
  std::size_t n = 0;
  for (std::size_t g = 0; g < cs.size(); ++g) {
    check_reply(replies[g], describe_key(key_) + " (" + what + ")");
    const std::size_t at = g * options_.keys_per_command;
    const std::size_t count = std::min(keys.size() - at, options_.keys_per_command);
    const auto& values = replies[g].elements();
    if (values.size() != count * go_zero::hashes) {
      throw error(errc::server_error, what + ": " + std::to_string(values.size()) + " values for " +
                                          std::to_string(count * go_zero::hashes) + " probes");
    }
    for (std::size_t i = 0; i < count; ++i) {
      bool zero_seen = false;
      for (std::uint32_t j = 0; j < go_zero::hashes; ++j) {
        zero_seen |= values[i * go_zero::hashes + j].integer() == 0;
      }
      const bool answer = write ? zero_seen : !zero_seen;
      out[at + i] = answer;
      n += answer;
    }
  }
  return n;
}

bool go_zero_filter::insert(std::string_view key) {
  bool fresh = false;
  return run({&key, 1}, true, {&fresh, 1}) == 1;
}

bool go_zero_filter::contains(std::string_view key) {
  bool present = false;
  return run({&key, 1}, false, {&present, 1}) == 1;
}

namespace {}  // namespace

std::size_t go_zero_filter::insert_many(std::span<const std::string_view> keys,
                                        std::span<bool> fresh) {
  if (!fresh.empty())
    bloomkit::detail::require_result_slots(keys.size(), fresh.size(), "insert_many");
  std::unique_ptr<bool[]> scratch;
  if (fresh.empty()) scratch = std::make_unique<bool[]>(max_keys_per_round_trip);
  std::size_t n = 0;
  for (std::size_t at = 0; at < keys.size(); at += max_keys_per_round_trip) {
    const std::size_t count = std::min(max_keys_per_round_trip, keys.size() - at);
    const std::span<bool> out =
        fresh.empty() ? std::span<bool>(scratch.get(), count) : fresh.subspan(at, count);
    n += run(keys.subspan(at, count), true, out);
  }
  return n;
}

std::size_t go_zero_filter::contains_many(std::span<const std::string_view> keys,
                                          std::span<bool> results) {
  bloomkit::detail::require_result_slots(keys.size(), results.size());
  std::size_t n = 0;
  for (std::size_t at = 0; at < keys.size(); at += max_keys_per_round_trip) {
    const std::size_t count = std::min(max_keys_per_round_trip, keys.size() - at);
    n += run(keys.subspan(at, count), false, results.subspan(at, count));
  }
  return n;
}

std::uint64_t go_zero_filter::bits_set() {
  const reply r = client_->execute(command{{"BITCOUNT", key_}, 1});
  check_reply(r, describe_key(key_) + " (BITCOUNT)");
  return static_cast<std::uint64_t>(r.integer());
}

std::vector<std::string> go_zero_filter::warnings() {
  const reply r = client_->execute(command{{"PTTL", key_}, 1});
  check_reply(r, describe_key(key_) + " (PTTL)");
  std::vector<std::string> out;
  if (r.integer() == -2) {
    out.push_back(describe_key(key_) +
                  " does not exist: every lookup answers absent until the first add creates it "
                  "(if it held keys, it was evicted, deleted or lost in a restart: rebuild it "
                  "from the source of truth)");
  }
  if (std::string w = eviction_warning(*client_, describe_key(key_), r.integer() >= 0);
      !w.empty()) {
    out.push_back(std::move(w));
  }
  return out;
}

double go_zero_filter::estimated_count() {
  return estimate_count(bits_, go_zero::hashes, bits_set());
}

}  // namespace bloomkit::redis
