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
#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/compat/redisbloom.hpp"
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
                                           long long iterator, bool redisbloom_key = false) {
  const redis::reply r = c.execute(
      redis::command{{command_for(redisbloom_key, "SCANDUMP"), name, std::to_string(iterator)}, 1});
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

// RedisBloom's type name, which TYPE replies for its keys, and bloomkit's chain type's.
constexpr std::string_view redisbloom_type_name = redisbloom::type_name;
constexpr std::string_view chain_type_name = redisbloom::native_type_name;

// The module key a TYPE reply names; none for any other type (or none).
std::optional<key_type_check> module_key_type_of(std::string_view type) {
  if (type == module_type_name) return key_type_check::known_module;
  if (type == redisbloom_type_name) return key_type_check::known_redisbloom;
  if (type == chain_type_name) return key_type_check::known_chain;
  return std::nullopt;
}

// What moved, of a filter a module key holds.
module_key_summary summary_of(const module_filter& m) {
  module_key_summary s;
  std::visit(
      [&]<class Filter>(const Filter& f) {
        s.kind = kind_traits<Filter>::name;
        s.bits = f.cells();
      },
      m.filter);
  s.filters = filter_count_of(m);
  for (std::string_view piece : image_payload(m)) s.bytes += piece.size();
  return s;
}

module_key_summary redisbloom_summary_of(redisbloom::chain c) {
  const bool redisbloom_type = !c.bloomkit_hashing();  // bkbloom-- keys are the module's own
  module_key_summary s = summary_of(module_filter{std::move(c), false});
  s.redisbloom_type = redisbloom_type;
  return s;
}

std::span<const unsigned char> bytes_of(std::string_view data) {
  return {reinterpret_cast<const unsigned char*>(data.data()), data.size()};
}

// One BF.SCANDUMP pass of a chain key, in RedisBloom's chunks, saved to `file` as a file of kind
// redisbloom; none when the key changed during it (its header differs after). A key of
// RedisBloom's type is read with BF.SCANDUMP, one of bloomkit's chain type (bkbloom--) with
// BK.SCANDUMP (command_for).
std::optional<module_key_summary> scan_redisbloom_once(redis::client& c, const std::string& name,
                                                       const std::filesystem::path& file,
                                                       bool redisbloom_key) {
  const std::string header = scandump(c, name, 0, redisbloom_key).second;
  redisbloom::chain chain = redisbloom::chain_from_header(bytes_of(header));
  for (long long iterator = 1;;) {
    auto [next, data] = scandump(c, name, iterator, redisbloom_key);
    if (next == 0) break;
    redisbloom::apply_chunk(chain, next, bytes_of(data));
    iterator = next;
  }
  if (scandump(c, name, 0, redisbloom_key).second != header) return std::nullopt;
  save(chain, file);
  return redisbloom_summary_of(std::move(chain));
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
      return summary_of(loader.finish());
    }
    const module_filter m = loader.finish();
    std::visit([&](const auto& f) { save(f, file); }, m.filter);
    return summary_of(m);
  } catch (const image_error&) {
    return std::nullopt;
  } catch (const dump_restarted&) {
    return std::nullopt;
  }
}

// The filter of `file` for a module key: one of bloomkit's own kinds (mapped), RedisBloom's
// chain, or Spark's filters; unsupported for a kind the module lacks (the other peers' schemes).
std::variant<module_filter, redisbloom::chain> file_filter_of(const std::filesystem::path& file) {
  return std::visit(
      [&]<class Filter>(Filter&& f) -> std::variant<module_filter, redisbloom::chain> {
        if constexpr (kind_traits<Filter>::kind == filter_kind::redisbloom) {
          return std::forward<Filter>(f);
        } else if constexpr (listed_in<Filter, module_filters>) {
          if (keys_of(f) == key_type::int64) {
            throw error(errc::unsupported,
                        file.string() + ": holds a " + std::string(kind_traits<Filter>::name) +
                            " filter of integer keys (hash scheme " +
                            std::string(to_string(scheme_of(f))) +
                            "): the module's keys are strings (BK.* and BF.* take no integers)");
          }
          return module_filter{std::forward<Filter>(f), false};
        } else {
          throw error(errc::unsupported,
                      file.string() + ": holds a " + std::string(kind_traits<Filter>::name) +
                          " filter with hash scheme " + std::string(to_string(Filter::scheme())) +
                          ": the module cannot hold it (it holds bloomkit's own kinds and "
                          "RedisBloom's and Spark's, not the other peers' schemes)");
        }
      },
      compat::map_any(file, verify::full));
}

// A push goes into bloomkit's module, so through BK.LOADCHUNK for either kind: its drop-in makes a
// key of RedisBloom's type of RedisBloom's chunks, and with COEXIST (where BF.* is RedisBloom's) a
// key of its own type holding the chain.
const std::string push_command = command_for(false, "LOADCHUNK");

// Sends the LOADCHUNK commands that recreate the filter in key `name` after its header: the
// image's payload in 8 MiB slices, or RedisBloom's data chunks at RedisBloom's iterators.
void send_chunks(redis::client& c, const std::string& name, const module_filter& m) {
  std::uint64_t offset = 0;
  for_each_payload_slice(image_payload(m), chunk_payload_bytes, [&](std::string_view slice) {
    offset += slice.size();
    run(c, name, {push_command, name, std::to_string(offset + 1), std::string(slice)});
  });
}
void send_chunks(redis::client& c, const std::string& name, const redisbloom::chain& chain) {
  for (redisbloom::data_chunk chunk = redisbloom::next_chunk(chain, 1); chunk.next != 0;
       chunk = redisbloom::next_chunk(chain, chunk.next)) {
    run(c, name,
        {push_command, name, std::to_string(chunk.next),
         std::string(reinterpret_cast<const char*>(chunk.data.data()), chunk.data.size())});
  }
}

std::string header_chunk_of(const module_filter& m) {
  return image_header(m);
}
std::string header_chunk_of(const redisbloom::chain& chain) {
  const std::vector<unsigned char> header = redisbloom::header_chunk(chain);
  return {reinterpret_cast<const char*>(header.data()), header.size()};
}

module_key_summary summary_after_push(const module_filter& m) {
  return summary_of(m);
}
module_key_summary summary_after_push(const redisbloom::chain& chain) {
  return redisbloom_summary_of(chain);
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

std::optional<key_type_check> module_key_type(redis::client& c, const std::string& name) {
  return module_key_type_of(run(c, name, {"TYPE", name}).str());
}

bool is_module_key(redis::client& c, const std::string& name) {
  return module_key_type(c, name).has_value();
}

module_key_summary pull_module_key(redis::client& c, const std::string& name,
                                   const std::filesystem::path& file, key_type_check check) {
  if (check == key_type_check::ask) {
    const std::string type = run(c, name, {"TYPE", name}).str();
    if (type == "none") throw error(errc::not_found, key_named(name) + " does not exist");
    const std::optional<key_type_check> known = module_key_type_of(type);
    if (!known) {
      throw error(errc::wrong_type, key_named(name) + " holds a " + type + ", not a module filter");
    }
    check = *known;
  }
  for (int attempt = 0; attempt < pull_attempts; ++attempt) {
    std::optional<module_key_summary> s;
    if (check == key_type_check::known_redisbloom || check == key_type_check::known_chain) {
      try {
        s = scan_redisbloom_once(c, name, file, check == key_type_check::known_redisbloom);
      } catch (const redisbloom::chunk_error&) {
        // The key changed shape between two commands: read it again.
      }
    } else {
      s = scan_once(c, name, file);
    }
    if (s) return *s;
  }
  throw error(errc::server_error, key_named(name) + " changed during each of " +
                                      std::to_string(pull_attempts) +
                                      " BF.SCANDUMP passes (or its image is corrupt)");
}

module_key_summary push_module_key(redis::client& c, const std::filesystem::path& file,
                                   const std::string& name) {
  const std::variant<module_filter, redisbloom::chain> filter = file_filter_of(file);
  require_module(c);
  if (run(c, name, {"EXISTS", name}).integer() != 0) {
    throw error(errc::already_exists, key_named(name) + " exists");
  }
  return std::visit(
      [&](const auto& f) {
        const redis::reply first =
            c.execute(redis::command{{push_command, name, "1", header_chunk_of(f)}, 1});
        if (first.is_error()) {
          // Created meanwhile by another client: LOADCHUNK refuses an existing key.
          const bool exists =
              first.str() == "ERR item exists" || first.str().rfind("WRONGTYPE", 0) == 0;
          throw error(exists ? errc::already_exists : errc::server_error,
                      key_named(name) + (exists ? " exists" : ": " + first.str()));
        }
        try {
          send_chunks(c, name, f);
        } catch (...) {
          // No half-loaded key stays behind.
          try {
            c.execute(redis::command{{"DEL", name}, 1});
          } catch (const error&) {
            // The original error says more.
          }
          throw;
        }
        return summary_after_push(f);
      },
      filter);
}

}  // namespace bloomkit::redis_module
