// params: in model files: an action ranges over values, each combination an action of its own
// whose templates and conditions read the values; bad domains fail with FILE:LINE:COL and a hint.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prowl/modelfile/http_model.hpp"
#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile {
namespace {

constexpr std::string_view kHead =
    "name: library\n"
    "base_url: http://127.0.0.1:8080\n"
    "systems:\n"
    "  - {name: db, type: sqlite, path: library.db}\n"
    "actions:\n";

std::string message(std::string_view actions) {
  auto spec = parse_model(std::string(kHead) + std::string(actions), "m.yaml", "/models");
  EXPECT_FALSE(spec) << "parsed";
  return spec ? std::string() : spec.status().message();
}

TEST(ModelFileParams, TwoMembersTimesTwoBooksInOneActionWhoseRequestReadsThem) {
  auto spec = parse_model(std::string(kHead) +
                              "  - name: borrow\n"
                              "    params:\n"
                              "      member: {one_of: [ann, \"bo b\"]}\n"
                              "      book: {int: [1, 2]}\n"
                              "    method: POST\n"
                              "    path: /members/${member}/loans\n"
                              "    body: {book: \"${book}\"}\n"
                              "    when: {not_equals: {book: 3}}\n",
                          "m.yaml", "/models");
  ASSERT_TRUE(spec) << spec.status().message();
  ASSERT_EQ(spec->actions.size(), 1u);
  ASSERT_EQ(spec->actions[0].params.size(), 2u);
  EXPECT_EQ(spec->actions[0].params[0].first, "member");
  EXPECT_EQ(spec->actions[0].params[1].second.values.size(), 2u);
  const HttpModel model(*spec);
  std::vector<std::string> names;
  for (const Action& a : model.actions()) {
    names.push_back(a.name);
    EXPECT_TRUE(a.requires_keys.empty()) << a.name << ": parameters are not context keys";
    EXPECT_EQ(a.preconditions.size(), 1u) << a.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "borrow(member=ann, book=1)", "borrow(member=ann, book=2)",
                       "borrow(member=\"bo b\", book=1)", "borrow(member=\"bo b\", book=2)"}));
  ASSERT_EQ(model.families().size(), 1u);
  EXPECT_EQ(model.families()[0].count(), 4u);
}

TEST(ModelFileParams, BadDomainsNameTheLineAndTheFix) {
  const std::string hint =
      "\n  hint: write params: {NAME: {one_of: [1, 2, 3]}}, {NAME: {int: [LO, HI]}}, {NAME: "
      "{from_sql: SELECT ...}} or {NAME: {from_context: [KEY, ...]}}";
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {between: [1, 2]}}\n"),
            "m.yaml:8:17: action 'a': params n: unknown domain 'between'" + hint);
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {int: [1]}}\n"),
            "m.yaml:8:23: action 'a': params n int is not [LO, HI]" + hint);
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {int: [3, 1]}}\n"),
            "m.yaml:8:27: action 'a': params n int HI must lie in 3..65538, not 1");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {one_of: [1, 1]}}\n"),
            "m.yaml:8:30: action 'a': params n one_of: 1 is listed twice");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {one_of: [1.5]}}\n"),
            "m.yaml:8:27: action 'a': params n one_of: a value is a whole number or a string\n"
            "  hint: quote other values to make them strings");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {int: [0, 999]}, m: {int: [0, 999]}}\n"),
            "m.yaml:8:37: action 'a': its parameters make more than 65536 combinations\n"
            "  hint: give the parameters fewer values");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {one_of: [1, \"1\"]}}\n"),
            "m.yaml:8:30: action 'a': params n one_of: 1 is listed twice");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {int: [0, 1]}, n: {int: [0, 2]}}\n"),
            "m.yaml:8:32: action 'a': params: parameter 'n' is declared twice");
  // A key that is not a name is an error, not a crash.
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {[int]: [0, 1]}}\n")
                .rfind("m.yaml:8:18: action 'a': params n key ", 0),
            0u);
  // A parameter is known to its own action only.
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a/${n}\n"
                    "    params: {n: {int: [0, 1]}}\n"
                    "  - name: b\n"
                    "    path: /b/${n}\n")
                .rfind("m.yaml:10:11: action 'b': path: context key 'n' is never bound: no "
                       "action binds it",
                       0),
            0u);
}

TEST(ModelFileParams, StateGivenDomainsSayWhereTheirValuesComeFrom) {
  auto spec = parse_model(std::string(kHead) +
                              "  - name: make\n"
                              "    path: /books\n"
                              "    bind: {book_id: /id}\n"
                              "  - name: lend\n"
                              "    params:\n"
                              "      book: {from_sql: \"SELECT id FROM books\", places: 3}\n"
                              "      member: {from_context: [book_id, other]}\n"
                              "    path: /books/${book}/lend/${member}\n"
                              "  - name: keep\n"
                              "    params: {book: {from_context: book_id}}\n"
                              "    path: /books/${book}\n"
                              "    bind: {other: /id}\n",
                          "m.yaml", "/models");
  ASSERT_TRUE(spec) << spec.status().message();
  const ActionSpec& lend = spec->actions[1];
  ASSERT_EQ(lend.state_sources.size(), 2u);
  EXPECT_EQ(lend.state_sources[0].param, "book");
  EXPECT_EQ(lend.state_sources[0].sql, "SELECT id FROM books");
  EXPECT_EQ(lend.state_sources[0].database, "db");  // the only one
  EXPECT_EQ(lend.state_sources[1].param, "member");
  EXPECT_EQ(lend.state_sources[1].keys, (std::vector<std::string>{"book_id", "other"}));
  EXPECT_EQ(lend.params[0].second.slots, 3u);
  EXPECT_EQ(lend.params[1].second.slots, 2u);  // from_context: one place per key by default
  EXPECT_EQ(spec->actions[2].state_sources[0].keys, (std::vector<std::string>{"book_id"}));
  const HttpModel model(*spec);
  ASSERT_EQ(model.actions().size(), 1u + 3 * 2 + 1);
  EXPECT_EQ(model.actions()[1].name, "lend(book=#0, member=#0)");
  EXPECT_EQ(model.actions()[6].name, "lend(book=#2, member=#1)");
  EXPECT_EQ(model.actions()[7].name, "keep(book=#0)");
  EXPECT_TRUE(model.has_state_domains());
  EXPECT_EQ(model.families()[0].params[0].second.source, "from_sql: SELECT id FROM books");
  EXPECT_EQ(model.families()[0].params[1].second.source, "from_context: book_id, other");
}

TEST(ModelFileParams, BadStateGivenDomainsNameTheLineAndTheFix) {
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {from_sql: \"SELECT 1\", from_context: [k]}}\n"),
            "m.yaml:8:17: action 'a': params n has both from_sql: and from_context:\n"
            "  hint: give each parameter one source of values");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {from_context: [k], database: db}}\n"),
            "m.yaml:8:17: action 'a': params n: database: goes with from_sql:, not from_context:");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {from_sql: \"SELECT 1\", places: 300}}\n"),
            "m.yaml:8:48: action 'a': params n: places must lie in 1..256, not 300");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {from_sql: \"SELECT 1\", limit: 3}}\n"),
            "m.yaml:8:40: unknown key 'limit' in action 'a': params n\n"
            "  hint: the keys here are: from_sql, from_context, database, places");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {from_sql: \"SELECT 1\", database: dbb}}\n"),
            "m.yaml:8:17: action 'a': parameter 'n': no database system is named 'dbb'\n"
            "  hint: did you mean 'db'?");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {from_context: []}}\n"),
            "m.yaml:8:32: action 'a': params n: from_context lists no context key\n"
            "  hint: write from_context: [KEY, ...] with the keys whose values it takes");
  EXPECT_EQ(message("  - name: a\n"
                    "    path: /a\n"
                    "    params: {n: {from_sql: \"\"}}\n"),
            "m.yaml:8:28: action 'a': params n: from_sql is empty\n  hint: write params: {NAME: "
            "{one_of: [1, 2, 3]}}, {NAME: {int: [LO, HI]}}, {NAME: {from_sql: SELECT ...}} or "
            "{NAME: {from_context: [KEY, ...]}}");
}

}  // namespace
}  // namespace prowl::modelfile
