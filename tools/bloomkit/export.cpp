// bloomkit export IN OUT --to guava|bits-and-blooms|bits-and-blooms-json|redisbloom|spark
//
// Writes a filter file in another system's format (docs/INTEROP.md): Guava's BloomFilter.writeTo
// stream (BloomFilter.readFrom reads it), bits-and-blooms/bloom v3's WriteTo or MarshalJSON,
// Spark's BloomFilter.writeTo (V1 or V2, by the file's hash scheme), or a RedisBloom key's DUMP
// payload (RESTORE key 0 <bytes> makes the key; its strings are written
// uncompressed, which RESTORE takes as well). The
// filter's hash scheme must be one the target computes (an imported filter, or one built with
// that scheme); any other is refused, since the peer would answer differently. OUT is replaced
// like every file bloomkit writes (output_file.hpp); OUT "-" is stdout, and IN itself is refused.
// Prints: exported IN: <bits> bits, <hashes> hashes, <format> (on stderr when OUT is stdout)

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/compat/spark.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "peer_format.hpp"

namespace bloomkit::cli {

namespace {

struct export_options {
  std::string in;
  std::string out;
  std::string to;
};

std::string_view as_text(const std::vector<unsigned char>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

[[noreturn]] void refuse(const export_options& o, hash_scheme scheme, const char* target,
                         const char* needs) {
  throw error(errc::unsupported,
              fmt::format("{}: cannot export to {}: the filter uses hash scheme {}, which {} does "
                          "not compute (it needs {})",
                          printable(o.in), target, to_string(scheme), target, needs));
}

// Refuses a filter of a hash scheme that the peer of `to` does not compute.
void check_exportable(const export_options& o, peer_format to, hash_scheme scheme) {
  if (to == peer_format::guava) {
    if (scheme != hash_scheme::guava_murmur128_mitz_32 &&
        scheme != hash_scheme::guava_murmur128_mitz_64) {
      refuse(o, scheme, "Guava", "guava-murmur128-mitz-32 or guava-murmur128-mitz-64");
    }
  } else if (to == peer_format::redisbloom) {
    if (scheme != hash_scheme::redisbloom) refuse(o, scheme, "RedisBloom", "redisbloom");
  } else if (to == peer_format::spark) {
    if (scheme != hash_scheme::spark_v1 && scheme != hash_scheme::spark_v2) {
      refuse(o, scheme, "Spark", "spark-v1 or spark-v2");
    }
  } else if (scheme != hash_scheme::bits_and_blooms_v3) {
    refuse(o, scheme, "bits-and-blooms", "bits-and-blooms-v3");
  }
}

// The peer's bytes of an exportable filter (check_exportable), and the name of their format.
std::pair<std::string, const char*> exported_bytes(peer_format to,
                                                   const compat::any_filter& filter) {
  if (to == peer_format::guava) {
    const auto* f32 = std::get_if<guava::mitz_32_filter>(&filter);
    return {std::string(as_text(f32 != nullptr
                                    ? guava::write(*f32)
                                    : guava::write(std::get<guava::mitz_64_filter>(filter)))),
            "guava"};
  }
  if (to == peer_format::spark) {
    const auto* v1 = std::get_if<spark::v1_filter>(&filter);
    return {std::string(as_text(v1 != nullptr ? spark::write(*v1)
                                              : spark::write(std::get<spark::v2_filter>(filter)))),
            "spark"};
  }
  if (to == peer_format::redisbloom) {
    return {std::string(as_text(redisbloom::write_dump(std::get<redisbloom::chain>(filter)))),
            "redisbloom"};
  }
  const auto& f = std::get<bits_and_blooms::filter>(filter);
  if (to == peer_format::bits_and_blooms_json) {
    return {bits_and_blooms::write_json(f), "bits-and-blooms-json"};
  }
  return {std::string(as_text(bits_and_blooms::write(f))), "bits-and-blooms"};
}

void run_export(const export_options& o) {
  std::optional<output_file> out;  // none for stdout
  if (o.out != "-") {
    out.emplace(o.out);
    out->require_distinct_from(o.in, "export");
  }
  // One open: the scheme is checked before the payload is read, and the figures printed are
  // those of the filter exported.
  const peer_format to = parse_peer_format(o.to);
  const auto in = compat::open_any(o.in, open_mode::load, verify::full, [&](const file_header& h) {
    check_exportable(o, to, h.scheme);
  });
  const auto [bytes, format] = exported_bytes(to, in.filter);
  // A RedisBloom chain's links each have their own hash count.
  const std::string shape = to == peer_format::redisbloom
                                ? fmt::format("{} links", in.header.kind_params[2])
                                : fmt::format("{} hashes", in.header.hashes);
  const std::string result =
      fmt::format("exported {}: {} bits, {}, {}\n", printable(o.in), in.header.bits, shape, format);
  if (!out) {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    flush_stdout();                    // reports a failed fwrite too
    fmt::print(stderr, "{}", result);  // stdout holds the peer's bytes only
    return;
  }
  write_file(o.out, {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
  out->commit(result);
}

}  // namespace

command add_export_command(CLI::App& app) {
  auto o = std::make_shared<export_options>();
  CLI::App* sub = app.add_subcommand(
      "export",
      "Write a filter file in another system's format (Guava, bits-and-blooms, RedisBloom, "
      "Spark)");
  add_required_argument(*sub, "IN", o->in, "Filter file to export");
  add_required_argument(*sub, "OUT", o->out,
                        "The peer's file to write (replaced if it exists; '-' for stdout)");
  add_peer_format_option(*sub, "--to", o->to);
  return {sub, "export", [o] { run_export(*o); }};
}

}  // namespace bloomkit::cli
