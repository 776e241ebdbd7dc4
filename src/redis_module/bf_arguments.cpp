// BF.RESERVE's and BF.INSERT's arguments (bf_arguments.hpp).

#include "bf_arguments.hpp"

#include <optional>
#include <string_view>

#include "arguments.hpp"
#include "module_settings.hpp"

namespace bloomkit::redis_module {

namespace {

using read_result = std::variant<create_options, argument_refusal>;

read_result refuse(std::string text) {
  return argument_refusal(std::move(text));
}

// RedisBloom's RMUtil_ArgIndex: the first argument after the command name equal to `keyword`
// (case-insensitive), the key and the numbers included; -1 when none is.
long index_of(std::span<RedisModuleString* const> argv, std::string_view keyword) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (keyword_is(view_of(argv[i]), keyword)) return static_cast<long>(i);
  }
  return -1;
}

bool error_rate_in_range(double e) {
  return e > 0 && e < 1;
}
bool capacity_in_range(long long c) {
  return c >= 1 && c <= max_bf_capacity;
}
bool expansion_in_range(long long x) {
  return x >= 0 && x <= max_bf_expansion;
}

}  // namespace

create_options default_create_options() {
  const bf_defaults d = current_bf_defaults();
  create_options o;
  o.error_rate = d.error_rate;
  o.capacity = d.capacity;
  o.expansion = d.expansion;
  o.nonscaling = d.expansion == 0;  // bf-expansion-factor 0 makes NONSCALING filters
  return o;
}

read_result read_reserve(std::span<RedisModuleString* const> argv) {
  if (argv.size() < 4 || argv.size() > 7) return argument_refusal(wrong_arity{});
  create_options o = default_create_options();
  const std::optional<double> error_rate = to_double(view_of(argv[2]));
  if (!error_rate) return refuse("ERR bad error rate");
  if (!error_rate_in_range(*error_rate)) {
    return refuse("ERR error rate must be in the range (0.000000, 1.000000)");
  }
  const std::optional<long long> capacity = to_integer(view_of(argv[3]));
  if (!capacity) return refuse("ERR bad capacity");
  if (!capacity_in_range(*capacity)) {
    return refuse("ERR capacity must be in the range [1, " + std::to_string(max_bf_capacity) + "]");
  }
  o.error_rate = *error_rate;
  o.capacity = static_cast<std::uint64_t>(*capacity);
  const bool nonscaling = index_of(argv, "NONSCALING") != -1;
  const long at = index_of(argv, "EXPANSION");
  if (at + 1 == static_cast<long>(argv.size())) return refuse("ERR no expansion");
  if (at != -1) {
    const std::optional<long long> expansion = to_integer(view_of(argv[at + 1]));
    if (!expansion) return refuse("ERR bad expansion");
    // EXPANSION 0 is NONSCALING; any other beside NONSCALING is a contradiction.
    if (*expansion != 0 && nonscaling) return refuse("Nonscaling filters cannot expand");
    if (!expansion_in_range(*expansion)) {
      return refuse("ERR expansion must be in the range [0, " + std::to_string(max_bf_expansion) +
                    "]");
    }
    o.expansion = static_cast<std::uint32_t>(*expansion);
  }
  o.nonscaling = nonscaling || o.expansion == 0;
  return o;
}

read_result read_insert(std::span<RedisModuleString* const> argv, std::size_t& items) {
  if (argv.size() < 4) return argument_refusal(wrong_arity{});
  create_options o = default_create_options();
  bool nonscaling = false;
  std::size_t first_item = 0;
  for (std::size_t i = 2; i < argv.size() && first_item == 0;) {
    const std::string_view option = view_of(argv[i]);
    if (keyword_is(option, "ITEMS")) {
      first_item = i + 1;
      continue;
    }
    const bool takes_value = keyword_is(option, "CAPACITY") || keyword_is(option, "ERROR") ||
                             keyword_is(option, "EXPANSION");
    if (!takes_value) {
      if (keyword_is(option, "NOCREATE")) {
        o.create = false;
      } else if (keyword_is(option, "NONSCALING")) {
        nonscaling = true;
      } else {
        return refuse("Unknown argument received");
      }
      ++i;
      continue;
    }
    if (i + 1 == argv.size()) return argument_refusal(wrong_arity{});
    const std::string_view value = view_of(argv[i + 1]);
    if (keyword_is(option, "ERROR")) {
      const std::optional<double> e = to_double(value);
      if (!e || !error_rate_in_range(*e)) return refuse("Bad error rate");
      o.error_rate = *e;
    } else if (keyword_is(option, "CAPACITY")) {
      const std::optional<long long> c = to_integer(value);
      if (!c || !capacity_in_range(*c)) return refuse("Bad capacity");
      o.capacity = static_cast<std::uint64_t>(*c);
    } else {
      const std::optional<long long> x = to_integer(value);
      if (!x || !expansion_in_range(*x)) return refuse("Bad expansion");
      o.expansion = static_cast<std::uint32_t>(*x);
    }
    i += 2;
  }
  if (first_item == 0 || first_item == argv.size()) return argument_refusal(wrong_arity{});
  // EXPANSION 0 is NONSCALING, as bf-expansion-factor 0 is.
  o.nonscaling = nonscaling || o.expansion == 0;
  items = first_item;
  return o;
}

}  // namespace bloomkit::redis_module
