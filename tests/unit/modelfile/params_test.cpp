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
      "\n  hint: write params: {NAME: {one_of: [1, 2, 3]}} or {NAME: {int: [LO, HI]}}";
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

}  // namespace
}  // namespace prowl::modelfile
