// The model file loader: every kind of bad input fails with its exact FILE:LINE:COL message and
// hint before anything starts, and a complete file becomes the expected spec and Model.
#include "prowl/modelfile/loader.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "prowl/modelfile/http_model.hpp"

namespace prowl::modelfile {
namespace {

// The preamble every case shares: lines 1-5.
constexpr std::string_view kHead =
    "name: shop\n"
    "base_url: http://127.0.0.1:8080\n"
    "systems:\n"
    "  - {name: db, type: sqlite, path: shop.db}\n"
    "actions:\n";

// A minimal valid action at lines 6-8 (binds order_id).
constexpr std::string_view kCreate =
    "  - name: create_order\n"
    "    path: /orders\n"
    "    bind: {order_id: /id}\n";

Status parse(std::string_view text) { return parse_model(text, "m.yaml", "/models").status(); }

std::string message(std::string_view text) {
  Status st = parse(text);
  EXPECT_EQ(st.code(), StatusCode::kInvalid) << st.message();
  return st.message();
}

std::string with_head(std::string_view rest) { return std::string(kHead) + std::string(rest); }

TEST(ModelFile, YamlSyntaxErrorNamesTheLine) {
  EXPECT_EQ(message("name: shop\nactions:\n  - name: [a, b\n    path: /x\n"),
            "m.yaml:4:9: YAML syntax error: end of sequence flow not found\n"
            "  hint: check the indentation and quoting here or just above; a value with '{', '}' "
            "or ': ' inside needs quotes");
}

TEST(ModelFile, TextThatIsNotUtf8NamesTheLineAndColumnOfTheByte) {
  // "café" saved as Latin-1; found by the model file fuzzer (fuzz/model_file_fuzzer.cpp).
  EXPECT_EQ(
      message("name: shop\n# \xc3\xa9t\xc3\xa9\nactions:\n  - {name: a, body: {item: caf\xe9}}\n"),
      "m.yaml:4:31: the file is not UTF-8 text (byte 0xE9)\n"
      "  hint: save the file as UTF-8");
  EXPECT_EQ(message("name: shop\xc0\xaf\n"),
            "m.yaml:1:11: the file is not UTF-8 text (byte 0xC0)\n"
            "  hint: save the file as UTF-8");
}

TEST(ModelFile, AnUnknownTopLevelKeySuggestsTheClosestOne) {
  EXPECT_EQ(message("name: shop\nbase_ulr: http://127.0.0.1:1\n"),
            "m.yaml:2:1: unknown key 'base_ulr' at the top level\n"
            "  hint: did you mean 'base_url'?");
}

TEST(ModelFile, AnUnknownActionKeySuggestsTheClosestOne) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "    methd: POST\n")),
            "m.yaml:9:5: unknown key 'methd' in action 'create_order'\n"
            "  hint: did you mean 'method'?");
}

TEST(ModelFile, AnUnknownKeyFarFromEveryKnownOneListsThem) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "    when: {xyzzy: [a]}\n")),
            "m.yaml:9:12: unknown key 'xyzzy' in action 'create_order': when\n"
            "  hint: the keys here are: bound, unbound, equals, not_equals");
}

TEST(ModelFile, AKeyGivenTwiceIsAnError) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "    path: /again\n")),
            "m.yaml:9:5: key 'path' appears twice in action 'create_order'");
}

TEST(ModelFile, ATemplateNamingAKeyThatNoActionBindsFails) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "  - name: pay\n"
                                                     "    method: POST\n"
                                                     "    path: /orders/${order}/pay\n")),
            "m.yaml:11:11: action 'pay': path: context key 'order' is never bound: no action "
            "binds it and context: does not set it\n"
            "  hint: did you mean 'order_id'? (bound by action 'create_order')");
}

TEST(ModelFile, ABodyTemplateNamingAnUnboundKeyFails) {
  EXPECT_EQ(message(with_head("  - name: create_order\n"
                              "    path: /orders\n"
                              "    body: {customer: \"${customer_id}\"}\n")),
            "m.yaml:8:11: action 'create_order': body: context key 'customer_id' is never bound: "
            "no action binds it and context: does not set it\n"
            "  hint: no action binds a key: add bind: {KEY: /json/pointer} to the action that "
            "creates it");
}

TEST(ModelFile, APreconditionNamingAnUnboundKeyFails) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "  - name: pay\n"
                                                     "    path: /pay\n"
                                                     "    when: {equals: {status: paid}}\n")),
            "m.yaml:11:21: action 'pay': when: equals: context key 'status' is never bound: no "
            "action binds it and context: does not set it\n"
            "  hint: the keys that are bound: order_id");
}

TEST(ModelFile, UnbindingAKeyThatNoActionBindsFails) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "  - name: delete_order\n"
                                                     "    method: DELETE\n"
                                                     "    path: /orders/${order_id}\n"
                                                     "    unbind: [order_idd]\n")),
            "m.yaml:12:14: action 'delete_order': unbind: context key 'order_idd' is never bound: "
            "no action binds it and context: does not set it\n"
            "  hint: did you mean 'order_id'? (bound by action 'create_order')");
}

TEST(ModelFile, AnInvariantTemplateNamingAnUnboundKeyFails) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "invariants:\n"
                                                     "  - name: order_exists\n"
                                                     "    get: /orders/${id}\n")),
            "m.yaml:11:10: invariant 'order_exists': get: context key 'id' is never bound: no "
            "action binds it and context: does not set it\n"
            "  hint: the keys that are bound: order_id");
}

TEST(ModelFile, AStateKeyThatNothingBindsFails) {
  EXPECT_EQ(message(with_head(kCreate) + "state_keys: [order_id, cart_id]\n"),
            "m.yaml:9:24: state_keys: context key 'cart_id' is never bound: no action binds it "
            "and context: does not set it\n"
            "  hint: the keys that are bound: order_id");
}

TEST(ModelFile, AnUnsetEnvironmentVariableFailsWhileReading) {
  ::unsetenv("PROWL_TEST_UNSET_TOKEN");
  EXPECT_EQ(message("base_url: http://127.0.0.1:1\n"
                    "headers:\n"
                    "  Authorization: \"Bearer ${env:PROWL_TEST_UNSET_TOKEN}\"\n"),
            "m.yaml:3:18: headers 'Authorization': environment variable PROWL_TEST_UNSET_TOKEN "
            "is not set\n"
            "  hint: export PROWL_TEST_UNSET_TOKEN=... before running prowl");
}

TEST(ModelFile, AContextKeyInAHeaderSentWithEveryRequestFails) {
  EXPECT_EQ(message("base_url: http://127.0.0.1:1\n"
                    "headers: {X-Order: \"${order_id}\"}\n"),
            "m.yaml:2:20: headers 'X-Order': context keys such as '${order_id}' cannot be used "
            "here\n"
            "  hint: headers sent with every request are fixed for the run; set a header that "
            "depends on the context in the action's own headers");
}

TEST(ModelFile, AnUnterminatedReferenceFails) {
  EXPECT_EQ(message(with_head("  - name: a\n    path: /orders/${order_id\n")),
            "m.yaml:7:11: action 'a': path: '${' without a closing '}' in \"/orders/${order_id\"");
}

TEST(ModelFile, AnUnknownDependencySuggestsTheClosestAction) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "  - name: pay\n"
                                                     "    path: /pay\n"
                                                     "    after: [create_ordr]\n")),
            "m.yaml:11:13: action 'pay': after: no action is named 'create_ordr'\n"
            "  hint: did you mean 'create_order'?");
}

TEST(ModelFile, ADurationNeedsAUnit) {
  EXPECT_EQ(message("base_url: http://127.0.0.1:1\ntimeout: 5\n"),
            "m.yaml:2:10: timeout must be a positive duration such as 250ms or 2s, not '5'\n"
            "  hint: give the unit: ms or s");
}

TEST(ModelFile, A5xxCannotBeAnExpectedStatus) {
  EXPECT_EQ(message(with_head("  - name: a\n    path: /a\n    ok: [200, 503]\n")),
            "m.yaml:8:15: action 'a': ok: 503 cannot be listed: a 5xx answer is always an error\n"
            "  hint: an unlisted status makes the step an action_error finding; to report 5xx "
            "answers under a name and severity of your own, add an invariant with response: "
            "no_5xx");
}

TEST(ModelFile, AStatusIsACodeOrAClass) {
  EXPECT_EQ(message(with_head("  - name: a\n    path: /a\n    rejected: [4xx, 40]\n")),
            "m.yaml:8:21: action 'a': rejected: '40' is not an HTTP status\n"
            "  hint: write a status such as 201, or a class such as 4xx");
}

TEST(ModelFile, ABindingNeedsAJsonPointer) {
  EXPECT_EQ(message(with_head("  - name: a\n    path: /a\n    bind: {order_id: id}\n")),
            "m.yaml:8:22: action 'a': bind order_id 'id' is not a JSON Pointer\n"
            "  hint: a JSON Pointer starts with '/', as in /id or /items/0/price (\"\" is the "
            "whole body; write ~1 for '/' and ~0 for '~' in a key)");
}

TEST(ModelFile, AnActionNeedsAPath) {
  EXPECT_EQ(message(with_head("  - name: a\n    method: POST\n")),
            "m.yaml:6:5: action 'a' has no path\n"
            "  hint: add path: /the/endpoint (appended to base_url)");
}

TEST(ModelFile, AnUnknownMethodIsRefused) {
  EXPECT_EQ(message(with_head("  - name: a\n    path: /a\n    method: FETCH\n")),
            "m.yaml:8:13: action 'a': method 'FETCH' is not an HTTP method\n"
            "  hint: one of: GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS");
}

TEST(ModelFile, TwoActionsWithOneNameFail) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "  - name: create_order\n    path: /b\n")),
            "m.yaml:9:11: two actions are named 'create_order'\n"
            "  hint: action names must be unique");
}

TEST(ModelFile, TheBaseUrlIsRequired) {
  EXPECT_EQ(message("name: shop\nactions: []\n"),
            "m.yaml:1:1: the model has no base_url\n"
            "  hint: for example base_url: http://127.0.0.1:{port}");
}

TEST(ModelFile, ThePortPlaceholderNeedsAProcess) {
  EXPECT_EQ(message("base_url: http://127.0.0.1:{port}\n"
                    "reset: {path: /reset}\n"
                    "actions: [{name: a, path: /a}]\n"),
            "m.yaml:1:11: base_url uses {port}, but no process system gives a port\n"
            "  hint: declare the service under systems: with type: process, or write the port");
}

TEST(ModelFile, SomethingMustRestoreTheService) {
  EXPECT_EQ(message("base_url: http://127.0.0.1:1\nactions: [{name: a, path: /a}]\n"),
            "m.yaml:1:1: nothing can bring the service back to its initial state\n"
            "  hint: declare a process system (restarted), a sqlite or postgres system "
            "(restored), or a reset: request");
}

TEST(ModelFile, AnUnknownSystemTypeSuggestsTheClosestOne) {
  EXPECT_EQ(message("base_url: http://127.0.0.1:1\nsystems:\n  - {type: sqlit, path: a.db}\n"),
            "m.yaml:3:12: unknown system type 'sqlit'\n"
            "  hint: did you mean 'sqlite'?");
}

TEST(ModelFile, PostgresSavepointModeCannotRestoreAService) {
  EXPECT_EQ(message("base_url: http://127.0.0.1:1\n"
                    "systems:\n"
                    "  - {type: postgres, dsn: dbname=shop, mode: savepoint}\n"),
            "m.yaml:3:46: system 'db': mode: savepoint mode cannot restore a service's database\n"
            "  hint: savepoints live in prowl's own transaction, which a service reached over "
            "HTTP does not share; use mode: snapshot");
}

TEST(ModelFile, AnSqlInvariantMustNameItsDatabaseWhenThereAreTwo) {
  EXPECT_EQ(message("base_url: http://127.0.0.1:1\n"
                    "systems:\n"
                    "  - {name: a, type: sqlite, path: a.db}\n"
                    "  - {name: b, type: sqlite, path: b.db}\n"
                    "actions: [{name: x, path: /x}]\n"
                    "invariants:\n"
                    "  - name: none\n"
                    "    sql: SELECT 1 WHERE 0\n"),
            "m.yaml:7:5: invariant 'none': which database? the model declares a, b\n"
            "  hint: add database: NAME");
}

TEST(ModelFile, AnInvariantNeedsExactlyOneKind) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "invariants:\n"
                                                     "  - name: both\n"
                                                     "    sql: SELECT 1\n"
                                                     "    response: no_5xx\n")),
            "m.yaml:10:5: invariant 'both' needs exactly one of sql:, get: or response:\n"
            "  hint: sql: SELECT the offending rows; get: PATH with checks:; response: no_5xx");
}

TEST(ModelFile, AnUnknownResponseRuleSuggestsTheClosestOne) {
  EXPECT_EQ(message(with_head(std::string(kCreate) + "invariants:\n"
                                                     "  - {name: r, response: no_500}\n")),
            "m.yaml:10:25: invariant 'r': response: unknown response rule 'no_500'\n"
            "  hint: did you mean 'no_5xx'?");
}

TEST(ModelFile, AResponseRuleIsCheckedAfterEachStepOnly) {
  EXPECT_EQ(message(with_head(std::string(kCreate) +
                              "invariants:\n"
                              "  - {name: r, response: no_5xx, timing: before}\n")),
            "m.yaml:10:5: invariant 'r': a response rule is checked after each step; its timing "
            "can only be after");
}

TEST(ModelFile, ACheckNeedsExactlyOneComparison) {
  EXPECT_EQ(message(with_head(std::string(kCreate) +
                              "invariants:\n"
                              "  - name: total\n"
                              "    get: /orders/${order_id}\n"
                              "    checks:\n"
                              "      - {pointer: /total, at_most: 10, at_least: 0}\n")),
            "m.yaml:13:9: invariant 'total': check needs exactly one comparison: equals, "
            "not_equals, less_than, at_most, greater_than, at_least or exists");
}

TEST(ModelFile, ASeverityMustBeKnown) {
  EXPECT_EQ(message(with_head(std::string(kCreate) +
                              "invariants:\n"
                              "  - {name: r, response: no_5xx, severity: fatal}\n")),
            "m.yaml:10:43: invariant 'r': severity 'fatal' is not a severity\n"
            "  hint: one of: critical, high, medium, low");
}

TEST(ModelFile, AMissingFileIsABadArgument) {
  auto spec = read_model_file("/nonexistent/prowl/model.yaml");
  ASSERT_FALSE(spec.is_ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(spec.status().message(),
            "cannot read model file '/nonexistent/prowl/model.yaml': No such file or directory");
}

// A model with every section, written to a file so that relative paths resolve against its
// directory.
constexpr std::string_view kFullModel = R"(name: shop
description: the shop API
base_url: http://127.0.0.1:{port}/api
timeout: 1500ms
connect_timeout: 1s
body_limit: 64
headers:
  Authorization: "Bearer ${env:PROWL_TEST_FULL_TOKEN}"
  X-Client: prowl
context:
  qty: 2
  note: "2"
  price: 1.5
  gift: false
state_keys: [order_id]
systems:
  - name: service
    type: process
    command: [./shop, --port, "{port}", --db, "{db}"]
    db: data/shop.db
    env: {LOG_LEVEL: debug}
    health: /health
    ready_timeout: 5s
    share_cpu: true
  - name: db
    type: sqlite
    tables: [orders, stock]
    queries: {totals: SELECT count(*) FROM orders}
observe:
  - {name: cart, get: /cart, pointer: /items}
  - {name: paid, sql: SELECT id FROM orders WHERE status = 'paid' ORDER BY id}
actions:
  - name: create_order
    method: post
    path: /orders
    query: {source: "${note}"}
    headers: {X-Trace: "order-${qty}"}
    body: {item: pen, qty: "${qty}", tags: [a, "${note}"], price: "${price}"}
    timeout: 250ms
    ok: 201
    rejected: [409, 4xx]
    bind: {order_id: /id, total: /total}
    when: {unbound: [order_id]}
    max_per_path: 1
  - name: pay
    method: POST
    path: /orders/${order_id}/pay
    after: create_order
    when: {bound: [total], equals: {gift: false}, not_equals: {qty: 0}}
    max_per_run: 5
    weight: 2.5
  - name: cancel
    method: DELETE
    path: /orders/${order_id}
    unbind: [order_id, total]
invariants:
  - name: stock_never_negative
    severity: critical
    sql: SELECT id, qty FROM stock WHERE qty < 0 AND id <> ${order_id}
  - name: total_is_consistent
    severity: medium
    timing: both
    when: {bound: [order_id]}
    get: /orders/${order_id}
    status: [200, 404]
    checks:
      - {pointer: /refunded, at_most: {pointer: /paid}}
      - {pointer: /qty, equals: "${qty}"}
      - {pointer: /deleted, exists: false}
  - {name: no_server_errors, severity: low, response: no_5xx}
)";

TEST(ModelFile, AFullModelBecomesTheExpectedSpec) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "prowl-modelfile-full";
  fs::create_directories(dir);
  const std::string file = (dir / "shop.yaml").string();
  std::ofstream(file) << kFullModel;
  ::setenv("PROWL_TEST_FULL_TOKEN", "t0ken-full", 1);
  auto spec = read_model_file(file);
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  const ModelSpec& s = *spec;
  EXPECT_EQ(s.name, "shop");
  EXPECT_EQ(s.description, "the shop API");
  EXPECT_EQ(s.base_url, "http://127.0.0.1:{port}/api");
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(s.connect_timeout, std::chrono::milliseconds(1000));
  EXPECT_EQ(s.body_limit, 64u);
  ASSERT_EQ(s.headers.size(), 2u);
  EXPECT_EQ(s.headers[0].name, "Authorization");
  EXPECT_EQ(s.headers[0].value.render(Context()), "Bearer t0ken-full");
  EXPECT_TRUE(s.headers[0].secret);
  EXPECT_FALSE(s.headers[1].secret);
  EXPECT_EQ(s.secrets, std::vector<std::string>{"t0ken-full"});
  ASSERT_EQ(s.context.size(), 4u);
  EXPECT_EQ(s.context[0], (std::pair<std::string, Value>{"qty", Value(std::int64_t{2})}));
  EXPECT_EQ(s.context[1], (std::pair<std::string, Value>{"note", Value(std::string("2"))}));
  EXPECT_EQ(s.context[2], (std::pair<std::string, Value>{"price", Value(1.5)}));
  EXPECT_EQ(s.context[3], (std::pair<std::string, Value>{"gift", Value(false)}));
  EXPECT_EQ(s.state_keys, std::vector<std::string>{"order_id"});

  ASSERT_EQ(s.systems.size(), 2u);
  const auto& process = std::get<ProcessSpec>(s.systems[0]);
  EXPECT_EQ(process.name, "service");
  EXPECT_EQ(process.options.argv,
            (std::vector<std::string>{"./shop", "--port", "{port}", "--db", "{db}"}));
  EXPECT_EQ(process.options.db, (dir / "data/shop.db").string());
  EXPECT_EQ(process.options.working_dir, dir.string() + "/");
  EXPECT_EQ(process.options.env,
            (std::vector<std::pair<std::string, std::string>>{{"LOG_LEVEL", "debug"}}));
  EXPECT_EQ(process.options.health_path, "/health");
  EXPECT_EQ(process.options.ready_timeout, std::chrono::milliseconds(5000));
  EXPECT_TRUE(process.options.share_cpu);
  EXPECT_FALSE(process.options.stateless);
  const auto& db = std::get<DatabaseSpec>(s.systems[1]);
  EXPECT_EQ(db.name, "db");
  EXPECT_EQ(db.type, "sqlite");
  EXPECT_EQ(db.path, (dir / "data/shop.db").string());  // the process's {db}
  EXPECT_EQ(db.tables, (std::vector<std::string>{"orders", "stock"}));
  EXPECT_EQ(db.queries, (std::vector<std::pair<std::string, std::string>>{
                            {"totals", "SELECT count(*) FROM orders"},
                            {"paid", "SELECT id FROM orders WHERE status = 'paid' ORDER BY id"}}));

  ASSERT_EQ(s.observations.size(), 1u);
  EXPECT_EQ(s.observations[0].name, "cart");
  EXPECT_EQ(s.observations[0].path.source(), "/cart");
  EXPECT_EQ(s.observations[0].pointer, "/items");

  ASSERT_EQ(s.actions.size(), 3u);
  const ActionSpec& create = s.actions[0];
  EXPECT_EQ(create.request.method, "POST");
  EXPECT_EQ(create.request.path.source(), "/orders");
  ASSERT_EQ(create.request.query.size(), 1u);
  EXPECT_EQ(create.request.query[0].first, "source");
  EXPECT_EQ(create.request.timeout, std::chrono::milliseconds(250));
  EXPECT_EQ(create.ok.str(), "201");
  EXPECT_EQ(create.rejected.str(), "409, 4xx");
  ASSERT_EQ(create.bind.size(), 2u);
  EXPECT_EQ(create.bind[1].key, "total");
  EXPECT_EQ(create.bind[1].pointer, "/total");
  EXPECT_EQ(create.max_per_path, 1u);
  Context ctx;
  ctx.set("qty", 2);
  ctx.set("note", "2");
  ctx.set("price", Value(1.5));
  ASSERT_TRUE(create.request.body.has_value());
  // A value that is exactly one reference keeps its type; text around a reference makes a string.
  EXPECT_EQ(create.request.body->render(ctx),
            R"({"item":"pen","qty":2,"tags":["a","2"],"price":1.5})");
  EXPECT_EQ(create.request.headers[0].value.render(ctx), "order-2");
  EXPECT_EQ(create.request.query[0].second.render(ctx), "2");

  const ActionSpec& pay = s.actions[1];
  EXPECT_EQ(pay.ok.str(), "2xx");
  EXPECT_EQ(pay.after, std::vector<std::string>{"create_order"});
  ASSERT_EQ(pay.when.size(), 3u);
  EXPECT_EQ(pay.when[1].kind, Condition::Kind::kEquals);
  EXPECT_EQ(pay.when[1].value, Value(false));
  EXPECT_EQ(pay.max_per_run, 5u);
  EXPECT_EQ(pay.weight, 2.5);
  EXPECT_EQ(s.actions[2].unbind, (std::vector<std::string>{"order_id", "total"}));

  ASSERT_EQ(s.invariants.size(), 3u);
  const InvariantSpec& stock = s.invariants[0];
  EXPECT_EQ(stock.kind, InvariantSpec::Kind::kSql);
  EXPECT_EQ(stock.severity, Severity::kCritical);
  EXPECT_EQ(stock.database, "db");
  ctx.set("order_id", "it's");
  EXPECT_EQ(stock.sql.render(ctx, sql_literal),
            "SELECT id, qty FROM stock WHERE qty < 0 AND id <> 'it''s'");
  const InvariantSpec& total = s.invariants[1];
  EXPECT_EQ(total.kind, InvariantSpec::Kind::kHttp);
  EXPECT_EQ(total.timing, Timing::kBoth);
  EXPECT_EQ(total.status.str(), "200, 404");
  ASSERT_EQ(total.checks.size(), 3u);
  EXPECT_EQ(total.checks[0].op, JsonCheck::Op::kAtMost);
  EXPECT_EQ(total.checks[0].other_pointer, "/paid");
  EXPECT_EQ(total.checks[1].value->render(ctx), "2");
  EXPECT_EQ(total.checks[2].op, JsonCheck::Op::kExists);
  EXPECT_FALSE(total.checks[2].exists);
  EXPECT_EQ(s.invariants[2].kind, InvariantSpec::Kind::kResponse);
  EXPECT_EQ(s.invariants[2].rule.kind, ResponseRule::Kind::kNo5xx);

  // The Model: names, limits, enabledness inputs and descriptions.
  HttpModel model(std::move(*spec));
  ASSERT_TRUE(model.validate().is_ok()) << model.validate().message();
  EXPECT_EQ(model.name(), "shop");
  EXPECT_EQ(model.state_keys(), std::vector<std::string>{"order_id"});
  ASSERT_EQ(model.actions().size(), 3u);
  const Action& a0 = model.actions()[0];
  EXPECT_EQ(a0.description, "POST /orders");
  EXPECT_EQ(a0.requires_keys, (std::vector<std::string>{"note", "qty", "price"}));
  EXPECT_EQ(a0.preconditions.size(), 1u);  // unbound: order_id
  const Action& a1 = model.actions()[1];
  EXPECT_EQ(a1.requires_keys, (std::vector<std::string>{"total", "order_id"}));
  EXPECT_EQ(a1.after, std::vector<std::string>{"create_order"});
  EXPECT_EQ(a1.max_per_run, 5u);
  EXPECT_EQ(a1.weight, 2.5);
  ASSERT_EQ(model.invariants().size(), 3u);
  EXPECT_EQ(model.invariants()[0].severity, Severity::kCritical);
  EXPECT_EQ(model.invariants()[1].timing, Timing::kBoth);
  EXPECT_EQ(model.invariants()[2].description, "no answer has a 5xx status");
  fs::remove_all(dir);
}

TEST(Template, ParsesKeysEnvironmentReferencesAndEscapes) {
  auto t = Template::parse("a${x}b$${y}${env:HOME}$c");
  ASSERT_TRUE(t.is_ok());
  using K = Template::Part::Kind;
  EXPECT_EQ(t->parts(), (std::vector<Template::Part>{{K::kText, "a"},
                                                     {K::kKey, "x"},
                                                     {K::kText, "b${y}"},
                                                     {K::kEnv, "HOME"},
                                                     {K::kText, "$c"}}));
  EXPECT_EQ(t->keys(), std::vector<std::string>{"x"});
  EXPECT_FALSE(Template::parse("${}").is_ok());
  EXPECT_EQ(Template::parse("${a b}").status().message(),
            "'${a b}' in \"${a b}\" is not a context key (letters, digits, '_', '-' and '.', "
            "starting with a letter or '_')");
  EXPECT_EQ(Template::parse("${order_id}")->single_key(), "order_id");
}

TEST(Template, RendersSqlLiterals) {
  EXPECT_EQ(sql_literal(Value(std::monostate{})), "NULL");
  EXPECT_EQ(sql_literal(Value(true)), "TRUE");
  EXPECT_EQ(sql_literal(Value(std::int64_t{-3})), "-3");
  EXPECT_EQ(sql_literal(Value(std::string("a'b"))), "'a''b'");
}

TEST(ClosestWord, SuggestsOnlyCloseWords) {
  EXPECT_EQ(closest_word("methd", {"method", "path"}), "method");
  EXPECT_EQ(closest_word("zzz", {"method", "path"}), "");
  EXPECT_EQ(closest_word("PATH", {"method", "path"}), "path");
  EXPECT_EQ(closest_word("order", {"order_id", "cart_id"}), "order_id");  // a prefix
  EXPECT_EQ(closest_word("or", {"order_id"}), "");                        // too short a prefix
}

}  // namespace
}  // namespace prowl::modelfile

namespace prowl::modelfile {
namespace {

// The service's own database file must be restored by a sqlite system, or copied: otherwise the
// exploration's changes would stay in the user's file.
TEST(ModelFileData, AServiceDatabaseThatNothingRestoresIsRefused) {
  const Status st = parse_model(
                        "base_url: http://127.0.0.1:{port}\n"
                        "systems:\n"
                        "  - {type: process, command: [./shop], db: shop.db}\n"
                        "actions:\n"
                        "  - {name: a, path: /a}\n",
                        "m.yaml", "/models")
                        .status();
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(),
            "m.yaml:3:5: system 'service' gives its service the file /models/shop.db (db:), but "
            "no sqlite system restores it: every change the exploration made would stay in it\n"
            "  hint: add a system - {type: sqlite} (its path is this db), or db_copy: true to work "
            "on a private copy of the file");
  for (const char* fix : {"  - {type: sqlite}\n", "  - {type: sqlite, path: shop.db}\n"}) {
    EXPECT_TRUE(parse_model(std::string("base_url: http://127.0.0.1:{port}\n"
                                        "systems:\n"
                                        "  - {type: process, command: [./shop], db: shop.db}\n") +
                                fix + "actions:\n  - {name: a, path: /a}\n",
                            "m.yaml", "/models"))
        << fix;
  }
  EXPECT_TRUE(
      parse_model("base_url: http://127.0.0.1:{port}\n"
                  "systems:\n"
                  "  - {type: process, command: [./shop], db: shop.db, db_copy: true}\n"
                  "actions:\n  - {name: a, path: /a}\n",
                  "m.yaml", "/models"));
}

}  // namespace
}  // namespace prowl::modelfile
