#include "bloomkit/redis/go_zero_filter.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "batch_engine.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/eviction.hpp"
#include "bloomkit/sizing.hpp"
#include "reply_errors.hpp"

namespace bloomkit::redis {

namespace {

using detail::check_reply;
using detail::max_keys_per_round_trip;

std::string describe_key(const std::string& key) {
  return "go-zero filter key '" + key + "'";
}

// go-zero's layout: the one Redis string `key`, a key's go_zero::hashes bits at go-zero's
// positions (compat/go_zero.hpp), no guard (go-zero reads a missing key as an empty filter).
class go_zero_layout final : public detail::batch_layout {
 public:
  go_zero_layout(const std::string& key, std::uint64_t bits) : key_(key), bits_(bits) {}

  const detail::cell_codec& codec() const noexcept override { return codec_; }
  detail::string_check check() const noexcept override { return {}; }
  void place(std::string_view key, detail::cell_op, detail::placement_sink& out) const override {
    auto probes = go_zero::policy::probes(go_zero::policy::hash(key), bits_);
    std::uint64_t* offsets = out.add(0, go_zero::hashes);
    for (std::uint32_t i = 0; i < go_zero::hashes; ++i) offsets[i] = probes.next();
  }
  std::string string_key(std::uint64_t) const override { return key_; }
  std::string describe_command(std::string text) const override {
    return describe_key(key_) + " (" + text + ")";
  }

 private:
  const std::string& key_;
  std::uint64_t bits_;
  detail::cell_codec codec_;
};

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

// One round trip of the batch engine; out[i] = key i was new (write) / is present (read).
// Returns the number of true answers.
std::size_t go_zero_filter::run(std::span<const std::string_view> keys, bool write,
                                std::span<bool> out) {
  const detail::batch_answers a = detail::run_batch(
      *client_, go_zero_layout(key_, bits_), keys,
      write ? detail::cell_op::write : detail::cell_op::read, options_.keys_per_command);
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = a.answers[i] != 0;
  return a.count();
}

bool go_zero_filter::insert(std::string_view key) {
  bool fresh = false;
  return run({&key, 1}, true, {&fresh, 1}) == 1;
}

bool go_zero_filter::contains(std::string_view key) {
  bool present = false;
  return run({&key, 1}, false, {&present, 1}) == 1;
}

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
