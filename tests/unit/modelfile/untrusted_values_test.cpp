// What the loader refuses so that values stay data: ${raw:key} anywhere but a path or a query
// value, and header values whose own text (or environment variable) holds a line break or a NUL.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile {
namespace {

// Lines 1-5, then an action at lines 6-8 that binds order_id.
constexpr std::string_view kHead =
    "name: shop\n"
    "base_url: http://127.0.0.1:8080\n"
    "systems:\n"
    "  - {name: db, type: sqlite, path: shop.db}\n"
    "actions:\n"
    "  - name: create_order\n"
    "    path: /orders\n"
    "    bind: {order_id: /id}\n";

std::string message(std::string_view rest) {
  auto spec = parse_model(std::string(kHead) + std::string(rest), "m.yaml", "/models");
  EXPECT_FALSE(spec.is_ok());
  if (spec.is_ok()) return {};
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalid);
  return spec.status().message();
}

constexpr std::string_view kRawHint =
    "  hint: ${raw:KEY} puts a value into a URL without percent-encoding it; here write "
    "${order_id}";

TEST(RawReference, InAHeaderItIsRefusedSayingWhereItIsAllowed) {
  EXPECT_EQ(message("  - name: pay\n"
                    "    path: /pay\n"
                    "    headers: {X-Ref: \"${raw:order_id}\"}\n"),
            "m.yaml:11:22: action 'pay': headers 'X-Ref': ${raw:order_id} can only be used in a "
            "path or a query value\n" +
                std::string(kRawHint));
}

TEST(RawReference, InABodyItIsRefusedSayingWhereItIsAllowed) {
  EXPECT_EQ(message("  - name: pay\n"
                    "    path: /pay\n"
                    "    body: {ref: \"x${raw:order_id}\"}\n"),
            "m.yaml:11:17: action 'pay': body: ${raw:order_id} can only be used in a path or a "
            "query value\n" +
                std::string(kRawHint));
}

TEST(RawReference, InSqlItIsRefusedSayingWhereItIsAllowed) {
  EXPECT_EQ(message("invariants:\n"
                    "  - name: paid\n"
                    "    sql: SELECT id FROM orders WHERE id = ${raw:order_id}\n"),
            "m.yaml:11:10: invariant 'paid': sql: ${raw:order_id} can only be used in a path or "
            "a query value\n" +
                std::string(kRawHint));
}

TEST(RawReference, InACheckValueItIsRefusedSayingWhereItIsAllowed) {
  EXPECT_EQ(message("invariants:\n"
                    "  - name: same\n"
                    "    get: /orders/${order_id}\n"
                    "    checks: [{pointer: /id, equals: \"${raw:order_id}\"}]\n"),
            "m.yaml:12:37: invariant 'same': check: equals: ${raw:order_id} can only be used in "
            "a path or a query value\n" +
                std::string(kRawHint));
}

TEST(RawReference, InPathsAndQueryValuesItIsAKeyOfTheTemplate) {
  auto spec = parse_model(std::string(kHead) +
                              "  - name: follow\n"
                              "    path: ${raw:order_id}/next\n"
                              "    query: {from: \"${raw:order_id}\"}\n"
                              "observe:\n"
                              "  - {name: o, get: \"${raw:order_id}\"}\n"
                              "invariants:\n"
                              "  - {name: i, get: \"/x/${raw:order_id}\"}\n",
                          "m.yaml", "/models");
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  using K = Template::Part::Kind;
  const RequestSpec& r = spec->actions[1].request;
  EXPECT_EQ(r.path.parts(),
            (std::vector<Template::Part>{{K::kRaw, "order_id"}, {K::kText, "/next"}}));
  EXPECT_EQ(r.query[0].second.parts(), (std::vector<Template::Part>{{K::kRaw, "order_id"}}));
  EXPECT_EQ(*spec->observations[0].path.first_raw(), "order_id");
  EXPECT_EQ(*spec->invariants[0].path.first_raw(), "order_id");
}

TEST(RawReference, NamingAnUnboundKeyFailsLikeAnyReference) {
  EXPECT_EQ(message("  - name: follow\n"
                    "    path: ${raw:next}\n"),
            "m.yaml:10:11: action 'follow': path: context key 'next' is never bound: no action "
            "binds it and context: does not set it\n"
            "  hint: the keys that are bound: order_id");
}

TEST(HeaderValue, ALineBreakInTheModelFilesTextIsRefused) {
  EXPECT_EQ(message("  - name: pay\n"
                    "    path: /pay\n"
                    "    headers: {X-Ref: \"a\\r\\nX-Admin: 1\"}\n"),
            "m.yaml:11:22: action 'pay': headers 'X-Ref': the value holds a line break, which a "
            "header cannot carry\n"
            "  hint: a header value is one line: look for \\r, \\n or \\0 in double quotes, or a "
            "| or > block");
}

TEST(HeaderValue, ANulInTheModelFilesTextIsRefused) {
  EXPECT_EQ(message("  - name: pay\n"
                    "    path: /pay\n"
                    "    headers: {X-Ref: \"a\\0b ${order_id}\"}\n"),
            "m.yaml:11:22: action 'pay': headers 'X-Ref': the value holds a NUL character, which "
            "a header cannot carry\n"
            "  hint: a header value is one line: look for \\r, \\n or \\0 in double quotes, or a "
            "| or > block");
}

TEST(HeaderValue, ABlockScalarInAModelWideHeaderIsRefused) {
  auto spec = parse_model(
      "base_url: http://127.0.0.1:1\n"
      "headers:\n"
      "  X-Note: |\n"
      "    two\n"
      "    lines\n",
      "m.yaml", "/models");
  ASSERT_FALSE(spec.is_ok());
  EXPECT_EQ(spec.status().message(),
            "m.yaml:3:11: headers 'X-Note': the value holds a line break, which a header cannot "
            "carry\n"
            "  hint: a header value is one line: look for \\r, \\n or \\0 in double quotes, or a "
            "| or > block");
}

TEST(HeaderValue, AnEnvironmentVariableWithALineBreakIsRefusedByName) {
  ::setenv("PROWL_TEST_BROKEN_TOKEN", "t0ken\nX-Admin: 1", 1);
  EXPECT_EQ(message("  - name: pay\n"
                    "    path: /pay\n"
                    "    headers: {Authorization: \"Bearer ${env:PROWL_TEST_BROKEN_TOKEN}\"}\n"),
            "m.yaml:11:30: action 'pay': headers 'Authorization': environment variable "
            "PROWL_TEST_BROKEN_TOKEN holds a line break, which a header cannot carry");
  ::unsetenv("PROWL_TEST_BROKEN_TOKEN");
}

TEST(HeaderValue, ProblemsAreNamed) {
  EXPECT_EQ(header_value_problem("plain value"), "");
  EXPECT_EQ(header_value_problem("a\rb"), "a line break");
  EXPECT_EQ(header_value_problem("a\nb"), "a line break");
  EXPECT_EQ(header_value_problem(std::string_view("a\0b", 3)), "a NUL character");
}

}  // namespace
}  // namespace prowl::modelfile
