// library_api: a lending library kept in a SQLite file, with seeded sequence bugs for prowl to
// find (README.md). main.cpp serves handle() over HTTP.
//
// The intended rules: a member borrows a book when its copy is on the shelf, the member is not
// suspended and no other member has reserved it; a reservation holds the book for its member for
// two days; a member with open loans cannot be suspended, and suspension cancels the member's
// reservations. Three seeded bugs break them (see the "Seeded bug" comments in library.cpp).
//
// The service keeps nothing in memory: every request opens the file, runs in one transaction and
// closes it, so prowl may rewrite the file between any two requests.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace library {

struct Reply {
  int status = 200;
  nlohmann::json body = nlohmann::json::object();
};

// Creates the tables and the seed rows (members 1 and 2, books 1 and 2 with one copy each, day 0)
// when the file has none. Throws std::runtime_error when the file cannot be opened or written.
void init(const std::string& db_path);

// Answers one request on its own connection to the file. Never throws: a failure it did not
// foresee is a 500 with {"error": "internal error: ..."}.
Reply handle(const std::string& db_path, std::string_view method, std::string_view path,
             std::string_view body);

}  // namespace library
