// Where a client's commands go: the cluster's slot map (CLUSTER SLOTS, refreshed after MOVED or
// a failure) and the master that sentinels name (asked again after a failure or READONLY).
#include <algorithm>
#include <exception>

#include "bloomkit/error.hpp"
#include "client_impl.hpp"
#include "key_slot.hpp"

namespace bloomkit::redis {

connection& client::impl::node(const endpoint& where) {
  auto& slot = nodes[where.to_string()];
  if (!slot) slot = std::make_unique<connection>(where, auth, options, tls);
  return *slot;
}

bool client::impl::load_slot_map(connection& from, std::string& problem) {
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

bool client::impl::refresh_slot_map(std::string& problems) {
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

namespace {

// "Sentinel at h:p" / "Redis at h:p": messages name what was asked.
std::string sentinel_at(const connection& c) {
  return "Sentinel at " + c.where().to_string();
}

// ROLE's first element: "master", "slave" or "sentinel"; the reply's text when unusable.
std::string role_of(const reply& r) {
  if (r.type() == reply::kind::array && !r.elements().empty() &&
      r.elements().front().type() == reply::kind::string) {
    return r.elements().front().str();
  }
  return r.to_string();
}

void throw_if_noauth(const reply& r, const std::string& who, std::string_view hint) {
  if (r.is_error() && starts_with_word(r.str(), "NOAUTH")) {
    throw error(errc::auth_failed, who + " requires a password: " + r.str() + std::string(hint));
  }
}

}  // namespace

bool client::impl::find_master(std::string& problems) {
  auto note = [&](const std::string& problem) {
    problems += (problems.empty() ? "" : "; ") + problem;
  };
  const command ask{{"SENTINEL", "get-master-addr-by-name", target.master_name}, 0};
  for (std::size_t i = 0; i < sentinels.size(); ++i) {
    connection& sentinel = *sentinels[i];
    reply r;
    try {
      r = sentinel.call(ask);
    } catch (const error& e) {
      if (e.code() != errc::unreachable && e.code() != errc::timeout) throw;
      note(e.what());
      continue;
    }
    throw_if_noauth(r, sentinel_at(sentinel),
                    std::string(" (the sentinels' password: ") + sentinel_password_variable + ")");
    if (r.is_error()) {
      note(sentinel_at(sentinel) + " answered SENTINEL get-master-addr-by-name with " + r.str());
      continue;
    }
    if (r.type() != reply::kind::array || r.elements().size() < 2) {
      note(sentinel_at(sentinel) + " knows no master named \"" + target.master_name + "\"");
      continue;
    }
    endpoint where;
    try {
      where.host = r.elements()[0].str();
      where.port = std::stoi(r.elements()[1].str());
    } catch (const std::exception&) {
      note(sentinel_at(sentinel) + " sent an unusable address: " + r.to_string());
      continue;
    }
    // The sentinel that knew goes first next time.
    std::rotate(sentinels.begin(), sentinels.begin() + static_cast<std::ptrdiff_t>(i),
                sentinels.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    connection& master = node(where);
    const std::string named = "Redis at " + where.to_string() + " (master \"" + target.master_name +
                              "\" of the " + sentinel_at(*sentinels.front()) + ")";
    reply role;
    try {
      role = master.call(command{{"ROLE"}, 0});
    } catch (const error& e) {
      if (e.code() != errc::unreachable && e.code() != errc::timeout) throw;
      note(e.what());
      return false;  // the sentinels may not have noticed yet: ask again after a delay
    }
    throw_if_noauth(role, "Redis at " + where.to_string(), "");
    if (role_of(role) != "master") {
      // Just demoted, or the sentinels are behind: ask again after a delay.
      master.drop();
      note(named + " says it is " + (role.is_error() ? role.str() : "a " + role_of(role)));
      return false;
    }
    master_list = {&master};
    master_stale = false;
    ++stats.master_lookups;
    return true;
  }
  return false;
}

connection& client::impl::route(const command& c) {
  if (!target.cluster) return *master_list.front();
  if (c.key_index == 0) return *master_list.front();
  connection* owner = slots[static_cast<std::size_t>(key_slot(c.args[c.key_index]))];
  return owner != nullptr ? *owner : *master_list.front();
}

}  // namespace bloomkit::redis
