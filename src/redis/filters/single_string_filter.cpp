#include "bloomkit/redis/single_string_filter.hpp"

#include <algorithm>
#include <utility>

#include "../client/reply_errors.hpp"
#include "batch_engine.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/redis/eviction.hpp"
#include "bloomkit/sizing.hpp"
#include "single_string_layout.hpp"

namespace bloomkit::redis {

using detail::check_reply;
using detail::max_keys_per_round_trip;

single_string_filter::single_string_filter(
    client& c, std::unique_ptr<const detail::single_string_layout> layout,
    std::size_t keys_per_command)
    : client_(&c),
      layout_(std::move(layout)),
      keys_per_command_(std::max<std::size_t>(1, keys_per_command)) {}

single_string_filter::single_string_filter(single_string_filter&&) noexcept = default;
single_string_filter& single_string_filter::operator=(single_string_filter&&) noexcept = default;
single_string_filter::~single_string_filter() = default;

const std::string& single_string_filter::key() const noexcept {
  return layout_->key();
}
std::uint64_t single_string_filter::bits() const noexcept {
  return layout_->bits();
}
std::uint32_t single_string_filter::hashes() const noexcept {
  return layout_->hashes();
}

// One round trip of the batch engine; out[i] = key i was new (write) / is present (read).
// Returns the number of true answers.
std::size_t single_string_filter::run(std::span<const std::string_view> keys, bool write,
                                      std::span<bool> out) {
  const detail::batch_answers a =
      detail::run_batch(*client_, *layout_, keys,
                        write ? detail::cell_op::write : detail::cell_op::read, keys_per_command_);
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = a.answers[i] != 0;
  return a.count();
}

bool single_string_filter::insert(std::string_view key) {
  bool fresh = false;
  return run({&key, 1}, true, {&fresh, 1}) == 1;
}

bool single_string_filter::contains(std::string_view key) {
  bool present = false;
  return run({&key, 1}, false, {&present, 1}) == 1;
}

std::size_t single_string_filter::insert_many(std::span<const std::string_view> keys,
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

std::size_t single_string_filter::contains_many(std::span<const std::string_view> keys,
                                                std::span<bool> results) {
  bloomkit::detail::require_result_slots(keys.size(), results.size());
  std::size_t n = 0;
  for (std::size_t at = 0; at < keys.size(); at += max_keys_per_round_trip) {
    const std::size_t count = std::min(max_keys_per_round_trip, keys.size() - at);
    n += run(keys.subspan(at, count), false, results.subspan(at, count));
  }
  return n;
}

std::uint64_t single_string_filter::bits_set() {
  const reply r = client_->execute(
      command{layout_->header_bytes() == 0
                  ? std::vector<std::string>{"BITCOUNT", layout_->key()}
                  : std::vector<std::string>{"BITCOUNT", layout_->key(),
                                             std::to_string(layout_->header_bytes()), "-1"},
              1});
  check_reply(r, layout_->describe() + " (BITCOUNT)");
  return static_cast<std::uint64_t>(r.integer());
}

std::vector<std::string> single_string_filter::warnings() {
  const reply r = client_->execute(command{{"PTTL", layout_->key()}, 1});
  check_reply(r, layout_->describe() + " (PTTL)");
  std::vector<std::string> out;
  if (r.integer() == -2 && layout_->check().how != detail::string_check::kind::none) {
    out.push_back(layout_->describe() +
                  " does not exist: every lookup fails until it is pushed again");
  } else if (r.integer() == -2) {
    out.push_back(layout_->describe() +
                  " does not exist: every lookup answers absent until the first add creates it "
                  "(if it held keys, it was evicted, deleted or lost in a restart: rebuild it "
                  "from the source of truth)");
  }
  if (std::string w = eviction_warning(*client_, layout_->describe(), r.integer() >= 0);
      !w.empty()) {
    out.push_back(std::move(w));
  }
  return out;
}

double single_string_filter::estimated_count() {
  return estimate_count(layout_->bits(), layout_->hashes(), bits_set());
}

}  // namespace bloomkit::redis
