#include <libpq-fe.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "postgres_detail.hpp"

namespace prowl::detail {

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

ScriptResult run_script(PGconn* conn, const std::string& sql,
                        const std::vector<const std::string*>& copy_in,
                        std::vector<std::string>* copy_out, std::vector<std::uint64_t>* rows_out) {
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

}  // namespace prowl::detail
