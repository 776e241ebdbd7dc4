#pragma once
// The inside of bloomkit::redis::client (internal), shared by its three files:
//   client.cpp           the public calls and connecting;
//   client_topology.cpp  where commands go: the cluster's slot map, the sentinels' master;
//   client_engine.cpp    pipelining, node groups read in parallel, redirections and retries.
// One engine serves every mode: a single server is a "cluster" whose every slot maps to its one
// node and that never refreshes a slot map; a sentinel setup is a single server whose node the
// sentinels name again after a failure.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "client_stats.hpp"
#include "connection.hpp"
#include "tls_context.hpp"

namespace bloomkit::redis {

namespace detail {

// "MOVED 1 h:p" starts with the word MOVED; "MOVEDX" does not.
inline bool starts_with_word(const std::string& text, std::string_view word) {
  return text.size() >= word.size() && text.compare(0, word.size(), word) == 0 &&
         (text.size() == word.size() || text[word.size()] == ' ');
}

// " (gave up after 3 retries)": the end of every errc::unreachable message (docs/REDIS.md quotes
// it).
inline std::string gave_up_after(int retries) {
  return " (gave up after " + std::to_string(retries) + (retries == 1 ? " retry)" : " retries)");
}

}  // namespace detail

// The client's files (client.cpp, client_topology.cpp, client_engine.cpp) name these unqualified.
using detail::connection;
using detail::gave_up_after;
using detail::io_result;
using detail::io_status;
using detail::outgoing;
using detail::starts_with_word;

struct client::impl {
  url target;
  client_options options;
  detail::credentials auth;
  std::shared_ptr<const detail::tls_context> tls;  // null for plain TCP
  detail::client_stats stats;

  // Every node this client has met, by "host:port"; pointers stay valid (never erased).
  std::map<std::string, std::unique_ptr<detail::connection>> nodes;
  std::vector<detail::connection*> slots;        // slot -> master (cluster); empty otherwise
  std::vector<detail::connection*> master_list;  // in slot-map order; the one master otherwise
  bool slot_map_stale = false;                   // cluster: reload the map before the next round
  // Sentinel: the sentinels (asked in this order; one that answered moves to the front), and
  // whether to ask them again before the next round (a failure may mean a failover).
  std::vector<std::unique_ptr<detail::connection>> sentinels;
  bool master_stale = false;

  // Nodes sent to since the last wait_replicas, with the connection generation at the first send.
  std::map<detail::connection*, std::uint64_t> sent_since_wait;

  detail::connection& node(const endpoint& where);
  std::chrono::milliseconds delay_before_retry(int retry) const {
    return options.retry_delay * (1LL << std::min(retry - 1, 10));
  }

  // --- client_topology.cpp ---
  // Loads CLUSTER SLOTS from `from`. False (map unchanged) if it cannot be used.
  bool load_slot_map(detail::connection& from, std::string& problem);
  // Asks the known masters (connected ones first), then the other known nodes, then the seeds.
  // Returns false, with every node's problem, when nobody answers.
  bool refresh_slot_map(std::string& problems);
  // Sentinel: asks the sentinels for the master, connects and checks that it says ROLE master.
  // Returns false, with every problem met, when no master was found.
  bool find_master(std::string& problems);
  detail::connection& route(const command& c);

  // --- client_engine.cpp ---
  struct work {
    std::size_t index = 0;                 // into the caller's commands / replies
    detail::connection* pinned = nullptr;  // a fixed node (execute_on_masters)
    detail::connection* ask = nullptr;     // ASK target for the next attempt
    int redirects = 0;
    int retries = 0;
  };

  struct group {
    detail::connection* conn = nullptr;
    std::vector<work> items;
    std::vector<detail::outgoing> batch;
    std::vector<reply> replies;
    detail::io_result outcome;
  };

  void validate(const command& c) const;
  // Sends every group's batch (connecting here, in this thread), then reads the replies, node
  // groups in parallel when there are many. If anything throws half-way, every connection of
  // the round is dropped: replies left unread must never answer a later command.
  void exchange(std::vector<group>& groups);
  std::vector<reply> run(std::span<const command> cs, std::vector<work> todo);
  std::vector<work> all_of(std::size_t count) const;
};

}  // namespace bloomkit::redis
