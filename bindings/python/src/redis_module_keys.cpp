// bloomkit.pull_module_key / push_module_key / is_module_key: keys of the Redis module
// (bloomkit_redis_module.so: BF.RESERVE, BK.RESERVE) to and from filter files, as `bloomkit redis
// pull` (of a module key) and `redis push --module` do (src/redis/module_keys/key_transfer.hpp);
// and bloomkit.RedisModuleFilter, a module key's adds, lookups and info as `bloomkit redis add |
// query | info` do them (src/redis/module_keys/key_commands.hpp).

#include <filesystem>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "dict_report.hpp"
#include "redis/module_keys/key_commands.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_handle.hpp"

namespace py = pybind11;

namespace bloomkit::python {

namespace {

// Connects to `url` and runs transfer(client) without the GIL; its summary as a dict.
template <class Transfer>
py::dict run_transfer(const std::optional<std::string>& url, Transfer transfer) {
  redis_module::module_key_summary s;
  {
    py::gil_scoped_release unlocked;
    auto c = connect_redis(url);
    s = transfer(*c);
  }
  py::dict d;
  d["kind"] = std::string(s.kind);
  d["bits"] = s.bits;
  d["filters"] = s.filters;
  d["bytes"] = s.bytes;
  return d;
}

using M = redis_handle<redis_module::module_key>;

// `bloomkit redis info NAME --json` of a module key: name, url, layout 'module', BK.INFO's fields.
py::dict module_key_info(M& h) {
  const auto [fields, url] = locked(h, [&](redis_module::module_key& k) {
    return std::make_pair(redis_module::module_key_info(*h.client, k.name()), h.client->describe());
  });
  dict_report r;
  r.add("name", h.get().name()).add("url", url).add("layout", "module");
  redis_module::add_module_key_info(fields, r);
  return r.dict();
}

constexpr const char* module_filter_doc =
    R"(A key of bloomkit's Redis module (bloomkit_redis_module.so): a filter made by BF.RESERVE,
BK.RESERVE (any KIND, windows included) or push_module_key, reached through the module's own
commands: add / add_many send BF.INSERT NOCREATE (a key deleted meanwhile is not created again),
lookups BF.MEXISTS, 1000 keys per command, and TYPE, a batch's commands in one round trip. A key
gone under the handle (deleted, expired, evicted) is NotFoundError on every call, never 'absent'. A module window
ages by the server's clock. As `bloomkit redis add | query | info` on a module key.

    seen = bloomkit.RedisModuleFilter.open(None, "recrawl")   # BK.RESERVE recrawl ... KIND window
    seen.add_many(urls, out=new)                               # new[i]: not seen within the window

A handle is one connection: give each thread or process its own.)";

}  // namespace

void bind_redis_module_keys(py::module_& m) {
  py::class_<M> cls(m, "RedisModuleFilter", module_filter_doc);
  cls.def_static(
         "open",
         [](std::optional<std::string> url, std::string name) {
           return make_redis_handle<redis_module::module_key>(
               url, [&](redis::client& c) { return redis_module::module_key::open(c, name); });
         },
         py::arg("url"), py::arg("name"),
         "Opens module key `name`: NotFoundError when there is no key, WrongTypeError when it "
         "holds something else. Writes nothing.")
      .def_property_readonly(
          "name", [](M& h) { return h.get().name(); }, "The key's name.")
      .def_property_readonly(
          "hashes",
          [](M& h) {
            for (const redis_module::module_info_field& f :
                 locked(h, [&](redis_module::module_key& k) {
                   return redis_module::module_key_info(*h.client, k.name());
                 })) {
              if (f.name == "hashes") return std::get<long long>(f.value);
            }
            raise_error(errc::server_error, "BK.INFO of '" + h.get().name() + "' has no hashes");
          },
          "k (of a chain: its first sub-filter's), from BK.INFO: one round trip.")
      .def("info", &module_key_info,
           "The dict of `bloomkit redis info NAME --json`: name, url, layout ('module'), then "
           "BK.INFO's fields (those of `bloomkit info` for the filter the key holds).");
  bind_redis_key_methods(cls,
                         "Adds the key (BF.INSERT NOCREATE); returns whether it was new (a "
                         "window: not inserted within it). One round trip.");

  m.def(
      "is_module_key",
      [](std::optional<std::string> url, const std::string& name) {
        py::gil_scoped_release unlocked;
        auto c = connect_redis(url);
        return redis_module::is_module_key(*c, name);
      },
      py::arg("url"), py::arg("name"),
      "Whether key `name` holds a filter of the Redis module (its TYPE is the module's).");
  m.def(
      "pull_module_key",
      [](std::optional<std::string> url, const std::string& name,
         const std::filesystem::path& file) {
        return run_transfer(
            url, [&](redis::client& c) { return redis_module::pull_module_key(c, name, file); });
      },
      py::arg("url"), py::arg("name"), py::arg("file"),
      "Saves module key `name` (BF.SCANDUMP) to `file` as a filter file of its kind (a "
      "BF.RESERVE filter: a scalable chain of blocked filters; BK.RESERVE's kinds: their own), "
      "which bloomkit.load opens. Returns {'kind', 'bits', 'filters', 'bytes'}. NotFoundError "
      "when there is no key, WrongTypeError when it is not a module key.");
  m.def(
      "push_module_key",
      [](std::optional<std::string> url, const std::filesystem::path& file,
         const std::string& name) {
        return run_transfer(
            url, [&](redis::client& c) { return redis_module::push_module_key(c, file, name); });
      },
      py::arg("url"), py::arg("file"), py::arg("name"),
      "Creates module key `name` from filter file `file` (BF.LOADCHUNK): classic, blocked, "
      "counting, a scalable chain of blocked filters or a window of blocked filters. Returns "
      "{'kind', 'bits', 'filters', 'bytes'}. AlreadyExistsError when the key exists, "
      "UnsupportedError when the server has no bloomkit module or the file's kind is not one "
      "the module holds.");
}

}  // namespace bloomkit::python
