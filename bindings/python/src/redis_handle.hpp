#pragma once
// What every Redis filter class of the module shares (RedisFilter, RedisWindowFilter, the peers'
// GoZeroRedisFilter and GuavaHelperRedisFilter): a handle owning one client connection and the
// C++ filter that refers to it, the URL rules of the CLI (tools/bloomkit/redis_context.hpp), and
// the key methods (add, in, contains, test_and_add, add_many, contains_many, close, with).
//
// URLs: the url argument, else BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379; a URL without a
// password takes REDISCLI_AUTH's. Every call releases the GIL while it waits for the server. One
// handle is one connection, used by one thread at a time (its mutex): give each thread or process
// its own.

#include <Python.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/url.hpp"
#include "errors.hpp"
#include "fast_methods.hpp"
#include "key_batch.hpp"
#include "keys.hpp"

namespace bloomkit::python {

template <class Filter>
struct redis_handle {
  using filter_type = Filter;
  std::unique_ptr<redis::client> client;
  std::unique_ptr<Filter> filter;  // refers to *client
  std::mutex lock;

  Filter& get() {
    if (!filter) raise_error(errc::invalid_argument, "the Redis filter handle is closed");
    return *filter;
  }
};

// Connects as the CLI does (url, else BLOOMKIT_REDIS_URL, ...). Call without the GIL.
inline std::unique_ptr<redis::client> connect_redis(const std::optional<std::string>& url) {
  const std::optional<std::string_view> given =
      url ? std::optional<std::string_view>(*url) : std::nullopt;
  return std::make_unique<redis::client>(
      redis::client::connect(redis::settings_from_environment(given).url));
}

// Runs op(filter) with the GIL released and the handle's mutex held.
template <class H, class Op>
auto locked(H& h, Op op) {
  auto& f = h.get();
  pybind11::gil_scoped_release unlocked;
  std::lock_guard<std::mutex> guard(h.lock);
  return op(f);
}

// A handle connected to `url` whose filter is make(client) (a Filter, or a pointer to one).
template <class Filter, class Make>
std::unique_ptr<redis_handle<Filter>> make_redis_handle(const std::optional<std::string>& url,
                                                        Make make) {
  auto h = std::make_unique<redis_handle<Filter>>();
  pybind11::gil_scoped_release unlocked;
  h->client = connect_redis(url);
  h->filter = std::make_unique<Filter>(make(*h->client));
  return h;
}

// `in`: the type's sq_contains slot, as the local filters have it (fast_methods.hpp).
template <class H>
int redis_contains_slot(PyObject* self, PyObject* key) {
  auto* h = cpp_object<H>(self);
  if (h == nullptr) return -1;
  return call_guarded(-1, [&] {
    const key_view k(key);
    return locked(*h, [&](auto& f) { return f.contains(k.view()); }) ? 1 : 0;
  });
}

// Closes the handle (the connection too); a RedisFilter first sends its pending count. The
// handle is closed even when that fails (the filter is gone, the server unreachable), and then
// the error is raised, unless `quiet` (leaving a `with` block on an exception, which goes on
// without this one hiding it).
template <class H>
void close_handle(H& h, bool quiet) {
  if (!h.filter) return;
  std::exception_ptr failed;
  if constexpr (requires(typename H::filter_type & f) { f.flush(); }) {
    try {
      locked(h, [](auto& f) { f.flush(); });
    } catch (...) {
      failed = std::current_exception();
    }
  }
  {
    pybind11::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> guard(h.lock);
    h.filter.reset();
    h.client.reset();
  }
  if (failed && !quiet) std::rethrow_exception(failed);
}

// The key methods, as the local filters have them. add_doc says what one add sends.
template <class H, class... Extra>
void bind_redis_key_methods(pybind11::class_<H, Extra...>& cls, const char* add_doc) {
  namespace py = pybind11;
  using F = typename H::filter_type;
  cls.def(
      "__contains__",
      [](H& h, py::handle key) {
        const key_view k(key.ptr());
        return locked(h, [&](F& f) { return f.contains(k.view()); });
      },
      py::arg("key"), "key in f: one round trip.");
  set_contains_slot(cls, &redis_contains_slot<H>);
  cls.def(
         "add",
         [](H& h, py::handle key) {
           const key_view k(key.ptr());
           return locked(h, [&](F& f) { return f.insert(k.view()); });
         },
         py::arg("key"), add_doc)
      .def(
          "contains",
          [](H& h, py::handle key) {
            const key_view k(key.ptr());
            return locked(h, [&](F& f) { return f.contains(k.view()); });
          },
          py::arg("key"), "False: never added. True: probably added.")
      .def(
          "test_and_add",
          [](H& h, py::handle key) {
            const key_view k(key.ptr());
            return !locked(h, [&](F& f) { return f.insert(k.view()); });
          },
          py::arg("key"), "Adds a key; returns whether it was (probably) present before.")
      .def(
          "add_many",
          [](H& h, py::handle keys, py::handle out) {
            F& f = h.get();
            if (!out.is_none()) {
              return answered_batch(
                  keys, out, [&](std::span<const std::string_view> chunk, std::span<bool> answers) {
                    std::lock_guard<std::mutex> guard(h.lock);
                    return f.insert_many(chunk, answers);
                  });
            }
            key_batch batch(keys);
            std::size_t added = 0;
            batch.run([&](std::span<const std::string_view> chunk, std::size_t) {
              std::lock_guard<std::mutex> guard(h.lock);
              added += f.insert_many(chunk);
            });
            return added;
          },
          py::arg("keys"), py::arg("out") = py::none(),
          "Adds a batch (as the local filters' add_many takes it), pipelined; returns how many "
          "were new. out (one 1-byte item per key) receives whether each key was new, as add(key) "
          "in order would answer.")
      .def(
          "contains_many",
          [](H& h, py::handle keys, py::handle out) {
            F& f = h.get();
            return answered_batch(
                keys, out, [&](std::span<const std::string_view> chunk, std::span<bool> answers) {
                  std::lock_guard<std::mutex> guard(h.lock);
                  return f.contains_many(chunk, answers);
                });
          },
          py::arg("keys"), py::arg("out") = py::none(),
          "Looks up a batch, pipelined; returns how many are (probably) present; out (one 1-byte "
          "item per key) receives each answer.")
      .def(
          "close", [](H& h) { close_handle(h, false); },
          "Closes the connection (a RedisFilter sends its pending count first: NotFoundError "
          "when the filter is gone, the handle closed all the same); the handle answers no more.")
      .def("__enter__", [](py::object self) { return self; })
      .def(
          "__exit__",
          [](H& h, py::handle type, py::handle, py::handle) {
            // As close(); leaving on an exception, that exception goes on, not close()'s.
            close_handle(h, !type.is_none());
          },
          "close(); on leaving after an exception, an error of close() does not replace it.");
}

}  // namespace bloomkit::python
