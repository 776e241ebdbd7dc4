#include "key_batch.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/key_type.hpp"
#include "keys.hpp"

namespace py = pybind11;

namespace bloomkit::python {

namespace {

// The item size of an integer buffer format ('<Q', '=i', 'q', ...), or 0 when it is not one of
// native byte order.
std::size_t integer_item_size(const char* format, Py_ssize_t itemsize) {
  if (format == nullptr) return 0;
  std::string_view f(format);
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<')) f.remove_prefix(1);
  if (f.size() != 1 || std::string_view("hHiIlLqQ").find(f[0]) == std::string_view::npos) return 0;
  return itemsize == 2 || itemsize == 4 || itemsize == 8 ? static_cast<std::size_t>(itemsize) : 0;
}

bool is_text_format(const char* format) {
  return format == nullptr || std::strcmp(format, "B") == 0 || std::strcmp(format, "b") == 0 ||
         std::strcmp(format, "c") == 0;
}

// The CLI's line rule: a key is a line without its '\n' and one '\r' before it; the last line is
// a key even without '\n'; nothing after a final '\n' is a key.
std::size_t count_lines(std::string_view text) {
  if (text.empty()) return 0;
  const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return newlines + (text.back() == '\n' ? 0 : 1);
}

}  // namespace

key_batch::key_batch(py::handle keys, bool integer_keys) {
  PyObject* k = keys.ptr();
  if (PyUnicode_Check(k)) {
    throw py::type_error(
        "a batch of keys is an iterable of keys or a buffer, not a str (use add / in for one key)");
  }
  if (PyList_Check(k) || PyTuple_Check(k)) {
    mode_ = mode::sequence;
    source_ = py::reinterpret_borrow<py::object>(keys);
    size_ = static_cast<std::size_t>(Py_SIZE(k));
    return;
  }
  if (PyObject_CheckBuffer(k)) {
    if (PyObject_GetBuffer(k, &buffer_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      throw py::error_already_set();
    }
    holds_buffer_ = true;
    byte_string_ = PyBytes_Check(k) || PyByteArray_Check(k);
    if (buffer_.ndim > 1) throw py::type_error("a buffer of keys must be one-dimensional");
    const bool int8_items =
        integer_keys && !byte_string_ && buffer_.format != nullptr &&
        (std::strcmp(buffer_.format, "b") == 0 || std::strcmp(buffer_.format, "B") == 0);
    if (int8_items) {  // an int8 / uint8 array of integer keys
      mode_ = mode::integers;
      item_size_ = 1;
      signed_items_ = buffer_.format[0] == 'b';
      size_ = static_cast<std::size_t>(buffer_.len);
      return;
    }
    if (buffer_.itemsize == 1 && is_text_format(buffer_.format)) {
      mode_ = mode::lines;
      const std::string_view text(static_cast<const char*>(buffer_.buf),
                                  static_cast<std::size_t>(buffer_.len));
      py::gil_scoped_release unlocked;
      size_ = count_lines(text);
      return;
    }
    item_size_ = integer_item_size(buffer_.format, buffer_.itemsize);
    if (item_size_ == 0) {
      throw py::type_error(std::string("a buffer of keys holds 2-, 4- or 8-byte integers or bytes "
                                       "(text lines), not items of format '") +
                           (buffer_.format ? buffer_.format : "B") + "'");
    }
    if constexpr (std::endian::native != std::endian::little) {
      throw py::type_error("integer buffers of keys need a little-endian machine");
    }
    mode_ = mode::integers;
    signed_items_ =
        std::islower(static_cast<unsigned char>(buffer_.format[std::strlen(buffer_.format) - 1])) !=
        0;
    size_ = static_cast<std::size_t>(buffer_.len) / item_size_;
    return;
  }
  PyObject* iterator = PyObject_GetIter(k);
  if (iterator == nullptr) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "a batch of keys is an iterable of keys or a buffer, not %.200s",
                 Py_TYPE(k)->tp_name);
    throw py::error_already_set();
  }
  mode_ = mode::iterator;
  source_ = py::reinterpret_steal<py::object>(iterator);
}

key_batch::~key_batch() {
  if (holds_buffer_) PyBuffer_Release(&buffer_);
}

std::size_t key_batch::run(const chunk_fn& fn) {
  if (mode_ == mode::integers || mode_ == mode::lines) {
    run_buffer(fn);
    return *size_;
  }
  return run_objects(fn);
}

void key_batch::run_buffer(const chunk_fn& fn) {
  const char* data = static_cast<const char*>(buffer_.buf);
  const auto length = static_cast<std::size_t>(buffer_.len);
  py::gil_scoped_release unlocked;
  std::vector<std::string_view> views;
  views.reserve(std::min(chunk_keys, *size_));
  std::size_t first = 0;
  const auto flush = [&] {
    fn(views, first);
    first += views.size();
    views.clear();
  };
  if (mode_ == mode::integers) {
    // Zero copy: on a little-endian machine an integer's bytes in memory are its key bytes.
    for (std::size_t i = 0; i < *size_; ++i) {
      views.emplace_back(data + i * item_size_, item_size_);
      if (views.size() == chunk_keys) flush();
    }
  } else {
    std::size_t begin = 0;
    while (begin < length) {
      const void* nl = std::memchr(data + begin, '\n', length - begin);
      const std::size_t end =
          nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) : length;
      std::size_t key_end = end;
      if (nl && key_end > begin && data[key_end - 1] == '\r') --key_end;
      views.emplace_back(data + begin, key_end - begin);
      if (views.size() == chunk_keys) flush();
      begin = end + 1;
    }
  }
  if (!views.empty()) flush();
}

namespace {
// Item i of an integer buffer as its 64-bit key (widen_key).
template <class T>
std::uint64_t item_key(const char* data, std::size_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  return widen_key(v);
}
}  // namespace

std::size_t key_batch::run_integers(const integer_chunk_fn& fn) {
  if (mode_ == mode::lines) {
    throw py::type_error(
        "a filter of integer keys (key_type 'long') takes integers (an integer array or an "
        "iterable of int), not bytes of text lines");
  }
  std::vector<std::uint64_t> chunk;
  chunk.reserve(size_ ? std::min(chunk_keys, *size_) : chunk_keys);
  std::size_t first = 0;
  const auto flush = [&] {
    fn(chunk, first);
    first += chunk.size();
    chunk.clear();
  };
  if (mode_ == mode::integers) {
    const char* data = static_cast<const char*>(buffer_.buf);
    py::gil_scoped_release unlocked;
    const auto widen_all = [&]<class T>(std::type_identity<T>) {
      for (std::size_t i = 0; i < *size_; ++i) {
        chunk.push_back(item_key<T>(data, i));
        if (chunk.size() == chunk_keys) flush();
      }
    };
    const bool s = signed_items_;
    switch (item_size_) {
      case 1:
        s ? widen_all(std::type_identity<std::int8_t>{})
          : widen_all(std::type_identity<std::uint8_t>{});
        break;
      case 2:
        s ? widen_all(std::type_identity<std::int16_t>{})
          : widen_all(std::type_identity<std::uint16_t>{});
        break;
      case 4:
        s ? widen_all(std::type_identity<std::int32_t>{})
          : widen_all(std::type_identity<std::uint32_t>{});
        break;
      default:
        s ? widen_all(std::type_identity<std::int64_t>{})
          : widen_all(std::type_identity<std::uint64_t>{});
        break;
    }
    if (!chunk.empty()) flush();
    return first;
  }
  // Objects: read with the GIL a chunk at a time, the chunk run without it.
  const auto run_chunk = [&] {
    py::gil_scoped_release unlocked;
    flush();
  };
  if (mode_ == mode::sequence) {
    PyObject* seq = source_.ptr();
    const bool list = PyList_Check(seq);
    for (std::size_t i = 0; i < *size_; ++i) {
      if (static_cast<std::size_t>(Py_SIZE(seq)) != *size_) {
        throw py::value_error("the list of keys changed size during the call");
      }
      chunk.push_back(integer_key(list ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i)));
      if (chunk.size() == chunk_keys) run_chunk();
    }
  } else {
    while (PyObject* key = PyIter_Next(source_.ptr())) {
      const auto owned = py::reinterpret_steal<py::object>(key);
      chunk.push_back(integer_key(key));
      if (chunk.size() == chunk_keys) run_chunk();
    }
    if (PyErr_Occurred()) throw py::error_already_set();
  }
  if (!chunk.empty()) run_chunk();
  return first;
}

void key_batch::append_bytes(const char* data, std::size_t size) {
  if (capacity_ - used_ < size) {
    // Grow and move the chunk's bytes so far; their views move with them.
    const std::size_t capacity = std::max({2 * capacity_, used_ + size, std::size_t{4096}});
    auto bytes = std::make_unique<char[]>(capacity);
    if (used_ != 0) std::memcpy(bytes.get(), bytes_.get(), used_);
    for (std::string_view& v : views_) {
      v = std::string_view(bytes.get() + (v.data() - bytes_.get()), v.size());
    }
    bytes_ = std::move(bytes);
    capacity_ = capacity;
  }
  char* to = bytes_.get() + used_;
  if (size != 0) std::memcpy(to, data, size);
  used_ += size;
  views_.emplace_back(to, size);
}

void key_batch::append_key(PyObject* key) {
  if (PyUnicode_Check(key)) {
    // The common key: a compact ASCII str is its own UTF-8, right after the object's header.
    if (PyUnicode_IS_COMPACT_ASCII(key)) {
      append_bytes(static_cast<const char*>(PyUnicode_DATA(key)),
                   static_cast<std::size_t>(PyUnicode_GET_LENGTH(key)));
      return;
    }
  }
  std::string_view bytes;
  if (simple_key_bytes(key, bytes)) {
    append_bytes(bytes.data(), bytes.size());
  } else if (PyLong_Check(key)) {
    const std::array<char, 8> b = int_key_bytes(key);
    append_bytes(b.data(), b.size());
  } else {
    // The exporter may run Python code: the key is held while it does.
    const auto held = py::reinterpret_borrow<py::object>(key);
    Py_buffer b{};
    if (!key_buffer(key, b)) refuse_key(key);
    try {
      append_bytes(static_cast<const char*>(b.buf), static_cast<std::size_t>(b.len));
    } catch (...) {
      PyBuffer_Release(&b);
      throw;
    }
    PyBuffer_Release(&b);
  }
}

void key_batch::fill_from_sequence(std::size_t first) {
  PyObject* seq = source_.ptr();
  if (static_cast<std::size_t>(Py_SIZE(seq)) != *size_) {
    throw py::value_error("the list of keys changed size during the call");
  }
  const bool list = PyList_Check(seq);
  const auto item = [&](std::size_t i) {
    return list ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i);
  };
  // The keys are scattered over the heap: the first 128 bytes of each (its header and, for a
  // short str, its characters) are fetched `ahead` keys before it is read, so that the cache
  // misses of many keys overlap.
  constexpr std::size_t ahead = 24;
  const std::size_t end = std::min(*size_, first + chunk_keys);
  for (std::size_t i = first; i < end && !chunk_full(); ++i) {
    if (i + ahead < end) {
      const char* next = reinterpret_cast<const char*>(item(i + ahead));
      __builtin_prefetch(next);
      __builtin_prefetch(next + 64);
      __builtin_prefetch(next + 127);
    }
    PyObject* key = item(i);
    // Borrowed: nothing runs between reading the item and copying its bytes but this code and,
    // for a buffer key, its exporter (append_key holds the key meanwhile).
    append_key(key);
    if (static_cast<std::size_t>(Py_SIZE(seq)) != *size_) {  // an exporter ran Python code
      throw py::value_error("the list of keys changed size during the call");
    }
  }
}

bool key_batch::fill_from_iterator() {
  while (!chunk_full()) {
    PyObject* key = PyIter_Next(source_.ptr());
    if (key == nullptr) {
      if (PyErr_Occurred()) throw py::error_already_set();
      return false;
    }
    const auto owned = py::reinterpret_steal<py::object>(key);
    append_key(key);
  }
  return true;
}

std::size_t key_batch::run_objects(const chunk_fn& fn) {
  if (size_) views_.reserve(std::min(chunk_keys, *size_));
  std::size_t first = 0;
  while (true) {
    views_.clear();
    used_ = 0;
    bool more = true;
    if (mode_ == mode::sequence) {
      fill_from_sequence(first);
      more = first + views_.size() < *size_;
    } else {
      more = fill_from_iterator();
    }
    if (!views_.empty()) {
      py::gil_scoped_release unlocked;
      fn(views_, first);
    }
    first += views_.size();
    if (!more) break;
  }
  return first;
}

bool_out::bool_out(py::handle out) {
  if (out.is_none()) return;
  if (PyObject_GetBuffer(out.ptr(), &buffer_, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
    throw py::error_already_set();
  }
  held_ = true;
  if (buffer_.itemsize != 1) {
    throw py::type_error(
        "out must be a writable buffer of 1-byte items (a NumPy bool array, a "
        "bytearray)");
  }
}

bool_out::~bool_out() {
  if (held_) PyBuffer_Release(&buffer_);
}

void bool_out::require_size(std::size_t keys) const {
  if (held_ && static_cast<std::size_t>(buffer_.len) != keys) {
    throw error(errc::invalid_argument, "out has " + std::to_string(buffer_.len) + " items for " +
                                            std::to_string(keys) + " keys: it needs one per key");
  }
}

std::span<bool> bool_out::slice(std::size_t first, std::size_t count) const {
  if (first + count > static_cast<std::size_t>(buffer_.len)) {
    // Without the GIL here: a C++ exception, turned into InvalidArgumentError with the GIL back.
    throw error(errc::invalid_argument, "out has " + std::to_string(buffer_.len) +
                                            " items, fewer than the keys: it needs one per key");
  }
  return {static_cast<bool*>(buffer_.buf) + first, count};
}

}  // namespace bloomkit::python
