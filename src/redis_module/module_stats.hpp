#pragma once
// The module's figures for `INFO` (docs/REDIS.md, "INFO section"): filters held, their storage
// bytes, keys added, keys looked up, filters loaded. Each path counts with one call; the counters
// are atomic because Redis may free values on its lazy-free thread (FLUSHALL ASYNC, UNLINK).

#include <cstdint>

#include "module_api.hpp"

namespace bloomkit::redis_module {

// A value of the module's types came to exist (a command made it, an RDB or RESTORE loaded it)
// or was freed.
void note_filter_created() noexcept;
void note_filter_freed() noexcept;
// Filter storage taken from / given back to Redis's allocator (redis_memory.cpp).
void note_bytes_allocated(std::uint64_t bytes) noexcept;
void note_bytes_freed(std::uint64_t bytes) noexcept;
// Keys given to an add command (BF.ADD, BF.MADD, BF.INSERT and twins) / a lookup (BF.EXISTS,
// BF.MEXISTS and twins).
void note_adds(std::uint64_t keys) noexcept;
void note_lookups(std::uint64_t keys) noexcept;
// A filter loaded whole: an RDB value or a RESTORE read, a BF.LOADCHUNK that completed an image.
void note_load() noexcept;

struct module_figures {
  std::uint64_t filters;
  std::uint64_t bytes;
  std::uint64_t adds;
  std::uint64_t lookups;
  std::uint64_t loads;
};
module_figures current_figures() noexcept;

// Adds the section to INFO (Redis >= 6.0; a no-op on servers without the INFO API). Redis names
// it <module name>_<section> (<module name> alone for an empty `section`) and each field
// <module name>_<field>; `INFO <module name>` shows it too.
void register_info_section(RedisModuleCtx* ctx, const char* section);

}  // namespace bloomkit::redis_module
