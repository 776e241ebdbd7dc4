// BF.INFO and BF.CARD, with RedisBloom's field names and replies.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "arguments.hpp"
#include "commands.hpp"
#include "replies.hpp"

namespace bloomkit::redis_module {

namespace {

struct info_field {
  std::string_view keyword;  // BF.INFO key <keyword>
  const char* title;         // its name in the full reply
  // Its value; none for a filter that does not have it (the expansion of one that does not
  // grow: nil, as RedisBloom's NONSCALING).
  std::optional<std::uint64_t> (*value)(const module_filter&);
};

constexpr std::array<info_field, 5> info_fields{{
    {"CAPACITY", "Capacity", [](const module_filter& f) { return std::optional(capacity_of(f)); }},
    {"SIZE", "Size",
     [](const module_filter& f) { return std::optional<std::uint64_t>(memory_of(f)); }},
    {"FILTERS", "Number of filters",
     [](const module_filter& f) { return std::optional(filter_count_of(f)); }},
    {"ITEMS", "Number of items inserted",
     [](const module_filter& f) { return std::optional(items_of(f)); }},
    {"EXPANSION", "Expansion rate", expansion_of},
}};

void reply_field(RedisModuleCtx* ctx, const module_filter& f, std::size_t field) {
  if (const auto v = info_fields[field].value(f)) {
    RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(*v));
  } else {
    RedisModule_ReplyWithNull(ctx);
  }
}

}  // namespace

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]: as RedisBloom, the fields as a
// map (RESP3) or an array of names and values (RESP2); one field as a map of that field (RESP3)
// or an array of its value (RESP2).
int bf_info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2 && argc != 3) return RedisModule_WrongArity(ctx);
  filter_key key(ctx, argv[1], open_read);
  if (key.value() == nullptr || !key.value()->filter) return reply_not_usable(ctx, key);
  const module_filter& f = *key.value()->filter;
  if (argc == 3) {
    const std::string_view wanted = view_of(argv[2]);
    for (std::size_t i = 0; i < info_fields.size(); ++i) {
      if (keyword_is(wanted, info_fields[i].keyword)) {
        if (RedisModule_ReplyWithMap != nullptr && speaks_resp3(ctx)) {
          RedisModule_ReplyWithMap(ctx, 1);
          RedisModule_ReplyWithSimpleString(ctx, info_fields[i].title);
        } else {
          RedisModule_ReplyWithArray(ctx, 1);
        }
        reply_field(ctx, f, i);
        return module_ok;
      }
    }
    return RedisModule_ReplyWithError(ctx, "Invalid information value");
  }
  reply_map(ctx, static_cast<long>(info_fields.size()));
  for (std::size_t i = 0; i < info_fields.size(); ++i) {
    RedisModule_ReplyWithSimpleString(ctx, info_fields[i].title);
    reply_field(ctx, f, i);
  }
  return module_ok;
}

// BF.CARD key: the keys added (0 for a missing key).
int bf_card(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  filter_key key(ctx, argv[1], open_read);
  if (key.empty()) return RedisModule_ReplyWithLongLong(ctx, 0);
  if (key.value() == nullptr || !key.value()->filter) return reply_not_usable(ctx, key);
  return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(items_of(*key.value()->filter)));
}

}  // namespace bloomkit::redis_module
