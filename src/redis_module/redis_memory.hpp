#pragma once
// Filters' memory in the module. Every filter's bits come from Redis's allocator (the storage
// allocator installed at load, storage_allocator.hpp), so used_memory, maxmemory, eviction and
// MEMORY USAGE see them; and a command whose filters would take the server past maxmemory is
// refused with Redis's OOM error before it changes anything.
//
// The rule (docs/REDIS.md, "Memory"): with maxmemory set, an allocation of B bytes is refused when
// B alone is more than maxmemory, or, under the noeviction policy, when used memory (as Redis
// counts it for maxmemory) plus B is more than maxmemory. Under an eviction policy Redis makes
// room as for any write: it evicts before the next command. Commands replicated from a master or
// replayed from an AOF are never refused (the master decided), and neither is an RDB load or a
// RESTORE (Redis refuses a RESTORE itself when memory is already past maxmemory: deny-oom).

#include <cstdint>
#include <span>
#include <string>

#include "module_api.hpp"

namespace bloomkit::redis_module {

// Installs the allocator (RedisModule_OnLoad).
void install_redis_allocator();

// The bytes Redis's allocator (jemalloc: four size classes per doubling) holds for a request of
// `bytes`, as used_memory will count them.
std::uint64_t allocation_estimate(std::uint64_t bytes) noexcept;

// One per command that may allocate filter memory (on Redis's main thread). While it lives, the
// allocator refuses an allocation the rule above refuses: it throws errc::too_large, and
// refusal() holds the OOM reply, whatever the error became on its way up.
class memory_budget {
 public:
  explicit memory_budget(RedisModuleCtx* ctx);
  ~memory_budget();
  memory_budget(const memory_budget&) = delete;
  memory_budget& operator=(const memory_budget&) = delete;

  // Whether allocations of these sizes may all be made now (a check before a command changes
  // anything); when not, refusal() says why.
  bool admits(std::span<const std::uint64_t> allocations);
  bool admits(std::uint64_t bytes) { return admits(std::span<const std::uint64_t>(&bytes, 1)); }
  // The OOM reply of a refused allocation; empty when nothing was refused.
  const std::string& refusal() const noexcept { return refusal_; }

 private:
  RedisModuleCtx* ctx_;
  bool applies_ = false;  // maxmemory is set and the command is a client's
  bool evicts_ = false;   // the policy may evict keys
  std::uint64_t maxmemory_ = 0;
  memory_budget* outer_;
  std::string refusal_;
};

}  // namespace bloomkit::redis_module
