// Module keys to and from filter files (key_transfer.hpp).

#include "key_transfer.hpp"

#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "../../module_value/chunk_iterator.hpp"
#include "../../module_value/filter_image.hpp"
#include "../../module_value/module_filter.hpp"
#include "../../module_value/module_value.hpp"
#include "bloomkit/any_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/kinds.hpp"
#include "file/write_filter_file.hpp"
#include "key_errors.hpp"

namespace bloomkit::redis_module {

namespace {

// BF.SCANDUMP passes of a pull before a key that keeps changing under it is an error.
constexpr int pull_attempts = 3;

// The reply to `args`, sent to the node that holds `name`. An error reply throws
// (throw_reply_error).
redis::reply run(redis::client& c, const std::string& name, std::vector<std::string> args) {
  redis::reply r = c.execute(redis::command{std::move(args), 1});
  if (r.is_error()) throw_reply_error(name, r.str());
  return r;
}

// Thrown by scandump() when the server says the key changed during the dump.
struct dump_restarted {};

// BF.SCANDUMP's (iterator, data) pair.
std::pair<long long, std::string> scandump(redis::client& c, const std::string& name,
                                           long long iterator) {
  const redis::reply r =
      c.execute(redis::command{{"BF.SCANDUMP", name, std::to_string(iterator)}, 1});
  if (r.is_error()) {
    if (r.str().find("changed during BF.SCANDUMP") != std::string::npos) throw dump_restarted{};
    throw_reply_error(name, r.str());
  }
  if (r.type() != redis::reply::kind::array || r.elements().size() != 2) {
    throw error(errc::server_error,
                key_named(name) + ": unexpected BF.SCANDUMP reply " + r.to_string());
  }
  return {r.elements()[0].integer(), r.elements()[1].str()};
}

// What moved, of a filter of the registry.
module_key_summary summary_of(const any_filter& filter) {
  module_key_summary s;
  std::visit(
      [&]<class Filter>(const Filter& f) {
        s.kind = kind_traits<Filter>::name;
        s.bits = f.cells();
        s.filters = kind_parts<Filter>::part_count(f);
      },
      filter);
  for (std::string_view piece : image_payload(module_filter{filter, false})) {
    s.bytes += piece.size();
  }
  return s;
}

// One BF.SCANDUMP pass, saved to `file`; none when the image does not hold together (the key
// changed between two of its commands). A version 2 image is the file's bytes after its prefix:
// they are copied as they are, once their checksum holds; a version 1 image (a server of an
// older module) is converted.
std::optional<module_key_summary> scan_once(redis::client& c, const std::string& name,
                                            const std::filesystem::path& file) {
  try {
    image_loader loader(scandump(c, name, 0).second);
    for (long long iterator = 1;;) {
      auto [next, data] = scandump(c, name, iterator);
      if (next == 0) break;
      loader.append(data);
      if (decode_chunk_iterator(next).end - 1 != loader.loaded_bytes()) return std::nullopt;
      iterator = next;
    }
    if (!loader.complete()) return std::nullopt;
    if (const std::optional<file_header> h = image_file_header(loader.header())) {
      const std::vector<std::string_view> payload = loader.loaded_payload();
      std::vector<std::span<const unsigned char>> parts;
      for (std::string_view piece : payload) {
        parts.emplace_back(reinterpret_cast<const unsigned char*>(piece.data()), piece.size());
      }
      if (detail::sealed_header(*h, parts).payload_checksum != h->payload_checksum) {
        return std::nullopt;
      }
      detail::write_filter_file(file, *h, parts);
      return summary_of(loader.finish().filter);
    }
    const module_filter m = loader.finish();
    std::visit([&](const auto& f) { save(f, file); }, m.filter);
    return summary_of(m.filter);
  } catch (const image_error&) {
    return std::nullopt;
  } catch (const dump_restarted&) {
    return std::nullopt;
  }
}

// The module's value for the filter of `file` (mapped); unsupported for a kind the module lacks.
module_filter module_filter_of(const std::filesystem::path& file) {
  try {
    return module_filter{map_any(file, verify::full), false};
  } catch (const error& e) {
    if (e.code() != errc::unsupported) throw;
    throw error(errc::unsupported,
                std::string(e.what()) +
                    " (the module cannot hold it: it holds bloomkit's own kinds, not the peers' "
                    "schemes)");
  }
}

// unsupported unless the server knows BK.RESERVE (a command of this module only).
void require_module(redis::client& c) {
  const redis::reply r = c.execute(redis::command{{"COMMAND", "INFO", "BK.RESERVE"}, 0});
  const bool known = r.type() == redis::reply::kind::array && r.elements().size() == 1 &&
                     !r.elements()[0].is_nil();
  if (!known) {
    throw error(errc::unsupported, c.describe() +
                                       " has no bloomkit module (no BK.RESERVE command): start "
                                       "redis-server with --loadmodule bloomkit_redis_module.so");
  }
}

}  // namespace

bool is_module_key(redis::client& c, const std::string& name) {
  const redis::reply r = run(c, name, {"TYPE", name});
  return r.str() == module_type_name;
}

module_key_summary pull_module_key(redis::client& c, const std::string& name,
                                   const std::filesystem::path& file, key_type_check check) {
  if (check == key_type_check::ask) {
    const std::string type = run(c, name, {"TYPE", name}).str();
    if (type == "none") throw error(errc::not_found, key_named(name) + " does not exist");
    if (type != module_type_name) {
      throw error(errc::wrong_type, key_named(name) + " holds a " + type + ", not a module filter");
    }
  }
  for (int attempt = 0; attempt < pull_attempts; ++attempt) {
    if (std::optional<module_key_summary> s = scan_once(c, name, file)) return *s;
  }
  throw error(errc::server_error, key_named(name) + " changed during each of " +
                                      std::to_string(pull_attempts) +
                                      " BF.SCANDUMP passes (or its image is corrupt)");
}

module_key_summary push_module_key(redis::client& c, const std::filesystem::path& file,
                                   const std::string& name) {
  const module_filter m = module_filter_of(file);
  require_module(c);
  if (run(c, name, {"EXISTS", name}).integer() != 0) {
    throw error(errc::already_exists, key_named(name) + " exists");
  }
  const redis::reply first =
      c.execute(redis::command{{"BF.LOADCHUNK", name, "1", image_header(m)}, 1});
  if (first.is_error()) {
    // Created meanwhile by another client: LOADCHUNK refuses an existing key.
    const bool exists = first.str() == "ERR item exists" || first.str().rfind("WRONGTYPE", 0) == 0;
    throw error(exists ? errc::already_exists : errc::server_error,
                key_named(name) + (exists ? " exists" : ": " + first.str()));
  }
  try {
    std::uint64_t offset = 0;
    for_each_payload_slice(image_payload(m), chunk_payload_bytes, [&](std::string_view slice) {
      offset += slice.size();
      run(c, name, {"BF.LOADCHUNK", name, std::to_string(offset + 1), std::string(slice)});
    });
  } catch (...) {
    // No half-loaded key stays behind (it would refuse every command but BF.LOADCHUNK).
    try {
      c.execute(redis::command{{"DEL", name}, 1});
    } catch (const error&) {
      // The original error says more.
    }
    throw;
  }
  return summary_of(m.filter);
}

}  // namespace bloomkit::redis_module
