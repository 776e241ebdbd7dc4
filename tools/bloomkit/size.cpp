// bloomkit size --capacity N --fpp P [--kind KIND [SCALABLE OR WINDOW OPTIONS]] [--json]
// bloomkit size --layout guava-helper|go-zero --capacity N --fpp P [--json]
//
// The sizing calculator: the bits, bytes and hashes of the filter of kind KIND (default classic)
// for N keys at FPP P, exactly what `create` and `build` would make. Blocked filters add their
// block count, scalable ones their growth parameters (the figures are the first sub-filter's),
// static ones their fingerprint bits, bits per key, shards and FPP 2^-b.
// With --layout, the bits and hashes that peer's own sizing chooses for its Redis key (the
// helper's (n, p) constructor, go-zero's NewFilter(store, key, n, p)), and the bytes of the
// Redis string once its last bit is set.

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/any_filter.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava_helper.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "json.hpp"

namespace bloomkit::cli {

namespace {

struct size_options {
  std::string capacity;
  double fpp = 0;
  kind_options kind;
  std::string layout;  // empty: a bloomkit filter of --kind
  bool json = false;
};

// The peer's own sizing, its errors (out-of-range n or p, a filter past its limits) usage errors
// with the library's message, as validate_sizing's are.
filter_params peer_sizing(const std::string& layout, std::uint64_t capacity, double fpp) {
  try {
    if (layout == "guava-helper") return guava_helper::optimal_params(capacity, fpp);
    return go_zero::new_filter_params(capacity, fpp);
  } catch (const error& e) {
    throw usage_error(e.what());
  }
}

void run_size(const size_options& o) {
  const std::uint64_t capacity = parse_count(o.capacity, "--capacity");
  report r;
  if (!o.layout.empty()) {
    check_kind_options(o.kind);
    const filter_params params = peer_sizing(o.layout, capacity, o.fpp);
    r.add("capacity", capacity)
        .add("fpp", o.fpp)
        .add("layout", o.layout)
        .add("bits", params.bits)
        .add("bytes", (params.bits + 7) / 8)  // the Redis string, its last bit set
        .add("hashes", params.hashes);
    fmt::print("{}", o.json ? r.json() : r.text());
    return;
  }
  const filter_params params = validate_sizing(capacity, o.fpp);
  r.add("capacity", capacity).add("fpp", o.fpp);
  if (o.kind.kind == kind_traits<static_filter>::name) {
    // Computed from n and p: a static filter is built from its keys, never created empty.
    check_kind_options(o.kind);
    as_usage_error([&] { report_static_sizing(capacity, o.fpp, r); });
  } else if (o.kind.kind == "classic") {
    // Computed, not made: any size the library accepts, whatever the machine's memory.
    check_kind_options(o.kind);
    r.add("bits", params.bits)
        .add("bytes", bytes_for_bits(params.bits))
        .add("hashes", params.hashes);
  } else {
    // The filter create would make; its bits are mapped but never touched (bit_array.hpp).
    const any_filter filter = make_filter(o.kind, capacity, o.fpp);
    std::visit([&](const auto& f) { r.add("bits", f.cells()).add("bytes", f.byte_size()); },
               filter);
    r.add("hashes", hashes_of(filter));
    std::visit([&](const auto& f) { report_sizing(f, r); }, filter);  // the kind's own fields
  }
  fmt::print("{}", o.json ? r.json() : r.text());
}

}  // namespace

command add_size_command(CLI::App& app) {
  auto o = std::make_shared<size_options>();
  CLI::App* sub = app.add_subcommand(
      "size", "Compute the size of the filter create would make for N keys at FPP P");
  add_capacity_option(*sub, o->capacity)->required();
  add_fpp_option(*sub, o->fpp)->required();
  add_kind_options(*sub, o->kind);
  sub->add_option("--layout", o->layout,
                  "Instead of a bloomkit filter: the bits and hashes a peer's Redis key gets from "
                  "its own sizing: guava-helper (the Guava-based SETBIT helper) or go-zero "
                  "(NewFilter(store, key, n, p))")
      ->check(CLI::IsMember({"guava-helper", "go-zero"}))
      ->excludes("--kind");
  sub->add_flag("--json", o->json, "Print one JSON object");
  return {sub, "size", [o] { run_size(*o); }};
}

}  // namespace bloomkit::cli
