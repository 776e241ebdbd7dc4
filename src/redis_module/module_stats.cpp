// The module's INFO figures (module_stats.hpp).

#include "module_stats.hpp"

#include <atomic>

namespace bloomkit::redis_module {

namespace {

struct stats_counters {
  std::atomic<std::uint64_t> filters{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> adds{0};
  std::atomic<std::uint64_t> lookups{0};
  std::atomic<std::uint64_t> loads{0};
};
stats_counters stats;

void count_up(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept {
  counter.fetch_add(n, std::memory_order_relaxed);
}
void count_down(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept {
  counter.fetch_sub(n, std::memory_order_relaxed);
}

const char* section_name = "";

void add_info_section(RedisModuleInfoCtx* ctx, int) {
  if (RedisModule_InfoAddSection(ctx, section_name) != module_ok) return;
  const module_figures f = current_figures();
  RedisModule_InfoAddFieldULongLong(ctx, "filters", f.filters);
  RedisModule_InfoAddFieldULongLong(ctx, "bytes", f.bytes);
  RedisModule_InfoAddFieldULongLong(ctx, "adds", f.adds);
  RedisModule_InfoAddFieldULongLong(ctx, "lookups", f.lookups);
  RedisModule_InfoAddFieldULongLong(ctx, "loads", f.loads);
}

}  // namespace

void note_filter_created() noexcept {
  count_up(stats.filters, 1);
}
void note_filter_freed() noexcept {
  count_down(stats.filters, 1);
}
void note_bytes_allocated(std::uint64_t n) noexcept {
  count_up(stats.bytes, n);
}
void note_bytes_freed(std::uint64_t n) noexcept {
  count_down(stats.bytes, n);
}
void note_adds(std::uint64_t keys) noexcept {
  count_up(stats.adds, keys);
}
void note_lookups(std::uint64_t keys) noexcept {
  count_up(stats.lookups, keys);
}
void note_load() noexcept {
  count_up(stats.loads, 1);
}

module_figures current_figures() noexcept {
  return {stats.filters.load(std::memory_order_relaxed),
          stats.bytes.load(std::memory_order_relaxed), stats.adds.load(std::memory_order_relaxed),
          stats.lookups.load(std::memory_order_relaxed),
          stats.loads.load(std::memory_order_relaxed)};
}

void register_info_section(RedisModuleCtx* ctx, const char* section) {
  section_name = section;
  if (RedisModule_RegisterInfoFunc == nullptr || RedisModule_InfoAddSection == nullptr ||
      RedisModule_InfoAddFieldULongLong == nullptr) {
    return;
  }
  RedisModule_RegisterInfoFunc(ctx, add_info_section);
}

}  // namespace bloomkit::redis_module
