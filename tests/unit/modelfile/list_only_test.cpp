// Reading a model file without its environment (ReadOptions::resolve_env = false), as listing its
// actions needs: no variable is read, each reference stays as written, every other check still
// holds, and the model it makes refuses to build a world.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "prowl/modelfile/http_model.hpp"
#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile {
namespace {

constexpr std::string_view kModel =
    "name: shop\n"
    "base_url: \"${env:PROWL_TEST_LIST_URL}\"\n"
    "headers: {Authorization: \"Bearer ${env:PROWL_TEST_LIST_TOKEN}\"}\n"
    "systems:\n"
    "  - type: process\n"
    "    command: [\"${env:PROWL_TEST_LIST_API}\", --db, \"{db}\"]\n"
    "    db: \"${env:PROWL_TEST_LIST_DB}\"\n"
    "    health: \"${env:PROWL_TEST_LIST_HEALTH}\"\n"
    "  - type: sqlite\n"
    "actions:\n"
    "  - name: create_order\n"
    "    description: create an order\n"
    "    method: POST\n"
    "    path: /orders\n"
    "    headers: {X-Key: \"${env:PROWL_TEST_LIST_KEY}\"}\n"
    "    body: {owner: \"${env:PROWL_TEST_LIST_OWNER}\"}\n"
    "    bind: {order_id: /id}\n"
    "  - name: pay\n"
    "    method: POST\n"
    "    path: /orders/${order_id}/pay\n"
    "invariants:\n"
    "  - {name: no_server_errors, response: no_5xx}\n";

class ListOnly : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v :
         {"PROWL_TEST_LIST_URL", "PROWL_TEST_LIST_TOKEN", "PROWL_TEST_LIST_API",
          "PROWL_TEST_LIST_DB", "PROWL_TEST_LIST_HEALTH", "PROWL_TEST_LIST_OWNER"}) {
      ::unsetenv(v);
    }
    // Set, and still not read.
    ::setenv("PROWL_TEST_LIST_KEY", "k3y", 1);
  }
  void TearDown() override { ::unsetenv("PROWL_TEST_LIST_KEY"); }

  static Result<ModelSpec> read(std::string_view text, bool resolve_env) {
    return parse_model(text, "shop.yaml", "/models", {.resolve_env = resolve_env});
  }
};

TEST_F(ListOnly, AnUnsetVariableFailsAReadThatResolvesTheEnvironment) {
  auto spec = read(kModel, true);
  ASSERT_FALSE(spec.is_ok());
  EXPECT_EQ(spec.status().message(),
            "shop.yaml:2:11: base_url: environment variable PROWL_TEST_LIST_URL is not set\n"
            "  hint: export PROWL_TEST_LIST_URL=... before running prowl");
}

TEST_F(ListOnly, ReadingForAListLeavesEveryReferenceAsWritten) {
  auto spec = read(kModel, false);
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  EXPECT_TRUE(spec->list_only);
  EXPECT_EQ(spec->base_url, "${env:PROWL_TEST_LIST_URL}");
  const auto& service = std::get<ProcessSpec>(spec->systems[0]);
  EXPECT_EQ(service.options.argv,
            (std::vector<std::string>{"${env:PROWL_TEST_LIST_API}", "--db", "{db}"}));
  EXPECT_EQ(service.options.db, "/models/${env:PROWL_TEST_LIST_DB}");
  EXPECT_EQ(service.options.health_path, "${env:PROWL_TEST_LIST_HEALTH}");
  // The sqlite system follows the process's db, as it would with the value.
  EXPECT_EQ(std::get<DatabaseSpec>(spec->systems[1]).path, "/models/${env:PROWL_TEST_LIST_DB}");
  // Templates keep the reference itself; nothing was taken from the environment.
  using K = Template::Part::Kind;
  EXPECT_EQ(
      spec->headers[0].value.parts(),
      (std::vector<Template::Part>{{K::kText, "Bearer "}, {K::kEnv, "PROWL_TEST_LIST_TOKEN"}}));
  EXPECT_EQ(spec->actions[0].request.headers[0].value.parts(),
            (std::vector<Template::Part>{{K::kEnv, "PROWL_TEST_LIST_KEY"}}));
  EXPECT_TRUE(spec->secrets.empty());
  EXPECT_EQ(spec->actions[0].request.body->skeleton(),
            R"({"owner":"${env:PROWL_TEST_LIST_OWNER}"})");
}

TEST_F(ListOnly, ReadingForAListStillChecksEverythingElse) {
  std::string text(kModel);
  text.replace(text.find("    method: POST\n    path: /orders/"), 16, "    methd: POST");
  auto spec = read(text, false);
  ASSERT_FALSE(spec.is_ok());
  EXPECT_EQ(spec.status().message(),
            "shop.yaml:19:5: unknown key 'methd' in action 'pay'\n"
            "  hint: did you mean 'method'?");
}

TEST_F(ListOnly, TheModelListsItsActionsAndRefusesToBuildAWorld) {
  auto spec = read(kModel, false);
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  HttpModel model(std::move(*spec));
  ASSERT_EQ(model.actions().size(), 2u);
  EXPECT_EQ(model.actions()[0].description, "create an order");
  EXPECT_EQ(model.actions()[1].description, "POST /orders/${order_id}/pay");
  EXPECT_EQ(model.actions()[1].requires_keys, std::vector<std::string>{"order_id"});
  ASSERT_EQ(model.invariants().size(), 1u);
  EXPECT_TRUE(model.validate().is_ok());
  try {
    (void)model.make_world();
    FAIL() << "a world was built from a spec read for listing only";
  } catch (const LogicError& e) {
    EXPECT_NE(std::string(e.what()).find("model file shop.yaml was read for listing only "
                                         "(ReadOptions::resolve_env = false): it cannot be run"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)model.make_world(1), LogicError);
}

}  // namespace
}  // namespace prowl::modelfile
