// PostgresSystem: observation, describe() and query(), over the libpq pipeline they share.
#include "prowl/systems/postgres.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"

#include "db_guard_detail.hpp"
#include "postgres_detail.hpp"

namespace prowl {

using detail::ok;
using detail::one_line;
using detail::PgResult;
using detail::put_be32;
using detail::result_message;
using detail::sqlstate;

namespace {

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
    // A value is one line of a state's description: its line breaks and control characters are
    // escaped, so it cannot start a line of its own (escape_text).
    out += '\'';
    for (char c : escape_text(text)) {
      if (c == '\'') out += '\'';
      out += c;
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

}  // namespace
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
  if (recording_) detail::abandon_record(*guard_);
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

const std::vector<PostgresSystem::Command>& PostgresSystem::observe_commands(
    std::size_t* first) const {
  if (options_.mode == PostgresMode::kSavepoint && begun_) {
    *first = queries_observed_ ? 2 : 1;  // after SAVEPOINT (and SET LOCAL)
    return observe_guarded_;
  }
  if (read_only_session_ || !queries_observed_) {
    *first = 0;
    return observe_plain_;
  }
  *first = 1;  // after BEGIN READ ONLY
  return observe_read_only_;
}

Status PostgresSystem::read_observed(bool binary, Batch& batch) const {
  if (Status st = usable_transaction(); !st) return st;
  const bool guard = options_.mode == PostgresMode::kSavepoint && begun_;
  std::size_t first = 0;
  const std::vector<Command>& commands = observe_commands(&first);
  for (int attempt = 0;; ++attempt) {
    if (!run_pipeline(conn_, commands, binary ? 1 : 0, batch)) {
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
    } else if (!guard && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      PgResult undo(PQexec(conn_, "ROLLBACK"));
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
    // A query that writes only on some rows got past open()'s check.
    if (sqlstate(failed) == "25006") {
      return Status::invalid(fmt::format("postgres '{}': {} '{}' writes to the database: {}", dsn_,
                                         kind, o.name, o.sql));
    }
    return Status::environment(fmt::format("postgres '{}': {} '{}' failed: {}; SQL: {}", dsn_, kind,
                                           o.name, message, o.sql));
  }
}

Status PostgresSystem::observe(Hasher& hasher) const {
  Batch batch;
  if (Status st = read_observed(true, batch); !st) return st;
  std::size_t first = 0;
  observe_commands(&first);
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
  std::size_t first = 0;
  observe_commands(&first);
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
  // Read-only: inside prowl's transaction under a read-only savepoint that is rolled back, so that
  // nothing the statement did stays; else in a read-only transaction (snapshot mode's session is
  // read-only from begin() to end()).
  const bool guard = options_.mode == PostgresMode::kSavepoint && begun_;
  std::vector<Command> commands;
  std::size_t statement = 0;
  if (guard) {
    commands = {{"SAVEPOINT prowl_query", false},
                {"SET LOCAL transaction_read_only = on", false},
                {std::string(sql), false},
                {"ROLLBACK TO SAVEPOINT prowl_query", false},
                {"RELEASE SAVEPOINT prowl_query", false}};
    statement = 2;
  } else if (read_only_session_) {
    commands = {{std::string(sql), false}};
  } else {
    commands = {{"BEGIN READ ONLY", false}, {std::string(sql), false}, {"COMMIT", false}};
    statement = 1;
  }
  Batch batch;
  if (!run_pipeline(conn_, commands, 0, batch)) {
    return error(fmt::format("query failed; SQL: {}", sql));
  }
  for (const PgResult& r : batch.results) {
    if (ok(r.get())) continue;
    std::string message = result_message(r.get(), conn_);
    const bool writes = sqlstate(r.get()) == "25006";
    if (guard && PQtransactionStatus(conn_) == PQTRANS_INERROR) {
      PgResult undo(
          PQexec(conn_, "ROLLBACK TO SAVEPOINT prowl_query; RELEASE SAVEPOINT prowl_query"));
      if (!ok(undo.get())) return error("cannot recover from a failed query");
    } else if (!guard && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      PgResult undo(PQexec(conn_, "ROLLBACK"));
      if (!ok(undo.get())) return error("cannot recover from a failed query");
    }
    if (writes) {
      return Status::invalid(
          fmt::format("postgres '{}': query writes to the database: {}", dsn_, sql));
    }
    return Status::environment(
        fmt::format("postgres '{}': query failed: {}; SQL: {}", dsn_, message, sql));
  }
  const PGresult* r = batch.results[statement].get();
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

}  // namespace prowl
