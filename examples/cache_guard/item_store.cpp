#include "item_store.hpp"

#include <charconv>
#include <filesystem>

namespace cache_guard {

namespace {

constexpr const char* find_sql = "SELECT value FROM items WHERE id = $1";
constexpr const char* insert_sql = "INSERT INTO items (value) VALUES ($1) RETURNING id";
constexpr const char* delete_sql = "DELETE FROM items WHERE id = $1 RETURNING id";
constexpr const char* count_sql = "SELECT count(*) FROM items WHERE id > $1";
constexpr const char* max_id_sql = "SELECT coalesce(max(id), 0) FROM items";
constexpr const char* ids_after_sql = "SELECT id FROM items WHERE id > $1 ORDER BY id LIMIT $2";
constexpr const char* drop_sql = "DROP TABLE IF EXISTS items";

std::int64_t to_integer(std::string_view text, const std::string& what) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw db_error(what + ": expected an integer, got \"" + std::string(text) + "\"");
  }
  return v;
}

// "postgres://user:secret@host/db" -> "postgres://user@host/db".
std::string without_password(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto at = url.find('@', scheme + 3);
  if (at == std::string::npos) return url;
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + url.substr(at);
}

}  // namespace

std::string db_location::describe() const {
  if (backend == kind::postgres) return without_password(target);
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(target, ec);
  return "sqlite:" + (ec ? target : absolute.lexically_normal().string());
}

db_location parse_db_location(std::string_view text) {
  db_location where;
  if (text.starts_with("postgres://") || text.starts_with("postgresql://")) {
    where.backend = db_location::kind::postgres;
    where.target = std::string(text);
  } else {
    if (text.starts_with("sqlite:")) text.remove_prefix(7);
    where.target = std::string(text);
  }
  if (where.target.empty()) throw db_error("--db: empty database path");
  return where;
}

std::string seeded_value(std::int64_t id) {
  return "item-" + std::to_string(id);
}

item_store item_store::open(const db_location& where, bool create) {
  if (where.backend == db_location::kind::postgres) {
    return item_store(where, connect_postgres(where));
  }
  return item_store(where, connect_sqlite(where, create));
}

std::int64_t item_store::single_integer(const char* sql, std::span<const sql_param> params) {
  std::optional<std::int64_t> v;
  c_->query(sql, params, [&](std::span<const std::string_view> row) {
    v = to_integer(row[0], where_.describe());
  });
  if (!v) throw db_error(where_.describe() + ": no result from \"" + sql + "\"");
  return *v;
}

bool item_store::has_table() {
  return single_integer(c_->dialect().table_exists) != 0;
}

void item_store::require_table() {
  if (!has_table()) {
    throw db_error(where_.describe() +
                   " has no table items (create it with: cache_guard seed --db " +
                   where_.describe() + " --items N)");
  }
}

std::optional<std::string> item_store::find(std::int64_t id) {
  std::optional<std::string> value;
  const sql_param p[] = {id};
  c_->query(find_sql, p, [&](std::span<const std::string_view> row) { value.emplace(row[0]); });
  return value;
}

bool item_store::remove(std::int64_t id) {
  bool deleted = false;
  const sql_param p[] = {id};
  c_->query(delete_sql, p, [&](std::span<const std::string_view>) { deleted = true; });
  return deleted;
}

std::int64_t item_store::insert(std::string_view value) {
  const sql_param p[] = {value};
  return single_integer(insert_sql, p);
}

std::uint64_t item_store::count(std::int64_t above) {
  const sql_param p[] = {above};
  return static_cast<std::uint64_t>(single_integer(count_sql, p));
}

std::int64_t item_store::max_id() {
  return single_integer(max_id_sql);
}

void item_store::ids_after(std::int64_t after, std::size_t limit, std::vector<std::string>& out) {
  out.clear();
  const sql_param p[] = {after, static_cast<std::int64_t>(limit)};
  c_->query(ids_after_sql, p,
            [&](std::span<const std::string_view> row) { out.emplace_back(row[0]); });
}

void item_store::seed(std::uint64_t n, bool replace) {
  const sql_dialect& d = c_->dialect();
  c_->execute("BEGIN");
  try {
    if (replace) {
      c_->execute(drop_sql);
    } else if (has_table()) {
      throw db_error(where_.describe() + " has a table items already (" + std::to_string(count()) +
                     " rows); --replace drops it");
    }
    c_->execute(d.create_table);
    const sql_param p[] = {static_cast<std::int64_t>(n)};
    c_->query(d.seed_rows, p, [](std::span<const std::string_view>) {});
    if (*d.after_seed != '\0') c_->execute(d.after_seed);
    c_->execute("COMMIT");
  } catch (...) {
    try {
      c_->execute("ROLLBACK");
    } catch (...) {
    }
    throw;
  }
}

}  // namespace cache_guard
