// bloomkit::redis::client: the public calls and connecting (client_impl.hpp says where the rest
// is).
#include "bloomkit/redis/client.hpp"

#include <algorithm>
#include <thread>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/url.hpp"
#include "client_impl.hpp"

namespace bloomkit::redis {

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
  if (!target.tls) {
    // TLS settings on a plaintext URL: silently ignored, they would leave the user believing the
    // connection is encrypted and verified.
    const std::pair<const char*, const std::string*> given[] = {
        {"--tls-ca", &options.tls.ca_file},
        {"--tls-cert", &options.tls.cert_file},
        {"--tls-key", &options.tls.key_file},
        {"--tls-server-name", &options.tls.server_name}};
    for (const auto& [option, value] : given) {
      if (value->empty()) continue;
      throw error(errc::invalid_argument,
                  std::string(option) + " \"" + *value + "\" is a TLS option, but the URL \"" +
                      target.to_string() +
                      "\" is not a TLS one: use rediss:// (rediss-cluster://, rediss-sentinel://) "
                      "for TLS, or drop the option");
    }
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
  if (p->target.tls) p->tls = std::make_shared<const detail::tls_context>(options.tls);
  if (p->target.sentinel) {
    const detail::credentials sentinel_auth{p->target.sentinel_user, p->target.sentinel_password,
                                            0};
    for (const auto& where : p->target.nodes) {
      p->sentinels.push_back(std::make_unique<connection>(where, sentinel_auth, options, p->tls,
                                                          detail::peer::sentinel));
    }
  }

  // Connect now, retrying like a command would, so that a wrong address fails here.
  for (int attempt = 0;; ++attempt) {
    std::string problems;
    if (p->target.cluster) {
      if (p->refresh_slot_map(problems)) break;
    } else if (p->target.sentinel) {
      if (p->find_master(problems)) break;
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
      const std::string what =
          p->target.cluster    ? "cannot load the slot map of " + p->target.to_string() + ": "
          : p->target.sentinel ? "cannot find master \"" + p->target.master_name + "\" through " +
                                     p->target.to_string() + ": "
                               : std::string();
      throw error(errc::unreachable, what + problems + gave_up_after(options.max_retries));
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
namespace detail {

client_stats client_access::stats(const client& c) {
  client_stats out = c.impl_->stats;
  for (const auto& [name, conn] : c.impl_->nodes) out.connects += conn->generation();
  return out;
}

}  // namespace detail

}  // namespace bloomkit::redis
