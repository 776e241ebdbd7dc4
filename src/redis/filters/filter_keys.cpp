#include "filter_keys.hpp"

#include <algorithm>
#include <cstddef>

#include "../client/reply_errors.hpp"

namespace bloomkit::redis::detail {

namespace {

// Whether `text` is a number as std::to_string writes it: "0", or digits without a leading 0.
bool is_decimal(std::string_view text) {
  if (text.empty() || (text.size() > 1 && text.front() == '0')) return false;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
  }
  return true;
}

}  // namespace

std::string meta_key(const std::string& name) {
  return name + ":meta";
}

std::string shard_key(const std::string& name, std::uint64_t generation, std::uint64_t shard) {
  std::string key = name;
  key += ':';
  key += std::to_string(generation);
  key += ':';
  key += std::to_string(shard);
  return key;
}

std::vector<std::string> shard_keys(const std::string& name, std::uint64_t generation,
                                    std::uint64_t count) {
  std::vector<std::string> keys;
  keys.reserve(count);
  for (std::uint64_t j = 0; j < count; ++j) keys.push_back(shard_key(name, generation, j));
  return keys;
}

bool is_filter_key(std::string_view name, std::string_view key) {
  if (key.size() <= name.size() + 1 || key.substr(0, name.size()) != name ||
      key[name.size()] != ':') {
    return false;
  }
  const std::string_view rest = key.substr(name.size() + 1);
  if (rest == "meta") return true;
  const std::size_t colon = rest.find(':');
  return colon != std::string_view::npos && is_decimal(rest.substr(0, colon)) &&
         is_decimal(rest.substr(colon + 1));
}

std::string glob_literal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    if (ch == '*' || ch == '?' || ch == '[' || ch == ']' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

std::vector<std::string> find_filter_keys(client& c, const std::string& name) {
  const std::string pattern = glob_literal(name) + ":*";
  // SCAN keeps a cursor per master; "0" again means that master is done.
  std::vector<std::string> cursors(c.master_count(), "0");
  std::vector<bool> done(cursors.size(), false);
  std::vector<std::string> keys;
  for (;;) {
    std::vector<command> scans;
    for (std::size_t i = 0; i < cursors.size(); ++i) {
      // A master whose scan is over gets a PING: execute_on_masters takes one command each.
      scans.push_back(done[i]
                          ? command{{"PING"}, 0}
                          : command{{"SCAN", cursors[i], "MATCH", pattern, "COUNT", "1000"}, 0});
    }
    const auto replies = c.execute_on_masters(scans);
    bool all_done = true;
    for (std::size_t i = 0; i < replies.size(); ++i) {
      if (done[i]) continue;
      check_reply(replies[i], "filter '" + name + "': SCAN MATCH " + pattern);
      const auto& page = replies[i].elements();
      if (page.size() != 2) {
        throw error(errc::server_error,
                    "filter '" + name + "': SCAN: unexpected reply " + replies[i].to_string());
      }
      for (const auto& k : page[1].elements()) {
        if (is_filter_key(name, k.str())) keys.push_back(k.str());
      }
      cursors[i] = page[0].str();
      done[i] = cursors[i] == "0";
      all_done = all_done && done[i];
    }
    if (all_done) {
      // SCAN may return a key more than once.
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      return keys;
    }
  }
}

}  // namespace bloomkit::redis::detail
