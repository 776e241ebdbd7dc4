// The engine of bloomkit::redis::client: commands grouped by node and pipelined, node groups read
// in parallel, then each reply classified: final, MOVED / ASK (follow), TRYAGAIN and friends
// (retry later), no reply (reconnect and resend), READONLY from a sentinel's master (ask the
// sentinels again and resend).
#include <algorithm>
#include <exception>
#include <optional>
#include <thread>
#include <utility>

#include "bloomkit/error.hpp"
#include "client_impl.hpp"
#include "key_slot.hpp"

namespace bloomkit::redis {

namespace {

// Below this many commands per call, node groups are read one after another: the servers work in
// parallel anyway once everything is sent, and a thread costs more than parsing a few replies.
constexpr std::size_t parallel_read_threshold = 64;

// "MOVED 3999 127.0.0.1:6381" / "ASK 3999 127.0.0.1:6381" -> the endpoint.
std::optional<endpoint> redirect_target(const std::string& text, const endpoint& from) {
  const auto last_space = text.rfind(' ');
  if (last_space == std::string::npos) return std::nullopt;
  const auto hostport = std::string_view(text).substr(last_space + 1);
  const auto colon = hostport.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  endpoint target;
  target.host = std::string(hostport.substr(0, colon));
  if (target.host.size() >= 2 && target.host.front() == '[') {
    target.host = target.host.substr(1, target.host.size() - 2);
  }
  if (target.host.empty()) target.host = from.host;  // "MOVED 3999 :6381": same host
  try {
    target.port = std::stoi(std::string(hostport.substr(colon + 1)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return target;
}

std::string describe_key(const command& c) {
  if (c.key_index == 0 || c.key_index >= c.args.size()) return "(no key)";
  return reply::make_string(c.args[c.key_index]).to_string();
}

}  // namespace

void client::impl::validate(const command& c) const {
  if (c.args.empty()) throw error(errc::invalid_argument, "empty Redis command");
  if (c.key_index >= c.args.size()) {
    throw error(errc::invalid_argument, "Redis command " + c.args.front() + ": key_index " +
                                            std::to_string(c.key_index) + " is past its " +
                                            std::to_string(c.args.size()) + " arguments");
  }
}

void client::impl::exchange(std::vector<group>& groups) {
  std::vector<std::exception_ptr> failures(groups.size());
  auto read_group = [](group& g, std::exception_ptr& failure) {
    try {
      if (g.outcome.status == io_status::ok) g.outcome = g.conn->read(g.batch, g.replies);
    } catch (...) {
      failure = std::current_exception();
    }
  };
  try {
    for (auto& g : groups) {
      g.outcome = g.conn->send(g.batch);
      if (g.outcome.status == io_status::ok) {
        sent_since_wait.try_emplace(g.conn, g.conn->generation());
      }
    }
    std::size_t commands = 0;
    for (const auto& g : groups) commands += g.batch.size();
    if (groups.size() > 1 && commands >= parallel_read_threshold) {
      std::vector<std::jthread> readers;
      readers.reserve(groups.size() - 1);
      for (std::size_t i = 1; i < groups.size(); ++i) {
        readers.emplace_back(read_group, std::ref(groups[i]), std::ref(failures[i]));
      }
      read_group(groups.front(), failures.front());
    } else {
      for (std::size_t i = 0; i < groups.size(); ++i) read_group(groups[i], failures[i]);
    }
    for (const auto& f : failures) {
      if (f) std::rethrow_exception(f);
    }
  } catch (...) {
    for (auto& g : groups) g.conn->drop();
    throw;
  }
}

std::vector<reply> client::impl::run(std::span<const command> cs, std::vector<work> todo) {
  for (const auto& c : cs) validate(c);
  std::vector<reply> results(cs.size());
  while (!todo.empty()) {
    if (target.cluster && slot_map_stale) {
      std::string ignored;  // keep the old map if nobody answers; retries will tell
      refresh_slot_map(ignored);
    }
    if (target.sentinel && master_stale) {
      std::string ignored;  // keep the old master if nobody knows better; retries will tell
      find_master(ignored);
    }

    // Group by node, keeping input order within each group.
    std::vector<group> groups;
    std::map<connection*, std::size_t> group_of;
    for (const auto& w : todo) {
      connection* conn = w.ask != nullptr                          ? w.ask
                         : w.pinned != nullptr && !target.sentinel ? w.pinned
                                                                   : &route(cs[w.index]);
      auto [it, inserted] = group_of.emplace(conn, groups.size());
      if (inserted) groups.push_back(group{conn, {}, {}, {}, {}});
      auto& g = groups[it->second];
      g.items.push_back(w);
      g.batch.push_back(outgoing{&cs[w.index], w.ask != nullptr});
    }

    exchange(groups);
    // Classify: final replies, redirections, retries.
    std::vector<work> next;
    int delay_retry = 0;
    for (auto& g : groups) {
      if (g.outcome.status == io_status::timeout) throw error(errc::timeout, g.outcome.message);
      for (std::size_t i = 0; i < g.items.size(); ++i) {
        work w = g.items[i];
        w.ask = nullptr;
        if (i >= g.replies.size()) {  // no reply: the connection broke
          if (++w.retries > options.max_retries) {
            throw error(errc::unreachable, g.outcome.message + gave_up_after(options.max_retries));
          }
          ++stats.retries;
          if (target.cluster) slot_map_stale = true;  // maybe a failover
          if (target.sentinel) master_stale = true;
          delay_retry = std::max(delay_retry, w.retries);
          next.push_back(w);
          continue;
        }
        reply& r = g.replies[i];
        if (!r.is_error()) {
          results[w.index] = std::move(r);
          continue;
        }
        const std::string& text = r.str();
        if (starts_with_word(text, "MOVED") || starts_with_word(text, "ASK")) {
          const bool moved = starts_with_word(text, "MOVED");
          if (!target.cluster) {
            throw error(errc::server_error, "Redis at " + g.conn->where().to_string() +
                                                " is a cluster node (" + text +
                                                "); connect with redis-cluster://");
          }
          const auto to = redirect_target(text, g.conn->where());
          if (!to) {
            throw error(errc::server_error, "bad redirection from Redis at " +
                                                g.conn->where().to_string() + ": " + text);
          }
          if (++w.redirects > options.max_redirects) {
            throw error(errc::server_error,
                        "too many redirections (" + std::to_string(options.max_redirects) +
                            ") for key " + describe_key(cs[w.index]) + ", last: " + text);
          }
          connection& dest = node(*to);
          if (moved) {
            ++stats.moved;
            if (const auto& c = cs[w.index]; c.key_index != 0) {
              slots[static_cast<std::size_t>(key_slot(c.args[c.key_index]))] = &dest;
            }
            slot_map_stale = true;  // more slots probably moved with it
            if (w.pinned != nullptr) w.pinned = &dest;
          } else {
            ++stats.ask;
            w.ask = &dest;
          }
          next.push_back(w);
          continue;
        }
        // READONLY from a sentinel's master: it was demoted; the sentinels name the new one.
        const bool demoted = target.sentinel && starts_with_word(text, "READONLY");
        if (demoted) master_stale = true;
        if (demoted || starts_with_word(text, "TRYAGAIN") ||
            starts_with_word(text, "CLUSTERDOWN") || starts_with_word(text, "LOADING") ||
            starts_with_word(text, "MASTERDOWN")) {
          if (w.retries < options.max_retries) {
            ++w.retries;
            ++stats.retries;
            if (target.cluster && !starts_with_word(text, "TRYAGAIN")) slot_map_stale = true;
            delay_retry = std::max(delay_retry, w.retries);
            next.push_back(w);
            continue;
          }
        }
        if (starts_with_word(text, "NOAUTH")) {
          throw error(errc::auth_failed,
                      "Redis at " + g.conn->where().to_string() + " requires a password: " + text);
        }
        results[w.index] = std::move(r);
      }
    }
    if (delay_retry > 0) std::this_thread::sleep_for(delay_before_retry(delay_retry));
    todo = std::move(next);
  }
  return results;
}

std::vector<client::impl::work> client::impl::all_of(std::size_t count) const {
  std::vector<work> todo(count);
  for (std::size_t i = 0; i < count; ++i) todo[i].index = i;
  return todo;
}
}  // namespace bloomkit::redis
