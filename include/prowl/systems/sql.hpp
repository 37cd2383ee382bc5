// SqlRows: the result of an ad-hoc query run by a database system (SqliteSystem, PostgresSystem)
// for invariants and observations written as SQL. Values are text as the database renders them;
// NULL is nullopt.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace prowl {

struct SqlRows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

}  // namespace prowl
