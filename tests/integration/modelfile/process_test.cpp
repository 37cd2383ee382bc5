// A model file whose service prowl starts itself: a python3 HTTP counter (counter.py) that
// creates its SQLite file at startup. Checks the whole chain: relative paths resolve against the
// model file, {port} and {db} reach the command and the base URL, the sqlite system opens the file
// only after the service has created it, and BFS in reset mode (restart + replay) finds the planted
// bug.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "prowl/explore/explorer.hpp"
#include "prowl/modelfile/http_model.hpp"
#include "prowl/strategy/factory.hpp"

namespace prowl::modelfile {
namespace {

constexpr std::string_view kModel = R"(name: counter
base_url: http://127.0.0.1:{port}
systems:
  - name: service
    type: process
    command: [python3, "@SCRIPT@", "{port}", "{db}"]
    db: data/counter.db
    health: /health
  - name: db
    type: sqlite
    tables: [counter]
actions:
  - {name: inc, method: POST, path: /inc, ok: 200, rejected: 409}
  - {name: dec, method: POST, path: /dec, ok: 200, rejected: 409}
invariants:
  - name: never_negative
    severity: critical
    get: /value
    checks:
      - {pointer: /value, at_least: 0}
)";

TEST(ModelFileProcess, StartsTheServiceBeforeOpeningTheDatabaseItCreates) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "prowl-modelfile-proc-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  fs::create_directories(dir / "data");
  std::string text(kModel);
  text.replace(text.find("@SCRIPT@"), 8, PROWL_TEST_DATA_DIR "/modelfile/counter.py");
  std::ofstream(dir / "counter.yaml") << text;
  ASSERT_FALSE(fs::exists(dir / "data/counter.db"));

  auto model = load_model_file((dir / "counter.yaml").string());
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  auto strategy = make_strategy("bfs", **model, /*seed=*/3);
  ASSERT_TRUE(strategy.is_ok());
  Options options;
  options.seed = 3;
  auto report = explore(**model, **strategy, options);
  ASSERT_TRUE(report.is_ok()) << report.status().message();

  EXPECT_EQ(report->restore_mode, RestoreMode::kReset);
  EXPECT_EQ(report->stats.states, 5u);  // -1, 0, 1, 2, 3
  EXPECT_EQ(report->stats.transitions, 10u);
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.name, "never_negative");
  EXPECT_TRUE(f.confirmed);
  ASSERT_EQ(f.steps.size(), 3u);
  EXPECT_EQ(f.steps[0].action, "inc");
  EXPECT_EQ(f.steps[1].action, "inc");
  EXPECT_EQ(f.steps[2].action, "dec");
  EXPECT_EQ(f.state, "db: counter: (1, -1)");
  EXPECT_THAT(f.message, ::testing::MatchesRegex("GET http://127\\.0\\.0\\.1:[0-9]+/value: "
                                                 "'/value' is -1, expected at least 0"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace prowl::modelfile
