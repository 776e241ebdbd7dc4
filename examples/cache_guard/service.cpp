// The service's construction and lifetime: workers and their pool, loading the filter at start
// (skipping the load, loading newer ids, rebuilding or recreating it), binding and stopping.
// The HTTP handlers are service_routes.cpp; the filter's recovery is service_recovery.cpp.
#include "service.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/counting_filter.hpp"
#include "bloomkit/redis/shard_layout.hpp"
#include "http_server.hpp"
#include "service_support.hpp"

namespace cache_guard {

namespace {

using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::key_sink;
using bloomkit::redis::redis_filter;

std::string stamp_key(const service_options& o) {
  return o.filter_name + ":cache_guard";
}

// Progress lines at every 10% of a scan ("loading filter: 400000/1000000 ids (40%)").
class progress {
 public:
  progress(const char* verb, std::uint64_t total) : verb_(verb), total_(total) {}
  void advance(std::uint64_t n) {
    done_ += n;
    const std::uint64_t percent =
        total_ == 0 ? 100 : std::min<std::uint64_t>(done_ * 100 / total_, 100);
    if (static_cast<int>(percent / 10) > last_tenth_) {
      last_tenth_ = static_cast<int>(percent / 10);
      std::fprintf(stderr, "%s: %llu/%llu ids (%llu%%)\n", verb_,
                   static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_),
                   static_cast<unsigned long long>(percent));
    }
  }

 private:
  const char* verb_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  int last_tenth_ = -1;
};

// Removes what is left of the service's filter so that a create starts clean: its stamp, and
// every key of the filter through redis_filter::drop (meta, shards, and orphan shards that a
// write through a stale handle or an interrupted create left without a meta). drop refuses a
// meta that is not a hash (errc::wrong_type) rather than guess; the service owns the name, so it
// removes that meta first.
void discard_filter(client& c, const service_options& o) {
  const auto unlink = [&](const std::string& key) {
    const auto r = c.execute({{"UNLINK", key}});
    if (r.is_error()) {
      throw bloomkit::error(errc::server_error,
                            "removing what is left of filter " + o.filter_name + ": " + r.str());
    }
  };
  unlink(stamp_key(o));
  for (const std::string& key : module_cuckoo::keys_of(o.filter_name)) unlink(key);
  const auto drop = [&] {
    try {
      redis_filter::drop(c, o.filter_name);
    } catch (const bloomkit::error& e) {
      if (e.code() != errc::not_found) throw;  // nothing left: a clean start already
    }
  };
  try {
    drop();
  } catch (const bloomkit::error& e) {
    if (e.code() != errc::wrong_type) throw;
    unlink(o.filter_name + ":meta");
    drop();
  }
}

}  // namespace

item_store& worker::db() {
  if (!db_) db_.emplace(item_store::open(options_.db));
  return *db_;
}

client& worker::redis() {
  if (!redis_) redis_.emplace(client::connect(options_.redis_url, options_.redis_options));
  return *redis_;
}

guard_filter& worker::filter(std::uint64_t epoch) {
  if (!filter_ || filter_epoch_ != epoch) {
    filter_.reset();
    filter_.emplace(guard_filter::open(redis(), options_.filter_name));
    filter_epoch_ = epoch;
  }
  return *filter_;
}

std::unique_ptr<worker> worker_pool::take() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto w = std::move(idle_.back());
      idle_.pop_back();
      return w;
    }
  }
  return std::make_unique<worker>(options_);  // connects outside the lock
}

void worker_pool::give_back(std::unique_ptr<worker> w) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(w));
}

service::service(service_options options)
    : options_(std::move(options)), pool_(options_), started_(std::chrono::steady_clock::now()) {
  load_filter();
  install_routes();
  if (options_.rebuild_every.count() > 0) scheduler_ = std::thread([this] { schedule_rebuilds(); });
}

service::~service() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_.store(true);
  }
  stop_signal_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  std::lock_guard lock(reloader_mutex_);
  if (reloader_.joinable()) reloader_.join();
}

service::scan service::stream_ids(item_store& db, std::int64_t above, const char* verb,
                                  const key_sink& sink) {
  progress report(verb, db.count(above));
  report.advance(0);
  scan result{0, above};
  std::vector<std::string> ids;
  std::vector<std::string_view> keys;
  while (true) {
    db.ids_after(result.max_id, options_.load_batch, ids);
    if (ids.empty()) break;
    keys.assign(ids.begin(), ids.end());
    sink(keys);
    result.ids += ids.size();
    std::from_chars(ids.back().data(), ids.back().data() + ids.back().size(), result.max_id);
    report.advance(ids.size());
  }
  return result;
}

void service::write_stamp(bloomkit::redis::client& c, guard_filter& f, const item_store& db,
                          std::int64_t max_id) {
  const std::int64_t created = f.created();  // reads the meta: the generation too
  c.execute({{"HSET", stamp_key(options_), "source", db.location().describe(), "max_id",
              std::to_string(max_id), "created", std::to_string(created), "generation",
              std::to_string(f.generation())}});
}

void service::load_filter() {
  auto redis = client::connect(options_.redis_url, options_.redis_options);
  auto db = item_store::open(options_.db);
  db.require_table();
  const char* name = options_.filter_name.c_str();

  // Whatever is wrong with an existing filter (a meta of other parameters or broken, a missing
  // shard, orphan shards without a meta): start over rather than refuse to start.
  const auto recreate_because = [&](const bloomkit::error& e) {
    if (!filter_is_broken(e.code()) && e.code() != errc::already_exists) throw;
    std::fprintf(stderr, "filter %s cannot be used (%s): recreating it\n", name, e.what());
    recreate_filter(redis, db, "loading filter");
  };
  std::optional<guard_filter> existing;
  try {
    existing.emplace(open_filter(redis));
  } catch (const bloomkit::error& e) {
    if (e.code() == errc::not_found) {
      recreate_filter(redis, db, "loading filter");
    } else {
      recreate_because(e);
    }
    return;
  }
  try {
    load_existing(redis, db, *existing);
  } catch (const bloomkit::error& e) {
    recreate_because(e);
  }
}

guard_filter service::open_filter(client& redis) {
  guard_filter f = guard_filter::open(redis, options_.filter_name);
  std::string problem;
  if (f.counting() != counting() || f.is_static() != static_kind() || f.is_cuckoo() != cuckoo()) {
    problem = std::string("a ") +
              (f.is_static()   ? "static"
               : f.is_cuckoo() ? "cuckoo"
               : f.counting()  ? "counting"
                               : "bloom") +
              " filter, asked " + options_.filter_kind;
  } else if (f.is_static() && f.target_fpp() != options_.fpp) {
    problem = "p " + std::to_string(f.target_fpp()) + ", asked " + std::to_string(options_.fpp);
  } else if (!f.is_static() && options_.capacity != 0 &&
             ((f.is_cuckoo() ? f.capacity() < options_.capacity
                             : f.capacity() != options_.capacity) ||
              f.target_fpp() != options_.fpp)) {
    problem = "capacity " + std::to_string(f.capacity()) + " and p " +
              std::to_string(f.target_fpp()) + ", asked " + std::to_string(options_.capacity) +
              " and " + std::to_string(options_.fpp);
  }
  if (!problem.empty()) {
    throw bloomkit::error(errc::incompatible,
                          "filter '" + options_.filter_name + "' has other parameters: " + problem);
  }
  return f;
}

void service::load_existing(client& redis, item_store& db, guard_filter& f) {
  const std::string source = db.location().describe();
  const std::uint64_t rows = db.count();
  const char* name = options_.filter_name.c_str();
  if (!f.is_static() && rows > f.capacity()) {
    std::fprintf(stderr,
                 "warning: filter %s has capacity %llu but the database has %llu rows: its false "
                 "positive rate is above p (drop it, or pass a larger --capacity)\n",
                 name, static_cast<unsigned long long>(f.capacity()),
                 static_cast<unsigned long long>(rows));
  }
  // The stamp says which database, and which ids of it, this filter was loaded from.
  const auto stamp =
      redis.execute({{"HMGET", stamp_key(options_), "source", "max_id", "created", "generation"}});
  const std::int64_t created = f.created();
  const auto field = [&](std::size_t i) {
    const auto& e = stamp.elements()[i];
    return e.is_nil() ? std::string() : e.str();
  };
  const bool same = field(0) == source && field(2) == std::to_string(created) &&
                    field(3) == std::to_string(f.generation());
  const std::string loaded_up_to = field(1);
  std::int64_t max_id = 0;
  if (same &&
      std::from_chars(loaded_up_to.data(), loaded_up_to.data() + loaded_up_to.size(), max_id).ec ==
          std::errc()) {
    const std::uint64_t newer = db.count(max_id);
    if (newer == 0) {
      std::fprintf(stderr, "filter %s already holds every id of %s: skipping the load\n", name,
                   source.c_str());
      return;
    }
    std::fprintf(stderr, "filter %s holds the ids of %s up to %lld: loading the %llu newer ones\n",
                 name, source.c_str(), static_cast<long long>(max_id),
                 static_cast<unsigned long long>(newer));
    const scan s = stream_ids(db, max_id, "loading filter",
                              [&](std::span<const std::string_view> keys) { f.insert_many(keys); });
    write_stamp(redis, f, db, s.max_id);
    return;
  }
  std::fprintf(stderr, "filter %s exists but was not loaded from %s: rebuilding it\n", name,
               source.c_str());
  scan s;
  // The database is the source of truth: an empty table is an empty filter, not a failed export.
  f.rebuild([&](const key_sink& sink) { s = stream_ids(db, 0, "rebuilding filter", sink); });
  write_stamp(redis, f, db, s.max_id);
}

guard_filter service::create_filter(client& redis, item_store& db, std::uint64_t capacity) {
  const std::string& name = options_.filter_name;
  if (static_kind()) {
    // An empty first generation (filled by recreate_filter's rebuild) whose delta holds the ids
    // created until the next rebuild: the headroom --capacity gives over the rows.
    const std::uint64_t rows = db.count();
    bloomkit::redis::static_rebuild_options o;
    o.fpp = options_.fpp;
    o.delta_capacity = std::max<std::uint64_t>(capacity > rows ? capacity - rows : 0, 1000);
    o.allow_empty = true;
    auto f = bloomkit::redis::redis_static_filter::rebuild(redis, name,
                                                           std::span<const std::string_view>{}, o);
    std::fprintf(stderr, "created filter %s: static, p %g, delta capacity %llu\n", name.c_str(),
                 options_.fpp, static_cast<unsigned long long>(f.delta_capacity()));
    return guard_filter(std::move(f));
  }
  if (cuckoo()) {
    auto f = module_cuckoo::create(redis, name, capacity, options_.fpp);
    if (f.commands() == module_cuckoo::command_set::bk) {
      std::fprintf(stderr, "created filter %s: cuckoo (BK.* native), capacity %llu, p %g\n",
                   name.c_str(), static_cast<unsigned long long>(capacity), options_.fpp);
    } else {
      std::fprintf(
          stderr, "created filter %s: cuckoo (CF.*), capacity %llu, p %g, bucket size %u\n",
          name.c_str(), static_cast<unsigned long long>(capacity), options_.fpp, f.bucket_size());
    }
    return guard_filter(std::move(f));
  }
  redis_filter f = counting() ? bloomkit::redis::redis_counting_filter::create(
                                    redis, name, capacity, options_.fpp)
                              : redis_filter::create(redis, name, capacity, options_.fpp);
  std::fprintf(stderr, "created filter %s: capacity %llu, p %g, %llu bits, %u hashes\n",
               name.c_str(), static_cast<unsigned long long>(capacity), options_.fpp,
               static_cast<unsigned long long>(f.layout().total_bits()), f.layout().hashes);
  return guard_filter(std::move(f));
}

service::scan service::recreate_filter(client& redis, item_store& db, const char* verb) {
  std::uint64_t capacity =
      options_.capacity != 0 ? options_.capacity : std::max<std::uint64_t>(2 * db.count(), 1000);
  // A native cuckoo filter never grows: room for every row (the kind's sizing leaves some over
  // its capacity), and for twice the rows when it was found full (the reload of POST /item).
  if (cuckoo()) {
    const std::uint64_t rows = db.count();
    capacity = std::max(capacity, cuckoo_full_.exchange(false) ? 2 * rows : rows);
  }
  discard_filter(redis, options_);
  guard_filter f = create_filter(redis, db, capacity);
  // Every row committed from here on is added by its POST /item through a handle of this filter
  // (it reads the epoch after its commit, and a new epoch makes workers reopen their handles);
  // every row committed before is in the scan below. Requests for a reload until now are served
  // by this one.
  epoch_.fetch_add(1);
  {
    std::lock_guard lock(reload_mutex_);
    reload_wanted_.store(false);
  }
  const std::uint64_t failures = insert_failures_.load();
  scan s;
  if (f.is_static()) {
    // Its first generation is empty: the rebuild reads the ids after it marked the filter, so a
    // row committed during the scan is in the scan or in the new delta.
    f.rebuild([&](const key_sink& sink) {
      s = stream_ids(db, 0, verb, [&](std::span<const std::string_view> keys) {
        if (stopping_.load()) throw std::runtime_error("stopping");
        sink(keys);
      });
    });
  } else {
    s = stream_ids(db, 0, verb, [&](std::span<const std::string_view> keys) {
      if (stopping_.load()) throw std::runtime_error("stopping");
      f.insert_many(keys);
    });
  }
  write_stamp(redis, f, db, s.max_id);
  failures_covered_.store(failures);
  return s;
}

int service::bind(const std::string& host, int port) {
  if (port == 0) {
    const int bound = server_->bind_to_any_port(host);
    if (bound < 0) throw std::runtime_error("cannot listen on " + host + ": no free port");
    return bound;
  }
  if (!server_->bind_to_port(host, port)) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                             " (in use, or not an address of this machine)");
  }
  return port;
}

void service::run() {
  server_->listen_after_bind();
}

void service::stop() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_.store(true);
  }
  stop_signal_.notify_all();
  server_->stop();
}

}  // namespace cache_guard
