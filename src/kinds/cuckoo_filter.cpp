// cuckoo_filter: its chain of tables (one unless it grows), single-key operations over them, and
// its figures. Batched paths: cuckoo_batches.cpp; hot paths of a table: cuckoo_buckets.hpp.

#include <string>
#include <utility>

#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "cuckoo_buckets.hpp"

namespace bloomkit {

static_assert(filter_like<cuckoo_filter>);

namespace {

void require_option(bool ok, const std::string& what) {
  if (!ok) throw error(errc::invalid_argument, what);
}

void validate(const cuckoo_options& o) {
  require_option(o.capacity >= 1, "a cuckoo filter needs a capacity of at least 1 key");
  require_option(o.target_fpp > 0 && o.target_fpp < 1,
                 "fpp " + std::to_string(o.target_fpp) + " is not in (0, 1)");
  require_option(
      o.bucket_size == 0 || (o.bucket_size >= cuckoo_filter::min_bucket_size &&
                             o.bucket_size <= cuckoo_filter::max_bucket_size),
      "bucket size " + std::to_string(o.bucket_size) + " is not in 2..8 (0: chosen for p)");
  require_option(o.max_kicks >= 1 && o.max_kicks <= cuckoo_filter::max_kicks_limit,
                 "max kicks " + std::to_string(o.max_kicks) + " is not in 1..65536");
  require_option(o.expansion <= 32768, "expansion " + std::to_string(o.expansion) +
                                           " is not in 0..32768 (0: the filter never grows)");
}

}  // namespace

cuckoo_filter cuckoo_filter::for_capacity(std::uint64_t n, double p) {
  return cuckoo_filter(cuckoo_options{.capacity = n, .target_fpp = p});
}

cuckoo_filter::cuckoo_filter(const cuckoo_options& options) : options_(options) {
  validate(options_);
  const cuckoo_sizing first =
      sizing_for(options_.capacity, table_fpp(options_, 0), options_.bucket_size);
  options_.bucket_size = first.bucket_size;  // the choice made, as files record it
  tables_.emplace_back(first, options_.capacity);
}

cuckoo_filter cuckoo_filter::from_tables(const cuckoo_options& options,
                                         std::vector<cuckoo_table> tables) {
  validate(options);
  require_option(options.bucket_size != 0, "a cuckoo filter's tables need its bucket size");
  require_option(!tables.empty() && tables.size() <= max_tables,
                 "a cuckoo filter has 1.." + std::to_string(max_tables) + " tables, not " +
                     std::to_string(tables.size()));
  require_option(
      tables.size() == 1 || options.expansion != 0,
      "a cuckoo filter that never grows has one table, not " + std::to_string(tables.size()));
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const cuckoo_sizing s = table_sizing(options, i);
    const cuckoo_table& t = tables[i];
    require_option(t.buckets() == s.buckets && t.bucket_size() == s.bucket_size &&
                       t.fingerprint_bits() == s.fingerprint_bits &&
                       t.capacity() == table_capacity(options, i) &&
                       t.first_buckets_ == tables[0].buckets() &&
                       t.first_bits_ == tables[0].fingerprint_bits(),
                   "table " + std::to_string(i) + " (" + std::to_string(t.buckets()) +
                       " buckets of " + std::to_string(t.bucket_size()) + " " +
                       std::to_string(t.fingerprint_bits()) + "-bit slots for " +
                       std::to_string(t.capacity()) + " keys) is not the table the options make (" +
                       std::to_string(s.buckets) + " buckets of " + std::to_string(s.bucket_size) +
                       " " + std::to_string(s.fingerprint_bits) + "-bit slots)");
  }
  cuckoo_filter f;
  f.options_ = options;
  f.tables_ = std::move(tables);
  return f;
}

void cuckoo_filter::require_writable() const {
  if (read_only()) {
    throw error(errc::read_only,
                "this cuckoo filter maps a file read-only: load it to insert or remove keys");
  }
}

bool cuckoo_filter::grow() {
  const std::size_t next = tables_.size();
  if (options_.expansion == 0 || next >= max_tables) return false;
  cuckoo_sizing s;
  try {
    s = table_sizing(options_, next);
  } catch (const error& e) {
    // No table past 2^62 keys or 32-bit fingerprints: the chain is full.
    if (e.code() == errc::invalid_argument || e.code() == errc::too_large) return false;
    throw;
  }
  const cuckoo_table& t0 = tables_.front();
  const cuckoo_sizing first{t0.bucket_size(), t0.fingerprint_bits(), t0.buckets(),
                            t0.design_load()};
  tables_.emplace_back(s, table_capacity(options_, next), &first);
  return true;
}

bool cuckoo_filter::insert_digest(digest_type h) {
  require_writable();
  cuckoo_table& last = tables_.back();
  const cuckoo_place at = cuckoo_table_access::geometry(last).place(h);
  if (cuckoo_store(last, at, options_.max_kicks, kick_state_)) return true;
  if (!grow()) return false;
  cuckoo_table& grown = tables_.back();
  return cuckoo_store(grown, cuckoo_table_access::geometry(grown).place(h), options_.max_kicks,
                      kick_state_);
}

bool cuckoo_filter::contains_digest(digest_type h) const {
  bool present = false;
  for (const cuckoo_table& t : tables_) {
    const cuckoo_geometry g = cuckoo_table_access::geometry(t);
    const cuckoo_place at = g.place(h);
    const unsigned char* bytes = cuckoo_table_access::bytes(t);
    if (g.holds(bytes, at.first, at.fingerprint) || g.holds(bytes, at.second, at.fingerprint)) {
      present = true;
      break;
    }
  }
  check_source();
  return present;
}

bool cuckoo_filter::remove_digest(digest_type h) {
  require_writable();
  for (auto t = tables_.rbegin(); t != tables_.rend(); ++t) {
    if (cuckoo_erase(*t, cuckoo_table_access::geometry(*t).place(h))) return true;
  }
  return false;
}

std::uint64_t cuckoo_filter::count_digest(digest_type h) const {
  std::uint64_t n = 0;
  for (const cuckoo_table& t : tables_) {
    const cuckoo_geometry g = cuckoo_table_access::geometry(t);
    const cuckoo_place at = g.place(h);
    const unsigned char* bytes = cuckoo_table_access::bytes(t);
    n += g.count(bytes, at.first, at.fingerprint);
    if (at.second != at.first) n += g.count(bytes, at.second, at.fingerprint);
  }
  check_source();
  return n;
}

void cuckoo_filter::merge(const cuckoo_filter&) {
  throw error(errc::invalid_argument,
              "cuckoo filters do not merge: a fingerprint's buckets depend on its table (insert "
              "the keys of one into the other)");
}

void cuckoo_filter::intersect(const cuckoo_filter&) {
  throw error(errc::invalid_argument, "cuckoo filters do not intersect");
}

void cuckoo_filter::clear() {
  require_writable();
  tables_.resize(1);
  const cuckoo_table& first = tables_.front();
  const cuckoo_sizing s{first.bucket_size(), first.fingerprint_bits(), first.buckets(),
                        first.design_load()};
  tables_.front() = cuckoo_table(s, first.capacity());
}

std::uint64_t cuckoo_filter::items() const noexcept {
  std::uint64_t n = 0;
  for (const auto& t : tables_) n += t.items();
  return n;
}

std::uint64_t cuckoo_filter::slot_count() const noexcept {
  std::uint64_t n = 0;
  for (const auto& t : tables_) n += t.slots();
  return n;
}

double cuckoo_filter::load_factor() const noexcept {
  return static_cast<double>(items()) / static_cast<double>(slot_count());
}

std::uint64_t cuckoo_filter::cells() const noexcept {
  std::uint64_t bits = 0;
  for (const auto& t : tables_) bits += t.slots() * t.fingerprint_bits();
  return bits;
}

std::uint64_t cuckoo_filter::capacity() const noexcept {
  std::uint64_t n = 0;
  for (const auto& t : tables_) n += t.capacity();
  return n;
}

double cuckoo_filter::estimated_fpp() const noexcept {
  double none = 1;
  for (const auto& t : tables_) none *= 1 - t.estimated_fpp();
  return 1 - none;
}

std::size_t cuckoo_filter::byte_size() const noexcept {
  std::size_t bytes = 0;
  for (const auto& t : tables_) bytes += t.words().byte_size();
  return bytes;
}

bool operator==(const cuckoo_filter& a, const cuckoo_filter& b) noexcept {
  if (!(a.options_ == b.options_) || a.tables_.size() != b.tables_.size()) return false;
  for (std::size_t i = 0; i < a.tables_.size(); ++i) {
    const cuckoo_table &x = a.tables_[i], &y = b.tables_[i];
    if (x.buckets() != y.buckets() || x.bucket_size() != y.bucket_size() ||
        x.fingerprint_bits() != y.fingerprint_bits() || x.items() != y.items() ||
        !(x.words() == y.words())) {
      return false;
    }
  }
  return true;
}

}  // namespace bloomkit
