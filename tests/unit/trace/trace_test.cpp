#include "prowl/trace/trace.hpp"

#include <gtest/gtest.h>

namespace prowl::trace {
namespace {

Trace sample() {
  Trace t;
  t.header.model = "smt_fuzz";
  t.header.options = {{"solver", "z3"}, {"seed", "42"}, {"note", "a b"}, {"empty", ""}};
  Step a;
  a.seed = 7;
  a.action = "new_solver";
  a.comments_before = {"first step"};
  Step b;
  b.seed = 18446744073709551615ull;
  b.action = "mk_const";
  b.args = {"s1", "x y", "quote\"back\\slash", "line\nbreak\ttab\x01", "#hash", ""};
  b.returns = {"t1", "t2"};
  t.steps = {a, b};
  t.trailing_comments = {"done"};
  return t;
}

constexpr const char* kSampleText =
    "prowl-trace 1 smt_fuzz solver=z3 seed=42 note=\"a b\" empty=\"\"\n"
    "# first step\n"
    "7 new_solver\n"
    "18446744073709551615 mk_const s1 \"x y\" \"quote\\\"back\\\\slash\" "
    "\"line\\nbreak\\ttab\\x01\" \"#hash\" \"\"\n"
    "return t1 t2\n"
    "# done\n";

TEST(TraceFormat, WritesEveryKindOfLineAsDocumented) {
  EXPECT_EQ(write_trace(sample()), kSampleText);
}

TEST(TraceFormat, ReadsBackWhatItWrote) {
  auto t = parse_trace(kSampleText, "x.trace");
  ASSERT_TRUE(t) << t.status().message();
  EXPECT_EQ(t->header.model, "smt_fuzz");
  EXPECT_EQ(t->header.options, sample().header.options);
  ASSERT_EQ(t->steps.size(), 2u);
  EXPECT_EQ(t->steps[0].comments_before, std::vector<std::string>{"first step"});
  EXPECT_EQ(t->steps[0].line, 3u);
  EXPECT_EQ(t->steps[1].seed, 18446744073709551615ull);
  EXPECT_EQ(t->steps[1].args, sample().steps[1].args);
  EXPECT_EQ(t->steps[1].returns, (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(t->steps[1].line, 4u);
  EXPECT_EQ(t->trailing_comments, std::vector<std::string>{"done"});
}

TEST(TraceFormat, WriteReadWriteIsIdentical) {
  auto t = parse_trace(write_trace(sample()));
  ASSERT_TRUE(t);
  EXPECT_EQ(write_trace(*t), kSampleText);
}

TEST(TraceFormat, IgnoresBlankLinesAndCarriageReturns) {
  auto t = parse_trace("prowl-trace 1 m\r\n\r\n  \n1 a b\r\n");
  ASSERT_TRUE(t) << t.status().message();
  ASSERT_EQ(t->steps.size(), 1u);
  EXPECT_EQ(t->steps[0].args, std::vector<std::string>{"b"});
  EXPECT_EQ(t->steps[0].line, 4u);
}

TEST(TraceFormat, SkipsAByteOrderMark) {
  auto t = parse_trace("\xEF\xBB\xBFprowl-trace 1 m\n1 a\n");
  ASSERT_TRUE(t) << t.status().message();
  EXPECT_EQ(t->header.model, "m");
}

// A comment holds what a system answered: it cannot start a line of its own (a forged step) nor
// carry a control sequence to the terminal of whoever reads the file.
TEST(TraceFormat, CommentsAreSingleEscapedLinesWhenWritten) {
  Trace t;
  t.header.model = "m";
  t.trailing_comments = {"two\nlines", "1 evil\r\n42 refund\x1b[2J"};
  EXPECT_EQ(write_trace(t), "prowl-trace 1 m\n# two\\nlines\n# 1 evil\\r\\n42 refund\\e[2J\n");
}

std::string error_of(std::string_view text) {
  auto t = parse_trace(text, "f.trace");
  EXPECT_FALSE(t);
  return t ? std::string() : t.status().message();
}

TEST(TraceFormat, NamesTheFileAndLineOfEachMalformedLine) {
  EXPECT_EQ(error_of(""), "f.trace:1: empty: a trace starts with 'prowl-trace 1 MODEL'");
  EXPECT_EQ(error_of("hello\n"),
            "f.trace:1: not a prowl trace: the first line must be 'prowl-trace 1 MODEL "
            "[KEY=VALUE...]'");
  EXPECT_EQ(error_of("prowl-trace 2 m\n"),
            "f.trace:1: trace format version '2' is not supported (this prowl reads 1)");
  EXPECT_EQ(error_of("# hi\nprowl-trace 1 m\n"), "f.trace:1: a comment before the header line");
  EXPECT_EQ(error_of("prowl-trace 1 m bad\n"), "f.trace:1: option 'bad' is not KEY=VALUE");
  EXPECT_EQ(error_of("prowl-trace 1 m a=1 a=2\n"), "f.trace:1: option 'a' given twice");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a\nx b\n"),
            "f.trace:3: expected a step 'SEED ACTION [ARG...]' (SEED a number up to 2^64-1), a "
            "return line or a '#' comment; found 'x'");
  EXPECT_EQ(error_of("prowl-trace 1 m\n18446744073709551616 a\n"),
            "f.trace:2: expected a step 'SEED ACTION [ARG...]' (SEED a number up to 2^64-1), a "
            "return line or a '#' comment; found '18446744073709551616'");
  EXPECT_EQ(error_of("prowl-trace 1 m\n12\n"),
            "f.trace:2: a step without an action (expected 'SEED ACTION [ARG...]')");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a \"open\n"),
            "f.trace:2: column 5: unterminated quoted token (a '\"' is missing)");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a \"x\\q\"\n"),
            "f.trace:2: column 7: unknown escape '\\q' (use \\\\ \\\" \\n \\t \\r \\xHH)");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a \"\\x4\"\n"),
            "f.trace:2: column 6: \\x needs two hexadecimal digits");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a \"x\"y\n"),
            "f.trace:2: column 8: expected a space after the closing '\"'");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a b\"c\n"),
            "f.trace:2: column 6: '\"' inside a bare token; quote the token (\"...\")");
  EXPECT_EQ(error_of("prowl-trace 1 m\nreturn t1\n"), "f.trace:2: a return line before any step");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a\nreturn\n"),
            "f.trace:3: a return line without names (expected 'return NAME...')");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a\nreturn T1\n"),
            "f.trace:3: 'T1' is not a handle name (lower-case letters then a number, e.g. t12)");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a\nreturn t1\nreturn t2\n"),
            "f.trace:4: a return line that does not directly follow its step");
  EXPECT_EQ(error_of("prowl-trace 1 m\n1 a\nreturn t1\n2 b\nreturn t1\n"),
            "f.trace:5: handle t1 was already returned on line 3");
  EXPECT_EQ(error_of(std::string_view("prowl-trace 1 m\n1 a\0\n", 20)),
            "f.trace:2: a NUL byte; a trace is a text file");
}

TEST(TraceFormat, ReadingAMissingFileNamesIt) {
  auto t = read_trace_file("/nonexistent/x.trace");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(t.status().message(),
            "/nonexistent/x.trace: cannot read the trace file: No such file or directory");
}

TEST(TraceFormat, HandleNamesAreLowerCaseKindAndNumber) {
  EXPECT_EQ(handle_kind("t12"), "t");
  EXPECT_EQ(handle_kind("sort3"), "sort");
  EXPECT_EQ(handle_kind("t"), std::nullopt);
  EXPECT_EQ(handle_kind("12"), std::nullopt);
  EXPECT_EQ(handle_kind("T1"), std::nullopt);
  EXPECT_EQ(handle_kind("t1x"), std::nullopt);
}

TEST(TraceFormat, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(quote_token("bvadd"), "bvadd");
  EXPECT_EQ(quote_token("#x00ff"), "\"#x00ff\"");
  EXPECT_EQ(quote_token("it's"), "\"it's\"");
  EXPECT_EQ(quote_token("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
}

TEST(TraceFiles, ShrunkTracesGoNextToTheTraceWithShrunkBeforeTheExtension) {
  EXPECT_EQ(shrunk_trace_path("dir/001-x.trace"), "dir/001-x.shrunk.trace");
  EXPECT_EQ(shrunk_trace_path("prowl-fuzz/001-finding/trace"),
            "prowl-fuzz/001-finding/trace.shrunk");
}

TEST(TraceFiles, WritingToAnUnwritablePathIsAnEnvironmentFailure) {
  Status st = write_trace_file("/nonexistent/x.trace", Trace{});
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(),
            "cannot write trace file '/nonexistent/x.trace': No such file or directory");
}

TEST(TraceWriter, WritesEachLineAsItComes) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  TraceWriter w(fds[1]);
  Header h;
  h.model = "m";
  w.header(h);
  Step s;
  s.seed = 3;
  s.action = "go";
  s.args = {"a b"};
  w.step(s);
  w.returns({"t1"});
  w.returns({});
  w.comment("end");
  ::close(fds[1]);
  char buffer[256];
  const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
  ::close(fds[0]);
  EXPECT_TRUE(w.ok());
  EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(n)),
            "prowl-trace 1 m\n3 go \"a b\"\nreturn t1\n# end\n");
}

}  // namespace
}  // namespace prowl::trace
