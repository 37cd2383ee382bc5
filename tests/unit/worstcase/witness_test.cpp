#include "prowl/worstcase/witness.hpp"

#include <gtest/gtest.h>

#include "worst_case/programs.hpp"

namespace prowl::wc {
namespace {

const std::vector<Program>& programs() { return examples::bundled_programs(); }

Result<WitnessReplay> replay_text(const std::string& text) {
  Result<trace::Trace> t = trace::parse_trace(text, "w.trace");
  if (!t) return t.status();
  return replay_witness(programs(), *t, "w.trace");
}

TEST(Witness, RoundTripsThroughTheTraceFormatAndReplaysToTheSameLength) {
  Result<BranchPolicy> policy = learn_policy(programs()[1], {6, 7}, 2, {});
  ASSERT_TRUE(policy);
  Result<SearchResult> r = guided(programs()[1], 10, *policy, {});
  ASSERT_TRUE(r);
  const trace::Trace t = witness_trace(programs()[1], *r, "spf-wca", Objective::kDecisions);
  const std::string text = trace::write_trace(t);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "prowl-trace 1 boyer_moore3 kind=worst-case n=10 length=9 search=spf-wca "
            "objective=decisions");
  Result<WitnessReplay> replay = replay_text(text);
  ASSERT_TRUE(replay) << replay.status().message();
  EXPECT_TRUE(replay->reproduced());
  EXPECT_EQ(replay->recorded, 9u);
  EXPECT_EQ(replay->replayed, 9u);
  ASSERT_EQ(replay->path.size(), 9u);
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(replay->path[i].taken, i % 3 != 2) << i;
}

TEST(Witness, AnInputThatTakesAnotherPathDoesNotReproduce) {
  // 1 2 3 is the pattern: a match at once, 3 decisions T T T, where the trace lists T T F.
  Result<WitnessReplay> r = replay_text(
      "prowl-trace 1 boyer_moore3 kind=worst-case n=3 length=3\n"
      "# T boyer_moore3.cpp:11\n# T boyer_moore3.cpp:11\n# F boyer_moore3.cpp:11\n"
      "0 input text[0]=1 text[1]=2 text[2]=3\n");
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->replayed, 3u);
  EXPECT_FALSE(r->same_decisions);
  EXPECT_FALSE(r->reproduced());
  Result<WitnessReplay> shorter = replay_text(
      "prowl-trace 1 boyer_moore3 kind=worst-case n=6 length=6\n"
      "0 input text[0]=0 text[1]=0 text[2]=0 text[3]=0 text[4]=0 text[5]=0\n");
  ASSERT_TRUE(shorter);
  EXPECT_EQ(shorter->replayed, 2u);  // one F per window
  EXPECT_FALSE(shorter->reproduced());
}

TEST(Witness, BadTracesNameTheFileTheLineAndTheFix) {
  const struct {
    std::string text, message;
  } cases[] = {
      {"prowl-trace 1 boyer_moore3 n=3 length=3\n0 input text[0]=1\n",
       "w.trace:1: not a worst-case trace (its header has no kind=worst-case)"},
      {"prowl-trace 1 quicksort kind=worst-case n=3 length=3\n0 input a[0]=1\n",
       "w.trace:1: the trace is of program 'quicksort', which this binary does not have (it "
       "has: insertion_sort, boyer_moore3, smith_waterman, dijkstra)"},
      {"prowl-trace 1 boyer_moore3 kind=worst-case length=3\n0 input text[0]=1\n",
       "w.trace:1: the header needs n=NUMBER (a worst-case trace written by prowl worst-case "
       "has it)"},
      {"prowl-trace 1 boyer_moore3 kind=worst-case n=3 length=3\n0 input text[0]=x\n",
       "w.trace:2: 'text[0]=x' is not NAME=INTEGER"},
      {"prowl-trace 1 boyer_moore3 kind=worst-case n=3 length=3\n0 input text[0]=1 text[1]=2\n",
       "w.trace: boyer_moore3: boyer_moore3.cpp:11: the condition reads text[2], which the "
       "trace gives no value"},
  };
  for (const auto& c : cases) {
    Result<WitnessReplay> r = replay_text(c.text);
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.status().message(), c.message);
  }
}

}  // namespace
}  // namespace prowl::wc
