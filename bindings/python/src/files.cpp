// Filter files of any kind: bloomkit.load, bloomkit.open_mapped and bloomkit.info take whatever
// the file's header names (bloomkit::compat::open_any: the native kinds and the peers' classic
// filters, with the key type of the same open) and give the Python class of that filter.

#include <filesystem>
#include <string>
#include <utility>

#include "bloomkit/compat/any_filter.hpp"
#include "errors.hpp"
#include "filter_class.hpp"

namespace bloomkit::python {

key_type parse_key_type(const std::string& name) {
  // binary (Spark's putBinary) keys are byte strings, hashed as string keys are.
  if (name == "string" || name == "binary") return key_type::string;
  if (name == "long") return key_type::int64;
  raise_error(errc::invalid_argument,
              "key_type must be 'string', 'binary' or 'long', got '" + name + "'");
}

const char* key_type_name(key_type keys) noexcept {
  return keys == key_type::int64 ? "long" : "string";
}

py::object to_python(compat::any_filter&& filter, key_type keys, std::string path) {
  return std::visit(
      [&](auto&& f) -> py::object {
        using F = std::decay_t<decltype(f)>;
        auto w = std::make_unique<py_filter<F>>(std::move(f), keys, std::move(path));
        return py::cast(w.release(), py::return_value_policy::take_ownership);
      },
      std::move(filter));
}

namespace {

// The filter and its key type from one open of the file.
opened<compat::any_filter> open_file(const std::filesystem::path& path, bool mapped,
                                     bool verify_payload) {
  py::gil_scoped_release unlocked;
  return compat::open_any(path, mapped ? open_mode::map : open_mode::load,
                          verify_payload ? verify::full : verify::header);
}

}  // namespace

void bind_files(py::module_& m) {
  m.def(
      "load",
      [](const std::filesystem::path& path) {
        auto o = open_file(path, false, true);
        return to_python(std::move(o.filter), o.header.keys(), path.string());
      },
      py::arg("path"),
      "Reads a filter file into memory: a filter of whichever kind and scheme its header names\n"
      "(BloomFilter, BlockedBloomFilter, ..., GuavaFilter, ...). CorruptFileError for a bad\n"
      "file, FileError when it cannot be read, UnsupportedError for a kind this build lacks.");
  m.def(
      "open_mapped",
      [](const std::filesystem::path& path, bool verify_payload) {
        auto o = open_file(path, true, verify_payload);
        return to_python(std::move(o.filter), o.header.keys(), path.string());
      },
      py::arg("path"), py::arg("verify") = true,
      "A read-only filter over the mapped file, of whichever kind its header names: lookups\n"
      "read the page cache directly (zero-copy), so any number of processes share one copy.\n"
      "Writes raise ReadOnlyError. Replace the file by renaming a new one over it (save() does):\n"
      "the mapping keeps the old one; a file truncated or overwritten in place makes lookups\n"
      "raise FileError, never crash or answer a wrong 'absent'. verify=False checks only the\n"
      "header (constant time) instead of the payload checksum too.");
  m.def(
      "info",
      [](const std::filesystem::path& path) {
        auto o = open_file(path, true, true);
        return to_python(std::move(o.filter), o.header.keys(), path.string()).attr("info")();
      },
      py::arg("path"),
      "`bloomkit info FILE --json` as a dict: the mapped, fully verified file's header fields "
      "and figures.");
}

}  // namespace bloomkit::python
