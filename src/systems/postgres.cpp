#include "prowl/systems/postgres.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace prowl {
namespace {

struct ClearResult {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ClearResult>;

constexpr const char* kNullField = "\xff\xff\xff\xff";  // a NULL in the row encoding

// Type OIDs (pg_type.h) that describe() renders as bare numbers and sorts numerically.
bool is_number_type(Oid type) {
  switch (type) {
    case 20:    // int8
    case 21:    // int2
    case 23:    // int4
    case 26:    // oid
    case 700:   // float4
    case 701:   // float8
    case 1700:  // numeric
      return true;
    default:
      return false;
  }
}
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;

// libpq's messages end with a newline and continue on indented lines: one line, each run of
// white space one space.
std::string one_line(const char* message) {
  std::string out;
  bool space = false;
  for (const char* p = message ? message : ""; *p; ++p) {
    if (std::isspace(static_cast<unsigned char>(*p))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += *p;
  }
  return out;
}

std::string sqlstate(const PGresult* r) {
  const char* s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  return s ? s : "";
}

// "relation \"nope\" does not exist (SQLSTATE 42P01)"; libpq's own message when the server sent
// none (a broken connection).
std::string result_message(const PGresult* r, PGconn* conn) {
  const char* primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  if (primary == nullptr) {
    std::string text = one_line(r ? PQresultErrorMessage(r) : PQerrorMessage(conn));
    return text.empty() ? one_line(PQerrorMessage(conn)) : text;
  }
  return fmt::format("{} (SQLSTATE {})", primary, sqlstate(r));
}

bool ok(const PGresult* r) {
  const auto s = PQresultStatus(r);
  return r && (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK);
}

// Runs sql with $1 bound to the declared tables' OIDs (an array literal); `failing` names the
// step in the error.
Result<PgResult> exec_with_table_oids(PGconn* conn, const std::string& dsn, const std::string& oids,
                                      const char* sql, std::string_view failing) {
  const char* param = oids.c_str();
  PgResult r(PQexecParams(conn, sql, 1, nullptr, &param, nullptr, nullptr, 0));
  if (!ok(r.get())) {
    return Status::environment(
        fmt::format("postgres '{}': {}: {}", dsn, failing, result_message(r.get(), conn)));
  }
  return r;
}

void put_be32(std::string& out, std::uint32_t n) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((n >> shift) & 0xff);
}

// The outcome of a simple-protocol script: its first error, or the rows of its last statement
// that returned rows.
struct ScriptResult {
  PgResult error;
  PgResult rows;
};

// Runs a script of several statements in one round trip. Each COPY ... FROM STDIN in it is sent
// copy_in[i] (i-th COPY FROM of the script); each COPY ... TO STDOUT appends its data to
// copy_out[i] and its row count to rows_out[i].
ScriptResult run_script(PGconn* conn, const std::string& sql,
                        const std::vector<const std::string*>& copy_in = {},
                        std::vector<std::string>* copy_out = nullptr,
                        std::vector<std::uint64_t>* rows_out = nullptr) {
  ScriptResult result;
  if (!PQsendQuery(conn, sql.c_str())) {
    result.error.reset(PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR));
    return result;
  }
  std::size_t in = 0;
  std::size_t out = 0;
  while (PGresult* raw = PQgetResult(conn)) {
    PgResult r(raw);
    switch (PQresultStatus(raw)) {
      case PGRES_COPY_IN: {
        const std::string* data = in < copy_in.size() ? copy_in[in] : nullptr;
        ++in;
        const bool sent = data == nullptr || data->empty() ||
                          PQputCopyData(conn, data->data(), static_cast<int>(data->size())) == 1;
        PQputCopyEnd(conn, sent ? nullptr : "prowl could not send the data");
        break;
      }
      case PGRES_COPY_OUT: {
        std::string* sink = copy_out && out < copy_out->size() ? &(*copy_out)[out] : nullptr;
        char* buffer = nullptr;
        int n;
        while ((n = PQgetCopyData(conn, &buffer, 0)) > 0) {
          if (sink) sink->append(buffer, static_cast<std::size_t>(n));
          PQfreemem(buffer);
        }
        // The COPY's own completion result follows; it carries the row count.
        PgResult done(PQgetResult(conn));
        if (!ok(done.get())) {
          if (!result.error) result.error = std::move(done);
        } else if (rows_out && out < rows_out->size()) {
          (*rows_out)[out] = std::strtoull(PQcmdTuples(done.get()), nullptr, 10);
        }
        ++out;
        break;
      }
      case PGRES_COMMAND_OK:
        break;
      case PGRES_TUPLES_OK:
        result.rows = std::move(r);
        break;
      default:
        if (!result.error) result.error = std::move(r);
        break;
    }
  }
  return result;
}

// Renders a value of a text-format result for describe().
void render_value(const PGresult* r, int row, int col, std::string& out) {
  if (PQgetisnull(r, row, col)) {
    out += "NULL";
    return;
  }
  const char* text = PQgetvalue(r, row, col);
  const Oid type = PQftype(r, col);
  if (is_number_type(type)) {
    out += text;
  } else if (type == kBoolOid) {
    out += text[0] == 't' ? "true" : "false";
  } else if (type == kByteaOid && text[0] == '\\' && text[1] == 'x') {
    out += "x'";
    out += text + 2;
    out += '\'';
  } else {
    out += '\'';
    for (const char* p = text; *p; ++p) {
      if (*p == '\'') out += '\'';
      out += *p;
    }
    out += '\'';
  }
}

// A key that orders text-format rows: per column NULLs first, numbers numerically, other values
// by length, then bytes (as SqliteSystem orders them).
std::string sort_key(const PGresult* r, int row) {
  std::string key;
  for (int c = 0; c < PQnfields(r); ++c) {
    if (PQgetisnull(r, row, c)) {
      key += '\0';
      continue;
    }
    const char* text = PQgetvalue(r, row, c);
    if (is_number_type(PQftype(r, c))) {
      double d = std::strtod(text, nullptr);
      if (d == 0) d = 0;
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
      bits = (bits & kSign) ? ~bits : bits ^ kSign;
      key += '\1';
      for (int shift = 56; shift >= 0; shift -= 8) key += static_cast<char>((bits >> shift) & 0xff);
    } else {
      key += '\2';
    }
    // The text too, so that numbers equal as doubles still sort in one order.
    const int n = PQgetlength(r, row, c);
    put_be32(key, static_cast<std::uint32_t>(n));
    key.append(text, static_cast<std::size_t>(n));
  }
  return key;
}

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

std::string redact_dsn(std::string_view dsn) {
  constexpr std::string_view kRedacted = "[REDACTED]";
  std::size_t start = 0;
  while (start < dsn.size() && std::isspace(static_cast<unsigned char>(dsn[start]))) ++start;
  std::string out(dsn.substr(0, start));
  std::string_view rest = dsn.substr(start);
  if (rest.starts_with("postgresql://") || rest.starts_with("postgres://")) {
    // URI: postgresql://user:password@host/db?password=...
    std::string uri(rest);
    const std::size_t scheme = uri.find("://") + 3;
    const std::size_t end = std::min(uri.find_first_of("/?", scheme), uri.size());
    const std::size_t at = uri.rfind('@', end);
    if (at != std::string::npos && at >= scheme) {
      const std::size_t colon = uri.find(':', scheme);
      if (colon < at) uri.replace(colon + 1, at - colon - 1, kRedacted);
    }
    for (std::size_t p = uri.find("password=", scheme); p != std::string::npos;
         p = uri.find("password=", p + 1)) {
      if (uri[p - 1] != '?' && uri[p - 1] != '&') continue;
      const std::size_t value = p + std::strlen("password=");
      uri.replace(value, std::min(uri.find('&', value), uri.size()) - value, kRedacted);
    }
    return out + uri;
  }
  // Keyword/value: key = value pairs, a value unquoted or in single quotes with \ escapes.
  std::size_t i = 0;
  const std::string_view s = rest;
  auto skip_space = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) out += s[i++];
  };
  while (i < s.size()) {
    skip_space();
    const std::size_t key_start = i;
    while (i < s.size() && s[i] != '=' && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::string_view key = s.substr(key_start, i - key_start);
    out += key;
    skip_space();
    if (i >= s.size() || s[i] != '=') continue;
    out += s[i++];
    skip_space();
    const std::size_t value_start = i;
    if (i < s.size() && s[i] == '\'') {
      ++i;
      while (i < s.size() && s[i] != '\'') i += (s[i] == '\\' && i + 1 < s.size()) ? 2 : 1;
      if (i < s.size()) ++i;
    } else {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) {
        i += (s[i] == '\\' && i + 1 < s.size()) ? 2 : 1;
      }
    }
    i = std::min(i, s.size());
    if (key == "password") {
      out += kRedacted;
    } else {
      out += s.substr(value_start, i - value_start);
    }
  }
  return out;
}

struct PostgresSystem::Table {
  std::string declared;   // as given in the options
  std::string qualified;  // as PostgreSQL names it (quoted, schema-qualified when needed)
  Oid oid = 0;
  bool partitioned = false;
  std::string columns;  // the columns COPY writes (not generated), quoted, comma-separated
};

struct PostgresSystem::Observed {
  enum class Kind { kTable, kQuery, kSequences };
  std::string name;
  std::string sql;
  std::string statement;  // prepared statement name
  Kind kind = Kind::kTable;
};

struct PostgresSystem::Image {
  std::vector<std::string> data;  // per table: its rows in COPY's binary format
  std::vector<std::uint64_t> rows;
  std::string setval;  // sets the owned sequences back; empty without sequences
};

// One statement of a pipeline: a prepared statement's name, or SQL without parameters.
struct PostgresSystem::Command {
  std::string text;
  bool prepared = false;
};

struct PostgresSystem::Batch {
  std::vector<PgResult> results;
};

// Sends the commands as one pipeline (one round trip) and returns one result per command; a
// command after a failed one has status PGRES_PIPELINE_ABORTED. False when the connection failed.
bool PostgresSystem::run_pipeline(PGconn* conn, const std::vector<Command>& commands, int format,
                                  Batch& batch) {
  std::vector<PgResult>& out = batch.results;
  out.clear();
  if (!PQenterPipelineMode(conn)) return false;
  bool sent = true;
  for (const Command& c : commands) {
    sent = c.prepared ? PQsendQueryPrepared(conn, c.text.c_str(), 0, nullptr, nullptr, nullptr,
                                            format) == 1
                      : PQsendQueryParams(conn, c.text.c_str(), 0, nullptr, nullptr, nullptr,
                                          nullptr, format) == 1;
    if (!sent) break;
  }
  if (sent) sent = PQpipelineSync(conn) == 1;
  if (sent) {
    for (std::size_t i = 0; i < commands.size(); ++i) {
      PgResult r(PQgetResult(conn));
      if (r == nullptr) {
        sent = false;
        break;
      }
      while (PGresult* rest = PQgetResult(conn)) PQclear(rest);
      out.push_back(std::move(r));
    }
    PgResult sync(PQgetResult(conn));
    sent = sent && sync && PQresultStatus(sync.get()) == PGRES_PIPELINE_SYNC;
  }
  PQexitPipelineMode(conn);
  return sent;
}

PostgresSystem::PostgresSystem(std::string name, PostgresOptions options)
    : System(std::move(name)), options_(std::move(options)), dsn_(redact_dsn(options_.dsn)) {}

PostgresSystem::~PostgresSystem() {
  // Closing the connection rolls back an open transaction (savepoint mode); snapshot mode's
  // end() is the World's job.
  if (conn_) PQfinish(conn_);
}

Capabilities PostgresSystem::capabilities() const {
  if (options_.mode == PostgresMode::kSavepoint) return {false, true, true, false};
  return {true, false, true, false};
}

Status PostgresSystem::error(const std::string& what) const {
  return Status::environment(
      fmt::format("postgres '{}': {}: {}", dsn_, what, one_line(PQerrorMessage(conn_))));
}

Result<std::unique_ptr<PostgresSystem>> PostgresSystem::open(std::string name,
                                                             PostgresOptions options) {
  std::unique_ptr<PostgresSystem> sys(new PostgresSystem(std::move(name), std::move(options)));
  if (Status st = sys->connect(); !st) return st;
  if (Status st = sys->resolve_tables(); !st) return st;
  if (Status st = sys->resolve_sequences(); !st) return st;
  if (Status st = sys->prepare_observed(); !st) return st;
  if (sys->options_.mode == PostgresMode::kSnapshot) {
    if (Status st = sys->check_foreign_keys(); !st) return st;
    if (Status st = sys->order_copies(); !st) return st;
  }
  return sys;
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
    if (PQntuples(r.get()) == 0) {
      return Status::environment(
          fmt::format("postgres '{}': table '{}' does not exist", dsn_, declared));
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
      "SELECT s.oid::regclass::text, d.refobjid::regclass::text, q.seqcache "
      "FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' "
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
    char* literal = PQescapeLiteral(conn_, seq.c_str(), seq.size());
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
  observe_plain_.clear();
  for (const Observed& o : observed_) observe_plain_.push_back({o.statement, true});
  observe_guarded_.assign(1, {"SAVEPOINT prowl_observe", false});
  observe_guarded_.insert(observe_guarded_.end(), observe_plain_.begin(), observe_plain_.end());
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

Status PostgresSystem::usable_transaction() const {
  if (options_.mode != PostgresMode::kSavepoint || !begun_) return Status::ok();
  switch (PQtransactionStatus(conn_)) {
    case PQTRANS_INTRANS:
      return Status::ok();
    case PQTRANS_INERROR:
      return Status::environment(fmt::format(
          "postgres '{}': prowl's transaction is aborted: a statement on the shared connection "
          "failed and the action did not handle it (last error: {}); run statements that may "
          "fail under a savepoint of their own (PostgresSystem::guarded), or return "
          "Outcome::error from the action",
          dsn_, one_line(PQerrorMessage(conn_))));
    case PQTRANS_IDLE:
      return Status::environment(fmt::format(
          "postgres '{}': prowl's transaction was ended on the shared connection (a COMMIT or "
          "ROLLBACK by the code under test); in savepoint mode the code must use savepoints, "
          "never end the transaction; what it committed stays in the database",
          dsn_));
    default:
      return error("the shared connection is busy or broken");
  }
}

Status PostgresSystem::read_observed(bool binary, Batch& batch) const {
  if (Status st = usable_transaction(); !st) return st;
  const bool guard = options_.mode == PostgresMode::kSavepoint && begun_;
  const std::size_t first = guard ? 1 : 0;
  for (int attempt = 0;; ++attempt) {
    if (!run_pipeline(conn_, guard ? observe_guarded_ : observe_plain_, binary ? 1 : 0, batch)) {
      return error("cannot read the observed tables and queries");
    }
    const PGresult* failed = nullptr;
    std::size_t failed_index = 0;
    for (std::size_t i = 0; i < batch.results.size(); ++i) {
      if (!ok(batch.results[i].get())) {
        failed = batch.results[i].get();
        failed_index = i;
        break;
      }
    }
    if (failed == nullptr) return Status::ok();
    std::string message = result_message(failed, conn_);
    if (guard && PQtransactionStatus(conn_) == PQTRANS_INERROR) {
      PgResult undo(
          PQexec(conn_, "ROLLBACK TO SAVEPOINT prowl_observe; RELEASE SAVEPOINT prowl_observe"));
      if (!ok(undo.get())) return error("cannot recover from a failed observation");
    }
    // A prepared SELECT * refuses to run once its table's columns changed ("cached plan must not
    // change result type"): prepare it anew. Every other feature error would have failed open().
    if (attempt == 0 && sqlstate(failed) == "0A000") {
      bool reprepared = true;
      for (const Observed& o : observed_) {
        PgResult drop(PQexec(conn_, ("DEALLOCATE " + o.statement).c_str()));
        reprepared = reprepared && ok(drop.get()) && prepare(o).is_ok();
      }
      if (reprepared) continue;
    }
    if (failed_index < first || failed_index - first >= observed_.size()) {
      return Status::environment(
          fmt::format("postgres '{}': cannot observe: {}", dsn_, std::move(message)));
    }
    const Observed& o = observed_[failed_index - first];
    const char* kind = o.kind == Observed::Kind::kQuery ? "query" : "table";
    return Status::environment(fmt::format("postgres '{}': {} '{}' failed: {}; SQL: {}", dsn_, kind,
                                           o.name, message, o.sql));
  }
}

Status PostgresSystem::observe(Hasher& hasher) const {
  Batch batch;
  if (Status st = read_observed(true, batch); !st) return st;
  const std::size_t first = options_.mode == PostgresMode::kSavepoint && begun_ ? 1 : 0;
  for (std::size_t i = 0; i < observed_.size(); ++i) {
    const Observed& o = observed_[i];
    const PGresult* r = batch.results[first + i].get();
    const int columns = PQnfields(r);
    const int rows = PQntuples(r);
    hasher.add(o.name);
    // The columns' names and types, so that a changed schema is a changed state.
    hasher.add_u64(static_cast<std::uint64_t>(columns));
    for (int c = 0; c < columns; ++c) {
      hasher.add(std::string_view(PQfname(r, c)));
      hasher.add_u64(PQftype(r, c));
    }
    hasher.add_u64(static_cast<std::uint64_t>(rows));
    // Each row: every value as its 4-byte length and its binary form, NULL as length -1.
    arena_.clear();
    spans_.clear();
    for (int row = 0; row < rows; ++row) {
      const std::size_t start = arena_.size();
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(r, row, c)) {
          arena_.append(kNullField, 4);
          continue;
        }
        const int n = PQgetlength(r, row, c);
        put_be32(arena_, static_cast<std::uint32_t>(n));
        arena_.append(PQgetvalue(r, row, c), static_cast<std::size_t>(n));
      }
      spans_.emplace_back(start, arena_.size() - start);
    }
    auto view = [this](const std::pair<std::size_t, std::size_t>& s) {
      return std::string_view(arena_).substr(s.first, s.second);
    };
    if (o.kind == Observed::Kind::kTable) {
      std::sort(spans_.begin(), spans_.end(),
                [&](const auto& a, const auto& b) { return view(a) < view(b); });
    }
    for (const auto& s : spans_) hasher.add(view(s));
  }
  return Status::ok();
}

std::string PostgresSystem::describe() const {
  Batch batch;
  if (Status st = read_observed(false, batch); !st) return "error: " + st.message();
  const std::size_t first = options_.mode == PostgresMode::kSavepoint && begun_ ? 1 : 0;
  std::string out;
  auto row_text = [](const PGresult* r, int row, int from, int to) {
    std::string text = "(";
    for (int c = from; c < to; ++c) {
      if (c > from) text += ", ";
      render_value(r, row, c, text);
    }
    return text + ")";
  };
  for (std::size_t i = 0; i < observed_.size() && out.size() <= options_.describe_limit; ++i) {
    const Observed& o = observed_[i];
    const PGresult* r = batch.results[first + i].get();
    if (o.kind == Observed::Kind::kSequences) {
      for (std::size_t s = 0; s < sequence_names_.size(); ++s) {
        if (!out.empty()) out += '\n';
        const int c = static_cast<int>(2 * s);
        out += sequence_names_[s] + ": " + row_text(r, 0, c, c + 2);
      }
      continue;
    }
    if (!out.empty()) out += '\n';
    out += o.name + ": ";
    const int rows = PQntuples(r);
    if (rows == 0) out += "(no rows)";
    std::vector<std::pair<std::string, int>> order;
    for (int row = 0; row < rows; ++row) {
      order.emplace_back(o.kind == Observed::Kind::kTable ? sort_key(r, row) : std::string(), row);
    }
    if (o.kind == Observed::Kind::kTable) std::sort(order.begin(), order.end());
    for (std::size_t k = 0; k < order.size() && out.size() <= options_.describe_limit; ++k) {
      if (k > 0) out += ", ";
      out += row_text(r, order[k].second, 0, PQnfields(r));
    }
  }
  if (out.size() > options_.describe_limit) {
    out.resize(options_.describe_limit);
    out += "...";
  }
  return out;
}

Result<SqlRows> PostgresSystem::query(std::string_view sql) const {
  if (Status st = usable_transaction(); !st) return st;
  const bool guard = options_.mode == PostgresMode::kSavepoint && begun_;
  std::vector<Command> commands;
  if (guard) commands.push_back({"SAVEPOINT prowl_query", false});
  commands.push_back({std::string(sql), false});
  if (guard) commands.push_back({"RELEASE SAVEPOINT prowl_query", false});
  Batch batch;
  if (!run_pipeline(conn_, commands, 0, batch)) {
    return error(fmt::format("query failed; SQL: {}", sql));
  }
  for (const PgResult& r : batch.results) {
    if (ok(r.get())) continue;
    std::string message = result_message(r.get(), conn_);
    if (guard && PQtransactionStatus(conn_) == PQTRANS_INERROR) {
      PgResult undo(
          PQexec(conn_, "ROLLBACK TO SAVEPOINT prowl_query; RELEASE SAVEPOINT prowl_query"));
      if (!ok(undo.get())) return error("cannot recover from a failed query");
    }
    return Status::environment(
        fmt::format("postgres '{}': query failed: {}; SQL: {}", dsn_, message, sql));
  }
  const PGresult* r = batch.results[guard ? 1 : 0].get();
  SqlRows out;
  const int columns = PQnfields(r);
  for (int c = 0; c < columns; ++c) out.columns.emplace_back(PQfname(r, c));
  out.rows.resize(static_cast<std::size_t>(PQntuples(r)));
  for (int row = 0; row < PQntuples(r); ++row) {
    auto& values = out.rows[static_cast<std::size_t>(row)];
    for (int c = 0; c < columns; ++c) {
      if (PQgetisnull(r, row, c)) {
        values.emplace_back(std::nullopt);
      } else {
        values.emplace_back(
            std::string(PQgetvalue(r, row, c), static_cast<std::size_t>(PQgetlength(r, row, c))));
      }
    }
  }
  return out;
}

Result<PostgresSystem::State> PostgresSystem::read_state(const PGresult* r) const {
  // One row: the WAL insert position, then last_value and is_called of each sequence.
  if (r == nullptr || PQntuples(r) != 1 ||
      PQnfields(r) != 1 + 2 * static_cast<int>(sequence_names_.size())) {
    return Status::environment(
        fmt::format("postgres '{}': cannot read the sequences: unexpected result", dsn_));
  }
  State state;
  state.wal = PQgetvalue(r, 0, 0);
  if (sequence_names_.empty()) return state;
  state.setval = "SELECT ";
  for (std::size_t s = 0; s < sequence_names_.size(); ++s) {
    const int c = 1 + static_cast<int>(2 * s);
    if (s > 0) state.setval += ", ";
    state.setval += fmt::format("{}{}, {})", setval_prefixes_[s], PQgetvalue(r, 0, c),
                                PQgetvalue(r, 0, c + 1)[0] == 't' ? "true" : "false");
  }
  return state;
}

Result<PostgresSystem::State> PostgresSystem::state_now() const {
  PgResult r(PQexec(conn_, state_sql_.c_str()));
  if (!ok(r.get())) {
    return Status::environment(fmt::format("postgres '{}': cannot read the sequences: {}", dsn_,
                                           result_message(r.get(), conn_)));
  }
  return read_state(r.get());
}

// ---- Savepoint mode.

Status PostgresSystem::begin_transaction() {
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
    return Status::environment(fmt::format(
        "postgres '{}': cannot begin: prowl's connection already has a transaction open", dsn_));
  }
  const std::string sql = "BEGIN; SAVEPOINT prowl_sp_0; " + state_sql_;
  ScriptResult r = run_script(conn_, sql);
  if (r.error) {
    std::string message = result_message(r.error.get(), conn_);
    PQclear(PQexec(conn_, "ROLLBACK"));
    return Status::environment(
        fmt::format("postgres '{}': cannot begin a transaction: {}", dsn_, message));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  savepoint_setval_.assign(1, state->setval);
  depth_ = 0;
  return Status::ok();
}

Status PostgresSystem::push() {
  PROWL_CHECK(options_.mode == PostgresMode::kSavepoint && begun_,
              "postgres '" + dsn_ + "': push() needs savepoint mode, after begin()");
  if (Status st = usable_transaction(); !st) return st;
  ScriptResult r =
      run_script(conn_, fmt::format("SAVEPOINT prowl_sp_{}; {}", depth_ + 1, state_sql_));
  if (r.error) {
    return Status::environment(fmt::format("postgres '{}': cannot set a savepoint: {}", dsn_,
                                           result_message(r.error.get(), conn_)));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  ++depth_;
  savepoint_setval_.push_back(std::move(state->setval));
  return Status::ok();
}

Status PostgresSystem::rollback(std::size_t depth) {
  PROWL_CHECK(options_.mode == PostgresMode::kSavepoint && begun_,
              "postgres '" + dsn_ + "': rollback() needs savepoint mode, after begin()");
  PROWL_CHECK(depth <= depth_, "postgres '" + dsn_ + "': rollback above the current savepoint");
  return roll_back_to(depth);
}

Status PostgresSystem::roll_back_to(std::size_t depth) {
  // An aborted transaction can still roll back to a savepoint; an ended one cannot.
  const auto status = PQtransactionStatus(conn_);
  if (status != PQTRANS_INTRANS && status != PQTRANS_INERROR) return usable_transaction();
  // Sequences do not roll back with the transaction: set them back too.
  std::string sql = fmt::format("ROLLBACK TO SAVEPOINT prowl_sp_{}", depth);
  if (!savepoint_setval_[depth].empty()) sql += "; " + savepoint_setval_[depth];
  ScriptResult r = run_script(conn_, sql);
  if (r.error) {
    return Status::environment(fmt::format("postgres '{}': cannot roll back to savepoint {}: {}",
                                           dsn_, depth, result_message(r.error.get(), conn_)));
  }
  depth_ = depth;
  savepoint_setval_.resize(depth + 1);
  return Status::ok();
}

Result<bool> PostgresSystem::guarded(const std::function<void()>& fn) {
  PROWL_CHECK(options_.mode == PostgresMode::kSavepoint && begun_,
              "postgres '" + dsn_ + "': guarded() needs savepoint mode, after begin()");
  if (Status st = usable_transaction(); !st) return st;
  PgResult set(PQexec(conn_, "SAVEPOINT prowl_guard"));
  if (!ok(set.get())) return error("cannot set a savepoint for an action");
  fn();
  const bool aborted = PQtransactionStatus(conn_) == PQTRANS_INERROR;
  if (!aborted) {
    if (Status st = usable_transaction(); !st) return st;
  }
  PgResult end(PQexec(conn_, aborted ? "ROLLBACK TO SAVEPOINT prowl_guard; "
                                       "RELEASE SAVEPOINT prowl_guard"
                                     : "RELEASE SAVEPOINT prowl_guard"));
  if (!ok(end.get())) return error("cannot release the savepoint of an action");
  return !aborted;
}

// ---- Snapshot mode.

Result<std::shared_ptr<const PostgresSystem::Image>> PostgresSystem::read_image() {
  // One read-only transaction sees every table at one point in time; the state (WAL position,
  // sequences) is read last, so that whatever the reads themselves wrote (pruned pages) is
  // behind it.
  std::string sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;";
  for (const Table& t : tables_) {
    sql += fmt::format(" COPY (SELECT {} FROM {}{}) TO STDOUT (FORMAT binary);", t.columns,
                       t.partitioned ? "" : "ONLY ", t.qualified);
  }
  sql += " " + state_sql_ + "; COMMIT";
  auto image = std::make_shared<Image>();
  image->data.resize(tables_.size());
  image->rows.resize(tables_.size());
  ScriptResult r = run_script(conn_, sql, {}, &image->data, &image->rows);
  if (r.error) {
    std::string message = result_message(r.error.get(), conn_);
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
    return Status::environment(
        fmt::format("postgres '{}': cannot save the tables: {}", dsn_, message));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  image->setval = state->setval;
  std::shared_ptr<const Image> result = std::move(image);
  current_ = result;
  current_state_ = std::move(*state);
  return result;
}

Status PostgresSystem::write_image(const std::shared_ptr<const Image>& image) {
  // Skip the write when the database holds this image and nothing was written since: any write
  // in the cluster moves the WAL insert position, except nextval(), which logs only every few
  // values, so the sequences are compared too. Unlogged tables write no WAL: never skipped.
  if (current_ == image && !unlogged_) {
    auto now = state_now();
    if (!now) return now.status();
    if (now->wal == current_state_.wal && now->setval == current_state_.setval) {
      ++skipped_restores_;
      return Status::ok();
    }
  }
  current_.reset();
  std::string sql = fmt::format("BEGIN; SET LOCAL lock_timeout = {};", options_.lock_timeout_ms);
  // Restoring rows must not fire the tables' triggers (an audit trigger would log the restore)
  // nor check foreign keys row by row: the replica role skips both, for a superuser.
  if (superuser_) sql += " SET LOCAL session_replication_role = replica;";
  sql += " TRUNCATE";
  for (std::size_t i = 0; i < tables_.size(); ++i) {
    sql += fmt::format("{} {}{}", i > 0 ? "," : "", tables_[i].partitioned ? "" : "ONLY ",
                       tables_[i].qualified);
  }
  sql += ";";
  std::vector<const std::string*> data;
  for (std::size_t i : copy_order_) {
    if (image->rows[i] == 0) continue;
    sql += fmt::format(" COPY {} ({}) FROM STDIN (FORMAT binary);", tables_[i].qualified,
                       tables_[i].columns);
    data.push_back(&image->data[i]);
  }
  if (!image->setval.empty()) sql += " " + image->setval + ";";
  sql += " COMMIT; " + state_sql_;
  ScriptResult r = run_script(conn_, sql, data);
  if (r.error) {
    std::string message = result_message(r.error.get(), conn_);
    const bool locked = sqlstate(r.error.get()) == "55P03";
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
    if (locked) {
      return Status::environment(fmt::format(
          "postgres '{}': cannot restore a snapshot: the declared tables stayed locked for {} ms "
          "(the service must be idle, with no open transaction, between requests): {}",
          dsn_, options_.lock_timeout_ms, message));
    }
    return Status::environment(
        fmt::format("postgres '{}': cannot restore a snapshot: {}", dsn_, message));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  current_ = image;
  current_state_ = std::move(*state);
  return Status::ok();
}

Result<SnapshotHandle> PostgresSystem::save() {
  PROWL_CHECK(options_.mode == PostgresMode::kSnapshot,
              "postgres '" + dsn_ + "': save() needs snapshot mode");
  std::shared_ptr<const Image> image;
  if (current_ && !unlogged_) {
    // Unchanged since prowl wrote or read an image: share it.
    auto now = state_now();
    if (!now) return now.status();
    if (now->wal == current_state_.wal && now->setval == current_state_.setval) image = current_;
  }
  if (!image) {
    auto read = read_image();
    if (!read) return read.status();
    image = std::move(*read);
  }
  SnapshotHandle h;
  if (!free_.empty()) {
    h = free_.back();
    free_.pop_back();
    images_[h] = std::move(image);
  } else {
    h = static_cast<SnapshotHandle>(images_.size());
    images_.push_back(std::move(image));
  }
  return h;
}

Status PostgresSystem::restore(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle] != nullptr,
              "postgres '" + dsn_ + "': restore of an unknown snapshot");
  return write_image(images_[handle]);
}

void PostgresSystem::release(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle] != nullptr,
              "postgres '" + dsn_ + "': release of an unknown snapshot");
  images_[handle].reset();
  free_.push_back(handle);
}

std::size_t PostgresSystem::live_snapshots() const { return images_.size() - free_.size(); }

// ---- Both modes.

Status PostgresSystem::begin() {
  PROWL_CHECK(!begun_, "postgres '" + dsn_ + "': begin() called twice");
  if (options_.mode == PostgresMode::kSavepoint) {
    if (Status st = begin_transaction(); !st) return st;
  } else {
    // The schema may have changed since open().
    if (Status st = check_foreign_keys(); !st) return st;
    auto image = read_image();
    if (!image) return image.status();
    initial_ = std::move(*image);
  }
  begun_ = true;
  return Status::ok();
}

Status PostgresSystem::reset() {
  PROWL_CHECK(begun_, "postgres '" + dsn_ + "': reset before begin()");
  if (options_.mode == PostgresMode::kSavepoint) return roll_back_to(0);
  return write_image(initial_);
}

Status PostgresSystem::end() {
  if (!begun_) return Status::ok();
  Status result;
  if (options_.mode == PostgresMode::kSavepoint) {
    // An aborted transaction still rolls back; one the code under test ended cannot.
    const auto status = PQtransactionStatus(conn_);
    const bool open = status == PQTRANS_INTRANS || status == PQTRANS_INERROR;
    result = open ? Status::ok() : usable_transaction();
    // The sequences go back after the transaction: setval() is not rolled back.
    std::string sql = open ? "ROLLBACK; " : "";
    sql += savepoint_setval_.empty() || savepoint_setval_[0].empty() ? "SELECT 1"
                                                                     : savepoint_setval_[0];
    ScriptResult r = run_script(conn_, sql);
    if (r.error && result) {
      result = Status::environment(fmt::format("postgres '{}': cannot end the transaction: {}",
                                               dsn_, result_message(r.error.get(), conn_)));
    }
    depth_ = 0;
    savepoint_setval_.clear();
  } else {
    result = write_image(initial_);
    images_.clear();
    free_.clear();
    initial_.reset();
    current_.reset();
  }
  begun_ = false;
  return result;
}

}  // namespace prowl
