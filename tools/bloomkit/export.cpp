// bloomkit export IN OUT --to guava|bits-and-blooms|bits-and-blooms-json
//
// Writes a filter file in another system's format (docs/INTEROP.md): Guava's BloomFilter.writeTo
// stream (BloomFilter.readFrom reads it), bits-and-blooms/bloom v3's WriteTo or MarshalJSON. The
// filter's hash scheme must be one the target computes (an imported filter, or one built with
// that scheme); any other is refused, since the peer would answer differently. OUT is written to
// a temp file and renamed into place.
// Prints: exported IN: <bits> bits, <hashes> hashes, <format>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/file.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "peer_format.hpp"

namespace bloomkit::cli {

namespace {

struct export_options {
  std::string in;
  std::string out;
  std::string to;
};

[[noreturn]] void fail_errno(const std::string& file, const char* action) {
  throw error(errc::io_error, fmt::format("{}: {}: {}", file, action, std::strerror(errno)));
}

// Writes `bytes` to a temp file next to `path`, fsyncs it and renames it over `path`.
void write_atomically(const std::string& path, std::string_view bytes) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::string tmp =
      (dir / ("." + std::filesystem::path(path).filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail_errno(path, "cannot create a temporary file");
  try {
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_errno(path, "cannot write");
      }
      done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd, 0644) != 0) fail_errno(path, "cannot set permissions");
    if (::fsync(fd) != 0) fail_errno(path, "cannot fsync");
    const int closing = fd;
    fd = -1;
    if (::close(closing) != 0) fail_errno(path, "cannot close");
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail_errno(path, "cannot rename into place");
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
}

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

void run_export(const export_options& o) {
  const file_header h = read_header(o.in);
  std::string bytes;
  const char* format = "";
  const peer_format to = parse_peer_format(o.to);
  switch (to) {
    case peer_format::guava:
      format = "guava";
      if (h.scheme == hash_scheme::guava_murmur128_mitz_32) {
        bytes = as_text(guava::write(load<guava::mitz_32_filter>(o.in)));
      } else if (h.scheme == hash_scheme::guava_murmur128_mitz_64) {
        bytes = as_text(guava::write(load<guava::mitz_64_filter>(o.in)));
      } else {
        refuse(o, h.scheme, "Guava", "guava-murmur128-mitz-32 or guava-murmur128-mitz-64");
      }
      break;
    case peer_format::bits_and_blooms:
    case peer_format::bits_and_blooms_json: {
      const bool json = to == peer_format::bits_and_blooms_json;
      format = json ? "bits-and-blooms-json" : "bits-and-blooms";
      if (h.scheme != hash_scheme::bits_and_blooms_v3) {
        refuse(o, h.scheme, "bits-and-blooms", "bits-and-blooms-v3");
      }
      const auto f = load<bits_and_blooms::filter>(o.in);
      bytes =
          json ? bits_and_blooms::write_json(f) : std::string(as_text(bits_and_blooms::write(f)));
      break;
    }
  }
  write_atomically(o.out, bytes);
  fmt::print("exported {}: {} bits, {} hashes, {}\n", printable(o.in), h.bits, h.hashes, format);
}

}  // namespace

command add_export_command(CLI::App& app) {
  auto o = std::make_shared<export_options>();
  CLI::App* sub = app.add_subcommand(
      "export", "Write a filter file in another system's format (Guava, bits-and-blooms)");
  sub->add_option("IN", o->in, "Filter file to export")->type_name("")->required();
  sub->add_option("OUT", o->out, "The peer's file to write (replaced if it exists)")
      ->type_name("")
      ->required();
  add_peer_format_option(*sub, "--to", o->to);
  return {sub, "export", [o] { run_export(*o); }};
}

}  // namespace bloomkit::cli
