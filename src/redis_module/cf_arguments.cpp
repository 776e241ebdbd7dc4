// CF.RESERVE's and CF.INSERT's arguments (cf_arguments.hpp). Ranges and texts are RedisBloom's,
// from the compat library (its CF.RESERVE checks each option's range, then the capacity against
// the bucket size).

#include "cf_arguments.hpp"

#include <optional>
#include <string>
#include <string_view>

#include "arguments.hpp"
#include "bloomkit/compat/redisbloom_cuckoo.hpp"
#include "module_settings.hpp"

namespace bloomkit::redis_module {

namespace {

namespace cf = redisbloom::cuckoo;

// An option of CF.RESERVE: its keyword, its range and RedisBloom's text when out of it (the
// compat library's rules).
struct cf_option {
  const char* keyword;
  long long min, max;
  std::string_view range_text;
};
constexpr cf_option bucket_size_option{"BUCKETSIZE", 1, cf::max_bucket_size, cf::bucket_size_text};
constexpr cf_option max_iterations_option{"MAXITERATIONS", 1, cf::max_max_iterations,
                                          cf::max_iterations_text};
constexpr cf_option expansion_option{"EXPANSION", 0, cf::max_expansion, cf::expansion_text};

// The value after the first `o.keyword` in argv[2..], or `fallback` when it is absent;
// RedisBloom's refusal when it is not a number in range (each option parsed, then checked, in
// turn, as RedisBloom does).
std::variant<long long, argument_refusal> option_value(std::span<RedisModuleString* const> argv,
                                                       const cf_option& o, long long fallback) {
  for (std::size_t i = 2; i < argv.size(); ++i) {
    if (!keyword_is(view_of(argv[i]), o.keyword)) continue;
    const std::optional<long long> value =
        i + 1 < argv.size() ? to_integer(view_of(argv[i + 1])) : std::nullopt;
    if (!value) return argument_refusal{std::string("Couldn't parse ") + o.keyword};
    if (*value < o.min || *value > o.max) return argument_refusal{std::string(o.range_text)};
    return *value;
  }
  return fallback;
}

}  // namespace

cf_create_options default_cf_options() {
  const cf_defaults d = current_cf_defaults();
  return {d.capacity, d.bucket_size, d.max_iterations, d.expansion, true};
}

std::variant<cf_create_options, argument_refusal> read_cf_reserve(
    std::span<RedisModuleString* const> argv) {
  if (argv.size() < 3 || argv.size() % 2 == 0) return argument_refusal{wrong_arity{}};
  cf_create_options o = default_cf_options();
  const std::optional<long long> capacity = to_integer(view_of(argv[2]));
  if (!capacity) return argument_refusal{std::string("Bad capacity")};
  long long values[3]{};
  const cf_option* options[3] = {&max_iterations_option, &bucket_size_option, &expansion_option};
  const long long fallbacks[3] = {o.max_iterations, o.bucket_size, o.expansion};
  for (int i = 0; i < 3; ++i) {
    auto value = option_value(argv, *options[i], fallbacks[i]);
    if (auto* refusal = std::get_if<argument_refusal>(&value)) return std::move(*refusal);
    values[i] = std::get<long long>(value);
  }
  o.max_iterations = static_cast<std::uint32_t>(values[0]);
  o.bucket_size = static_cast<std::uint32_t>(values[1]);
  o.expansion = static_cast<std::uint32_t>(values[2]);
  if (const auto problem =
          cf::reserve_problem(*capacity, o.bucket_size, o.max_iterations, o.expansion)) {
    return argument_refusal{std::string(*problem)};
  }
  o.capacity = static_cast<std::uint64_t>(*capacity);
  return o;
}

std::variant<cf_create_options, argument_refusal> read_cf_insert(
    std::span<RedisModuleString* const> argv, std::size_t& items) {
  if (argv.size() < 4) return argument_refusal{wrong_arity{}};
  cf_create_options o = default_cf_options();
  std::size_t at = 2;
  items = 0;
  while (at < argv.size() && items == 0) {
    const std::string_view word = view_of(argv[at]);
    if (keyword_is(word, "ITEMS")) {
      items = ++at;
    } else if (keyword_is(word, "NOCREATE")) {
      o.create = false;
      ++at;
    } else if (keyword_is(word, "CAPACITY")) {
      if (++at == argv.size()) return argument_refusal{wrong_arity{}};
      const std::optional<long long> capacity = to_integer(view_of(argv[at++]));
      if (!capacity) return argument_refusal{std::string("Bad capacity")};
      if (const auto problem = cf::insert_capacity_problem(*capacity, o.bucket_size)) {
        return argument_refusal{std::string(*problem)};
      }
      o.capacity = static_cast<std::uint64_t>(*capacity);
    } else {
      return argument_refusal{std::string("Unknown argument received")};
    }
  }
  if (items == 0 || items == argv.size()) return argument_refusal{wrong_arity{}};
  return o;
}

}  // namespace bloomkit::redis_module
