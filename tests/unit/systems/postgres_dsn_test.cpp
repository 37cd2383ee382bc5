// redact_dsn() and dsn_secrets(): every form of DSN libpq reads, and text it cannot read. Needs no
// server.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/systems/postgres.hpp"

namespace prowl {
namespace {

using Secrets = std::vector<std::string>;

TEST(RedactDsn, KeywordValueKeepsTheOrderAndHidesEveryPasswordField) {
  EXPECT_EQ(redact_dsn("host=h password=secret user=u"), "host=h password=[REDACTED] user=u");
  EXPECT_EQ(dsn_secrets("host=h password=secret user=u"), Secrets{"secret"});
  // Quoted, with escapes, spaces around '=': the value libpq reads is the secret.
  EXPECT_EQ(redact_dsn(R"(password = 'it\'s secret' dbname=d)"), "password=[REDACTED] dbname=d");
  EXPECT_EQ(dsn_secrets(R"(password = 'it\'s secret' dbname=d)"), Secrets{"it's secret"});
  // sslpassword is a password field too; values that need quotes are quoted again.
  const char* dsn = R"(host='my host' password='p\\ss word' sslpassword=k3y application_name=a\ b)";
  EXPECT_EQ(redact_dsn(dsn),
            "host='my host' password=[REDACTED] sslpassword=[REDACTED] application_name='a b'");
  EXPECT_EQ(dsn_secrets(dsn), (Secrets{R"(p\ss word)", "k3y"}));
  // Nothing to hide: the DSN as it was written.
  EXPECT_EQ(redact_dsn("host=127.0.0.1 port=1 dbname=shop connect_timeout=2"),
            "host=127.0.0.1 port=1 dbname=shop connect_timeout=2");
  EXPECT_EQ(dsn_secrets("host=h user=u"), Secrets{});
  // The same password twice is one secret.
  EXPECT_EQ(dsn_secrets("password=a sslpassword=a"), Secrets{"a"});
}

TEST(RedactDsn, UriHidesTheUserinfoPasswordAndPasswordParameters) {
  EXPECT_EQ(redact_dsn("postgresql://u:secret@h:5432/d?sslmode=disable"),
            "postgresql://u:[REDACTED]@h:5432/d?sslmode=disable");
  EXPECT_EQ(dsn_secrets("postgresql://u:secret@h:5432/d?sslmode=disable"), Secrets{"secret"});
  // A password given as a parameter is shown where a URI holds it.
  EXPECT_EQ(redact_dsn("postgres://u@h/d?password=secret&application_name=x"),
            "postgres://u:[REDACTED]@h/d?application_name=x");
  EXPECT_EQ(dsn_secrets("postgres://u@h/d?password=secret&application_name=x"), Secrets{"secret"});
  // Percent-encoded: the secret is the password libpq sends.
  EXPECT_EQ(redact_dsn("postgresql://u:p%40ss@h1:5432,h2:5433/d"),
            "postgresql://u:[REDACTED]@h1:5432,h2:5433/d");
  EXPECT_EQ(dsn_secrets("postgresql://u:p%40ss@h1:5432,h2:5433/d"), Secrets{"p@ss"});
  EXPECT_EQ(redact_dsn("postgresql://u:pw@[::1]:5432/d"), "postgresql://u:[REDACTED]@[::1]:5432/d");
  EXPECT_EQ(redact_dsn("postgresql:///shop?host=/var/run/postgresql&sslpassword=x"),
            "postgresql:///shop?host=/var/run/postgresql&sslpassword=[REDACTED]");
  EXPECT_EQ(redact_dsn("postgresql://h:5432/d"), "postgresql://h:5432/d");
  EXPECT_EQ(dsn_secrets("postgresql://h:5432/d"), Secrets{});
}

TEST(RedactDsn, TextLibpqCannotReadIsRedactedConservatively) {
  // A word that sets nothing.
  EXPECT_EQ(redact_dsn("host=h password=secret bogus"), "host=h password=[REDACTED]");
  EXPECT_EQ(dsn_secrets("host=h password=secret bogus"), Secrets{"secret bogus"});
  EXPECT_EQ(redact_dsn("host=h password=secret bogus user=u"), "host=h password=[REDACTED] user=u");
  // A quote never closed hides the rest.
  EXPECT_EQ(redact_dsn("host=h password='unterminated secret"), "host=h password=[REDACTED]");
  EXPECT_EQ(dsn_secrets("host=h password='unterminated secret"), Secrets{"unterminated secret"});
  // Any keyword that names a password or a secret, in any case.
  EXPECT_EQ(redact_dsn("host=h PASSWORD=x oauth_client_secret=y ="),
            "host=h PASSWORD=[REDACTED] oauth_client_secret=[REDACTED] =");
  // A URI libpq reads otherwise than meant: the password hides up to the last '@'.
  EXPECT_EQ(redact_dsn("postgresql://u:pa/ss@h/d?x"), "postgresql://u:[REDACTED]@h/d?x");
  EXPECT_EQ(redact_dsn("postgresql://u:pa/ss@h/d"), "postgresql://u:[REDACTED]@h/d");
  EXPECT_EQ(dsn_secrets("postgresql://u:pa/ss@h/d"), Secrets{"pa/ss"});
  EXPECT_EQ(redact_dsn("postgresql://u@h/d?password=s3&x"),
            "postgresql://u@h/d?password=[REDACTED]&x");
  EXPECT_EQ(dsn_secrets("postgresql://u@h/d?password=s3&x"), Secrets{"s3"});
  // Nothing that looks like a secret: shown as it is.
  EXPECT_EQ(redact_dsn("shop"), "shop");
  EXPECT_EQ(dsn_secrets("shop"), Secrets{});
}

}  // namespace
}  // namespace prowl
