// The native filter classes (kinds.hpp's native_filters): each kind's constructors and extras on
// top of the shared surface (filter_class.hpp).

#include <cstdint>
#include <string>

#include "bloomkit/bloomkit.hpp"
#include "errors.hpp"
#include "filter_class.hpp"

namespace bloomkit::python {

namespace {

template <class F>
std::unique_ptr<py_filter<F>> wrap(F f) {
  const key_type keys = keys_of(f);
  return std::make_unique<py_filter<F>>(std::move(f), keys);
}

constexpr const char* bloom_doc =
    R"(The classic Bloom filter: m bits, k probes per key (C++ bloomkit::bloom_filter).

    f = bloomkit.BloomFilter.for_capacity(1_000_000, 0.01)
    f.add("https://example.com/a")      # True: the key was new
    "https://example.com/a" in f        # True: maybe present
    "https://example.com/b" in f        # False: definitely absent (or, rarely, True)

XXH3-128 with enhanced double hashing: the same bits as the C++ library and the CLI for the same
keys, on every machine (files are interchangeable). Keys: str (UTF-8), bytes-like, int (8
little-endian bytes). Batches (add_many, contains_many) run the C++ pipelined path with the GIL
released.

Thread safety: any number of threads may look keys up at once; writes (add, add_many, merge,
clear) wait for them and run alone. A filter from open_mapped is read-only: every write raises
ReadOnlyError; its lookups raise FileError once the file was truncated or overwritten in place.)";

constexpr const char* blocked_doc =
    R"(The split-block (blocked) Bloom filter: one 256-bit block (a cache line) per key, 8 bits set
in it, one per 32-bit word (C++ bloomkit::blocked_bloom_filter). About 10% more bits than the
classic filter for the same FPP, and one cache miss per lookup instead of k: the fastest kind on
filters larger than the caches (AVX2 when the CPU has it; the portable path sets the same bits).

    f = bloomkit.BlockedBloomFilter.for_capacity(10_000_000, 0.01)
    f.add_many(urls); f.contains_many(urls))";

constexpr const char* counting_doc =
    R"(The counting Bloom filter: 4-bit counters instead of bits, so keys can be removed (C++
bloomkit::counting_bloom_filter). remove(key) decrements the key's counters that are not
saturated and returns True, or returns False and changes nothing when the key is definitely
absent. Removing a key that was never added but tests positive decrements other keys' counters.)";

constexpr const char* scalable_doc =
    R"(The scalable Bloom filter (Almeida et al., 2007): a chain of filters that grows as keys
arrive, so n need not be known in advance (C++ bloomkit::basic_scalable_filter).

    f = bloomkit.ScalableBloomFilter(1_000, 0.01)   # starts small...
    f.add_many(stream)                               # ...grows by a factor `growth` when full
    f.estimated_fpp()                                # <= 0.01 however many keys arrived

Sub-filter i holds initial_capacity * growth**i keys at FPP p (1 - r) r**i (r = tightening), so
the compound FPP stays below p; growth * tightening must be >= 1, or growth 1 (each sub-filter
then costs more bits per key than the last). memory_ceiling (bytes, 0 = none)
stops growth: adding a new key past it raises TooLargeError. merge / intersect are not defined
(UnsupportedError): add the other filter's keys instead.)";

constexpr const char* window_doc =
    R"(A window filter: "was this key added within the last W?", W seconds or a number of adds
(C++ bloomkit::window_filter). The window is cut into `slices` slices; slices + 1 slots rotate,
so a key added within the last W is always found and a key added more than W + W/slices ago is
forgotten. A key's words of every slot sit in one group of adjacent cache lines.

    seen = bloomkit.WindowFilter.for_capacity(1_000_000, 0.01, window=7 * 86400)
    if not seen.add(url): skip(url)   # added within the last 7 days: do not recrawl

Time windows read the system clock (unix seconds) unless set_now(t) fixes it; count windows
(unit="inserts") count every add. merge / intersect are not defined (UnsupportedError).)";

void bind_bloom(py::module_& m) {
  bind_filter_class<bloom_filter>(m, "BloomFilter", bloom_doc)
      .def(py::init([](std::uint64_t bits, std::uint32_t hashes) {
             return wrap(bloom_filter(bits, hashes));
           }),
           py::arg("bits"), py::arg("hashes"),
           "A filter of m bits and k probes. Its capacity is the n at which k is optimal for m.")
      .def_static(
          "for_capacity",
          [](std::uint64_t n, double p, const std::string& keys) {
            return wrap(bloom_filter::for_capacity(n, p, parse_key_type(keys)));
          },
          py::arg("n"), py::arg("p"), py::kw_only(), py::arg("key_type") = "string",
          "A filter sized for n keys at false-positive probability p (the fewest bits, optimal "
          "k). key_type='long': a filter of integer keys (ints, NumPy integer arrays), hashed by "
          "the integer scheme splitmix64-128.");
}

void bind_blocked(py::module_& m) {
  bind_filter_class<blocked_bloom_filter>(m, "BlockedBloomFilter", blocked_doc)
      .def(py::init([](std::uint64_t bits) { return wrap(blocked_bloom_filter(bits)); }),
           py::arg("bits"), "A filter of at least `bits` bits, rounded up to whole 256-bit blocks.")
      .def_static(
          "for_capacity",
          [](std::uint64_t n, double p, const std::string& keys) {
            return wrap(blocked_bloom_filter::for_capacity(n, p, parse_key_type(keys)));
          },
          py::arg("n"), py::arg("p"), py::kw_only(), py::arg("key_type") = "string",
          "A filter sized for n keys at false-positive probability p. key_type='long': a filter "
          "of integer keys (ints, NumPy integer arrays), hashed by the integer scheme "
          "splitmix64-split-block.")
      .def_static(
          "with_blocks",
          [](std::uint64_t blocks) { return wrap(blocked_bloom_filter::with_blocks(blocks)); },
          py::arg("blocks"),
          "A filter of `blocks` 256-bit blocks; its capacity is the n at 8 bits per key.")
      .def_property_readonly(
          "blocks", [](const py_filter<blocked_bloom_filter>& w) { return w.filter.blocks(); },
          "256-bit blocks.")
      .def_property_readonly(
          "simd", [](const py_filter<blocked_bloom_filter>& w) { return w.filter.simd(); },
          "Whether the AVX2 path runs (this CPU and build have it).");
}

void bind_counting(py::module_& m) {
  using W = py_filter<counting_bloom_filter>;
  bind_filter_class<counting_bloom_filter>(m, "CountingBloomFilter", counting_doc)
      .def(py::init([](std::uint64_t counters, std::uint32_t hashes) {
             return wrap(counting_bloom_filter(counters, hashes));
           }),
           py::arg("counters"), py::arg("hashes"), "A filter of m 4-bit counters and k probes.")
      .def_static(
          "for_capacity",
          [](std::uint64_t n, double p, const std::string& keys) {
            return wrap(counting_bloom_filter::for_capacity(n, p, parse_key_type(keys)));
          },
          py::arg("n"), py::arg("p"), py::kw_only(), py::arg("key_type") = "string",
          "A filter sized for n keys at false-positive probability p. key_type='long': a filter "
          "of integer keys (ints, NumPy integer arrays), hashed by the integer scheme "
          "splitmix64-128.")
      .def(
          "remove",
          [](W& w, py::handle key) {
            if (integer_keyed(w.filter)) {
              const std::uint64_t k = integer_key(key.ptr());
              write_lock lock(w.gate, gil::held);
              return w.filter.remove_integer(k);
            }
            const key_view k(key.ptr());
            write_lock lock(w.gate, gil::held);
            return w.filter.remove(k.view());
          },
          py::arg("key"),
          "Removes one occurrence of an added key; False (nothing changed) when it is definitely "
          "absent.")
      .def(
          "counter",
          [](const W& w, std::uint64_t index) {
            if (index >= w.filter.counters()) {
              raise_error(errc::invalid_argument, "counter index " + std::to_string(index) +
                                                      " out of range: the filter has " +
                                                      std::to_string(w.filter.counters()) +
                                                      " counters");
            }
            read_lock lock(w.gate, gil::held);
            return w.filter.counter(index);
          },
          py::arg("index"), "The value (0..15) of counter `index`.")
      .def_property_readonly(
          "counters", [](const W& w) { return w.filter.counters(); }, "m: the counters.")
      .def(
          "nonzero_counters",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return w.filter.nonzero_counters();
          },
          "Counters that are not 0.")
      .def(
          "saturated_counters",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return w.filter.saturated_counters();
          },
          "Counters at 15 (saturated: never decremented again).")
      .def(
          "to_bloom_filter",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return wrap(w.filter.to_bloom_filter());
          },
          "The classic BloomFilter of the same m, k, capacity and FPP whose bit i is set exactly "
          "when counter i is not 0.");
}

template <class F>
void bind_scalable(py::module_& m, const char* name, const char* doc) {
  using W = py_filter<F>;
  const auto make = [](std::uint64_t n, double p, std::uint32_t growth, double tightening,
                       std::uint64_t memory_ceiling) {
    return wrap(F(n, p, growth, tightening, memory_ceiling));
  };
  bind_filter_class<F>(m, name, doc)
      .def(py::init(make), py::arg("initial_capacity"), py::arg("target_fpp"),
           py::arg("growth") = 2, py::arg("tightening") = 0.5, py::arg("memory_ceiling") = 0,
           "A chain whose first sub-filter holds initial_capacity keys and whose compound FPP "
           "stays below target_fpp.")
      .def_static("for_capacity", make, py::arg("n"), py::arg("p"), py::arg("growth") = 2,
                  py::arg("tightening") = 0.5, py::arg("memory_ceiling") = 0,
                  "A chain starting at n keys with compound FPP below p (grows past n).")
      .def_property_readonly(
          "sub_filter_count",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return w.filter.sub_filter_count();
          },
          "Sub-filters in the chain.")
      .def_property_readonly(
          "initial_capacity", [](const W& w) { return w.filter.initial_capacity(); }, "n0.")
      .def_property_readonly(
          "growth", [](const W& w) { return w.filter.growth(); }, "s: capacity factor per step.")
      .def_property_readonly(
          "tightening", [](const W& w) { return w.filter.tightening(); }, "r: FPP factor per step.")
      .def_property_readonly(
          "memory_ceiling", [](const W& w) { return w.filter.memory_ceiling(); },
          "Bytes of bits the chain never grows past (0: none).");
}

window_unit parse_unit(const std::string& unit) {
  if (unit == "seconds") return window_unit::seconds;
  if (unit == "inserts") return window_unit::inserts;
  raise_error(errc::invalid_argument,
              "window unit must be 'seconds' or 'inserts', got '" + unit + "'");
}

template <class F>
void bind_window(py::module_& m, const char* name, const char* doc) {
  using W = py_filter<F>;
  const auto make = [](std::uint64_t n, double p, std::uint64_t window, const std::string& unit,
                       std::uint32_t slices) {
    return wrap(F(window_config{n, p, window, parse_unit(unit), slices}));
  };
  bind_filter_class<F>(m, name, doc)
      .def(py::init(make), py::arg("capacity"), py::arg("target_fpp"), py::arg("window"),
           py::arg("unit") = "seconds", py::arg("slices") = 8,
           "A window of `window` seconds (unit='seconds') or adds (unit='inserts') in `slices` "
           "slices, sized for `capacity` distinct keys per window at target_fpp.")
      .def_static("for_capacity", make, py::arg("n"), py::arg("p"), py::kw_only(),
                  py::arg("window"), py::arg("unit") = "seconds", py::arg("slices") = 8,
                  "A window filter for n keys per window at FPP p (window= is required).")
      .def(
          "set_now",
          [](W& w, std::uint64_t now, bool clock_moved) {
            write_lock lock(w.gate, gil::held);
            w.filter.set_now(now);
            w.filter.set_clock_moved(clock_moved);
          },
          py::arg("now"), py::arg("clock_moved") = false,
          "Fixes the clock at `now` (unix seconds), as the CLI's --now does: adds go to its "
          "slice (a backfill into a live slice), a time older than the window raises ValueError "
          "(not stored), and so does one more than 300 s ahead of the system clock unless "
          "clock_moved=True (--clock-moved) or of millisecond magnitude.")
      .def(
          "use_system_clock",
          [](W& w) {
            write_lock lock(w.gate, gil::held);
            w.filter.use_system_clock();
          },
          "Back to the system clock (the default; read once, then advanced without steps).")
      .def_property_readonly(
          "now",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return w.filter.now();
          },
          "The clock's time (unix seconds).")
      .def_property_readonly(
          "current_slice",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return w.filter.current_slice();
          },
          "The slice adds go to now.")
      .def_property_readonly(
          "window", [](const W& w) { return w.filter.length(); }, "W: seconds or adds.")
      .def_property_readonly(
          "unit",
          [](const W& w) {
            return std::string(w.filter.unit() == window_unit::seconds ? "seconds" : "inserts");
          },
          "'seconds' or 'inserts'.")
      .def_property_readonly(
          "slices", [](const W& w) { return w.filter.slices(); }, "S: slices per window.")
      .def_property_readonly(
          "insert_count",
          [](const W& w) {
            read_lock lock(w.gate, gil::held);
            return w.filter.insert_count();
          },
          "Count windows: adds so far (0 for time windows).");
}

}  // namespace

void bind_filters(py::module_& m) {
  bind_bloom(m);
  bind_blocked(m);
  bind_counting(m);
  bind_scalable<scalable_bloom_filter>(m, "ScalableBloomFilter", scalable_doc);
  bind_scalable<scalable_blocked_bloom_filter>(
      m, "ScalableBlockedBloomFilter",
      "A scalable chain of blocked sub-filters (one cache line per key and sub-filter).\n\n"
      "Otherwise as ScalableBloomFilter.");
  bind_window<window_filter>(m, "WindowFilter", window_doc);
  bind_window<blocked_window_filter>(
      m, "BlockedWindowFilter",
      "A window filter of blocked sub-filters, one per slot (kind window, scheme "
      "xxh3-64-split-block): the layout of older window files and of the Redis module's "
      "windows.\n\nOtherwise as WindowFilter.");
  bind_window<classic_window_filter>(
      m, "ClassicWindowFilter",
      "A window filter of classic sub-filters (kind window, scheme xxh3-128).\n\n"
      "Otherwise as WindowFilter.");
}

}  // namespace bloomkit::python
