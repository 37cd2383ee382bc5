#include <signal.h>

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "prowl/core/chunked_vector.hpp"
#include "prowl/core/context.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/core/huge_array.hpp"
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

TEST(Hasher, TheFixedSizeFunctionEqualsFingerprintOfForEverySize) {
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes.push_back(static_cast<char>(i * 13 + 5));
  for (std::size_t len = 0; len <= bytes.size(); ++len) {
    const FingerprintFn fn = fingerprint_fn(len);
    EXPECT_EQ(fn(bytes.data(), len), fingerprint_of(bytes.data(), len)) << "length " << len;
  }
  EXPECT_EQ(fingerprint_of_fixed<16>(bytes.data()), fingerprint_of(bytes.data(), 16));
}

TEST(HugeArray, IsZeroFilledMovableAndAlignedForHugePagesFrom2MiB) {
  detail::HugeArray<std::uint64_t> small(1000);
  ASSERT_EQ(small.size(), 1000u);
  EXPECT_EQ(small.mapped_bytes(), 8192u);  // 8000 bytes in whole 4 KiB pages
  for (std::uint64_t v : small) EXPECT_EQ(v, 0u);
  small[999] = 42;
  detail::HugeArray<std::uint64_t> moved = std::move(small);
  EXPECT_EQ(moved[999], 42u);
  EXPECT_EQ(small.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty

  const std::size_t n = (std::size_t{3} << 20) / sizeof(std::uint64_t);  // 3 MiB
  detail::HugeArray<std::uint64_t> big(n);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&big[0]) % detail::HugeArray<std::uint64_t>::kHugePage,
            0u);
  EXPECT_EQ(big[0], 0u);
  EXPECT_EQ(big[n - 1], 0u);
  big[n - 1] = 7;
  moved = std::move(big);
  EXPECT_EQ(moved.size(), n);
  EXPECT_EQ(moved[n - 1], 7u);
  detail::HugeArray<std::uint64_t> none;
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.begin(), none.end());
}

TEST(ChunkedVector, ExtendGrowsOverChunksKeepingWhatItHolds) {
  detail::ChunkedVector<std::uint32_t, 4> v;  // chunks of 16
  v.resize(5, 9);
  v.extend(40);  // into a third chunk, nothing written
  ASSERT_EQ(v.size(), 40u);
  EXPECT_EQ(v.memory_bytes(), 3u * 16 * sizeof(std::uint32_t));
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(v[i], 9u);
  for (std::size_t i = 5; i < 40; ++i) EXPECT_EQ(v[i], 0u) << i;  // fresh memory
  v[39] = 7;
  v.extend(20);  // never shrinks
  EXPECT_EQ(v.size(), 40u);
  EXPECT_EQ(v[39], 7u);
  v.push_back(3);
  EXPECT_EQ(v.size(), 41u);
  EXPECT_EQ(v[40], 3u);
  EXPECT_EQ(v.memory_bytes(), 3u * 16 * sizeof(std::uint32_t));
  // extend() writes nothing: after a resize() to fewer, the old values are there again.
  detail::ChunkedVector<std::uint32_t, 4> w;
  w.resize(20, 9);
  w.resize(5, 9);
  w.extend(20);
  EXPECT_EQ(w[10], 9u);
  v.extend(48);  // exactly three chunks
  EXPECT_EQ(v.memory_bytes(), 3u * 16 * sizeof(std::uint32_t));
  v.push_back(1);  // the first of a fourth
  EXPECT_EQ(v.memory_bytes(), 4u * 16 * sizeof(std::uint32_t));
  EXPECT_EQ(v[48], 1u);
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

// Scripts and CI jobs test these numbers, and the --help texts print them: they never change.
TEST(ExitCode, KeepsTheDocumentedNumbers) {
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitFindings, 1);
  EXPECT_EQ(kExitUsage, 2);
  EXPECT_EQ(kExitEnvironment, 3);
  EXPECT_EQ(kExitInternal, 70);
  EXPECT_EQ(signal_exit_code(SIGINT), 130);
  EXPECT_EQ(signal_exit_code(SIGTERM), 143);
  EXPECT_EQ(signal_exit_code(SIGHUP), 129);
}

TEST(Status, MapsCodesToExitCodes) {
  EXPECT_EQ(Status::ok().exit_code(), kExitOk);
  EXPECT_EQ(Status::invalid("x").exit_code(), kExitUsage);
  EXPECT_EQ(Status::environment("x").exit_code(), kExitEnvironment);
  EXPECT_EQ(Status::internal("x").exit_code(), kExitEnvironment);
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
