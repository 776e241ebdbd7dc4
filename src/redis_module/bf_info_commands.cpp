// BF.INFO and BF.CARD, with RedisBloom's field names and replies.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "arguments.hpp"
#include "bf_target.hpp"
#include "commands.hpp"
#include "replies.hpp"

namespace bloomkit::redis_module {

namespace {

// BF.INFO's figures of a key's filter, bloomkit's or RedisBloom's (bf_target.hpp).
struct bf_figures {
  std::uint64_t capacity = 0;
  std::uint64_t size = 0;
  std::uint64_t filters = 0;
  std::uint64_t items = 0;
  // None for a filter that does not grow: nil, as RedisBloom's NONSCALING.
  std::optional<std::uint64_t> expansion;
};

template <class Filter>
bf_figures figures_of(const Filter& f) {
  return {capacity_of(f), memory_of(f), filter_count_of(f), items_of(f), expansion_of(f)};
}

struct info_field {
  std::string_view keyword;  // BF.INFO key <keyword>
  const char* title;         // its name in the full reply
  std::optional<std::uint64_t> (*value)(const bf_figures&);
};

constexpr std::array<info_field, 5> info_fields{{
    {"CAPACITY", "Capacity", [](const bf_figures& f) { return std::optional(f.capacity); }},
    {"SIZE", "Size", [](const bf_figures& f) { return std::optional(f.size); }},
    {"FILTERS", "Number of filters", [](const bf_figures& f) { return std::optional(f.filters); }},
    {"ITEMS", "Number of items inserted",
     [](const bf_figures& f) { return std::optional(f.items); }},
    {"EXPANSION", "Expansion rate", [](const bf_figures& f) { return f.expansion; }},
}};

void reply_field(RedisModuleCtx* ctx, const bf_figures& f, std::size_t field) {
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
  const std::optional<bf_figures> figures = with_bf_filter(
      ctx, key, [&](const auto& filter) { return std::optional<bf_figures>(figures_of(filter)); });
  if (!figures) return module_ok;  // replied: the key holds no usable filter
  const bf_figures& f = *figures;
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
  return with_bf_filter(ctx, key, [&](const auto& filter) {
    return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(items_of(filter)));
  });
}

}  // namespace bloomkit::redis_module
