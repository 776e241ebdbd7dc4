#include "peer_format.hpp"

#include <vector>

namespace bloomkit::cli {

CLI::Option* add_peer_format_option(CLI::App& command, const std::string& option,
                                    std::string& name) {
  return command
      .add_option(option, name,
                  "guava (Guava BloomFilter.writeTo), bits-and-blooms (bits-and-blooms/bloom v3 "
                  "WriteTo), bits-and-blooms-json (its MarshalJSON), redisbloom (the DUMP "
                  "payload of a RedisBloom BF key) or spark (Spark BloomFilter.writeTo, V1 or "
                  "V2)")
      ->type_name("FORMAT")
      ->required()
      ->check(CLI::IsMember(std::vector<std::string>{"guava", "bits-and-blooms",
                                                     "bits-and-blooms-json", "redisbloom", "spark"})
                  .description(""));
}

peer_format parse_peer_format(std::string_view name) {
  if (name == "bits-and-blooms") return peer_format::bits_and_blooms;
  if (name == "bits-and-blooms-json") return peer_format::bits_and_blooms_json;
  if (name == "redisbloom") return peer_format::redisbloom;
  if (name == "spark") return peer_format::spark;
  return peer_format::guava;
}

}  // namespace bloomkit::cli
