// PostgresSystem's opening: the connection, the declared tables and the sequences they own, the
// prepared observation statements, and the foreign keys a restore must respect; and
// table_names() for a model that names a table the database does not have.
#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "db_guard_detail.hpp"
#include "postgres_detail.hpp"
#include "prowl/systems/postgres.hpp"

namespace prowl {

using detail::exec_with_table_oids;
using detail::ok;
using detail::one_line;
using detail::PgResult;
using detail::result_message;
using detail::sqlstate;

namespace {

std::string relkind_name(char kind) {
  switch (kind) {
    case 'v':
      return "a view";
    case 'm':
      return "a materialized view";
    case 'f':
      return "a foreign table";
    case 'S':
      return "a sequence";
    case 'c':
      return "a composite type";
    case 'i':
    case 'I':
      return "an index";
    default:
      return fmt::format("of kind '{}'", kind);
  }
}

}  // namespace

Result<std::unique_ptr<PostgresSystem>> PostgresSystem::open(std::string name,
                                                             PostgresOptions options,
                                                             std::shared_ptr<DatabaseGuard> guard) {
  std::unique_ptr<PostgresSystem> sys(new PostgresSystem(std::move(name), std::move(options)));
  // The lock first: a database another run holds is not touched, and one a run left changed is
  // put back before prowl reads it.
  const bool given = guard != nullptr;
  if (!given) {
    auto taken = guard_postgres(sys->options_.dsn);
    if (!taken) return taken.status();
    guard = std::move(*taken);
  }
  sys->guard_ = std::move(guard);
  if (Status st = sys->connect(); !st) return st;
  PROWL_CHECK(
      !given || detail::postgres_guard_covers(*sys->guard_, sys->conn_),
      "PostgresSystem::open('" + sys->dsn_ + "') given the guard of " + sys->guard_->database());
  if (Status st = sys->resolve_tables(); !st) return st;
  if (Status st = sys->resolve_sequences(); !st) return st;
  if (Status st = sys->prepare_observed(); !st) return st;
  if (sys->options_.mode == PostgresMode::kSnapshot) {
    if (Status st = sys->check_foreign_keys(); !st) return st;
    if (Status st = sys->order_copies(); !st) return st;
  }
  return sys;
}

Result<std::vector<std::string>> PostgresSystem::table_names(const std::string& dsn) {
  const std::string shown = redact_dsn(dsn);
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"10", "prowl", dsn.c_str(), nullptr};
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdbParams(keys, values, 1), PQfinish);
  if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) {
    return Status::environment(
        fmt::format("postgres '{}': cannot connect: {}", shown,
                    conn ? one_line(PQerrorMessage(conn.get())) : "out of memory"));
  }
  // regclass's text is schema-qualified exactly when the schema is not in the search path.
  const std::string sql = fmt::format(
      "SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
      "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition "
      "AND n.nspname NOT IN ('pg_catalog', 'information_schema', '{}') "
      "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%' "
      "AND c.relname NOT LIKE 'prowl\\_recovery\\_%' "
      "ORDER BY 1",
      detail::kRecordSchema);
  PgResult r(PQexec(conn.get(), sql.c_str()));
  if (!ok(r.get())) {
    return Status::environment(fmt::format("postgres '{}': cannot list the tables: {}", shown,
                                           result_message(r.get(), conn.get())));
  }
  std::vector<std::string> names;
  for (int row = 0; row < PQntuples(r.get()); ++row)
    names.emplace_back(PQgetvalue(r.get(), row, 0));
  return names;
}

Status PostgresSystem::connect() {
  // The DSN comes last so that its own settings win over these defaults.
  const std::string timeout = std::to_string(options_.connect_timeout_s);
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "prowl", options_.dsn.c_str(), nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (conn_ == nullptr) {
    return Status::environment(fmt::format("postgres '{}': cannot connect: out of memory", dsn_));
  }
  if (PQstatus(conn_) != CONNECTION_OK) return error("cannot connect");
  const char* su = PQparameterStatus(conn_, "is_superuser");
  superuser_ = su && std::strcmp(su, "on") == 0;
  std::string settings;
  if (options_.statement_timeout_ms > 0) {
    settings += fmt::format("SET statement_timeout = {};", options_.statement_timeout_ms);
  }
  // Restores need not survive a crash of the server: do not wait for the WAL flush on commit.
  if (options_.mode == PostgresMode::kSnapshot) settings += "SET synchronous_commit = off;";
  if (!settings.empty()) {
    PgResult r(PQexec(conn_, settings.c_str()));
    if (!ok(r.get())) {
      return Status::environment(fmt::format("postgres '{}': cannot configure the session: {}",
                                             dsn_, result_message(r.get(), conn_)));
    }
  }
  return Status::ok();
}

Status PostgresSystem::resolve_tables() {
  static constexpr const char* kSql =
      "SELECT c.oid, c.oid::regclass::text, c.relkind, c.relpersistence, "
      "(SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a "
      " WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '') "
      "FROM pg_class c WHERE c.oid = to_regclass($1)";
  for (const std::string& declared : options_.tables) {
    const char* param = declared.c_str();
    PgResult r(PQexecParams(conn_, kSql, 1, nullptr, &param, nullptr, nullptr, 0));
    if (!ok(r.get())) {
      return Status::environment(fmt::format("postgres '{}': table '{}' failed: {}", dsn_, declared,
                                             result_message(r.get(), conn_)));
    }
    // A declared table the database does not have is a mistake in the model (a misspelt name).
    if (PQntuples(r.get()) == 0) {
      return Status::invalid(
          fmt::format("table '{}' does not exist in postgres '{}'", declared, dsn_));
    }
    Table t;
    t.declared = declared;
    t.oid = static_cast<Oid>(std::strtoul(PQgetvalue(r.get(), 0, 0), nullptr, 10));
    t.qualified = PQgetvalue(r.get(), 0, 1);
    const char kind = PQgetvalue(r.get(), 0, 2)[0];
    if (kind != 'r' && kind != 'p') {
      return Status::environment(fmt::format(
          "postgres '{}': table '{}' is {}, not a table (declare a query to observe it)", dsn_,
          declared, relkind_name(kind)));
    }
    t.partitioned = kind == 'p';
    t.columns = PQgetvalue(r.get(), 0, 4);
    for (const Table& other : tables_) {
      if (other.oid == t.oid) {
        return Status::invalid(fmt::format("postgres '{}': table '{}' is declared twice ('{}')",
                                           dsn_, t.qualified, other.declared));
      }
    }
    // The WAL position does not move when an unlogged or temporary table changes.
    if (PQgetvalue(r.get(), 0, 3)[0] != 'p') unlogged_ = true;
    tables_.push_back(std::move(t));
  }
  return Status::ok();
}

std::string PostgresSystem::oid_array() const {
  std::string out = "{";
  for (const Table& t : tables_) {
    if (out.size() > 1) out += ',';
    out += std::to_string(t.oid);
  }
  return out + "}";
}

Status PostgresSystem::resolve_sequences() {
  // Serial columns own their sequence with an 'a' (auto) dependency, identity columns with an
  // 'i' (internal) one; that is also how pg_get_serial_sequence() finds them.
  static constexpr const char* kSql =
      "SELECT s.oid::regclass::text, d.refobjid::regclass::text, q.seqcache, "
      "format('%I.%I', n.nspname, s.relname) "
      "FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' "
      "JOIN pg_namespace n ON n.oid = s.relnamespace "
      "JOIN pg_sequence q ON q.seqrelid = s.oid "
      "WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass "
      "AND d.deptype IN ('a', 'i') AND d.refobjid = ANY($1::oid[]) "
      "ORDER BY 1";
  auto result =
      exec_with_table_oids(conn_, dsn_, oid_array(), kSql, "cannot find the owned sequences");
  if (!result) return result.status();
  const PgResult r = std::move(*result);
  std::string columns;
  std::string from;
  setval_prefixes_.clear();
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    const std::string seq = PQgetvalue(r.get(), i, 0);
    const long cache = std::strtol(PQgetvalue(r.get(), i, 2), nullptr, 10);
    // Another session keeps the values it has cached; setval() cannot take them back.
    if (cache > 1 && options_.mode == PostgresMode::kSnapshot) {
      return Status::environment(fmt::format(
          "postgres '{}': sequence '{}' of table '{}' has CACHE {}: the service's sessions keep "
          "values they cached, which a restore cannot take back; ALTER SEQUENCE {} CACHE 1",
          dsn_, seq, PQgetvalue(r.get(), i, 1), cache, seq));
    }
    const std::string alias = fmt::format("s{}", i);
    if (i > 0) {
      columns += ", ";
      from += ", ";
    }
    columns += fmt::format("{0}.last_value, {0}.is_called", alias);
    from += seq + " " + alias;
    // Schema-qualified whatever the search path: the recovery record keeps the statement for a
    // session that may have another one.
    const std::string qualified = PQgetvalue(r.get(), i, 3);
    char* literal = PQescapeLiteral(conn_, qualified.c_str(), qualified.size());
    if (literal == nullptr) return error("cannot quote a sequence name");
    setval_prefixes_.push_back(fmt::format("pg_catalog.setval({}::regclass, ", literal));
    PQfreemem(literal);
    sequence_names_.push_back(seq);
  }
  if (!sequence_names_.empty()) {
    sequences_sql_ = "SELECT " + columns + " FROM " + from;
    state_sql_ = "SELECT pg_current_wal_insert_lsn()::text, " + columns + " FROM " + from;
  } else {
    state_sql_ = "SELECT pg_current_wal_insert_lsn()::text";
  }
  return Status::ok();
}

Status PostgresSystem::prepare(const Observed& o) const {
  PgResult r(PQprepare(conn_, o.statement.c_str(), o.sql.c_str(), 0, nullptr));
  if (ok(r.get())) return Status::ok();
  const char* kind = o.kind == Observed::Kind::kQuery ? "query" : "table";
  return Status::environment(fmt::format("postgres '{}': {} '{}' failed: {}; SQL: {}", dsn_, kind,
                                         o.name, result_message(r.get(), conn_), o.sql));
}

Status PostgresSystem::prepare_observed() {
  for (const Table& t : tables_) {
    const char* only = t.partitioned ? "" : "ONLY ";
    observed_.push_back({t.declared,
                         fmt::format("SELECT * FROM {}{}", only, t.qualified),
                         {},
                         Observed::Kind::kTable});
  }
  for (const PostgresQuery& q : options_.queries) {
    observed_.push_back({q.name, q.sql, {}, Observed::Kind::kQuery});
  }
  if (options_.observe_sequences && !sequences_sql_.empty()) {
    observed_.push_back({"sequences", sequences_sql_, {}, Observed::Kind::kSequences});
  }
  for (std::size_t i = 0; i < observed_.size(); ++i) {
    Observed& o = observed_[i];
    o.statement = fmt::format("prowl_observe_{}", i);
    if (Status st = prepare(o); !st) return st;
    if (o.kind != Observed::Kind::kQuery) continue;
    // Observing must not change the state it observes: run the query once in a read-only
    // transaction, which refuses writes (nextval() included).
    PgResult begin(PQexec(conn_, "BEGIN READ ONLY"));
    PgResult r(PQexecPrepared(conn_, o.statement.c_str(), 0, nullptr, nullptr, nullptr, 1));
    PgResult end(PQexec(conn_, "ROLLBACK"));
    if (!ok(begin.get()) || !ok(end.get())) return error("cannot check a query");
    if (sqlstate(r.get()) == "25006") {
      return Status::invalid(
          fmt::format("postgres '{}': query '{}' writes to the database: {}", dsn_, o.name, o.sql));
    }
    if (!ok(r.get())) {
      return Status::environment(fmt::format("postgres '{}': query '{}' failed: {}; SQL: {}", dsn_,
                                             o.name, result_message(r.get(), conn_), o.sql));
    }
  }
  // Observing only reads, whatever the declared queries do: in a read-only transaction of its
  // own, or (inside prowl's transaction) under a read-only savepoint that is rolled back
  // afterwards. The statements prowl writes itself (SELECT * of a table, the sequences) cannot
  // write: without declared queries they go as they are, and cost no more per step.
  observe_plain_.clear();
  for (const Observed& o : observed_) {
    observe_plain_.push_back({o.statement, true});
    if (o.kind == Observed::Kind::kQuery) queries_observed_ = true;
  }
  observe_read_only_ = {{"BEGIN READ ONLY", false}};
  observe_read_only_.insert(observe_read_only_.end(), observe_plain_.begin(), observe_plain_.end());
  observe_read_only_.push_back({"COMMIT", false});
  observe_guarded_ = {{"SAVEPOINT prowl_observe", false}};
  if (queries_observed_) {
    observe_guarded_.push_back({"SET LOCAL transaction_read_only = on", false});
  }
  observe_guarded_.insert(observe_guarded_.end(), observe_plain_.begin(), observe_plain_.end());
  if (queries_observed_) {
    observe_guarded_.push_back({"ROLLBACK TO SAVEPOINT prowl_observe", false});
  }
  observe_guarded_.push_back({"RELEASE SAVEPOINT prowl_observe", false});
  return Status::ok();
}

Status PostgresSystem::order_copies() {
  // Without the replica role foreign keys are checked as the rows are copied in: referenced
  // tables go first. In a cycle of foreign keys the declared order is kept.
  static constexpr const char* kSql =
      "SELECT DISTINCT conrelid, confrelid FROM pg_constraint WHERE contype = 'f' "
      "AND conrelid = ANY($1::oid[]) AND confrelid = ANY($1::oid[]) AND conrelid <> confrelid";
  auto result =
      exec_with_table_oids(conn_, dsn_, oid_array(), kSql, "cannot read the foreign keys");
  if (!result) return result.status();
  const PgResult r = std::move(*result);
  auto index_of = [&](const char* oid) {
    const auto want = static_cast<Oid>(std::strtoul(oid, nullptr, 10));
    std::size_t i = 0;
    while (i < tables_.size() && tables_[i].oid != want) ++i;
    return i;
  };
  std::vector<std::vector<std::size_t>> referenced(tables_.size());
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    referenced[index_of(PQgetvalue(r.get(), row, 0))].push_back(
        index_of(PQgetvalue(r.get(), row, 1)));
  }
  std::vector<bool> placed(tables_.size(), false);
  copy_order_.clear();
  while (copy_order_.size() < tables_.size()) {
    std::size_t next = tables_.size();
    for (std::size_t i = 0; i < tables_.size() && next == tables_.size(); ++i) {
      if (placed[i]) continue;
      const auto& refs = referenced[i];
      if (std::all_of(refs.begin(), refs.end(), [&](std::size_t j) { return placed[j]; })) next = i;
    }
    for (std::size_t i = 0; i < tables_.size() && next == tables_.size(); ++i) {
      if (!placed[i]) next = i;
    }
    placed[next] = true;
    copy_order_.push_back(next);
  }
  return Status::ok();
}

Status PostgresSystem::check_foreign_keys() const {
  // Partitions of a declared partitioned table are declared with it.
  static constexpr const char* kSql =
      "WITH declared AS (SELECT unnest($1::oid[]) AS relid UNION "
      "SELECT p.relid FROM unnest($1::oid[]) AS d(oid), pg_partition_tree(d.oid) AS p) "
      "SELECT c.conname, c.conrelid::regclass::text, c.confrelid::regclass::text "
      "FROM pg_constraint c WHERE c.contype = 'f' AND c.conparentid = 0 "
      "AND c.confrelid IN (SELECT relid FROM declared) "
      "AND c.conrelid NOT IN (SELECT relid FROM declared) ORDER BY 2, 3, 1";
  auto result =
      exec_with_table_oids(conn_, dsn_, oid_array(), kSql, "cannot read the foreign keys");
  if (!result) return result.status();
  const PgResult r = std::move(*result);
  if (PQntuples(r.get()) == 0) return Status::ok();
  const std::string from = PQgetvalue(r.get(), 0, 1);
  const std::string into = PQgetvalue(r.get(), 0, 2);
  return Status::invalid(fmt::format(
      "postgres '{}': table '{}' has a foreign key ({}) into the declared table '{}' but is not "
      "declared itself: a restore truncates '{}', which PostgreSQL refuses while an undeclared "
      "table references it; declare '{}' too (add it to tables)",
      dsn_, from, PQgetvalue(r.get(), 0, 0), into, into, from));
}
}  // namespace prowl
