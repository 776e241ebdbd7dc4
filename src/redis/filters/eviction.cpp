#include "bloomkit/redis/eviction.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace bloomkit::redis {

namespace {

// The value of `field` in an INFO reply ("field:value\r\n" lines), or "".
std::string info_field(const std::string& info, std::string_view field) {
  const std::string prefix = std::string(field) + ":";
  std::size_t at = info.rfind(prefix, 0) == 0 ? 0 : info.find("\n" + prefix);
  if (at == std::string::npos) return {};
  if (at != 0) ++at;
  at += prefix.size();
  const std::size_t end = info.find_first_of("\r\n", at);
  return info.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

std::string eviction_warning(client& c, const std::string& what, bool keys_expire) {
  const std::vector<reply> replies = c.execute_on_masters(command{{"INFO", "memory"}, 0});
  const std::vector<std::string> masters = c.masters();
  for (std::size_t i = 0; i < replies.size(); ++i) {
    const std::string where = c.is_cluster() ? " on " + masters[i] : std::string();
    if (replies[i].is_error()) {
      return what + ": cannot check the server's maxmemory-policy" + where +
             " (INFO memory: " + replies[i].str() + ")";
    }
    const std::string policy = info_field(replies[i].str(), "maxmemory_policy");
    const bool evicts =
        policy.rfind("allkeys-", 0) == 0 || (keys_expire && policy.rfind("volatile-", 0) == 0);
    if (!evicts) continue;
    return what + ": maxmemory-policy " + policy + where + " lets Redis evict its keys" +
           (keys_expire ? " (they have a time to live)" : "") +
           " under memory pressure; use noeviction (docs/REDIS.md, \"Eviction\")";
  }
  return {};
}

}  // namespace bloomkit::redis
