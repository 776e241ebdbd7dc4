#pragma once
// RedisBloom's settings, as its module arguments and configs name them: the defaults of a filter
// that BF.ADD / BF.MADD / BF.INSERT create (bf-error-rate, bf-initial-size, bf-expansion-factor;
// BF.RESERVE takes bf-expansion-factor when it is given no EXPANSION) and RedisBloom's cuckoo
// settings (cf-*: what CF.ADD / CF.INSERT create with, CF.INSERT's CAPACITY bound and the
// sub-filter limit of every CF add, as in RedisBloom). Each has RedisBloom's range and refusal
// texts; module arguments set their startup values and CONFIG SET changes them
// (module_options.cpp).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bloomkit/compat/redisbloom.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

struct bf_defaults {
  double error_rate = redisbloom::default_error_rate;
  std::uint64_t capacity = redisbloom::default_capacity;
  std::uint32_t expansion = redisbloom::default_expansion;  // 0: NONSCALING
};

// The bf-* settings now.
bf_defaults current_bf_defaults();

// The cf-* settings now: the filter CF.ADD / CF.INSERT create (capacity, bucket size, max
// iterations, expansion) and how many sub-filters a cuckoo filter may have before adds are
// refused ("Maximum expansions reached").
struct cf_defaults {
  std::uint64_t capacity = 1024;
  std::uint32_t bucket_size = 2;
  std::uint32_t max_iterations = 20;
  std::uint32_t expansion = 1;
  std::uint64_t max_expansions = 32;
};
cf_defaults current_cf_defaults();

// RedisBloom's limits on what BF.RESERVE / BF.INSERT take (bf-initial-size's and
// bf-expansion-factor's ranges).
inline constexpr long long max_bf_capacity = 1LL << 30;
inline constexpr long long max_bf_expansion = 32768;

// One setting, by its config name (RedisBloom's: "bf-error-rate", ...).
struct module_setting;
module_setting* find_setting(std::string_view name);
std::span<module_setting> all_settings();
const char* setting_name(const module_setting& s);
// Sets it from text as CONFIG SET does; RedisBloom's refusal text when the text is not a value in
// its range ("Invalid value for `<name>`", "Value for `<name>` must be in the range [lo, hi]").
std::optional<std::string> set_setting(module_setting& s, std::string_view text);
// Its value as CONFIG GET shows it ("0.010000", "100").
std::string setting_text(const module_setting& s);

// Reads RedisModule_OnLoad's arguments (NAME value pairs, names case-insensitive: RedisBloom's
// ERROR_RATE, INITIAL_SIZE, CF_MAX_EXPANSIONS, bloomkit's EXPANSION, or a config's name) and
// registers the configs with those values as their defaults. module_err, after logging why, when
// an argument is unknown or out of range, or a config line of redis.conf is refused.
int load_module_settings(RedisModuleCtx* ctx, std::span<RedisModuleString* const> arguments);

}  // namespace bloomkit::redis_module
