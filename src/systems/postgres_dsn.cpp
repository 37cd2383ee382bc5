// DSNs shown without their secrets: redact_dsn() and dsn_secrets(), built on libpq's own parser
// (PQconninfoParse), so that what is redacted is what libpq would send. Text libpq cannot parse
// is redacted by a conservative scan that errs towards hiding too much.
#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/systems/postgres.hpp"

namespace prowl {
namespace {

constexpr std::string_view kRedacted = "[REDACTED]";

struct FreeOptions {
  void operator()(PQconninfoOption* o) const { PQconninfoFree(o); }
};

// One keyword that the DSN sets.
struct Setting {
  std::string keyword;
  std::string value;
  bool secret = false;       // libpq shows it as a password field (dispchar '*')
  std::size_t position = 0;  // where the DSN first sets it, for the order of the rebuilt one
};

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string_view trim_front(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

// The URI scheme a DSN starts with, "" for the keyword/value form.
std::string_view uri_scheme(std::string_view dsn) {
  dsn = trim_front(dsn);
  for (std::string_view scheme : {"postgresql://", "postgres://"}) {
    if (dsn.starts_with(scheme)) return scheme;
  }
  return {};
}

// Where keyword is first set in the DSN's text (as a word followed by '='), or the end. Only the
// order of the rebuilt DSN depends on it, never what is redacted.
std::size_t position_of(std::string_view dsn, std::string_view keyword) {
  for (std::size_t p = dsn.find(keyword); p != std::string_view::npos;
       p = dsn.find(keyword, p + 1)) {
    if (p > 0 && is_word(dsn[p - 1])) continue;
    std::size_t q = p + keyword.size();
    while (q < dsn.size() && is_space(dsn[q])) ++q;
    if (q < dsn.size() && dsn[q] == '=') return p;
  }
  return dsn.size();
}

// The settings libpq parses out of dsn, in the order the DSN sets them; nullopt when libpq
// cannot parse it.
std::optional<std::vector<Setting>> parse(std::string_view dsn) {
  const std::string text(dsn);
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, FreeOptions> options(PQconninfoParse(text.c_str(), &error));
  PQfreemem(error);
  if (options == nullptr) return std::nullopt;
  std::vector<Setting> settings;
  for (const PQconninfoOption* o = options.get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    Setting s;
    s.keyword = o->keyword;
    s.value = o->val;
    s.secret = o->dispchar != nullptr && o->dispchar[0] == '*';
    s.position = position_of(dsn, s.keyword);
    settings.push_back(std::move(s));
  }
  std::stable_sort(settings.begin(), settings.end(),
                   [](const Setting& a, const Setting& b) { return a.position < b.position; });
  return settings;
}

// A keyword/value value as libpq reads it back: bare when it can be, else in single quotes with
// backslash escapes.
std::string quote(std::string_view value) {
  const bool bare = !value.empty() && std::none_of(value.begin(), value.end(), [](char c) {
    return is_space(c) || c == '\'' || c == '\\';
  });
  if (bare) return std::string(value);
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// Percent-encodes every byte that is not unreserved in a URI, except those in keep.
std::string encode(std::string_view value, std::string_view keep = {}) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' ||
        keep.find(c) != std::string_view::npos) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    items.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

std::string rebuild_keyword_value(const std::vector<Setting>& settings) {
  std::string out;
  for (const Setting& s : settings) {
    if (!out.empty()) out += ' ';
    out += s.keyword + "=" + (s.secret ? std::string(kRedacted) : quote(s.value));
  }
  return out;
}

std::string rebuild_uri(std::string_view scheme, std::vector<Setting> settings) {
  auto take = [&](std::string_view keyword) -> std::optional<Setting> {
    auto it = std::find_if(settings.begin(), settings.end(),
                           [&](const Setting& s) { return s.keyword == keyword; });
    if (it == settings.end()) return std::nullopt;
    Setting s = std::move(*it);
    settings.erase(it);
    return s;
  };
  std::string out(scheme);
  const auto user = take("user");
  const auto password = take("password");
  if (user || password) {
    if (user) out += encode(user->value);
    if (password) out += ":" + std::string(kRedacted);
    out += '@';
  }
  // Hosts and ports go into the authority when they can be written there (names and addresses,
  // one port for all or one per host); socket directories and the rest into the query.
  const auto host = take("host");
  const auto port = take("port");
  std::vector<Setting> query;
  if (host) {
    const auto hosts = split(host->value);
    const auto ports = port ? split(port->value) : std::vector<std::string>{};
    const bool plain = std::none_of(hosts.begin(), hosts.end(), [](const std::string& h) {
      return h.empty() || h[0] == '/' || h[0] == '@';
    });
    const bool fits = ports.empty() || ports.size() == 1 || ports.size() == hosts.size();
    if (plain && fits) {
      for (std::size_t i = 0; i < hosts.size(); ++i) {
        if (i > 0) out += ',';
        out += hosts[i].find(':') != std::string::npos ? "[" + hosts[i] + "]" : encode(hosts[i]);
        if (!ports.empty()) out += ":" + encode(ports[ports.size() == 1 ? 0 : i]);
      }
    } else {
      query.push_back(*host);
      if (port) query.push_back(*port);
    }
  } else if (port) {
    query.push_back(*port);
  }
  if (const auto dbname = take("dbname")) out += "/" + encode(dbname->value);
  query.insert(query.end(), settings.begin(), settings.end());
  std::stable_sort(query.begin(), query.end(),
                   [](const Setting& a, const Setting& b) { return a.position < b.position; });
  for (std::size_t i = 0; i < query.size(); ++i) {
    out += i == 0 ? '?' : '&';
    out += query[i].keyword + "=" +
           (query[i].secret ? std::string(kRedacted) : encode(query[i].value, "/:,"));
  }
  return out;
}

constexpr std::size_t npos = std::string_view::npos;

// A part of text to hide: [begin, end), and the secret it holds.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string secret;
};

// Text libpq cannot parse: every value of a keyword that names a password or a secret (any
// case), quoted or not, and a URI's userinfo password up to the last '@'. A quote that is never
// closed hides everything after it.
std::vector<Span> unparsed_spans(std::string_view dsn) {
  std::vector<Span> spans;
  const std::size_t scheme = dsn.find("://");
  const bool uri = scheme != std::string_view::npos;
  std::string lower(dsn);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t i = 0; i < dsn.size();) {
    if (!is_word(dsn[i]) || (i > 0 && is_word(dsn[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < dsn.size() && is_word(dsn[end])) ++end;
    const std::string_view word = std::string_view(lower).substr(i, end - i);
    std::size_t p = end;
    while (p < dsn.size() && is_space(dsn[p])) ++p;
    const bool keyword = (word.find("password") != std::string_view::npos ||
                          word.find("secret") != std::string_view::npos) &&
                         p < dsn.size() && dsn[p] == '=';
    if (!keyword) {
      i = end;
      continue;
    }
    ++p;
    while (p < dsn.size() && is_space(dsn[p])) ++p;
    Span span{p, p, {}};
    if (p < dsn.size() && dsn[p] == '\'') {
      std::size_t q = p + 1;
      while (q < dsn.size() && dsn[q] != '\'') {
        if (dsn[q] == '\\' && q + 1 < dsn.size()) ++q;
        span.secret += dsn[q++];
      }
      span.end = std::min(q + 1, dsn.size());
    } else {
      auto stop = [&](char c) { return is_space(c) || (uri && (c == '&' || c == '#')); };
      std::size_t q = p;
      while (q < dsn.size() && !stop(dsn[q])) ++q;
      // A password with a space that was not quoted: the words after it that set nothing
      // (have no '=') are taken to be part of it.
      while (!uri) {
        std::size_t next = q;
        while (next < dsn.size() && is_space(dsn[next])) ++next;
        std::size_t word_end = next;
        while (word_end < dsn.size() && !is_space(dsn[word_end])) ++word_end;
        if (next == word_end || dsn.substr(next, word_end - next).find('=') != npos) break;
        q = word_end;
      }
      span.end = q;
      span.secret = std::string(dsn.substr(p, q - p));
    }
    if (span.end > span.begin) spans.push_back(span);
    i = std::max(span.end, end);
  }
  if (uri) {
    const std::size_t at = dsn.rfind('@');
    const std::size_t colon = dsn.find(':', scheme + 3);
    if (at != std::string_view::npos && at > scheme + 3 && colon < at) {
      spans.push_back({colon + 1, at, std::string(dsn.substr(colon + 1, at - colon - 1))});
    }
  }
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin < b.begin; });
  return spans;
}

std::string redact_unparsed(std::string_view dsn) {
  std::string out;
  std::size_t at = 0;
  for (const Span& s : unparsed_spans(dsn)) {
    if (s.end <= at) continue;  // inside one already hidden
    if (s.begin >= at) {
      out += dsn.substr(at, s.begin - at);
      out += kRedacted;
    }
    at = s.end;
  }
  out += dsn.substr(std::min(at, dsn.size()));
  return out;
}

// The settings of a DSN whose parse can be trusted not to hide a password in another field:
// nullopt for text libpq cannot parse, and for a URI with an '@' in which libpq found no password
// ("postgresql://u:pa/ss@h/d" is host u, port pa to libpq).
std::optional<std::vector<Setting>> trusted_parse(std::string_view dsn) {
  auto settings = parse(dsn);
  if (!settings) return settings;
  const std::string_view scheme = uri_scheme(dsn);
  if (scheme.empty()) return settings;
  const bool has_password = std::any_of(settings->begin(), settings->end(),
                                        [](const Setting& s) { return s.keyword == "password"; });
  if (!has_password && trim_front(dsn).substr(scheme.size()).find('@') != npos) {
    return std::nullopt;
  }
  return settings;
}

}  // namespace

std::string redact_dsn(std::string_view dsn) {
  const auto settings = trusted_parse(dsn);
  if (!settings) return redact_unparsed(dsn);
  const std::string_view scheme = uri_scheme(dsn);
  return scheme.empty() ? rebuild_keyword_value(*settings) : rebuild_uri(scheme, *settings);
}

std::vector<std::string> dsn_secrets(std::string_view dsn) {
  std::vector<std::string> secrets;
  auto add = [&](std::string secret) {
    if (secret.empty()) return;
    if (std::find(secrets.begin(), secrets.end(), secret) == secrets.end()) {
      secrets.push_back(std::move(secret));
    }
  };
  if (const auto settings = trusted_parse(dsn)) {
    for (const Setting& s : *settings) {
      if (s.secret) add(s.value);
    }
    return secrets;
  }
  for (const Span& s : unparsed_spans(dsn)) add(s.secret);
  return secrets;
}

}  // namespace prowl
