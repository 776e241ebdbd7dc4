// BF.RESERVE, BF.ADD, BF.MADD, BF.INSERT, BF.EXISTS, BF.MEXISTS with RedisBloom's arguments,
// replies and error strings.

#include <charconv>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "commands.hpp"
#include "module_stats.hpp"

namespace bloomkit::redis_module {

namespace {

constexpr const char* full_error = "ERR non scaling filter is full";

struct create_options {
  double error_rate = default_error_rate;
  long long capacity = static_cast<long long>(default_capacity);
  std::uint32_t expansion = default_expansion;
  bool nonscaling = false;
  bool create = true;
};

// Adds `items` to the key's filter, creating it with `options` when missing; replies one integer
// (single) or an array, whose last element is RedisBloom's error when a NONSCALING filter is full.
int add_items(RedisModuleCtx* ctx, RedisModuleString* name,
              std::span<RedisModuleString* const> items, const create_options& options, bool single,
              const char* event) {
  memory_budget budget(ctx);
  filter_key key(ctx, name, open_read | open_write);
  if (key.empty() && options.create) {
    try {
      key.create(make_bf_filter(options.error_rate, static_cast<std::uint64_t>(options.capacity),
                                options.expansion, options.nonscaling));
    } catch (const error& e) {
      return reply_failure(ctx, budget, e);
    }
  } else if (key.value() == nullptr || !key.value()->filter) {
    return reply_not_usable(ctx, key);
  }
  // The sub-filters a chain may add for these keys are checked against maxmemory before any key
  // goes in: a refused add changes nothing (a key it created above stays, empty, as BF.RESERVE's).
  if (!budget.admits(growth_allocations(*key.value()->filter, items.size()))) {
    return reply_error(ctx, budget.refusal());
  }
  const std::vector<std::string_view> keys = views_of(items);
  const auto added = std::make_unique<bool[]>(keys.size());
  std::size_t handled = 0;
  try {
    handled = add_keys(*key.value()->filter, keys, {added.get(), keys.size()});
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
      RedisModule_ReplyWithLongLong(ctx, added[0] ? 1 : 0);
    }
  } else {
    const bool full = handled < keys.size();
    RedisModule_ReplyWithArray(ctx, static_cast<long>(handled + (full ? 1 : 0)));
    for (std::size_t i = 0; i < handled; ++i) RedisModule_ReplyWithLongLong(ctx, added[i] ? 1 : 0);
    if (full) RedisModule_ReplyWithError(ctx, full_error);
  }
  announce_write(ctx, event, name);
  return module_ok;
}

// Answers 0 for every item of a missing key, as RedisBloom does.
int check_items(RedisModuleCtx* ctx, RedisModuleString* name,
                std::span<RedisModuleString* const> items, bool single) {
  filter_key key(ctx, name, open_read);
  if (!key.empty() && (key.value() == nullptr || !key.value()->filter)) {
    return reply_not_usable(ctx, key);
  }
  const std::vector<std::string_view> keys = views_of(items);
  note_lookups(keys.size());
  const auto present = std::make_unique<bool[]>(keys.size());
  if (key.empty()) {
    std::fill_n(present.get(), keys.size(), false);
  } else {
    find_keys(*key.value()->filter, keys, {present.get(), keys.size()});
  }
  if (!single) RedisModule_ReplyWithArray(ctx, static_cast<long>(keys.size()));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    RedisModule_ReplyWithLongLong(ctx, present[i] ? 1 : 0);
  }
  return module_ok;
}

}  // namespace

int reply_not_usable(RedisModuleCtx* ctx, const filter_key& key) {
  if (key.empty()) return RedisModule_ReplyWithError(ctx, "ERR not found");
  if (key.wrong_type()) return RedisModule_ReplyWithError(ctx, wrong_type_error);
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
  if (argc < 4 || argc > 7) return RedisModule_WrongArity(ctx);
  const std::optional<double> error_rate = to_double(view_of(argv[2]));
  if (!error_rate) return RedisModule_ReplyWithError(ctx, "ERR bad error rate");
  if (!(*error_rate > 0 && *error_rate < 1)) {
    return RedisModule_ReplyWithError(ctx, "ERR (0 < error rate range < 1) ");
  }
  const std::optional<long long> capacity = to_integer(view_of(argv[3]));
  if (!capacity) return RedisModule_ReplyWithError(ctx, "ERR bad capacity");
  if (*capacity <= 0) {
    return RedisModule_ReplyWithError(ctx, "ERR (capacity should be larger than 0)");
  }
  create_options options;
  options.error_rate = *error_rate;
  options.capacity = *capacity;
  bool expansion_given = false;
  for (int i = 4; i < argc; ++i) {
    const std::string_view argument = view_of(argv[i]);
    if (keyword_is(argument, "NONSCALING")) {
      options.nonscaling = true;
    } else if (keyword_is(argument, "EXPANSION")) {
      if (++i == argc) return RedisModule_ReplyWithError(ctx, "ERR no expansion");
      switch (parse_expansion(view_of(argv[i]), options.expansion)) {
        case expansion_check::ok:
          break;
        case expansion_check::not_integer:
          return RedisModule_ReplyWithError(ctx, "ERR bad expansion");
        case expansion_check::below_one:
          return RedisModule_ReplyWithError(ctx, "ERR expansion should be greater or equal to 1");
        case expansion_check::too_large:
          return reply_error(ctx, expansion_range_error(view_of(argv[i])));
      }
      expansion_given = true;
    } else {
      return RedisModule_ReplyWithError(ctx, "ERR unknown argument received");
    }
  }
  if (options.nonscaling && expansion_given) {
    return RedisModule_ReplyWithError(ctx, "Nonscaling filters cannot expand");
  }
  return reserve_key(ctx, argv[1], "bf.reserve", [&] {
    return make_bf_filter(options.error_rate, static_cast<std::uint64_t>(options.capacity),
                          options.expansion, options.nonscaling);
  });
}

// BF.ADD key item
int bf_add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  return add_items(ctx, argv[1], {argv + 2, 1}, create_options{}, true, "bf.add");
}

// BF.MADD key item [item ...]
int bf_madd(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 3) return RedisModule_WrongArity(ctx);
  return add_items(ctx, argv[1], {argv + 2, static_cast<std::size_t>(argc - 2)}, create_options{},
                   false, "bf.madd");
}

// BF.INSERT key [CAPACITY capacity] [ERROR error] [EXPANSION expansion] [NOCREATE] [NONSCALING]
//   ITEMS item [item ...]
int bf_insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 4) return RedisModule_WrongArity(ctx);
  create_options options;
  int items = -1;
  for (int i = 2; i < argc && items < 0; ++i) {
    const std::string_view argument = view_of(argv[i]);
    const bool takes_value = keyword_is(argument, "CAPACITY") || keyword_is(argument, "ERROR") ||
                             keyword_is(argument, "EXPANSION");
    if (takes_value && i + 1 == argc) return RedisModule_WrongArity(ctx);
    if (keyword_is(argument, "ITEMS")) {
      items = i + 1;
    } else if (keyword_is(argument, "CAPACITY")) {
      const std::optional<long long> capacity = to_integer(view_of(argv[++i]));
      if (!capacity) return RedisModule_ReplyWithError(ctx, "Bad capacity");
      options.capacity = *capacity;
    } else if (keyword_is(argument, "ERROR")) {
      const std::optional<double> error_rate = to_double(view_of(argv[++i]));
      if (!error_rate) return RedisModule_ReplyWithError(ctx, "Bad error rate");
      options.error_rate = *error_rate;
    } else if (keyword_is(argument, "EXPANSION")) {
      switch (parse_expansion(view_of(argv[++i]), options.expansion)) {
        case expansion_check::ok:
          break;
        case expansion_check::not_integer:
          return RedisModule_ReplyWithError(ctx, "Bad expansion");
        case expansion_check::below_one:
          return RedisModule_ReplyWithError(ctx, "Bad argument received");
        case expansion_check::too_large:
          return reply_error(ctx, expansion_range_error(view_of(argv[i])));
      }
    } else if (keyword_is(argument, "NOCREATE")) {
      options.create = false;
    } else if (keyword_is(argument, "NONSCALING")) {
      options.nonscaling = true;
    } else {
      return RedisModule_ReplyWithError(ctx, "Unknown argument received");
    }
  }
  if (items < 0 || items >= argc) return RedisModule_WrongArity(ctx);
  if (!(options.error_rate > 0 && options.error_rate < 1) || options.capacity < 1) {
    return RedisModule_ReplyWithError(ctx, "Bad argument received");
  }
  return add_items(ctx, argv[1], {argv + items, static_cast<std::size_t>(argc - items)}, options,
                   false, "bf.insert");
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
