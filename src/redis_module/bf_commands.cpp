// BF.RESERVE, BF.ADD, BF.MADD, BF.INSERT, BF.EXISTS, BF.MEXISTS with RedisBloom's arguments,
// replies and error strings.

#include <algorithm>
#include <charconv>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arguments.hpp"
#include "bf_arguments.hpp"
#include "bf_target.hpp"
#include "bloomkit/error.hpp"
#include "commands.hpp"
#include "module_stats.hpp"
#include "replies.hpp"

namespace bloomkit::redis_module {

namespace {

constexpr const char* full_error = "ERR non scaling filter is full";

// add_items once the key holds `filter` (bf_target.hpp: bloomkit's or RedisBloom's): replies one
// boolean (single) or an array of them (1 / 0 in RESP2), whose last element is RedisBloom's error
// when a NONSCALING filter is full.
template <class Filter>
int add_to(RedisModuleCtx* ctx, memory_budget& budget, Filter& filter, RedisModuleString* name,
           std::span<RedisModuleString* const> items, bool single, const char* event) {
  // The sub-filters a chain may add for these keys are checked against maxmemory before any key
  // goes in: a refused add changes nothing (a key it created above stays, empty, as BF.RESERVE's).
  if (!budget.admits(growth_allocations(filter, items.size()))) {
    return reply_error(ctx, budget.refusal());
  }
  const std::vector<std::string_view> keys = views_of(items);
  const auto added = std::make_unique<bool[]>(keys.size());
  std::size_t handled = 0;
  try {
    handled = add_keys(filter, keys, {added.get(), keys.size()});
    note_adds(handled);
  } catch (const error& e) {
    // A chain that cannot grow (its memory ceiling, 2^63 keys, or maxmemory for a window): the
    // keys before stayed added, so the replicas must see the command too.
    reply_failure(ctx, budget, e);
    announce_write(ctx, event, name);
    return module_ok;
  }
  if (single) {
    if (handled == 0) {
      RedisModule_ReplyWithError(ctx, full_error);
    } else {
      reply_bool(ctx, added[0]);
    }
  } else {
    const bool full = handled < keys.size();
    RedisModule_ReplyWithArray(ctx, static_cast<long>(handled + (full ? 1 : 0)));
    for (std::size_t i = 0; i < handled; ++i) reply_bool(ctx, added[i]);
    if (full) RedisModule_ReplyWithError(ctx, full_error);
  }
  announce_write(ctx, event, name);
  return module_ok;
}

// Adds `items` to the key's filter, creating it with `options` when missing.
int add_items(RedisModuleCtx* ctx, RedisModuleString* name,
              std::span<RedisModuleString* const> items, const create_options& options, bool single,
              const char* event) {
  memory_budget budget(ctx);
  filter_key key(ctx, name, open_read | open_write);
  if (key.empty() && options.create) {
    try {
      key.create(make_bf_chain(options.error_rate, options.capacity, options.expansion,
                               options.nonscaling));
    } catch (const error& e) {
      return reply_failure(ctx, budget, e);
    }
  }
  return with_bf_filter(ctx, key, [&](auto& filter) {
    return add_to(ctx, budget, filter, name, items, single, event);
  });
}

// Answers false (0) for every item of a key that holds no usable filter: missing, of another type
// or a bloomkit image still being loaded by BF.LOADCHUNK, as RedisBloom answers any key that is
// not its filter. A RedisBloom key being loaded answers from the bits it has (bf_target.hpp).
int check_items(RedisModuleCtx* ctx, RedisModuleString* name,
                std::span<RedisModuleString* const> items, bool single) {
  filter_key key(ctx, name, open_read);
  const std::vector<std::string_view> keys = views_of(items);
  note_lookups(keys.size());
  const auto present = std::make_unique<bool[]>(keys.size());
  const auto reply = [&] {
    if (!single) RedisModule_ReplyWithArray(ctx, static_cast<long>(keys.size()));
    for (std::size_t i = 0; i < keys.size(); ++i) reply_bool(ctx, present[i]);
    return module_ok;
  };
  if (key.chain() == nullptr && (key.value() == nullptr || !key.value()->filter)) {
    std::fill_n(present.get(), keys.size(), false);
    return reply();
  }
  return with_bf_filter(ctx, key, [&](const auto& filter) {
    find_keys(filter, keys, {present.get(), keys.size()});
    return reply();
  });
}

}  // namespace

int reply_refusal(RedisModuleCtx* ctx, const argument_refusal& refusal) {
  if (std::holds_alternative<wrong_arity>(refusal)) return RedisModule_WrongArity(ctx);
  return reply_error(ctx, std::get<std::string>(refusal));
}

int reply_not_usable(RedisModuleCtx* ctx, const filter_key& key) {
  if (key.empty()) return RedisModule_ReplyWithError(ctx, "ERR not found");
  if (key.wrong_type()) return RedisModule_ReplyWithError(ctx, wrong_type_error);
  if (key.chain() != nullptr && key.chain()->bloomkit_hashing()) {
    return RedisModule_ReplyWithError(ctx, "ERR not for BF.* chains (type bkbloom--)");
  }
  if (key.chain() != nullptr) {
    return RedisModule_ReplyWithError(
        ctx, "ERR not for RedisBloom's keys (type MBbloom--): BK.CONVERT makes it bloomkit's");
  }
  return RedisModule_ReplyWithError(ctx, "ERR filter is being loaded by BF.LOADCHUNK");
}

expansion_check parse_expansion(std::string_view text, std::uint32_t& out) {
  const bool negative = !text.empty() && text.front() == '-';
  const std::string_view digits = text.substr(negative ? 1 : 0);
  unsigned long long value = 0;
  const auto [end, problem] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || end != digits.data() + digits.size() ||
      (problem != std::errc() && problem != std::errc::result_out_of_range)) {
    return expansion_check::not_integer;
  }
  if (negative || (problem == std::errc() && value == 0)) return expansion_check::below_one;
  if (problem == std::errc::result_out_of_range ||
      value > scalable_blocked_bloom_filter::max_growth) {
    return expansion_check::too_large;
  }
  out = static_cast<std::uint32_t>(value);
  return expansion_check::ok;
}

std::string expansion_range_error(std::string_view text) {
  return "ERR EXPANSION " + std::string(text) + " is out of range: give 1.." +
         std::to_string(scalable_blocked_bloom_filter::max_growth);
}

void announce_write(RedisModuleCtx* ctx, const char* event, RedisModuleString* key) {
  RedisModule_ReplicateVerbatim(ctx);
  RedisModule_NotifyKeyspaceEvent(ctx, notify_generic, event, key);
}

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
int bf_reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  const auto read = read_reserve({argv, static_cast<std::size_t>(argc)});
  if (const auto* refusal = std::get_if<argument_refusal>(&read)) {
    return reply_refusal(ctx, *refusal);
  }
  const create_options& options = std::get<create_options>(read);
  return reserve_key(ctx, argv[1], "bf.reserve", [&] {
    return make_bf_chain(options.error_rate, options.capacity, options.expansion,
                         options.nonscaling);
  });
}

// BF.ADD key item
int bf_add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  return add_items(ctx, argv[1], {argv + 2, 1}, default_create_options(), true, "bf.add");
}

// BF.MADD key item [item ...]
int bf_madd(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 3) return RedisModule_WrongArity(ctx);
  return add_items(ctx, argv[1], {argv + 2, static_cast<std::size_t>(argc - 2)},
                   default_create_options(), false, "bf.madd");
}

// BF.INSERT key [CAPACITY capacity] [ERROR error] [EXPANSION expansion] [NOCREATE] [NONSCALING]
//   ITEMS item [item ...]
int bf_insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  std::size_t items = 0;
  const auto read = read_insert({argv, static_cast<std::size_t>(argc)}, items);
  if (const auto* refusal = std::get_if<argument_refusal>(&read)) {
    return reply_refusal(ctx, *refusal);
  }
  return add_items(ctx, argv[1], {argv + items, static_cast<std::size_t>(argc) - items},
                   std::get<create_options>(read), false, "bf.insert");
}

// BF.EXISTS key item
int bf_exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  return check_items(ctx, argv[1], {argv + 2, 1}, true);
}

// BF.MEXISTS key item [item ...]
int bf_mexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 3) return RedisModule_WrongArity(ctx);
  return check_items(ctx, argv[1], {argv + 2, static_cast<std::size_t>(argc - 2)}, false);
}

}  // namespace bloomkit::redis_module
