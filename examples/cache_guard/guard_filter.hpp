#pragma once
// The service's filter handle, whichever kind --filter asked for: a native Redis filter (bloom,
// counting), a static generation with a delta (static: the ids of the last rebuild in binary
// fuse tables, the ids created since in the delta; the scheduled rebuild folds them in) or a
// cuckoo filter in the server (cuckoo: the module's native kind or CF.*, module_cuckoo.hpp).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "module_cuckoo.hpp"

namespace cache_guard {

class guard_filter {
 public:
  using native = bloomkit::redis::redis_filter;
  using static_set = bloomkit::redis::redis_static_filter;

  explicit guard_filter(native f) : f_(std::move(f)) {}
  explicit guard_filter(static_set f) : f_(std::move(f)) {}
  explicit guard_filter(module_cuckoo f) : f_(std::move(f)) {}

  // Opens filter `name` as it is in Redis (native, static or cuckoo).
  static guard_filter open(bloomkit::redis::client& c, const std::string& name) {
    if (static_set::is_static(c, name)) return guard_filter(static_set::open(c, name));
    if (module_cuckoo::is_cuckoo(c, name)) return guard_filter(module_cuckoo::open(c, name));
    return guard_filter(native::open(c, name));
  }

  bool is_static() const noexcept { return std::holds_alternative<static_set>(f_); }
  bool is_cuckoo() const noexcept { return std::holds_alternative<module_cuckoo>(f_); }
  bool counting() const noexcept {
    const auto* n = std::get_if<native>(&f_);
    return n != nullptr && n->counting();
  }
  double target_fpp() const noexcept {
    return std::visit([](const auto& f) { return f.target_fpp(); }, f_);
  }
  // Keys it is sized for: a native or cuckoo filter's capacity; a static one's delta (its tables
  // hold whatever the last rebuild gave them).
  std::uint64_t capacity() const noexcept {
    if (const auto* s = std::get_if<static_set>(&f_)) return s->delta_capacity();
    if (const auto* c = std::get_if<module_cuckoo>(&f_)) return c->capacity();
    return std::get<native>(f_).capacity();
  }
  std::uint64_t generation() const noexcept {
    return std::visit([](const auto& f) { return f.generation(); }, f_);
  }
  // The meta's creation time (the stamp compares it).
  std::int64_t created() {
    return std::visit(
        [](auto& f) -> std::int64_t {
          if constexpr (std::is_same_v<std::decay_t<decltype(f)>, module_cuckoo>) {
            return f.created();
          } else {
            return static_cast<std::int64_t>(f.info().created);
          }
        },
        f_);
  }

  bool contains_with(std::string_view key, std::span<const bloomkit::redis::command> also,
                     std::vector<bloomkit::redis::reply>& also_replies) {
    return std::visit([&](auto& f) { return f.contains_with(key, also, also_replies); }, f_);
  }
  bool insert(std::string_view key) {
    return std::visit([&](auto& f) { return f.insert(key); }, f_);
  }
  std::size_t insert_many(std::span<const std::string_view> keys) {
    return std::visit([&](auto& f) { return f.insert_many(keys); }, f_);
  }
  // A new generation from `source` (the database's ids), an empty source allowed: the database
  // is the source of truth. A static filter keeps its p and delta capacity.
  void rebuild(const bloomkit::redis::key_source& source) {
    if (auto* n = std::get_if<native>(&f_)) return n->rebuild(source, {.allow_empty = true});
    if (auto* c = std::get_if<module_cuckoo>(&f_)) return c->rebuild(source);
    bloomkit::redis::static_rebuild_options o;
    o.allow_empty = true;
    std::get<static_set>(f_).rebuild(source, o);
  }

 private:
  std::variant<native, static_set, module_cuckoo> f_;
};

}  // namespace cache_guard
