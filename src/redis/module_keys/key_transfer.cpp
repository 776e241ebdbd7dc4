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
#include "key_errors.hpp"

namespace bloomkit::redis_module {

namespace {

// Payload bytes per BF.LOADCHUNK: BF.SCANDUMP's chunk size (dump_commands.cpp).
constexpr std::size_t chunk_bytes = std::size_t{8} << 20;
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

// One BF.SCANDUMP pass; nullopt when the image does not hold together (the key changed between
// two of its commands).
std::optional<module_filter> scan_once(redis::client& c, const std::string& name) {
  try {
    image_loader loader(scandump(c, name, 0).second);
    for (long long iterator = 1;;) {
      auto [next, data] = scandump(c, name, iterator);
      if (next == 0) break;
      loader.append(data);
      if (decode_chunk_iterator(next).end - 1 != loader.loaded_bytes()) return std::nullopt;
      iterator = next;
    }
    return loader.finish();
  } catch (const image_error&) {
    return std::nullopt;
  } catch (const dump_restarted&) {
    return std::nullopt;
  }
}

template <class Filter>
module_key_summary summary_of(const Filter& f, const module_filter& m) {
  module_key_summary s;
  s.kind = kind_traits<Filter>::name;
  s.bits = f.cells();
  s.filters = filter_count_of(m);
  for (std::string_view piece : image_payload(m)) s.bytes += piece.size();
  return s;
}

module_key_summary summary_of(const module_filter& m) {
  return std::visit([&](const auto& f) { return summary_of(f, m); }, m.filter);
}

// The module's value for the filter of `file`; unsupported for a kind the module lacks.
module_filter module_filter_of(const std::filesystem::path& file) {
  any_filter f = load_any(file);
  const auto [kind, scheme] = std::visit(
      []<class Filter>(const Filter&) {
        return std::pair{kind_traits<Filter>::kind, kind_traits<Filter>::scheme};
      },
      f);
  if (!has_image(kind, scheme)) {
    throw error(errc::unsupported,
                file.string() + ": holds a " + std::string(to_string(kind)) +
                    " filter with hash scheme " + std::string(to_string(scheme)) +
                    ", which the module cannot hold (it holds classic, blocked and "
                    "counting filters, chains of blocked filters and windows of blocked "
                    "sub-filters, not the grouped window layout)");
  }
  return module_filter{std::move(f), false};
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
                                   const std::filesystem::path& file) {
  const std::string type = run(c, name, {"TYPE", name}).str();
  if (type == "none") throw error(errc::not_found, key_named(name) + " does not exist");
  if (type != module_type_name) {
    throw error(errc::wrong_type, key_named(name) + " holds a " + type + ", not a module filter");
  }
  for (int attempt = 0; attempt < pull_attempts; ++attempt) {
    if (std::optional<module_filter> m = scan_once(c, name)) {
      std::visit([&](const auto& f) { save(f, file); }, m->filter);
      return summary_of(*m);
    }
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
    for_each_payload_slice(image_payload(m), chunk_bytes, [&](std::string_view slice) {
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
  return summary_of(m);
}

}  // namespace bloomkit::redis_module
