// bloomkit's own commands, for what RedisBloom lacks:
//   BK.RESERVE key capacity fpp [KIND classic|blocked|counting|scalable|window|cuckoo]
//              [EXPANSION s] [WINDOW duration|count] [SLICES s]
//                                      made by the registry (create_any): each name is the
//                                      CLI's --kind type (scalable: a chain of classic filters,
//                                      window: the grouped window_filter)
//   BK.REMOVE key item [item ...]      counting and cuckoo filters: one reply per item, 1 when
//                                      removed
//   BK.INFO key                        the fields of `bloomkit info --json` (docs/CLI.md), of
//                                      bloomkit's keys and of RedisBloom's (kind redisbloom)
//   BK.CONVERT key                     a RedisBloom key made bloomkit's (convert_command.cpp)

#include <concepts>
#include <string>
#include <variant>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/any_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/kind_parts.hpp"
#include "commands.hpp"

namespace bloomkit::redis_module {

namespace {

// BK.RESERVE's kind name and the registry's request (n, p, EXPANSION, the window).
struct reserve_request {
  std::string kind = "blocked";
  kind_request request;
};

// The filter of the kind named r.kind, made by the registry as the CLI's --kind makes it.
module_filter make_filter(const reserve_request& r) {
  if (r.kind == kind_traits<window_filter>::name && r.request.window == 0) {
    throw error(errc::invalid_argument, "KIND window needs WINDOW");
  }
  return module_filter_of(*create_any(r.kind, r.request), false);
}

// "give classic, blocked, counting, scalable or window": the registry's kind names.
std::string kind_choices() {
  std::string out;
  for (std::size_t i = 0; i < kind_names.size(); ++i) {
    if (i != 0) out += i + 1 == kind_names.size() ? " or " : ", ";
    out += kind_names[i].name;
  }
  return out;
}

bool is_kind_name(std::string_view name) {
  for (const kind_name& k : kind_names) {
    if (k.name == name) return true;
  }
  return false;
}

// A reply of name / value pairs, filled through report_figures (kinds.hpp) as the CLI's report.
class info_reply {
 public:
  template <class Value>
  info_reply& add(std::string_view name, const Value& value) {
    if constexpr (std::same_as<Value, double>) {
      fields_.push_back({std::string(name), value});
    } else if constexpr (std::integral<Value>) {
      fields_.push_back({std::string(name), static_cast<long long>(value)});
    } else {
      fields_.push_back({std::string(name), std::string(value)});
    }
    return *this;
  }
  void send(RedisModuleCtx* ctx) const {
    RedisModule_ReplyWithArray(ctx, static_cast<long>(2 * fields_.size()));
    for (const auto& [name, value] : fields_) {
      RedisModule_ReplyWithSimpleString(ctx, name.c_str());
      std::visit(
          [&]<class V>(const V& v) {
            if constexpr (std::same_as<V, double>) {
              RedisModule_ReplyWithDouble(ctx, v);
            } else if constexpr (std::same_as<V, long long>) {
              RedisModule_ReplyWithLongLong(ctx, v);
            } else {
              RedisModule_ReplyWithStringBuffer(ctx, v.data(), v.size());
            }
          },
          value);
    }
  }

 private:
  struct field {
    std::string name;
    std::variant<long long, double, std::string> value;
  };
  std::vector<field> fields_;
};

// BK.INFO's fields of a filter: its kind, scheme and NONSCALING, then `bloomkit info --json`'s.
template <class Filter>
void add_info_fields(info_reply& reply, const Filter& filter, bool nonscaling) {
  reply.add("kind", kind_traits<Filter>::name)
      .add("hash_scheme", to_string(scheme_of(filter)))
      .add("nonscaling", nonscaling ? 1 : 0);
  report_figures(filter, reply);
  // A grouped window's slices grow; past this many keys in one (a burst past its overflow
  // parts) its FPP bound no longer holds, and the CLI warns (redis_add.cpp).
  if constexpr (requires { filter.fullest_slice_keys(); }) {
    reply.add("fullest_slice_keys", filter.fullest_slice_keys());
  }
}

}  // namespace

int bk_reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 4 || argc % 2 != 0) return RedisModule_WrongArity(ctx);
  reserve_request r;
  const std::optional<long long> capacity = to_integer(view_of(argv[2]));
  if (!capacity || *capacity < 1) {
    return RedisModule_ReplyWithError(ctx, "ERR (capacity should be larger than 0)");
  }
  r.request.initial_capacity = static_cast<std::uint64_t>(*capacity);
  const std::optional<double> fpp = to_double(view_of(argv[3]));
  if (!fpp) return RedisModule_ReplyWithError(ctx, "ERR bad error rate");
  if (!(*fpp > 0 && *fpp < 1)) {
    return RedisModule_ReplyWithError(ctx, "ERR (0 < error rate range < 1) ");
  }
  r.request.target_fpp = *fpp;
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string_view option = view_of(argv[i]);
    const std::string_view value = view_of(argv[i + 1]);
    if (keyword_is(option, "KIND")) {
      r.kind.clear();
      for (char c : value) r.kind += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!is_kind_name(r.kind)) {
        return reply_error(ctx, "ERR unknown KIND: give " + kind_choices());
      }
    } else if (keyword_is(option, "EXPANSION")) {
      switch (parse_expansion(value, r.request.growth)) {
        case expansion_check::ok:
          break;
        case expansion_check::not_integer:
        case expansion_check::below_one:
          return RedisModule_ReplyWithError(ctx, "ERR bad expansion");
        case expansion_check::too_large:
          return reply_error(ctx, expansion_range_error(value));
      }
    } else if (keyword_is(option, "WINDOW")) {
      const std::optional<window_length> window = parse_window_length(value);
      if (!window) {
        return RedisModule_ReplyWithError(
            ctx, "ERR bad WINDOW: give a duration (90s, 15m, 24h, 7d) or a count of inserts");
      }
      r.request.window = window->length;
      r.request.unit = window->unit;
    } else if (keyword_is(option, "SLICES")) {
      const std::optional<long long> slices = to_integer(value);
      if (!slices || *slices < 1 || *slices > window_slices::max_slices) {
        return RedisModule_ReplyWithError(ctx, "ERR bad SLICES: give 1..255");
      }
      r.request.slices = static_cast<std::uint32_t>(*slices);
    } else {
      return RedisModule_ReplyWithError(ctx, "ERR unknown argument received");
    }
  }
  if (r.kind != kind_traits<window_filter>::name && r.request.window != 0) {
    return RedisModule_ReplyWithError(ctx, "ERR WINDOW needs KIND window");
  }
  return reserve_key(ctx, argv[1], "bk.reserve", [&] { return make_filter(r); });
}

int bk_remove(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  static constexpr const char* needs_counting =
      "ERR BK.REMOVE needs a counting or cuckoo filter (BK.RESERVE key n p KIND counting)";
  if (argc < 3) return RedisModule_WrongArity(ctx);
  filter_key key(ctx, argv[1], open_read | open_write);
  if (key.chain() != nullptr) return RedisModule_ReplyWithError(ctx, needs_counting);
  if (key.value() == nullptr || !key.value()->filter) return reply_not_usable(ctx, key);
  return std::visit(
      [&]<class Filter>(Filter& filter) {
        if constexpr (kind_parts<Filter>::removes) {
          RedisModule_ReplyWithArray(ctx, argc - 2);
          for (int i = 2; i < argc; ++i) {
            RedisModule_ReplyWithLongLong(ctx, filter.remove(view_of(argv[i])) ? 1 : 0);
          }
          announce_write(ctx, "bk.remove", argv[1]);
          return module_ok;
        } else {
          return RedisModule_ReplyWithError(ctx, needs_counting);
        }
      },
      key.value()->filter->filter);
}

int bk_info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  filter_key key(ctx, argv[1], open_read);
  info_reply reply;
  if (const redisbloom_chain* chain = key.chain()) {
    add_info_fields(reply, *chain, !chain->scaling());
  } else if (key.value() != nullptr && key.value()->filter) {
    const module_filter& f = *key.value()->filter;
    std::visit([&](const auto& filter) { add_info_fields(reply, filter, f.nonscaling); }, f.filter);
  } else {
    return reply_not_usable(ctx, key);
  }
  reply.send(ctx);
  return module_ok;
}

}  // namespace bloomkit::redis_module
