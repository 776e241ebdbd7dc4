// item_store's SQLite backend: one sqlite3 connection in WAL mode (readers never wait for the
// writer), prepared statements cached per connection.

#include <sqlite3.h>

#include <map>

#include "item_store.hpp"

namespace cache_guard {

namespace {

const sql_dialect sqlite_dialect = {
    .create_table = "CREATE TABLE items (id INTEGER PRIMARY KEY, value TEXT NOT NULL)",
    .table_exists = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'items'",
    .seed_rows =
        "INSERT INTO items (id, value) WITH RECURSIVE seq(i) AS "
        "(SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < $1) "
        "SELECT i, 'item-' || i FROM seq",
    .after_seed = "",
};

class sqlite_connection final : public sql_connection {
 public:
  sqlite_connection(const db_location& where, bool create) : name_(where.describe()) {
    // NOMUTEX: a connection is used by one thread at a time.
    const int flags =
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(where.target.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw db_error("cannot open " + name_ + ": " + message);
    }
    sqlite3_busy_timeout(db_, 5000);  // a writer waiting for another writer
    execute("PRAGMA journal_mode = WAL");
    execute("PRAGMA synchronous = NORMAL");
  }
  ~sqlite_connection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close(db_);
  }
  sqlite_connection(const sqlite_connection&) = delete;
  sqlite_connection& operator=(const sqlite_connection&) = delete;

  const sql_dialect& dialect() const override { return sqlite_dialect; }

  void execute(const char* sql) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string text = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      throw db_error(name_ + ": " + text + " (in \"" + sql + "\")");
    }
  }

  void query(const char* sql, std::span<const sql_param> params, const row_callback& row) override {
    sqlite3_stmt* stmt = prepared(sql);
    // Reset even when the callback throws, so the statement never holds a read transaction.
    struct resetter {
      sqlite3_stmt* s;
      ~resetter() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
      }
    } reset{stmt};
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      const int rc = std::visit(
          [&](const auto& v) {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::int64_t>) {
              return sqlite3_bind_int64(stmt, index, v);
            } else {
              return sqlite3_bind_text(stmt, index, v.data(), static_cast<int>(v.size()),
                                       SQLITE_TRANSIENT);
            }
          },
          params[i]);
      if (rc != SQLITE_OK) fail(sql);
    }
    const int columns = sqlite3_column_count(stmt);
    std::vector<std::string_view> values(static_cast<std::size_t>(columns));
    while (true) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail(sql);
      for (int c = 0; c < columns; ++c) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        values[static_cast<std::size_t>(c)] =
            text ? std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)))
                 : std::string_view();
      }
      row(values);
    }
  }

 private:
  sqlite3_stmt* prepared(const char* sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) fail(sql);
    statements_.emplace(sql, stmt);
    return stmt;
  }
  [[noreturn]] void fail(const char* sql) {
    throw db_error(name_ + ": " + sqlite3_errmsg(db_) + " (in \"" + sql + "\")");
  }

  std::string name_;
  sqlite3* db_ = nullptr;
  std::map<const char*, sqlite3_stmt*> statements_;
};

}  // namespace

std::unique_ptr<sql_connection> connect_sqlite(const db_location& where, bool create) {
  return std::make_unique<sqlite_connection>(where, create);
}

}  // namespace cache_guard
