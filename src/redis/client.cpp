// bloomkit::redis::client: routing, pipelining, redirections and retries over detail::connection.
// One engine serves both modes: a single server is a "cluster" whose every slot maps to its one
// node and that never refreshes a slot map.
#include "bloomkit/redis/client.hpp"

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/key_slot.hpp"
#include "bloomkit/redis/url.hpp"
#include "connection.hpp"

namespace bloomkit::redis {

using detail::connection;
using detail::io_result;
using detail::io_status;
using detail::outgoing;

namespace {

// Below this many commands per call, node groups are read one after another: the servers work in
// parallel anyway once everything is sent, and a thread costs more than parsing a few replies.
constexpr std::size_t parallel_read_threshold = 64;

bool starts_with_word(const std::string& text, std::string_view word) {
  return text.size() >= word.size() && text.compare(0, word.size(), word) == 0 &&
         (text.size() == word.size() || text[word.size()] == ' ');
}

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

// " (gave up after 3 retries)": the end of every errc::unreachable message (docs/REDIS.md quotes
// it).
std::string gave_up_after(int retries) {
  return " (gave up after " + std::to_string(retries) + (retries == 1 ? " retry)" : " retries)");
}

std::string describe_key(const command& c) {
  if (c.key_index == 0 || c.key_index >= c.args.size()) return "(no key)";
  return reply::make_string(c.args[c.key_index]).to_string();
}

}  // namespace

struct client::impl {
  url target;
  client_options options;
  detail::credentials auth;
  client_stats stats;

  // Every node this client has met, by "host:port"; pointers stay valid (never erased).
  std::map<std::string, std::unique_ptr<connection>> nodes;
  std::vector<connection*> slots;        // slot -> master (cluster); empty for a single server
  std::vector<connection*> master_list;  // in slot-map order
  bool slot_map_stale = false;

  // Nodes sent to since the last wait_replicas, with the connection generation at the first send.
  std::map<connection*, std::uint64_t> sent_since_wait;

  connection& node(const endpoint& where) {
    auto& slot = nodes[where.to_string()];
    if (!slot) slot = std::make_unique<connection>(where, auth, options);
    return *slot;
  }

  std::chrono::milliseconds delay_before_retry(int retry) const {
    return options.retry_delay * (1LL << std::min(retry - 1, 10));
  }

  // --- cluster slot map -------------------------------------------------------------------

  // Loads CLUSTER SLOTS from `from`. False (map unchanged) if it cannot be used.
  bool load_slot_map(connection& from, std::string& problem) {
    reply r;
    try {
      r = from.call(command{{"CLUSTER", "SLOTS"}, 0});
    } catch (const error& e) {
      if (e.code() != errc::unreachable && e.code() != errc::timeout) throw;
      problem = e.what();
      return false;
    }
    if (r.is_error()) {
      if (starts_with_word(r.str(), "NOAUTH")) {
        throw error(errc::auth_failed,
                    "Redis at " + from.where().to_string() + " requires a password: " + r.str());
      }
      problem = "Redis at " + from.where().to_string() + " answered CLUSTER SLOTS with " + r.str();
      return false;
    }
    if (r.type() != reply::kind::array || r.elements().empty()) {
      problem = "Redis at " + from.where().to_string() + " has no cluster slots assigned";
      return false;
    }
    std::vector<connection*> new_slots(slot_count, nullptr);
    std::vector<std::pair<long long, connection*>> first_slots;
    for (const auto& range : r.elements()) {
      const auto& fields = range.elements();
      if (fields.size() < 3) continue;
      const long long first = fields[0].integer();
      const long long last = fields[1].integer();
      const auto& master = fields[2].elements();
      if (first < 0 || last >= slot_count || first > last || master.size() < 2) continue;
      endpoint where;
      where.host = master[0].type() == reply::kind::string ? master[0].str() : "";
      if (where.host.empty() || where.host == "?") where.host = from.where().host;
      where.port = static_cast<int>(master[1].integer());
      connection* owner = &node(where);
      for (long long s = first; s <= last; ++s) new_slots[static_cast<std::size_t>(s)] = owner;
      first_slots.emplace_back(first, owner);
    }
    if (first_slots.empty()) {
      problem = "Redis at " + from.where().to_string() + " sent an unusable CLUSTER SLOTS reply";
      return false;
    }
    std::sort(first_slots.begin(), first_slots.end());
    std::vector<connection*> new_masters;
    for (const auto& [first, owner] : first_slots) {
      if (std::find(new_masters.begin(), new_masters.end(), owner) == new_masters.end()) {
        new_masters.push_back(owner);
      }
    }
    slots = std::move(new_slots);
    master_list = std::move(new_masters);
    slot_map_stale = false;
    ++stats.slot_map_refreshes;
    return true;
  }

  // Asks the known masters (connected ones first), then the other known nodes, then the seeds.
  // Returns false, with every node's problem, when nobody answers.
  bool refresh_slot_map(std::string& problems) {
    std::vector<connection*> order;
    auto add = [&](connection* c) {
      if (std::find(order.begin(), order.end(), c) == order.end()) order.push_back(c);
    };
    for (auto* c : master_list) {
      if (c->connected()) add(c);
    }
    for (auto& [name, c] : nodes) {
      if (c->connected()) add(c.get());
    }
    for (const auto& seed : target.nodes) add(&node(seed));
    for (auto* c : master_list) add(c);
    for (auto& [name, c] : nodes) add(c.get());
    for (auto* c : order) {
      std::string problem;
      if (load_slot_map(*c, problem)) return true;
      problems += (problems.empty() ? "" : "; ") + problem;
    }
    return false;
  }

  connection& route(const command& c) {
    if (!target.cluster) return *master_list.front();
    if (c.key_index == 0) return *master_list.front();
    connection* owner = slots[static_cast<std::size_t>(key_slot(c.args[c.key_index]))];
    return owner != nullptr ? *owner : *master_list.front();
  }

  // --- the engine --------------------------------------------------------------------------

  struct work {
    std::size_t index = 0;         // into the caller's commands / replies
    connection* pinned = nullptr;  // a fixed node (execute_on_masters)
    connection* ask = nullptr;     // ASK target for the next attempt
    int redirects = 0;
    int retries = 0;
  };

  struct group {
    connection* conn = nullptr;
    std::vector<work> items;
    std::vector<outgoing> batch;
    std::vector<reply> replies;
    io_result outcome;
  };

  void validate(const command& c) const {
    if (c.args.empty()) throw error(errc::invalid_argument, "empty Redis command");
    if (c.key_index >= c.args.size()) {
      throw error(errc::invalid_argument, "Redis command " + c.args.front() + ": key_index " +
                                              std::to_string(c.key_index) + " is past its " +
                                              std::to_string(c.args.size()) + " arguments");
    }
  }

  // Sends every group's batch (connecting here, in this thread), then reads the replies, node
  // groups in parallel when there are many. If anything throws half-way, every connection of the
  // round is dropped: replies left unread must never answer a later command.
  void exchange(std::vector<group>& groups) {
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

  std::vector<reply> run(std::span<const command> cs, std::vector<work> todo) {
    for (const auto& c : cs) validate(c);
    std::vector<reply> results(cs.size());
    while (!todo.empty()) {
      if (target.cluster && slot_map_stale) {
        std::string ignored;  // keep the old map if nobody answers; retries will tell
        refresh_slot_map(ignored);
      }

      // Group by node, keeping input order within each group.
      std::vector<group> groups;
      std::map<connection*, std::size_t> group_of;
      for (const auto& w : todo) {
        connection* conn = w.ask != nullptr      ? w.ask
                           : w.pinned != nullptr ? w.pinned
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
              throw error(errc::unreachable,
                          g.outcome.message + gave_up_after(options.max_retries));
            }
            ++stats.retries;
            if (target.cluster) slot_map_stale = true;  // maybe a failover
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
          if (starts_with_word(text, "TRYAGAIN") || starts_with_word(text, "CLUSTERDOWN") ||
              starts_with_word(text, "LOADING") || starts_with_word(text, "MASTERDOWN")) {
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
            throw error(errc::auth_failed, "Redis at " + g.conn->where().to_string() +
                                               " requires a password: " + text);
          }
          results[w.index] = std::move(r);
        }
      }
      if (delay_retry > 0) std::this_thread::sleep_for(delay_before_retry(delay_retry));
      todo = std::move(next);
    }
    return results;
  }

  std::vector<work> all_of(std::size_t count) const {
    std::vector<work> todo(count);
    for (std::size_t i = 0; i < count; ++i) todo[i].index = i;
    return todo;
  }
};

client::client(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
client::client(client&&) noexcept = default;
client& client::operator=(client&&) noexcept = default;
client::~client() = default;

client client::connect(std::string_view text, client_options options) {
  return connect(parse_url(text), options);
}

client client::connect(const url& target, client_options options) {
  if (!target.user.empty() && target.password.empty()) {
    throw error(errc::invalid_argument,
                "Redis URL \"" + target.to_string() + "\" names user \"" + target.user +
                    "\" but no password: add it to the URL or set " + password_variable);
  }
  auto p = std::make_unique<impl>();
  p->target = target;
  if (options.max_retries < 0 || options.max_redirects < 0 ||
      options.connect_timeout.count() <= 0 || options.command_timeout.count() <= 0 ||
      options.retry_delay.count() < 0) {
    throw error(errc::invalid_argument,
                "Redis client options: timeouts must be positive, retries, redirects and the "
                "retry delay not negative");
  }
  p->options = options;
  p->auth = detail::credentials{p->target.user, p->target.password, p->target.db};

  // Connect now, retrying like a command would, so that a wrong address fails here.
  for (int attempt = 0;; ++attempt) {
    std::string problems;
    if (p->target.cluster) {
      if (p->refresh_slot_map(problems)) break;
    } else {
      connection& only = p->node(p->target.nodes.front());
      const io_result r = only.ensure_connected();
      if (r.status == io_status::ok) {
        p->master_list = {&only};
        // PING: a server that wants a password we did not give fails here, not on first use.
        const reply pong = only.call(command{{"PING"}, 0});
        if (pong.is_error()) {
          if (starts_with_word(pong.str(), "NOAUTH")) {
            throw error(errc::auth_failed, "Redis at " + only.where().to_string() +
                                               " requires a password: " + pong.str());
          }
          if (!starts_with_word(pong.str(), "LOADING")) {
            throw error(errc::server_error, "Redis at " + only.where().to_string() +
                                                " answered PING with " + pong.str());
          }
        }
        break;
      }
      problems = r.message;
    }
    if (attempt >= options.max_retries) {
      throw error(errc::unreachable,
                  (p->target.cluster ? "cannot load the slot map of " + p->target.to_string() + ": "
                                     : std::string()) +
                      problems + gave_up_after(options.max_retries));
    }
    std::this_thread::sleep_for(p->delay_before_retry(attempt + 1));
  }
  return client(std::move(p));
}

reply client::execute(const command& c) {
  return std::move(execute_many(std::span(&c, 1)).front());
}

std::vector<reply> client::execute_many(std::span<const command> cs) {
  return impl_->run(cs, impl_->all_of(cs.size()));
}

std::vector<reply> client::execute_on_masters(const command& c) {
  const std::vector<command> copies(impl_->master_list.size(), c);
  return execute_on_masters(copies);
}

std::vector<reply> client::execute_on_masters(std::span<const command> per_master) {
  const auto masters = impl_->master_list;
  if (per_master.size() != masters.size()) {
    throw error(errc::invalid_argument, "execute_on_masters: " + std::to_string(per_master.size()) +
                                            " commands for " + std::to_string(masters.size()) +
                                            " masters");
  }
  std::vector<impl::work> todo(masters.size());
  for (std::size_t i = 0; i < masters.size(); ++i) {
    todo[i].index = i;
    todo[i].pinned = masters[i];
  }
  return impl_->run(per_master, std::move(todo));
}

bool client::is_cluster() const {
  return impl_->target.cluster;
}
std::size_t client::master_count() const {
  return impl_->master_list.size();
}

std::vector<std::string> client::masters() const {
  std::vector<std::string> out;
  for (const auto* c : impl_->master_list) out.push_back(c->where().to_string());
  return out;
}

long long client::wait_replicas(int replicas, std::chrono::milliseconds timeout) {
  auto& m = *impl_;
  if (replicas < 0 || timeout.count() < 0) {
    throw error(errc::invalid_argument, "wait_replicas: replicas and timeout must not be negative");
  }
  const auto sent = std::exchange(m.sent_since_wait, {});
  if (sent.empty()) return replicas;
  const command wait{{"WAIT", std::to_string(replicas), std::to_string(timeout.count())}, 0};
  long long smallest = replicas;
  std::vector<impl::group> groups;
  for (const auto& [conn, generation] : sent) {
    // A reconnect since the writes: the server may have lost them; they count as unacknowledged.
    if (!conn->connected() || conn->generation() != generation) {
      smallest = 0;
      continue;
    }
    conn->set_read_timeout(m.options.command_timeout + timeout);
    groups.push_back(impl::group{conn, {}, {outgoing{&wait, false}}, {}, {}});
  }
  m.exchange(groups);         // the servers wait in parallel
  m.sent_since_wait.clear();  // WAIT itself is not a write
  for (auto& g : groups) {
    g.conn->set_read_timeout(m.options.command_timeout);
    if (g.outcome.status == io_status::timeout) throw error(errc::timeout, g.outcome.message);
    if (g.outcome.status != io_status::ok || g.replies.front().type() != reply::kind::integer) {
      smallest = 0;  // lost the connection: the writes may be lost too
      continue;
    }
    smallest = std::min(smallest, g.replies.front().integer());
  }
  return smallest;
}

std::string client::describe() const {
  return impl_->target.to_string();
}
const client_options& client::options() const {
  return impl_->options;
}
client_stats client::stats() const {
  client_stats out = impl_->stats;
  for (const auto& [name, c] : impl_->nodes) out.connects += c->generation();
  return out;
}

}  // namespace bloomkit::redis
