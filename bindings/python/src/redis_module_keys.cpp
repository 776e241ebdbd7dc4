// bloomkit.pull_module_key / push_module_key / is_module_key: keys of the Redis module
// (bloomkit_redis_module.so: BF.RESERVE, BK.RESERVE) to and from filter files, as `bloomkit redis
// pull` (of a module key) and `redis push --module` do (src/redis_module/key_transfer.hpp).

#include <filesystem>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "key_transfer.hpp"
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

}  // namespace

void bind_redis_module_keys(py::module_& m) {
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
