#pragma once
// The items table of the cache-guard example, on SQLite or PostgreSQL: one class with every SQL
// statement (item_store) over a small connection interface with one implementation per backend
// (sqlite_connection.cpp, postgres_connection.cpp). The statements are written once: both
// databases accept "$1" parameters; only the DDL and the row generator of `seed` differ
// (sql_dialect).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cache_guard {

// Any database failure; the message names the database (never a password) and the problem.
class db_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --db: "sqlite:PATH" or a plain path (SQLite), "postgres://..." / "postgresql://..." (libpq).
struct db_location {
  enum class kind { sqlite, postgres };
  kind backend = kind::sqlite;
  std::string target;  // the file path, or the libpq connection URL
  // For messages and the filter's stamp: "sqlite:/abs/path" or the URL without its password.
  std::string describe() const;
};
db_location parse_db_location(std::string_view text);  // throws db_error on an empty value

// What differs between the two SQL dialects.
struct sql_dialect {
  const char* create_table;  // items (id, value)
  const char* table_exists;  // one row, one column: 1 if items exists, else 0
  const char* seed_rows;     // inserts rows id = 1 .. $1 with value 'item-' || id
  const char* after_seed;    // run after inserting explicit ids ("" for none)
};

using sql_param = std::variant<std::int64_t, std::string_view>;
// Called once per result row with its columns as text (NULL as "").
using row_callback = std::function<void(std::span<const std::string_view>)>;

// One connection, used by one thread at a time.
class sql_connection {
 public:
  virtual ~sql_connection() = default;
  virtual const sql_dialect& dialect() const = 0;
  // Statements without parameters or results (BEGIN, DDL, ...).
  virtual void execute(const char* sql) = 0;
  // A statement with parameters $1, $2, ...; `sql` must outlive the connection (it is
  // prepared once and cached by its address).
  virtual void query(const char* sql, std::span<const sql_param> params,
                     const row_callback& row) = 0;
};

// create: SQLite creates a missing file (seed); PostgreSQL ignores it.
std::unique_ptr<sql_connection> connect_sqlite(const db_location& where, bool create);
std::unique_ptr<sql_connection> connect_postgres(const db_location& where);

class item_store {
 public:
  // Connects; throws db_error naming the database if it cannot.
  static item_store open(const db_location& where, bool create = false);

  bool has_table();
  // Throws db_error "... has no table items (create it with cache_guard seed ...)" if missing.
  void require_table();
  std::optional<std::string> find(std::int64_t id);
  std::int64_t insert(std::string_view value);  // returns the new id
  bool remove(std::int64_t id);                 // whether a row was deleted
  std::uint64_t count(std::int64_t above = 0);  // rows with id > above
  std::int64_t max_id();
  // Up to `limit` ids greater than `after`, ascending, as decimal text (the filter's keys).
  void ids_after(std::int64_t after, std::size_t limit, std::vector<std::string>& out);
  // Creates the table (replace: drops an existing one first) with rows 1..n, value "item-<id>",
  // in one transaction.
  void seed(std::uint64_t n, bool replace);

  const db_location& location() const { return where_; }

 private:
  item_store(db_location where, std::unique_ptr<sql_connection> c)
      : where_(std::move(where)), c_(std::move(c)) {}
  std::int64_t single_integer(const char* sql, std::span<const sql_param> params = {});

  db_location where_;
  std::unique_ptr<sql_connection> c_;
};

// The value `seed` gives row `id`.
std::string seeded_value(std::int64_t id);

}  // namespace cache_guard
