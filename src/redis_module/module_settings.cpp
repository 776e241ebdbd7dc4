// RedisBloom's settings: values, ranges and refusal texts (module_settings.hpp).

#include "module_settings.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

#include "arguments.hpp"

namespace bloomkit::redis_module {

struct module_setting {
  const char* name;
  bool real;           // bf-error-rate, a double; the others integers
  double real_value;   // when real
  long long value;     // when not
  long long min, max;  // an integer's range (cf-initial-size and cf-bucket-size bound each other)
};

namespace {

// RedisBloom's defaults and ranges (its config.c). An error rate is in (0, 1): RedisBloom prints
// the range as "[0.000000, 1.000000]" (its bounds are the smallest double above 0 and the largest
// below 1).
std::array<module_setting, 8> settings{{
    {"bf-error-rate", true, redisbloom::default_error_rate, 0, 0, 0},
    {"bf-initial-size", false, 0, redisbloom::default_capacity, 1, max_bf_capacity},
    {"bf-expansion-factor", false, 0, redisbloom::default_expansion, 0, max_bf_expansion},
    {"cf-bucket-size", false, 0, 2, 1, 255},
    {"cf-initial-size", false, 0, 1024, 4, 1LL << 30},
    {"cf-max-iterations", false, 0, 20, 1, 65535},
    {"cf-expansion-factor", false, 0, 1, 0, 32768},
    {"cf-max-expansions", false, 0, 32, 1, 65535},
}};

module_setting& named(std::string_view name) {
  return *find_setting(name);
}

std::string quoted(const module_setting& s) {
  return std::string("`") + s.name + "`";
}

// "%f", as RedisBloom shows an error rate, unless that loses the value (1e-7 shows "0.000000"):
// then every digit, so that CONFIG REWRITE writes back a value that loads.
std::string real_text(double value) {
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), "%f", value);
  if (to_double(text.data()) != value) std::snprintf(text.data(), text.size(), "%.17g", value);
  return text.data();
}

}  // namespace

module_setting* find_setting(std::string_view name) {
  for (module_setting& s : settings) {
    if (keyword_is(name, s.name)) return &s;
  }
  return nullptr;
}

std::span<module_setting> all_settings() {
  return settings;
}

const char* setting_name(const module_setting& s) {
  return s.name;
}

std::optional<std::string> set_setting(module_setting& s, std::string_view text) {
  if (s.real) {
    const std::optional<double> value = to_double(text);
    if (!value) return "Invalid value for " + quoted(s);
    if (!(*value > 0 && *value < 1)) {
      return "Value for " + quoted(s) + " must be in the range [0.000000, 1.000000]";
    }
    s.real_value = *value;
    return std::nullopt;
  }
  const std::optional<long long> value = to_integer(text);
  if (!value) return "Invalid value for " + quoted(s);
  if (*value < s.min || *value > s.max) {
    return "Value for " + quoted(s) + " must be in the range [" + std::to_string(s.min) + ", " +
           std::to_string(s.max) + "]";
  }
  s.value = *value;
  // A cuckoo bucket holds cf-bucket-size items, and a filter at least two buckets.
  if (&s == &named("cf-bucket-size")) named("cf-initial-size").min = 2 * *value;
  if (&s == &named("cf-initial-size")) named("cf-bucket-size").max = std::min(255LL, *value / 2);
  return std::nullopt;
}

std::string setting_text(const module_setting& s) {
  return s.real ? real_text(s.real_value) : std::to_string(s.value);
}

// Each command that may create a filter asks for these: the settings are found by name once
// (a case-insensitive search per name per command cost BF.ADD / CF.ADD a third of their CPU).
bf_defaults current_bf_defaults() {
  static const module_setting& error_rate = named("bf-error-rate");
  static const module_setting& capacity = named("bf-initial-size");
  static const module_setting& expansion = named("bf-expansion-factor");
  return {error_rate.real_value, static_cast<std::uint64_t>(capacity.value),
          static_cast<std::uint32_t>(expansion.value)};
}

cf_defaults current_cf_defaults() {
  static const module_setting& capacity = named("cf-initial-size");
  static const module_setting& bucket_size = named("cf-bucket-size");
  static const module_setting& max_iterations = named("cf-max-iterations");
  static const module_setting& expansion = named("cf-expansion-factor");
  static const module_setting& max_expansions = named("cf-max-expansions");
  return {static_cast<std::uint64_t>(capacity.value), static_cast<std::uint32_t>(bucket_size.value),
          static_cast<std::uint32_t>(max_iterations.value),
          static_cast<std::uint32_t>(expansion.value),
          static_cast<std::uint64_t>(max_expansions.value)};
}

}  // namespace bloomkit::redis_module
