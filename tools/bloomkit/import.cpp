// bloomkit import IN OUT --from guava|bits-and-blooms|bits-and-blooms-json|redisbloom|spark
//                        [--key-type string|long|binary]
//
// Reads a filter another system wrote (Guava's BloomFilter.writeTo stream, bits-and-blooms/bloom
// v3's WriteTo or MarshalJSON, the DUMP payload of a RedisBloom key, Spark's BloomFilter.writeTo
// V1 or V2) and saves it as a bloomkit filter file with the peer's hash scheme, bit for bit
// (docs/INTEROP.md). --key-type long records that the keys are 64-bit integers (Guava's
// Funnels.longFunnel(), Spark's putLong): query then reads each key as a signed decimal. binary
// (Spark's putBinary) hashes as string does: both are byte keys.
// Prints: imported IN: <bits> bits, <hashes> hashes, <hash scheme>
//     or: imported IN: <bits> bits, <links> links, redisbloom

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/compat/redisbloom_kind.hpp"
#include "bloomkit/compat/spark.hpp"
#include "bloomkit/file.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "input.hpp"
#include "key_encoding.hpp"
#include "output_file.hpp"
#include "peer_format.hpp"

namespace bloomkit::cli {

namespace {

struct import_options {
  std::string in;
  std::string out;
  std::string from;
  std::string key_type = "string";
};

// The whole input (a file, or stdin for "-").
std::string read_input(const std::string& name) {
  input_file in(name);
  if (in.mappable()) {
    std::string bytes(in.mapped());
    in.check_unchanged();
    return bytes;
  }
  std::string bytes;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(in.fd(), buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw error(errc::io_error,
                  fmt::format("{}: cannot read: {}", quoted_name(name), std::strerror(errno)));
    }
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  return bytes;
}

template <class Filter>
void save_imported(const import_options& o, output_file& out, const Filter& filter) {
  save(filter, o.out, key_type_of(o.key_type));
  out.commit(fmt::format("imported {}: {} bits, {} hashes, {}\n", printable(o.in), filter.bits(),
                         filter.hashes(), to_string(filter.scheme())));
}

void run_import(const import_options& o) {
  output_file out(o.out);
  if (o.in != "-") out.require_distinct_from(o.in, "import");
  const std::string bytes = read_input(o.in);
  const std::string source = o.in == "-" ? "stdin" : o.in;
  const std::span<const unsigned char> data(reinterpret_cast<const unsigned char*>(bytes.data()),
                                            bytes.size());
  switch (parse_peer_format(o.from)) {
    case peer_format::guava:
      std::visit([&](const auto& f) { save_imported(o, out, f); }, guava::read(data, source));
      return;
    case peer_format::bits_and_blooms:
      save_imported(o, out, bits_and_blooms::read(data, source));
      return;
    case peer_format::bits_and_blooms_json:
      save_imported(o, out, bits_and_blooms::read_json(bytes, source));
      return;
    case peer_format::redisbloom: {
      const redisbloom::chain chain = redisbloom::read_dump(data, source);
      save(chain, o.out, key_type_of(o.key_type));
      out.commit(fmt::format("imported {}: {} bits, {} links, redisbloom\n", printable(o.in),
                             chain.cells(), chain.filters()));
      return;
    }
    case peer_format::spark:
      std::visit([&](const auto& f) { save_imported(o, out, f); }, spark::read(data, source));
      return;
  }
}

}  // namespace

command add_import_command(CLI::App& app) {
  auto o = std::make_shared<import_options>();
  CLI::App* sub = app.add_subcommand(
      "import",
      "Convert another system's filter (Guava, bits-and-blooms, RedisBloom, Spark) into a filter "
      "file");
  add_required_argument(*sub, "IN", o->in, "The peer's file ('-' for stdin)");
  add_required_argument(*sub, "OUT", o->out, "Filter file to write (replaced if it exists)");
  add_peer_format_option(*sub, "--from", o->from);
  add_key_type_option(*sub, o->key_type,
                      "string: keys are text (UTF-8 bytes: Guava's stringFunnel, Spark's "
                      "putString); long: signed 64-bit integers (Guava's longFunnel, Spark's "
                      "putLong); binary: byte arrays (Spark's putBinary; hashed as string, given "
                      "in hex to query --key-type binary). Default: string");
  return {sub, "import", [o] { run_import(*o); }};
}

}  // namespace bloomkit::cli
