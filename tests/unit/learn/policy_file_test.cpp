#include "prowl/learn/policy_file.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace prowl::learn {
namespace {

namespace fs = std::filesystem;

// The example of policy_file.hpp: sizes {3,2,1}, ReLU.
Mlp documented_network() {
  Layer hidden{Eigen::MatrixXd(2, 3), Eigen::VectorXd(2)};
  hidden.weights << 0.5, -0.25, 1, 0.125, 2, -3;
  hidden.bias << 0, 0.5;
  Layer output{Eigen::MatrixXd(1, 2), Eigen::VectorXd(1)};
  output.weights << 1, -1;
  output.bias << 0.25;
  return Mlp({hidden, output}, Activation::kRelu);
}

constexpr const char* kDocumented =
    "prowl-policy 1\n"          // 1
    "sizes=3,2,1\n"             // 2
    "activation=relu\n"         // 3
    "program=insertion_sort\n"  // 4
    "seed=42\n"                 // 5
    "weights 1\n"               // 6
    "0.5 -0.25 1\n"             // 7
    "0.125 2 -3\n"              // 8
    "bias 1\n"                  // 9
    "0 0.5\n"                   // 10
    "weights 2\n"               // 11
    "1 -1\n"                    // 12
    "bias 2\n"                  // 13
    "0.25\n";                   // 14

PolicyFile documented_policy() {
  return {{{"program", "insertion_sort"}, {"seed", "42"}}, documented_network()};
}

// kDocumented with line `line` (1-based) replaced by `text`; an empty `text` deletes the line, a
// text ending in '\n' inserts lines before it.
std::string with_line(int line, const std::string& text) {
  std::istringstream in(kDocumented);
  std::string out;
  std::string current;
  for (int n = 1; std::getline(in, current); ++n) {
    if (n != line) {
      out += current + "\n";
    } else if (!text.empty() && text.back() == '\n') {
      out += text + current + "\n";
    } else if (!text.empty()) {
      out += text + "\n";
    }
  }
  return out;
}

// The first `lines` lines of kDocumented.
std::string first_lines(int lines) {
  std::istringstream in(kDocumented);
  std::string out;
  std::string current;
  for (int n = 0; n < lines && std::getline(in, current); ++n) out += current + "\n";
  return out;
}

void expect_bitwise_equal(const Mlp& a, const Mlp& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  EXPECT_EQ(a.hidden_activation(), b.hidden_activation());
  ASSERT_EQ(a.layers().size(), b.layers().size());
  for (std::size_t l = 0; l < a.layers().size(); ++l) {
    const Layer& x = a.layers()[l];
    const Layer& y = b.layers()[l];
    ASSERT_EQ(x.weights.rows(), y.weights.rows());
    ASSERT_EQ(x.weights.cols(), y.weights.cols());
    ASSERT_EQ(x.bias.size(), y.bias.size());
    for (Eigen::Index i = 0; i < x.weights.size(); ++i) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(x.weights.data()[i]),
                std::bit_cast<std::uint64_t>(y.weights.data()[i]))
          << "layer " << l << " weight " << i;
    }
    for (Eigen::Index i = 0; i < x.bias.size(); ++i) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(x.bias(i)), std::bit_cast<std::uint64_t>(y.bias(i)))
          << "layer " << l << " bias " << i;
    }
  }
}

TEST(PolicyFile, WritesTheDocumentedLayout) {
  EXPECT_EQ(write_policy(documented_policy()), kDocumented);
}

TEST(PolicyFile, ReadsTheDocumentedLayout) {
  Result<PolicyFile> read = parse_policy(kDocumented, "p.policy");
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read->header, documented_policy().header);
  expect_bitwise_equal(read->network, documented_network());
  // x = (1, 0, 0): hidden = relu([0.5, 0.125] + [0, 0.5]) = [0.5, 0.625]; y = 0.5 - 0.625 + 0.25.
  EXPECT_EQ(read->network.forward(Eigen::Vector3d(1, 0, 0))(0), 0.125);
}

TEST(PolicyFile, RoundTripsEveryWeightAndTheHeaderExactly) {
  Mlp network({12, 32, 32, 2}, Activation::kTanh, 99);
  std::vector<Layer> layers = network.layers();
  // Values "%.17g" must carry exactly: negative zero, the smallest subnormal, the largest double,
  // and fractions with no short decimal form.
  layers[0].weights(0, 0) = -0.0;
  layers[0].weights(0, 1) = std::numeric_limits<double>::denorm_min();
  layers[0].weights(0, 2) = std::numeric_limits<double>::max();
  layers[0].weights(0, 3) = -std::numeric_limits<double>::min();
  layers[1].bias(3) = 0.1;
  layers[2].bias(1) = 1.0 / 3.0;
  network.set_layers(layers);
  const PolicyFile policy{{{"program", "boyer_moore3"},
                           {"history", "taken,not-taken taken"},
                           {"features", "depth=3; x > 0"},
                           {"seed", "18446744073709551615"},
                           {"env", ""},
                           {"note", " spaces kept  \t tab, \xc3\xa9"}},
                          network};
  const std::string text = write_policy(policy);
  Result<PolicyFile> read = parse_policy(text, "rt.policy");
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read->header, policy.header);
  expect_bitwise_equal(read->network, network);
  EXPECT_EQ(write_policy(*read), text);
}

TEST(PolicyFile, RoundTripsNamedVectorsAfterTheNetwork) {
  PolicyFile policy = documented_policy();
  Eigen::VectorXd encoder(3);
  encoder << 0.5, -1, 1.0 / 3.0;
  policy.vectors = {{"encoder", encoder}, {"extra.v", Eigen::VectorXd::Constant(1, -0.0)}};
  const std::string text = write_policy(policy);
  EXPECT_EQ(text.substr(std::string(kDocumented).size()),
            "vector encoder 3\n0.5 -1 0.33333333333333331\nvector extra.v 1\n-0\n");
  Result<PolicyFile> read = parse_policy(text, "v.policy");
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  ASSERT_EQ(read->vectors.size(), 2u);
  EXPECT_EQ(read->vectors[0].first, "encoder");
  EXPECT_EQ(read->vectors[0].second, encoder);
  EXPECT_EQ(read->vectors[1].first, "extra.v");
  EXPECT_TRUE(std::signbit(read->vectors[1].second[0]));
  EXPECT_EQ(write_policy(*read), text);
}

TEST(PolicyFile, ReadsAFileWithWindowsLineEndingsAndTabs) {
  std::string text;
  for (char c : std::string(kDocumented))
    text += c == '\n' ? std::string("\r\n") : std::string(1, c);
  text.replace(text.find("0.5 -0.25"), 9, "0.5\t -0.25");
  Result<PolicyFile> read = parse_policy(text, "p.policy");
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read->header, documented_policy().header);
  expect_bitwise_equal(read->network, documented_network());
}

struct BadFile {
  std::string text;
  std::string message;
};

TEST(PolicyFile, ReportsEachBadFileWithItsLineAndAFix) {
  const std::string sizes_hint =
      "write the layer sizes from the inputs to the outputs, e.g. sizes=12,32,32,2";
  const std::string number_hint = "weights and biases are decimal numbers such as -0.25 or 1.5e-3";
  const std::string finite_hint =
      "weights and biases must be finite (a network whose training diverged cannot be saved: "
      "train it again)";
  const std::vector<BadFile> cases = {
      {"", "p.policy:1: the file is empty; a policy file starts with the line 'prowl-policy 1'"},
      {with_line(1, "prowl-trace 1 smt_fuzz"),
       "p.policy:1: expected 'prowl-policy 1' as the first line, found 'prowl-trace 1 smt_fuzz'; "
       "is this a prowl policy file?"},
      {with_line(1, "\x1b[31mprowl-policy 1"),
       "p.policy:1: expected 'prowl-policy 1' as the first line, found '\\e[31mprowl-policy 1'; "
       "is this a prowl policy file?"},
      {with_line(1, "prowl-policy 2"),
       "p.policy:1: policy format version '2' is not supported (this prowl reads version 1); "
       "read it with the prowl that wrote it, or train the policy again"},
      {with_line(4, "program insertion_sort"),
       "p.policy:4: expected a key=value header line or 'weights 1', found 'program "
       "insertion_sort'"},
      {with_line(4, std::string(70, 'x')),
       "p.policy:4: expected a key=value header line or 'weights 1', found '" +
           std::string(60, 'x') + "...'"},
      {with_line(4, "bad key=1"),
       "p.policy:4: 'bad key' is not a valid key; keys are letters, digits, '_', '-' and '.', as "
       "in seed=42"},
      {with_line(5, "program=again"),
       "p.policy:5: 'program' is given twice (first on line 4); keep one of them"},
      {with_line(2, ""),
       "p.policy:5: the header has no 'sizes=' line; add the architecture before 'weights 1', "
       "e.g. sizes=12,32,32,2"},
      {with_line(3, ""),
       "p.policy:5: the header has no 'activation=' line; add activation=relu or "
       "activation=tanh before 'weights 1'"},
      {with_line(4, "program=a\rb"),
       "p.policy:4: the value of 'program' holds a carriage return ('\\r'); a header value is one "
       "line of text"},
      {with_line(3, "activation=sigmoid"),
       "p.policy:3: unknown activation 'sigmoid'; use activation=relu or activation=tanh"},
      {with_line(2, "sizes=3,x,1"),
       "p.policy:2: 'x' in sizes= is not a positive whole number; " + sizes_hint},
      {with_line(2, "sizes=3,0,1"),
       "p.policy:2: '0' in sizes= is not a positive whole number; " + sizes_hint},
      {with_line(2, "sizes=3,99999999999,1"),
       "p.policy:2: '99999999999' in sizes= is not a positive whole number; " + sizes_hint},
      {with_line(2, "sizes=3,,1"),
       "p.policy:2: '' in sizes= is not a positive whole number; " + sizes_hint},
      {with_line(2, "sizes=3"),
       "p.policy:2: sizes= needs at least an input and an output size, e.g. sizes=12,32,32,2"},
      {first_lines(5), "p.policy:6: the file ends before 'weights 1'; is it truncated?"},
      {with_line(8, "0.125 2"),
       "p.policy:8: row 2 of layer 1's weights has 2 numbers, but sizes=3,2,1 needs 3 (one per "
       "input of the layer)"},
      {with_line(8, ""),
       "p.policy:8: layer 1 has only 1 of the 2 weight rows sizes=3,2,1 needs (one per output of "
       "the layer)"},
      {with_line(9, "1 1 1\n"),
       "p.policy:9: expected 'bias 1' after layer 1's 2 weight rows (sizes=3,2,1), found '1 1 1'"},
      {with_line(7, "0.5 abc 1"), "p.policy:7: 'abc' is not a number; " + number_hint},
      {with_line(7, "0.5 0x1p3 1"), "p.policy:7: '0x1p3' is not a number; " + number_hint},
      {with_line(7, "0.5 +1 1"), "p.policy:7: '+1' is not a number; " + number_hint},
      {with_line(7, "0.5 nan 1"), "p.policy:7: 'nan' is not a finite number; " + finite_hint},
      {with_line(12, "1 -inf"), "p.policy:12: '-inf' is not a finite number; " + finite_hint},
      {with_line(14, "1e999"),
       "p.policy:14: '1e999' is out of the range of a double; weights and biases are written "
       "with 17 significant digits, such as -0.25 or 1.5e-3"},
      {with_line(10, "0"),
       "p.policy:10: layer 1's bias line has 1 numbers, but sizes=3,2,1 needs 2 (one per output "
       "of the layer)"},
      {first_lines(7),
       "p.policy:8: the file ends inside layer 1's weights after 1 of the 2 rows sizes=3,2,1 "
       "needs; is it truncated?"},
      {first_lines(8), "p.policy:9: the file ends before 'bias 1'; is it truncated?"},
      {first_lines(9), "p.policy:10: the file ends before layer 1's biases; is it truncated?"},
      {first_lines(10),
       "p.policy:11: the file ends before 'weights 2' (sizes=3,2,1 has 2 layers); is it "
       "truncated?"},
      {with_line(11, "weights 3"), "p.policy:11: expected 'weights 2', found 'weights 3'"},
      {std::string(kDocumented) + "0\n",
       "p.policy:15: unexpected '0' after the last layer (sizes=3,2,1 has 2 layers); only "
       "'vector NAME COUNT' blocks may follow"},
      {std::string(kDocumented) + "vector encoder\n1\n",
       "p.policy:15: expected 'vector NAME COUNT' (a name of letters, digits, '_', '-' and '.', "
       "and a count >= 1), found 'vector encoder'"},
      {std::string(kDocumented) + "vector bad/name 1\n1\n",
       "p.policy:15: expected 'vector NAME COUNT' (a name of letters, digits, '_', '-' and '.', "
       "and a count >= 1), found 'vector bad/name 1'"},
      {std::string(kDocumented) + "vector e 0\n\n",
       "p.policy:15: expected 'vector NAME COUNT' (a name of letters, digits, '_', '-' and '.', "
       "and a count >= 1), found 'vector e 0'"},
      {std::string(kDocumented) + "vector e 2\n",
       "p.policy:16: the file ends before vector 'e''s numbers; is it truncated?"},
      {std::string(kDocumented) + "vector e 99999999999\n1 2\n",
       "p.policy:16: vector 'e' has 2 numbers on its line, but its count is 99999999999"},
      {std::string(kDocumented) + "vector e 1\nx\n",
       "p.policy:16: 'x' is not a number; " + number_hint},
      {std::string(kDocumented) + "vector e 1\n1\nvector e 1\n2\n",
       "p.policy:17: vector 'e' is given twice"},
      // A file that claims a huge network is refused at its first short row, without allocating.
      {"prowl-policy 1\nsizes=2000000000,2000000000,1\nactivation=relu\nweights 1\n1 2\n",
       "p.policy:5: row 1 of layer 1's weights has 2 numbers, but sizes=2000000000,2000000000,1 "
       "needs 2000000000 (one per input of the layer)"},
  };
  for (const BadFile& bad : cases) {
    SCOPED_TRACE(bad.text);
    Result<PolicyFile> read = parse_policy(bad.text, "p.policy");
    ASSERT_FALSE(read.is_ok());
    EXPECT_EQ(read.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(read.status().message(), bad.message);
  }
}

// What a fuzzer does first: every truncation of a valid file and every byte replaced by a
// character that matters to the format. Each one reads (and writes again) or fails with a
// FILE:LINE message; none throws or crashes.
TEST(PolicyFile, NeverThrowsOnTruncatedOrMutatedFiles) {
  const std::string valid = kDocumented;
  std::vector<std::string> texts;
  for (std::size_t n = 0; n <= valid.size(); ++n) texts.push_back(valid.substr(0, n));
  for (std::size_t i = 0; i < valid.size(); ++i) {
    for (char c : std::string("x\n\r9-,= .e\0", 11)) {
      std::string mutated = valid;
      mutated[i] = c;
      texts.push_back(mutated);
    }
  }
  int read = 0;
  for (const std::string& text : texts) {
    Result<PolicyFile> result = Status::internal("not run");
    ASSERT_NO_THROW(result = parse_policy(text, "f.policy")) << text;
    if (result.is_ok()) {
      ++read;
      EXPECT_EQ(result->network.sizes().front(), 3);
      // Whatever reads can be written again.
      EXPECT_NO_THROW((void)write_policy(*result)) << text;
    } else {
      EXPECT_EQ(result.status().message().rfind("f.policy:", 0), 0u) << result.status().message();
    }
  }
  // Replacing a digit by another digit (or '-' before a number) still reads.
  EXPECT_GT(read, 10);
}

class PolicyFileOnDisk : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "prowl-policy-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      out.push_back(entry.path().filename().string());
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(PolicyFileOnDisk, WritesAndReadsBackReplacingTheOldFileAndLeavingNoTemporary) {
  const std::string path = (dir_ / "q.policy").string();
  { std::ofstream(path) << "old content\n"; }
  ASSERT_TRUE(write_policy_file(path, documented_policy()).is_ok());
  EXPECT_EQ(names(), std::vector<std::string>{"q.policy"});
  Result<PolicyFile> read = read_policy_file(path);
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read->header, documented_policy().header);
  expect_bitwise_equal(read->network, documented_network());
}

TEST_F(PolicyFileOnDisk, NamesTheFileAndLineOfABadFile) {
  const std::string path = (dir_ / "bad.policy").string();
  { std::ofstream(path) << with_line(3, "activation=elu"); }
  Result<PolicyFile> read = read_policy_file(path);
  ASSERT_FALSE(read.is_ok());
  EXPECT_EQ(read.status().message(),
            path + ":3: unknown activation 'elu'; use activation=relu or activation=tanh");
}

TEST_F(PolicyFileOnDisk, ReportsAFileThatCannotBeRead) {
  const std::string path = (dir_ / "missing.policy").string();
  Result<PolicyFile> read = read_policy_file(path);
  ASSERT_FALSE(read.is_ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(read.status().message(),
            path + ": cannot read the policy file: No such file or directory");
}

TEST_F(PolicyFileOnDisk, ReportsADirectoryItCannotWriteIn) {
  const std::string path = (dir_ / "no" / "q.policy").string();
  const Status written = write_policy_file(path, documented_policy());
  EXPECT_EQ(written.code(), StatusCode::kEnvironment);
  EXPECT_EQ(written.message(), "cannot write the policy file '" + path + ".tmp." +
                                   std::to_string(::getpid()) + "': No such file or directory");
}

TEST_F(PolicyFileOnDisk, RefusesToSaveANetworkWhoseTrainingDivergedAndWritesNothing) {
  PolicyFile policy = documented_policy();
  std::vector<Layer> layers = policy.network.layers();
  layers[1].bias(0) = std::numeric_limits<double>::quiet_NaN();
  policy.network.set_layers(layers);
  const std::string path = (dir_ / "q.policy").string();
  const Status written = write_policy_file(path, policy);
  EXPECT_EQ(written.code(), StatusCode::kInvalid);
  EXPECT_EQ(written.message(),
            "cannot save the policy to '" + path +
                "': the network has a weight or bias that is not finite (training diverged); "
                "train it again with a lower learning_rate or a gradient_clip");
  EXPECT_TRUE(names().empty());
  EXPECT_THROW(write_policy(policy), LogicError);
}

TEST(PolicyFile, ThrowsOnAHeaderItCannotWrite) {
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"sizes", "1,1"},
                                                        {"activation", "relu"},
                                                        {"", "x"},
                                                        {"a b", "x"},
                                                        {"k", "a\nb"},
                                                        {"k", "a\rb"}}) {
    SCOPED_TRACE(key + "=" + value);
    EXPECT_THROW(write_policy({{{key, value}}, documented_network()}), LogicError);
  }
  EXPECT_THROW(write_policy({{{"k", "1"}, {"k", "2"}}, documented_network()}), LogicError);
}

}  // namespace
}  // namespace prowl::learn
