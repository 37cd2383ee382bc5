#include "journal_machine.hpp"

#include <string>

namespace journal {

using prowl::Outcome;
using prowl::Rng;
using prowl::fsm::Args;
using prowl::fsm::Handles;
using Gen = std::optional<std::vector<std::string>>;

namespace {

// A journal handle argument, or nullopt (decline) when none is open.
std::optional<std::string> pick_journal(Handles& h, Rng& rng) { return h.pick("j", rng); }

Target::Open& journal_arg(Handles& h, const Args& args) { return args.handle<Target::Open>(0, h); }

}  // namespace

prowl::fsm::Machine<Target> make_machine(int keys) {
  prowl::fsm::Machine<Target> m("journal");
  const auto empty = m.state("empty");
  const auto open = m.state("open");
  const auto closed = m.final_state("closed");

  const auto open_journal = m.action("open", [](Target& t, Handles& h, Rng&, const Args& args) {
    args.expect_size(0);
    h.add("j", Target::Open{});
    ++t.opened;
    return Outcome::ok();
  });
  const auto put = m.action(
      "put",
      [keys](Target&, Handles& h, Rng& rng) -> Gen {
        auto j = pick_journal(h, rng);
        if (!j) return std::nullopt;
        return std::vector<std::string>{*j, std::to_string(rng.below(keys)),
                                        std::to_string(rng.below(100))};
      },
      [](Target&, Handles& h, Rng&, const Args& args) {
        args.expect_size(3);
        Target::Open& o = journal_arg(h, args);
        const int key = static_cast<int>(args.integer(1, 0, 1 << 20));
        const int value = static_cast<int>(args.integer(2, 0, 1 << 20));
        o.journal->put(key, value);
        o.expected[key] = value;
        return Outcome::ok();
      });
  const auto get = m.action(
      "get",
      [keys](Target&, Handles& h, Rng& rng) -> Gen {
        auto j = pick_journal(h, rng);
        if (!j) return std::nullopt;
        return std::vector<std::string>{*j, std::to_string(rng.below(keys))};
      },
      [](Target&, Handles& h, Rng&, const Args& args) {
        args.expect_size(2);
        Target::Open& o = journal_arg(h, args);
        const int key = static_cast<int>(args.integer(1, 0, 1 << 20));
        const std::optional<int> got = o.journal->get(key);
        auto want = o.expected.find(key);
        const std::optional<int> expected =
            want == o.expected.end() ? std::nullopt : std::optional<int>(want->second);
        if (got != expected) {
          auto show = [](std::optional<int> v) { return v ? std::to_string(*v) : "nothing"; };
          return Outcome::error("get(" + std::to_string(key) + ") returned " + show(got) +
                                ", expected " + show(expected));
        }
        return Outcome::ok();
      });
  auto journal_only = [](Target&, Handles& h, Rng& rng) -> Gen {
    auto j = pick_journal(h, rng);
    if (!j) return std::nullopt;
    return std::vector<std::string>{*j};
  };
  const auto begin =
      m.action("begin", journal_only, [](Target&, Handles& h, Rng&, const Args& args) {
        args.expect_size(1);
        Target::Open& o = journal_arg(h, args);
        if (!o.journal->begin()) return Outcome::rejected("a transaction is open already");
        o.before_tx = o.expected;
        return Outcome::ok();
      });
  const auto commit =
      m.action("commit", journal_only, [](Target&, Handles& h, Rng&, const Args& args) {
        args.expect_size(1);
        Target::Open& o = journal_arg(h, args);
        if (!o.journal->commit()) return Outcome::rejected("no transaction is open");
        o.before_tx.reset();
        return Outcome::ok();
      });
  const auto rollback =
      m.action("rollback", journal_only, [](Target&, Handles& h, Rng&, const Args& args) {
        args.expect_size(1);
        Target::Open& o = journal_arg(h, args);
        if (!o.journal->rollback()) return Outcome::rejected("no transaction is open");
        o.expected = *o.before_tx;
        o.before_tx.reset();
        return Outcome::ok();
      });
  const auto compact =
      m.action("compact", journal_only, [](Target&, Handles& h, Rng&, const Args& args) {
        args.expect_size(1);
        journal_arg(h, args).journal->compact();
        return Outcome::ok();
      });

  using prowl::fsm::weight;
  m.transition(empty, open, weight(1), open_journal);
  m.transition(open, open, weight(1), open_journal);
  m.add_to_all(put, weight(4), {empty});
  m.add_to_all(get, weight(3), {empty});
  m.add_to_all(begin, weight(2), {empty});
  m.add_to_all(commit, weight(1), {empty});
  m.add_to_all(rollback, weight(2), {empty});
  m.add_to_all(compact, weight(2), {empty});
  m.transition(open, closed, weight(0.5));
  return m;
}

}  // namespace journal
