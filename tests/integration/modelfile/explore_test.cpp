// Model files explored end to end against a real HTTP service: the cpp-httplib shop of
// shop_server.hpp on a loopback port picked at run time, keeping its orders in a real SQLite file
// that the model's sqlite system snapshots and restores.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "integration/modelfile/shop_server.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/modelfile/http_model.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/json.hpp"
#include "prowl/strategy/factory.hpp"

namespace prowl::modelfile {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kToken = "s3cret-token-42";

// The model's first lines: the service, its token, its database. run() replaces @URL@, @DB@ and
// @TABLES@.
constexpr std::string_view kHead = R"(name: shop
base_url: @URL@
timeout: 2s
headers:
  Authorization: "Bearer ${env:PROWL_TEST_SHOP_TOKEN}"
context:
  qty: 2
systems:
  - name: db
    type: sqlite
    path: @DB@
    tables: @TABLES@
)";

// Creating an order (once per path), paying and refunding it.
constexpr std::string_view kOrderActions = R"(actions:
  - name: create_order
    method: POST
    path: /orders
    body: {item: pen, qty: "${qty}"}
    ok: 201
    rejected: 409
    bind: {order_id: /id}
    max_per_path: 1
  - name: pay
    method: POST
    path: /orders/${order_id}/pay
    ok: 200
    rejected: 409
  - name: refund
    method: POST
    path: /orders/${order_id}/refund
    ok: 200
    rejected: 409
)";

std::string replace_all(std::string text, std::string_view from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

class ModelFileExplore : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("PROWL_TEST_SHOP_TOKEN", kToken, 1);
    std::string tmpl = (std::filesystem::temp_directory_path() / "prowl-modelfile-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    db_ = (dir_ / "shop.db").string();
    server_ = std::make_unique<testing::ShopServer>(db_, kToken);
  }
  void TearDown() override {
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string url(const std::string& path) const { return server_->url() + path; }

  // Loads the model text (head + rest) and explores it with BFS, seed 1.
  Result<RunReport> run(std::string_view rest, Options options = {}, std::string base_url = {},
                        std::string tables = "[orders]") {
    std::string text = std::string(kHead) + std::string(rest);
    text = replace_all(text, "@URL@", base_url.empty() ? server_->url() : base_url);
    text = replace_all(text, "@DB@", model_db_.empty() ? db_ : model_db_);
    text = replace_all(text, "@TABLES@", tables);
    auto spec = parse_model(text, "shop.yaml", dir_.string());
    if (!spec) return spec.status();
    model_ = std::make_unique<HttpModel>(std::move(*spec));
    auto strategy = make_strategy("bfs", *model_, /*seed=*/1);
    if (!strategy) return strategy.status();
    options.seed = 1;
    return explore(*model_, **strategy, std::move(options));
  }

  std::filesystem::path dir_;
  std::string db_;
  std::string model_db_;  // the file the model names, when not db_
  std::unique_ptr<testing::ShopServer> server_;
  std::unique_ptr<HttpModel> model_;
};

Options max_depth(std::uint32_t depth) {
  Options o;
  o.max_depth = depth;
  return o;
}

std::vector<std::string> step_names(const Finding& f) {
  std::vector<std::string> out;
  for (const TraceStep& s : f.steps) out.push_back(s.action);
  return out;
}

TEST_F(ModelFileExplore, BfsFindsTheDoubleRefundWithItsShortestPath) {
  auto report = run(std::string(kOrderActions) + R"(invariants:
  - name: refund_at_most_paid
    severity: critical
    sql: SELECT id, paid, refunded FROM orders WHERE refunded > paid
)",
                    max_depth(4));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  EXPECT_EQ(report->restore_mode, RestoreMode::kSnapshot);
  // Empty, new, paid, refunded once, refunded twice; a refused pay or refund leads back.
  EXPECT_EQ(report->stats.states, 5u);
  EXPECT_EQ(report->stats.transitions, 7u);
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kInvariant);
  EXPECT_EQ(f.name, "refund_at_most_paid");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_TRUE(f.confirmed);
  EXPECT_EQ(f.message, "1 offending row: (id=1, paid=10, refunded=20)");
  ASSERT_EQ(step_names(f), (std::vector<std::string>{"create_order", "pay", "refund", "refund"}));
  EXPECT_EQ(f.steps[0].detail,
            "POST " + url("/orders") + R"( {"item":"pen","qty":2} -> 201 {"id":1,"status":"new"})");
  EXPECT_EQ(f.steps[1].detail,
            "POST " + url("/orders/1/pay") + R"( -> 200 {"id":1,"status":"paid"})");
  EXPECT_EQ(f.steps[3].detail,
            "POST " + url("/orders/1/refund") + R"( -> 200 {"id":1,"status":"refunded"})");
  EXPECT_EQ(f.state, "db: orders: (1, 'pen', 2, 'refunded', 10, 20)");
  // The database is left as the run found it.
  EXPECT_EQ(server_->scalar("SELECT count(*) FROM orders"), 0);
}

TEST_F(ModelFileExplore, SqlInvariantsRenderContextKeysAsLiterals) {
  auto report = run(std::string(kOrderActions) + R"(invariants:
  - name: this_order_refunded_at_most_paid
    when: {bound: [order_id]}
    sql: SELECT status FROM orders WHERE id = ${order_id} AND refunded > paid
)",
                    max_depth(4));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  EXPECT_EQ(report->findings[0].message, "1 offending row: (status=refunded)");
  EXPECT_EQ(report->findings[0].steps.size(), 4u);
}

TEST_F(ModelFileExplore, AnSqlInvariantThatCannotRunIsAModelError) {
  auto report = run(std::string(kOrderActions) + R"(invariants:
  - name: broken
    sql: SELECT id FROM nope WHERE id = ${order_id}
)");
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(report.status().message(),
            "shop.yaml:33:5: invariant 'broken': its SQL fails on database 'db': sqlite '" + db_ +
                "': query failed: no such table: nope (SQL logic error); SQL: SELECT id FROM nope "
                "WHERE id = NULL");
  // Nothing was sent: the database is untouched.
  EXPECT_EQ(server_->scalar("SELECT count(*) FROM orders"), 0);
}

TEST_F(ModelFileExplore, HttpInvariantsCompareBoundValuesAndPointers) {
  auto report = run(std::string(kOrderActions) + R"(invariants:
  - name: order_is_consistent
    get: /orders/${order_id}
    checks:
      - {pointer: /qty, equals: "${qty}"}
      - {pointer: /item, equals: pen}
      - {pointer: /refunded, at_most: {pointer: /paid}}
)",
                    max_depth(4));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.name, "order_is_consistent");
  EXPECT_EQ(f.severity, Severity::kHigh);
  EXPECT_EQ(f.message,
            "GET " + url("/orders/1") + ": '/refunded' is 20, expected at most " + "'/paid' = 10");
  EXPECT_EQ(step_names(f), (std::vector<std::string>{"create_order", "pay", "refund", "refund"}));
}

TEST_F(ModelFileExplore, AnHttpObservationIsPartOfTheState) {
  // The sqlite system observes no table: only GET /stats tells the states apart.
  const std::string actions = R"(actions:
  - name: create_order
    method: POST
    path: /orders
    body: {item: pen, qty: 1}
    ok: 201
    rejected: 409
)";
  auto blind = run(actions, {}, {}, "[]");
  ASSERT_TRUE(blind.is_ok()) << blind.status().message();
  EXPECT_EQ(blind->stats.states, 1u);
  EXPECT_EQ(blind->stats.transitions, 1u);

  auto seeing = run(R"(observe:
  - {name: orders, get: /stats, pointer: /orders}
)" + actions,
                    {}, {}, "[]");
  ASSERT_TRUE(seeing.is_ok()) << seeing.status().message();
  // 0, 1, 2 and 3 orders; the fourth is refused (409) and leads back to 3.
  EXPECT_EQ(seeing->stats.states, 4u);
  EXPECT_EQ(seeing->stats.transitions, 4u);
  EXPECT_EQ(seeing->coverage[0].rejected, 1u);
  EXPECT_TRUE(seeing->findings.empty());
}

TEST_F(ModelFileExplore, AFiveHundredIsAnActionErrorWithoutARule) {
  auto report = run(std::string(kOrderActions) + R"(  - name: cancel
    method: POST
    path: /orders/${order_id}/cancel
    ok: 200
    rejected: 409
)",
                    max_depth(3));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.name, "cancel");
  EXPECT_EQ(f.message, "server error 500 from POST /orders/1/cancel");
  ASSERT_EQ(step_names(f), (std::vector<std::string>{"create_order", "pay", "cancel"}));
  EXPECT_EQ(f.steps[2].outcome, "error");
  EXPECT_EQ(f.steps[2].detail, "POST " + url("/orders/1/cancel") +
                                   R"( -> 500 {"error":"cannot cancel a paid order"})");
}

TEST_F(ModelFileExplore, TheNo5xxRuleReportsAFiveHundredUnderItsOwnName) {
  auto report = run(std::string(kOrderActions) + R"(  - name: cancel
    method: POST
    path: /orders/${order_id}/cancel
    ok: 200
    rejected: 409
invariants:
  - {name: no_server_errors, severity: critical, response: no_5xx}
)",
                    max_depth(3));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kInvariant);
  EXPECT_EQ(f.name, "no_server_errors");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_TRUE(f.confirmed);
  EXPECT_EQ(f.message, "POST " + url("/orders/1/cancel") +
                           R"( answered 500: {"error":"cannot cancel a paid order"})");
  ASSERT_EQ(step_names(f), (std::vector<std::string>{"create_order", "pay", "cancel"}));
  // The step is a transition (the rule, not the step, reports it): exploration goes on past it.
  EXPECT_EQ(f.steps[2].outcome, "rejected");
}

TEST_F(ModelFileExplore, AnUnexpectedStatusIsAnActionError) {
  auto report = run(R"(actions:
  - name: create_order
    method: POST
    path: /orders
    body: {item: pen, qty: "${qty}"}
    ok: 201
    bind: {order_id: /id}
    max_per_path: 1
  - name: pay
    method: POST
    path: /orders/${order_id}/pay
    ok: 200
)");
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.message, "unexpected status 409 from POST /orders/1/pay (ok: 200; rejected: none)");
  EXPECT_EQ(step_names(f), (std::vector<std::string>{"create_order", "pay", "pay"}));
}

TEST_F(ModelFileExplore, ATimeoutIsAFindingOfTheStep) {
  auto report = run(R"(actions:
  - name: slow
    path: /slow
    timeout: 200ms
    max_per_path: 1
)");
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.name, "slow");
  EXPECT_THAT(f.message, StartsWith("GET " + url("/slow") +
                                    ": timed out after 200 ms waiting for the response"));
  ASSERT_EQ(f.steps.size(), 1u);
  EXPECT_EQ(f.steps[0].detail, "GET " + url("/slow") + " -> no response");
}

TEST_F(ModelFileExplore, ADroppedConnectionIsAFindingOfTheStep) {
  auto report = run(R"(actions:
  - name: drop
    path: /drop
    max_per_path: 1
)");
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_THAT(f.message, StartsWith("GET " + url("/drop") + ": connection dropped"));
  EXPECT_EQ(f.steps[0].detail, "GET " + url("/drop") + " -> no response");
}

TEST_F(ModelFileExplore, ABindingFromABodyThatIsNotJsonIsAFindingOfTheStep) {
  auto report = run(R"(actions:
  - name: text
    path: /text
    bind: {word: /word}
    max_per_path: 1
)");
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  EXPECT_EQ(report->findings[0].message,
            "binding 'word': the response body is not JSON: plain text, not JSON");
  EXPECT_EQ(report->findings[0].steps[0].detail,
            "GET " + url("/text") + " -> 200 plain text, not JSON");
}

TEST_F(ModelFileExplore, SecretsAreRedactedInTheConsoleAndJsonReports) {
  ::setenv("PROWL_TEST_ACTION_KEY", "k3y-of-the-action", 1);
  auto report = run(R"(actions:
  - name: whoami
    path: /whoami
    headers: {X-Api-Key: "${env:PROWL_TEST_ACTION_KEY}"}
    ok: 201
    max_per_path: 1
)");
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->findings.size(), 1u);
  // The whole header value is the secret (and so is the token on its own).
  EXPECT_EQ(report->findings[0].steps[0].detail,
            "GET " + url("/whoami") + R"( -> 200 {"auth":"[REDACTED]","key":"[REDACTED]"})");
  std::ostringstream console;
  write_console_report(console, *report);
  const std::string json = to_json(*report);
  EXPECT_THAT(console.str(), HasSubstr(R"({"auth":"[REDACTED]","key":"[REDACTED]"})"));
  EXPECT_THAT(json, HasSubstr(R"({\"auth\":\"[REDACTED]\",\"key\":\"[REDACTED]\"})"));
  for (const std::string& secret : {std::string(kToken), std::string("k3y-of-the-action")}) {
    EXPECT_THAT(console.str(), Not(HasSubstr(secret)));
    EXPECT_THAT(json, Not(HasSubstr(secret)));
  }
}

std::set<std::string> distinct(const std::vector<std::string>& targets) {
  return {targets.begin(), targets.end()};
}

TEST_F(ModelFileExplore, AValueTheServiceChoseArrivesAsOnePathSegmentAndQueryComponent) {
  auto report = run(R"(actions:
  - name: hostile
    path: /hostile
    bind: {order_id: /id, word: /word}
    max_per_path: 1
  - name: pay
    method: POST
    path: /orders/${order_id}/pay?note=${word}
    ok: 200
)");
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  const std::string sent = "/orders/..%2Fadmin%3Frole%3Droot%23x/pay?note=caf%C3%A9%20%26%20co";
  // Nothing reached /admin, and the fragment was not cut off: the server saw one request target.
  EXPECT_EQ(distinct(server_->targets()), (std::set<std::string>{"/", "/hostile", sent}));
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.message, "unexpected status 404 from POST " + sent + " (ok: 200; rejected: none)");
  ASSERT_EQ(step_names(f), (std::vector<std::string>{"hostile", "pay"}));
  // The console shows the URL as it was sent.
  EXPECT_EQ(f.steps[1].detail, "POST " + url(sent) + " -> 404 (empty)");
}

TEST_F(ModelFileExplore, AValueWithALineBreakIsNeverSentInAHeader) {
  auto report = run(R"(actions:
  - name: hostile
    path: /hostile
    bind: {ref: /ref}
    max_per_path: 1
  - name: whoami
    path: /whoami
    headers: {X-Ref: "ref ${ref}"}
    max_per_path: 1
)");
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  EXPECT_EQ(distinct(server_->targets()), (std::set<std::string>{"/", "/hostile"}));
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.name, "whoami");
  EXPECT_EQ(f.message,
            "header 'X-Ref': the value of ${ref} holds a line break; the request was not sent");
  ASSERT_EQ(step_names(f), (std::vector<std::string>{"hostile", "whoami"}));
  EXPECT_EQ(f.steps[1].outcome, "error");
  EXPECT_EQ(f.steps[1].detail, "GET " + url("/whoami") + " -> not sent");
}

TEST_F(ModelFileExplore, AnUnreachableBaseUrlIsAnEnvironmentFailure) {
  auto report = run(kOrderActions, {}, "http://127.0.0.1:1");
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kEnvironment);
  EXPECT_THAT(report.status().message(),
              StartsWith("the service at base_url http://127.0.0.1:1 cannot be reached: GET "
                         "http://127.0.0.1:1: connection refused (nothing listens there)"));
}

TEST_F(ModelFileExplore, AMissingDatabaseIsAnEnvironmentFailure) {
  model_db_ = (dir_ / "missing.db").string();
  auto report = run(kOrderActions);
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(report.status().message(),
            "sqlite '" + model_db_ + "': cannot open: unable to open database file");
}

}  // namespace
}  // namespace prowl::modelfile
