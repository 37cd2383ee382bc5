// A model file's YAML is bounded before anything is built from it: its size, the number of nodes
// once every alias is expanded (a "billion laughs" bomb), and its nesting depth. Each bound
// fails fast with its FILE:LINE:COL message (the size names the file only), and a document just
// inside each bound still loads.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile {
namespace {

namespace fs = std::filesystem;

// Lines 1-6: a valid model whose only action's body follows on line 7.
constexpr std::string_view kHead =
    "name: shop\n"
    "base_url: http://127.0.0.1:1\n"
    "systems: [{type: sqlite, path: s.db}]\n"
    "actions:\n"
    "  - name: a\n"
    "    path: /a\n";

Result<ModelSpec> parse(std::string_view text) { return parse_model(text, "m.yaml", "/models"); }

std::string message(std::string_view text) {
  auto spec = parse(text);
  EXPECT_FALSE(spec.is_ok());
  if (spec.is_ok()) return {};
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalid);
  return spec.status().message();
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Nine anchors, each a list of nine aliases of the one before: 9^9 strings once expanded, from
// 540 bytes.
std::string bomb() {
  std::string text = std::string(kHead) + "    body:\n";
  text += "      a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  char previous = 'a';
  for (char c = 'b'; c <= 'i'; ++c) {
    const std::string alias = std::string("*") + previous;
    text += std::string("      ") + c + ": &" + c + " [" + repeat(alias + ",", 8) + alias + "]\n";
    previous = c;
  }
  return text;
}

TEST(YamlBounds, AnAliasBombFailsFastAtTheAliasThatCrossesTheLimit) {
  const std::string text = bomb();
  ASSERT_LT(text.size(), 600u);
  const auto start = std::chrono::steady_clock::now();
  // Lines 8-12 hold a (10 nodes), b (91), c (820), d (7,381) and e (66,430): the first alias of
  // e in f's list, on line 13, crosses 100,000.
  EXPECT_EQ(message(text), "m.yaml:13:14: aliases expand the document to more than 100000 nodes");
  // A guard against a regression to expanding (36 s and 3 GB before), not a benchmark.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// kHead and a body: 200 + 100 * aliases nodes in all.
std::string aliased(std::size_t aliases) {
  // The root 1, name 2, base_url 2, systems 7, actions 1 + list 1 + action 1, name 2, path 2,
  // body 1: 20. The body mapping 1, x 1 + 100, z 1 + 75, y 1 + 1 + 100 per alias.
  std::string text = std::string(kHead) + "    body:\n";
  text += "      x: &x [" + repeat("0,", 98) + "0]\n";
  text += "      z: [" + repeat("0,", 73) + "0]\n";
  text += "      y: [" + repeat("*x, ", aliases - 1) + "*x]\n";
  return text;
}

TEST(YamlBounds, ADocumentOfExactlyTheNodeLimitWithAliasesExpandedLoads) {
  auto spec = parse(aliased(998));  // 200 + 99,800 = 100,000 nodes
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  ASSERT_EQ(spec->actions.size(), 1u);
  ASSERT_TRUE(spec->actions[0].request.body.has_value());
  // The body really is the expanded document: 998 lists of 99 zeros.
  const std::string& body = spec->actions[0].request.body->skeleton();
  EXPECT_EQ(std::count(body.begin(), body.end(), '0'), 99 + 74 + 998 * 99);
}

// Few nodes, much text: a 1 MiB scalar repeated by aliases would cost a copy per alias.
TEST(YamlBounds, ALargeScalarRepeatedByAliasesFailsAtTheAliasThatCrossesTheTextLimit) {
  std::string text = std::string(kHead) + "    body:\n";
  text += "      x: &x \"" + std::string(std::size_t{1} << 20, 'a') + "\"\n";
  text += "      y: [" + repeat("*x, ", 19) + "*x]\n";
  const auto start = std::chrono::steady_clock::now();
  // x is 1 MiB, and the rest of the model a few bytes: the 15th alias (column 11 + 14 * 4)
  // brings the text past 16 MiB.
  EXPECT_EQ(message(text), "m.yaml:9:67: aliases expand the document to more than 16 MiB of text");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // Fourteen aliases (15 MiB with x itself) load.
  std::string fits = std::string(kHead) + "    body:\n";
  fits += "      x: &x \"" + std::string(std::size_t{1} << 20, 'a') + "\"\n";
  fits += "      y: [" + repeat("*x, ", 13) + "*x]\n";
  EXPECT_TRUE(parse(fits).is_ok());
}

TEST(YamlBounds, OneAliasMoreThanTheLimitFailsAtThatAlias) {
  // "      y: [" is 10 characters and each "*x, " 4: alias 999 starts at column 11 + 998 * 4.
  EXPECT_EQ(message(aliased(999)),
            "m.yaml:10:4003: aliases expand the document to more than 100000 nodes");
}

TEST(YamlBounds, ADocumentWithTooManyNodesOfItsOwnFailsAtTheNodeThatCrossesTheLimit) {
  // The root mapping, "list" and the list are 3 nodes; zero 99,998 is node 100,001, at column
  // 8 + 2 * 99,997.
  EXPECT_EQ(message("list: [" + repeat("0,", 99997) + "0]\n"),
            "m.yaml:1:200002: the document has more than 100000 nodes");
}

TEST(YamlBounds, AHugeFlowListThatBeginsTheDocumentFailsBeforeItIsScanned) {
  // yaml-cpp would hold every token of it (4 MiB of this took 550 MB): the comma after element
  // 65,535, the 65,537th indicator with the '[', stops it.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(message("[" + repeat("1,", 1'000'000) + "1]\n"),
            "m.yaml:1:131073: more than 65536 brackets, commas and other YAML indicators before "
            "the YAML reader could complete a node\n"
            "  hint: it holds every token of a [...] or {...} collection that begins the document "
            "or a list entry until the collection closes: write one this long in block style, one "
            "entry per line");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(YamlBounds, AFlowListOfManyEntriesLoadsWhereItCompletesNodesAsItGoes) {
  auto spec = parse(std::string(kHead) + "    body: [" + repeat("1, ", 79999) + "1]\n");
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  EXPECT_EQ(spec->actions[0].request.body->skeleton(), "[" + repeat("1,", 79999) + "1]");
}

TEST(YamlBounds, AnAliasInsideTheNodeItNamesIsRefused) {
  EXPECT_EQ(message(std::string(kHead) + "    body: &x [1, [2, *x]]\n"),
            "m.yaml:7:22: this alias names a node that contains it: its expansion would never end");
}

TEST(YamlBounds, NestingDeeperThanTheLimitFailsAtTheFirstLevelTooDeep) {
  // The root mapping, the actions list and the action are levels 1-3; "    body: " is 10
  // characters, so bracket k (column 10 + k) opens level 3 + k.
  auto nested = [](std::size_t n) {
    return std::string(kHead) + "    body: " + repeat("[", n) + repeat("]", n) + "\n";
  };
  EXPECT_TRUE(parse(nested(61)).is_ok());
  EXPECT_EQ(message(nested(62)), "m.yaml:7:72: the document nests deeper than 64 levels");
}

TEST(YamlBounds, DeeplyNestedListsFailFastWithoutExhaustingTheStack) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(message(repeat("[", 10000) + repeat("]", 10000)),
            "m.yaml:1:65: the document nests deeper than 64 levels");
  // 100,000 levels: yaml-cpp holds all their tokens before the first node completes, so the
  // read-ahead bound stops it first.
  EXPECT_EQ(message(repeat("[", 100000) + repeat("]", 100000)),
            "m.yaml:1:65537: more than 65536 brackets, commas and other YAML indicators before "
            "the YAML reader could complete a node\n"
            "  hint: it holds every token of a [...] or {...} collection that begins the document "
            "or a list entry until the collection closes: write one this long in block style, one "
            "entry per line");
  std::string block;
  for (std::size_t i = 0; i < 1000; ++i) block += std::string(i, ' ') + "a:\n";
  EXPECT_EQ(message(block), "m.yaml:65:65: the document nests deeper than 64 levels");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(YamlBounds, AnAliasCountsTheDepthOfTheNodeItNames) {
  // body is level 4, so a's lists are levels 5-44 (40 levels).
  auto text = [](std::size_t around) {
    return std::string(kHead) + "    body:\n      a: &a " + repeat("[", 40) + repeat("]", 40) +
           "\n      b: " + repeat("[", around) + "*a" + repeat("]", around) + "\n";
  };
  // b's lists are levels 5 .. 4 + around; the alias inside them adds a's 40.
  EXPECT_TRUE(parse(text(20)).is_ok());
  EXPECT_EQ(message(text(21)), "m.yaml:9:31: the document nests deeper than 64 levels");
}

TEST(YamlBounds, ATextOverTheSizeLimitIsRefusedWithoutReadingIt) {
  const std::string text = std::string(kHead) + "# " + std::string(kMaxModelFileBytes, 'x');
  EXPECT_EQ(message(text), "m.yaml: the model file is " + std::to_string(text.size()) +
                               " bytes; model files are limited to 4 MiB");
}

class YamlBoundsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "prowl-bounds-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // A file of kHead followed by a comment, `size` bytes in all.
  std::string write(std::size_t size) {
    const std::string path = (dir_ / "m.yaml").string();
    std::string text = std::string(kHead) + "# ";
    text += std::string(size - text.size() - 1, 'x') + "\n";
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(YamlBoundsFile, AFileOfExactlyTheSizeLimitLoads) {
  auto spec = read_model_file(write(kMaxModelFileBytes));
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  EXPECT_EQ(spec->actions.size(), 1u);
}

TEST_F(YamlBoundsFile, AFileOverTheSizeLimitNamesItsSize) {
  const std::string path = write(kMaxModelFileBytes + 1);
  auto spec = read_model_file(path);
  ASSERT_FALSE(spec.is_ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(spec.status().message(),
            path + ": the model file is 4194305 bytes; model files are limited to 4 MiB");
}

}  // namespace
}  // namespace prowl::modelfile
