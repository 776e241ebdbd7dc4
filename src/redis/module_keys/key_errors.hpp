#pragma once
// Internal: how the client-side module key code (key_transfer.cpp, key_commands.cpp) names a key,
// which command it sends for it, and turns the module's error replies into bloomkit::error.

#include <string>
#include <string_view>

#include "bloomkit/error.hpp"

namespace bloomkit::redis_module {

inline std::string key_named(const std::string& name) {
  return "module key '" + name + "'";
}

// The command `op` (e.g. "MEXISTS") for a key of bloomkit's type: its BK.* twin, which bloomkit's
// module serves whether it is loaded as the drop-in or with COEXIST (where BF.* is RedisBloom's).
// A key of RedisBloom's type gets BF.*: bloomkit's drop-in serves it, and with COEXIST RedisBloom,
// which owns such keys there.
inline std::string command_for(bool redisbloom_key, std::string_view op) {
  return (redisbloom_key ? "BF." : "BK.") + std::string(op);
}

// WRONGTYPE -> errc::wrong_type, "ERR not found" (BF.INSERT NOCREATE, BK.INFO of no key) ->
// errc::not_found ("module key 'NAME' does not exist", as module_key::open says it), any other
// refusal errc::server_error; the message names the key.
[[noreturn]] inline void throw_reply_error(const std::string& name, const std::string& text) {
  if (text == "ERR not found") throw error(errc::not_found, key_named(name) + " does not exist");
  const errc code = text.rfind("WRONGTYPE", 0) == 0 ? errc::wrong_type : errc::server_error;
  throw error(code, key_named(name) + ": " + text);
}

}  // namespace bloomkit::redis_module
