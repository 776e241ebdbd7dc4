// RedisBloom's module arguments and configs over the settings (module_settings.hpp).

#include <string>
#include <string_view>

#include "arguments.hpp"
#include "module_settings.hpp"

namespace bloomkit::redis_module {

namespace {

// RedisBloom's module argument names from before its configs, and bloomkit's EXPANSION (what the
// argument sets is the config's value).
struct argument_alias {
  std::string_view argument;
  std::string_view setting;
};
constexpr argument_alias argument_aliases[] = {
    {"ERROR_RATE", "bf-error-rate"},
    {"INITIAL_SIZE", "bf-initial-size"},
    {"EXPANSION", "bf-expansion-factor"},
    {"CF_MAX_EXPANSIONS", "cf-max-expansions"},
};

module_setting* setting_of_argument(std::string_view name) {
  for (const argument_alias& alias : argument_aliases) {
    if (keyword_is(name, alias.argument)) return find_setting(alias.setting);
  }
  return find_setting(name);
}

int refuse_load(RedisModuleCtx* ctx, const std::string& why) {
  RedisModule_Log(ctx, "warning", "bloomkit: %s", why.c_str());
  return module_err;
}

int read_arguments(RedisModuleCtx* ctx, std::span<RedisModuleString* const> arguments) {
  // A loader that passes one empty argument (RedisBloom allows it: ramp-packer) passes none.
  if (arguments.size() == 1 && view_of(arguments[0]).empty()) return module_ok;
  if (arguments.size() % 2 != 0) {
    return refuse_load(ctx, "module arguments come in pairs (NAME value): " +
                                std::to_string(arguments.size()) + " given");
  }
  for (std::size_t i = 0; i < arguments.size(); i += 2) {
    const std::string name(view_of(arguments[i]));
    module_setting* setting = setting_of_argument(name);
    if (setting == nullptr) {
      return refuse_load(ctx, "unknown module argument '" + name +
                                  "': give ERROR_RATE, INITIAL_SIZE, EXPANSION, "
                                  "CF_MAX_EXPANSIONS or a config's name (bf-error-rate, ...)");
    }
    if (const auto problem = set_setting(*setting, view_of(arguments[i + 1]))) {
      return refuse_load(ctx, "module argument " + name + ": " + *problem);
    }
  }
  return module_ok;
}

// CONFIG GET: Redis copies the string at once; the last one is freed on the next call.
RedisModuleString* get_config(const char*, void* privdata) {
  static RedisModuleString* shown = nullptr;
  if (shown != nullptr) RedisModule_FreeString(nullptr, shown);
  const std::string text = setting_text(*static_cast<module_setting*>(privdata));
  shown = RedisModule_CreateString(nullptr, text.data(), text.size());
  return shown;
}

int set_config(const char*, RedisModuleString* value, void* privdata, RedisModuleString** error) {
  const auto problem = set_setting(*static_cast<module_setting*>(privdata), view_of(value));
  if (!problem) return module_ok;
  *error = RedisModule_CreateString(nullptr, problem->data(), problem->size());
  return module_err;
}

// Redis 8 registers names without the module's prefix on request; older servers refuse the flag.
constexpr int first_unprefixed_version = 0x080000;

bool register_config(RedisModuleCtx* ctx, module_setting& s, unsigned int flags) {
  const std::string initial = setting_text(s);
  return RedisModule_RegisterStringConfig(ctx, setting_name(s), initial.c_str(), flags, get_config,
                                          set_config, nullptr, &s) == module_ok;
}

// Registers each setting as a config: unprefixed as RedisBloom on servers that allow it (Redis 8),
// else under the module's name ("bf.bf-error-rate" on Redis 7.x with the module named bf).
int register_configs(RedisModuleCtx* ctx) {
  if (RedisModule_RegisterStringConfig == nullptr || RedisModule_LoadConfigs == nullptr) {
    RedisModule_Log(ctx, "notice", "bloomkit: no module configs on this server (Redis < 7.0)");
    return module_ok;
  }
  const bool unprefixed = RedisModule_GetServerVersion != nullptr &&
                          RedisModule_GetServerVersion() >= first_unprefixed_version;
  bool registered = false;
  for (module_setting& s : all_settings()) {
    // An unprefixed name taken (RedisBloom beside this module): under the module's name instead.
    if ((unprefixed && register_config(ctx, s, config_unprefixed)) ||
        register_config(ctx, s, config_default)) {
      registered = true;
    } else {
      // Taken under the module's name too: the setting keeps its value, without a config.
      RedisModule_Log(ctx, "warning", "bloomkit: cannot register the config %s", setting_name(s));
    }
  }
  if (registered && RedisModule_LoadConfigs(ctx) != module_ok) {
    return refuse_load(ctx, "a module config's value in the configuration is refused");
  }
  return module_ok;
}

}  // namespace

int load_module_settings(RedisModuleCtx* ctx, std::span<RedisModuleString* const> arguments) {
  if (read_arguments(ctx, arguments) != module_ok) return module_err;
  return register_configs(ctx);
}

}  // namespace bloomkit::redis_module
