// A RunReport built by hand for the report format tests: fixed numbers, every kind of finding
// (confirmed, shrunk, unconfirmed, failing in the initial state), a multi-line state, an action
// that never ran and one that was never enabled, and a warning that repeats a never-ran line.
#pragma once

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/strategy/bfs.hpp"
#include "refund/refund.hpp"

namespace prowl::testing {

inline RunReport sample_report() {
  RunReport r;
  r.model = "shop";
  r.strategy = "bfs";
  r.seed = 18446744073709551557ULL;  // above 2^53: JSON must not round it
  r.restore_mode = RestoreMode::kStack;
  r.termination = Termination::kMaxSteps;
  r.stats = {.states = 1234,
             .transitions = 5678,
             .steps = 6000,
             .replayed_actions = 2839,
             .restores = 1500,
             .max_depth = 9,
             .seconds = 2.5,
             .graph_bytes = 65536};

  Finding refund;
  refund.kind = FindingKind::kInvariant;
  refund.name = "refund_at_most_once";
  refund.action = "refund";
  refund.severity = Severity::kCritical;
  refund.message = "order 0 was refunded 20 for a price of 10";
  refund.steps = {{"create_order", 11, "ok", "order 0"},
                  {"refund", 22, "ok", "order 0"},
                  {"refund", 33, "ok", "order 0"}};
  refund.confirmed = true;
  refund.state = "db: orders=[0: refunded]\nbank: customer=40 merchant=-10";

  Finding crash;
  crash.kind = FindingKind::kActionError;
  crash.name = "cancel";
  crash.action = "cancel";
  crash.severity = Severity::kHigh;
  crash.message = "std::out_of_range: vector::at";
  crash.steps = {{"create_order", 44, "ok", "order 0"},
                 {"refund", 55, "rejected", ""},
                 {"cancel", 66, "error", ""}};
  crash.confirmed = true;
  crash.shrunk_from = 7;

  Finding flaky;
  flaky.kind = FindingKind::kNondeterminism;
  flaky.name = "create_order";
  flaky.action = "create_order";
  flaky.severity = Severity::kMedium;
  flaky.message = "replaying 'create_order' reached a different state than the first time";
  flaky.steps = {{"create_order", 77, "ok", "order \"7\"\ttabbed"}};
  flaky.confirmed = false;
  flaky.unconfirmed = "it did not happen when replayed from the initial state";

  Finding initial;
  initial.kind = FindingKind::kInvariant;
  initial.name = "stock_positive";
  initial.severity = Severity::kLow;
  initial.message = "stock is -1";
  initial.confirmed = true;

  r.findings = {refund, crash, flaky, initial};
  r.invariants = {"refund_at_most_once", "stock_positive", "ledger_balanced"};
  r.coverage = {{"create_order", 1200, 1100, 1000, 100, 0},
                {"refund", 900, 800, 700, 99, 1},
                {"cancel", 12, 0, 0, 0, 0},
                {"audit", 0, 0, 0, 0, 0}};
  r.warnings = {"action 'audit' never ran (it was never enabled)",
                "finding 'create_order' did not reproduce when replayed from the initial state; "
                "it is reported unconfirmed"};
  return r;
}

// A report whose every text field holds what a hostile system under test could put there: escape
// sequences that recolour or clear the terminal, CR and LF that would forge a line of the report,
// C1 controls, a right-to-left override, bytes that are not UTF-8. Also a service crash, an
// interrupted confirmation and sampled actions.
inline RunReport hostile_report() {
  RunReport r;
  r.model = "shop\x1b[2J";
  r.strategy = "bfs";
  r.seed = 7;
  r.termination = Termination::kSampled;
  r.sampled = {"put", "get\r\n[2] critical forged"};
  r.stats = {.states = 3, .transitions = 2, .steps = 2, .seconds = 0.25};

  Finding rows;
  rows.kind = FindingKind::kInvariant;
  rows.name = "no_negative_stock";
  rows.action = "create_order";
  rows.severity = Severity::kCritical;
  rows.message = "1 offending row: (name='\x1b[31mred\x1b[0m', note='a\nshop: 0 findings')";
  rows.steps = {{"create_order", 1, "ok",
                 "POST http://127.0.0.1:8080/orders -> 201 {\"id\":\"1\\r\\n\",\"n\":\"\r\n"
                 "[1] critical forged\x1b]0;title\x07\"}"}};
  rows.confirmed = true;
  rows.state =
      "db: orders: (1, 'x\xe2\x80\xaetxt.exe', '\xc2\x9b"
      "31m', '\xff')\nledger: (no rows)";

  Finding died;
  died.kind = FindingKind::kServiceCrashed;
  died.name = "service";
  died.action = "refund";
  died.severity = Severity::kCritical;
  died.message =
      "service 'service' died during 'refund': was killed by signal 11 (Segmentation fault)\n"
      "last lines of its stderr:\n  panic: \x1b[1mboom\x1b[0m";
  died.steps = {
      {"create_order", 2, "", ""},
      {"refund", 3, "error", "POST http://127.0.0.1:8080/orders/1/refund -> no response"}};
  died.unconfirmed = "interrupted before it could be replayed";

  r.findings = {rows, died};
  r.invariants = {"no_negative_stock", "<script>\"&amp;\x1b[2J", "nonchar\xef\xbf\xbe\xef\xbf\xbf"};
  r.coverage = {{"create_order", 1, 1, 1, 0, 0}, {"refund\x1b[8m", 1, 1, 0, 0, 1}};
  r.warnings = {"finding 'x\ny' did not reproduce"};
  return r;
}

// A real BFS run of the refund example with seed 7, for the tests that render real runs.
inline Result<RunReport> refund_bfs_report() {
  const auto model = examples::make_refund_model();
  Bfs bfs;
  Options options;
  options.seed = 7;
  return explore(model, bfs, options);
}

}  // namespace prowl::testing
