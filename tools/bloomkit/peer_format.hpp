#pragma once
// The other systems' file formats that `import --from` and `export --to` name (docs/INTEROP.md).

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace bloomkit::cli {

enum class peer_format {
  guava,                 // Guava BloomFilter.writeTo / readFrom
  bits_and_blooms,       // bits-and-blooms/bloom v3 WriteTo / ReadFrom
  bits_and_blooms_json,  // bits-and-blooms/bloom v3 MarshalJSON / UnmarshalJSON
  redisbloom,            // a RedisBloom key's DUMP payload (RESTORE takes it back)
  spark,                 // Apache Spark BloomFilter.writeTo / readFrom, V1 or V2
};

// `option` (--from / --to) taking one of the names above; anything else is a usage error.
CLI::Option* add_peer_format_option(CLI::App& command, const std::string& option,
                                    std::string& name);
// The format a name checked by that option stands for.
peer_format parse_peer_format(std::string_view name);

}  // namespace bloomkit::cli
