#include <set>
#include <string>

#include <gtest/gtest.h>

#include "prowl/core/context.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/core/rng.hpp"
#include "prowl/core/severity.hpp"
#include "prowl/core/status.hpp"

namespace prowl {
namespace {

TEST(Hasher, GivesTheSameFingerprintHoweverTheBytesAreSplit) {
  const std::string text = "the quick brown fox jumps over the lazy dog, twice over";
  Hasher whole;
  whole.add_bytes(text.data(), text.size());
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    Hasher split;
    split.add_bytes(text.data(), cut);
    split.add_bytes(text.data() + cut, text.size() - cut);
    EXPECT_EQ(split.finish(), whole.finish()) << "cut at " << cut;
  }
}

TEST(Hasher, DistinguishesEveryOneByteChangeAndEveryLength) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  std::string base(24, '\0');
  for (std::size_t len = 0; len <= base.size(); ++len) {
    auto fp = fingerprint_of(base.data(), len);
    EXPECT_TRUE(seen.insert({fp.lo, fp.hi}).second) << "length " << len;
  }
  for (std::size_t i = 0; i < base.size(); ++i) {
    for (int v = 1; v < 256; v += 37) {
      std::string s = base;
      s[i] = static_cast<char>(v);
      auto fp = fingerprint_of(s.data(), s.size());
      EXPECT_TRUE(seen.insert({fp.lo, fp.hi}).second) << "byte " << i << " value " << v;
    }
  }
}

TEST(Hasher, FingerprintOfEqualsTheStreamingHasherForEveryLengthAndSeed) {
  std::string bytes;
  for (int i = 0; i < 70; ++i) bytes.push_back(static_cast<char>(i * 31 + 7));
  for (std::uint64_t seed : {0ULL, 1ULL, 0xdeadbeefULL}) {
    for (std::size_t len = 0; len <= bytes.size(); ++len) {
      Hasher h(seed);
      h.add_bytes(bytes.data(), len);
      EXPECT_EQ(fingerprint_of(bytes.data(), len, seed), h.finish())
          << "length " << len << " seed " << seed;
    }
  }
}

TEST(Hasher, SeedChangesTheFingerprint) {
  const int x = 7;
  EXPECT_NE(fingerprint_of(&x, sizeof x, 1), fingerprint_of(&x, sizeof x, 2));
}

TEST(Fingerprint, PrintsAs32HexDigits) {
  EXPECT_EQ((Fingerprint{0x1, 0xabc}).hex(), "0000000000000abc0000000000000001");
}

TEST(Rng, SameSeedSameSequenceDifferentSeedDifferentSequence) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs = differs || x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, BelowStaysInRangeAndHitsEveryValue) {
  Rng r(1);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const auto v = r.below(7);
    ASSERT_LT(v, 7u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_THROW(r.below(0), LogicError);
}

TEST(Rng, DeriveDependsOnEveryInput) {
  const auto base = Rng::derive(1, 2, 3);
  EXPECT_EQ(base, Rng::derive(1, 2, 3));
  EXPECT_NE(base, Rng::derive(0, 2, 3));
  EXPECT_NE(base, Rng::derive(1, 0, 3));
  EXPECT_NE(base, Rng::derive(1, 2, 0));
}

TEST(Context, StoresTypedValuesAndCopiesOnWrite) {
  Context a;
  a.set("order_id", 5);
  a.set("name", "x");
  Context b = a;
  b.set("order_id", 6);
  EXPECT_EQ(a.get<int>("order_id"), 5);
  EXPECT_EQ(b.get<int>("order_id"), 6);
  EXPECT_EQ(b.get<std::string>("name"), "x");
  EXPECT_FALSE(a == b);
  b.set("order_id", 5);
  EXPECT_TRUE(a == b);
  EXPECT_THROW(a.get<int>("missing"), LogicError);
  EXPECT_THROW(a.get<int>("name"), LogicError);
  a.erase("name");
  EXPECT_FALSE(a.has("name"));
  EXPECT_EQ(a.size(), 1u);
}

TEST(Context, ObservesOnlyTheGivenKeys) {
  Context a, b;
  a.set("id", 1);
  b.set("id", 1);
  b.set("other", 2);
  const std::vector<std::string> keys = {"id"};
  Hasher ha, hb;
  a.observe(keys, ha);
  b.observe(keys, hb);
  EXPECT_EQ(ha.finish(), hb.finish());
  b.set("id", 2);
  Hasher hc;
  b.observe(keys, hc);
  EXPECT_NE(ha.finish(), hc.finish());
}

TEST(Context, KeepsEntriesSortedByKey) {
  Context c;
  c.set("b", 1);
  c.set("a", true);
  c.set("c", 1.5);
  ASSERT_EQ(c.entries().size(), 3u);
  EXPECT_EQ(c.entries()[0].first, "a");
  EXPECT_EQ(to_string(c.entries()[0].second), "true");
  EXPECT_EQ(to_string(c.entries()[2].second), "1.5");
}

TEST(Status, MapsCodesToExitCodes) {
  EXPECT_EQ(Status::ok().exit_code(), 0);
  EXPECT_EQ(Status::invalid("x").exit_code(), 2);
  EXPECT_EQ(Status::environment("x").exit_code(), 3);
  Result<int> r = Status::invalid("bad");
  EXPECT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().message(), "bad");
}

TEST(Severity, ParsesItsOwnNames) {
  for (Severity s : {Severity::kCritical, Severity::kHigh, Severity::kMedium, Severity::kLow}) {
    EXPECT_EQ(parse_severity(to_string(s)), s);
  }
  EXPECT_FALSE(parse_severity("urgent").has_value());
}

}  // namespace
}  // namespace prowl
