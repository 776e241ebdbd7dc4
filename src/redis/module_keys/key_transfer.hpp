#pragma once
// Module keys to and from filter files, as a client sees them (bloomkit::redis::client): pull
// reads a key of the module's type with BF.SCANDUMP and saves its filter as bloomkit's own file
// of its kind; push loads a file into a new module key with BF.LOADCHUNK. What `bloomkit redis
// pull` (for a module key) and `redis push --module` do, and the Python binding's
// pull_module_key / push_module_key (docs/REDIS.md, "Module keys and files"). Linked by the CLI
// and the Python binding (target bloomkit_module_transfer, this folder's CMakeLists.txt), never by
// the module.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis_module {

// What moved: the filter's kind as the files name it (classic, blocked, counting, scalable,
// window), its bits (bloomkit info's `bits`), its sub-filters (BF.INFO's "Number of filters")
// and its payload bytes.
struct module_key_summary {
  // The key's type: bloomkit's (bloomkit1), or RedisBloom's (MBbloom--, a file of kind redisbloom).
  bool redisbloom_type = false;
  std::string_view kind;
  std::uint64_t bits = 0;
  std::uint64_t filters = 0;
  std::uint64_t bytes = 0;
};

// Whether key `name` holds a module filter (TYPE replies one of the module's types, or
// RedisBloom's MBbloom--, which bloomkit's module holds too).
bool is_module_key(redis::client& c, const std::string& name);

// Whether pull_module_key asks the key's TYPE (ask), or the caller has just seen which module key
// it is (module_key_type) and one question is enough.
enum class key_type_check { ask, known_module, known_redisbloom, known_chain };
// known_module, known_redisbloom or known_chain for a key of bloomkit's type (bloomkit1),
// RedisBloom's (MBbloom--) or bloomkit's chain type (bkbloom--, what BF.RESERVE makes); none
// otherwise.
std::optional<key_type_check> module_key_type(redis::client& c, const std::string& name);

// Saves module key `name` to `file` with the one writer (atomic, locked): the file's bytes are
// the image's after its prefix, copied (docs/REDIS.md, "Images"). Every kind the module
// holds has a file kind: BK.RESERVE's kinds their own; a chain key — BF.RESERVE's (bkbloom--,
// scheme redisbloom-xxh3) or RedisBloom's type (MBbloom--, from RedisBloom's data or RedisBloom
// itself; scheme redisbloom) — a file of kind redisbloom (compat/redisbloom_kind.hpp) holding
// its chain exactly. The key is read with BF.SCANDUMP
// commands (BK.SCANDUMP for bkbloom--, whose BF.* is RedisBloom's under COEXIST); when it changes
// between them (a write lands mid-pull) the pull starts over, up to three times. Throws
// bloomkit::error: not_found (no key), wrong_type (not a module key), server_error (a refusal, e.g.
// a key still being loaded), io_error from the save.
module_key_summary pull_module_key(redis::client& c, const std::string& name,
                                   const std::filesystem::path& file,
                                   key_type_check check = key_type_check::ask);

// Creates module key `name` from filter file `file` with BK.LOADCHUNK, which bloomkit's module
// serves in either mode (the header, then the payload in 8 MiB chunks: the file's bytes, after
// the image's prefix); BF.* and BK.* commands then answer as for the filter of the file. Any of
// bloomkit's own kinds (not the peers' schemes); a file of kind redisbloom goes as RedisBloom's
// chunks: of scheme redisbloom a key of RedisBloom's type (MBbloom--) again (with COEXIST, where
// RedisBloom owns that type, a bloomkit1 key holding the chain), of scheme redisbloom-xxh3 a
// bkbloom-- key. A blocked file becomes a key that is not NONSCALING (as
// BK.RESERVE KIND blocked). Throws bloomkit::error: already_exists (the key exists), unsupported
// (the server has no bloomkit module, or the file's kind), the file's errors from load; a failure
// after the header deletes the half-loaded key.
module_key_summary push_module_key(redis::client& c, const std::filesystem::path& file,
                                   const std::string& name);

}  // namespace bloomkit::redis_module
