// GoogleTest integration (target prowl::gtest; README, "In a GoogleTest suite"): explore a model
// inside a TEST and fail it with the console report of what was found.
//
//   TEST(Lru, KeepsItsMapAndListInStep) {
//     prowl::gtest::Settings settings;            // every option in one place
//     settings.strategy = "bfs";                  // a spec, as --strategy takes it
//     settings.options.max_depth = 6;             // limits: prowl::Options
//     PROWL_EXPECT_NO_FINDINGS(make_lru_model(), settings);
//   }
//
// The seed is settings.options.seed, or the PROWL_SEED environment variable when it is set, so a
// failure's seed (printed with it) reruns the same exploration.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "prowl/explore/model.hpp"
#include "prowl/explore/options.hpp"

namespace prowl::gtest {

struct Settings {
  std::string strategy = "bfs";  // NAME[:KEY=VALUE,...] (docs/strategies.md)
  // Limits and the seed (options.seed). Breadth-first runs of an in-memory model use every CPU
  // (options.threads, docs/scale.md): the model's code runs on several threads, each on its own
  // object; set options.threads = 1 for code that shares mutable state.
  Options options;
  // Fail too when a limit stopped the run before it explored everything it could reach.
  bool require_exhausted = false;
};

// Explores `model` and succeeds when nothing was found. Fails with the console report (findings
// with their steps, coverage, summary) and how to rerun; with the message of a model, strategy or
// PROWL_SEED that is not valid; or, with require_exhausted, when a limit ended the run.
::testing::AssertionResult no_findings(const Model& model, const Settings& settings = {});

// The seed a run with these settings uses: PROWL_SEED when set, else settings.options.seed. An
// invalid Status naming PROWL_SEED when it is not a whole number.
Result<std::uint64_t> seed_of(const Settings& settings);

}  // namespace prowl::gtest

// EXPECT_/ASSERT_ forms: (model) or (model, settings).
#define PROWL_EXPECT_NO_FINDINGS(...) EXPECT_TRUE(::prowl::gtest::no_findings(__VA_ARGS__))
#define PROWL_ASSERT_NO_FINDINGS(...) ASSERT_TRUE(::prowl::gtest::no_findings(__VA_ARGS__))
