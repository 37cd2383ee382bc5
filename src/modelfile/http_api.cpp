#include "http_api.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "json_value.hpp"

namespace prowl::modelfile::detail {

namespace {

// HttpClient takes secret header values from environment variables (so that it knows what to
// redact). A header such as "Bearer ${env:TOKEN}" has been resolved into one value: it is handed
// over in a variable of prowl's own for the duration of create(), which reads it once. The
// service (already started) never sees it.
Result<HttpClient> make_client(const ModelSpec& spec, const std::string& base_url) {
  HttpClientOptions o;
  o.base_url = base_url;
  o.timeout = spec.timeout;
  o.connect_timeout = spec.connect_timeout;
  std::vector<std::string> variables;
  for (std::size_t i = 0; i < spec.headers.size(); ++i) {
    const HeaderSpec& h = spec.headers[i];
    std::string value = h.value.render(Context());
    if (!h.secret) {
      o.headers.emplace_back(h.name, std::move(value));
      continue;
    }
    std::string variable = fmt::format("PROWL_MODEL_SECRET_HEADER_{}", i);
    ::setenv(variable.c_str(), value.c_str(), 1);
    o.secret_headers.emplace_back(h.name, variable);
    variables.push_back(std::move(variable));
  }
  auto client = HttpClient::create(std::move(o));
  for (const std::string& v : variables) ::unsetenv(v.c_str());
  return client;
}

}  // namespace

HttpApi::HttpApi(std::shared_ptr<const ModelSpec> spec, const Context& context,
                 const ProcessSystem* port_source, std::vector<const Database*> databases)
    : System(std::string(kHttpSystemName)),
      spec_(std::move(spec)),
      context_(context),
      port_source_(port_source),
      databases_(std::move(databases)),
      secrets_(spec_->secrets) {
  // Longest first: a secret that contains another is replaced whole.
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const InvariantSpec& inv : spec_->invariants) {
    std::optional<std::string> sql;
    if (inv.kind == InvariantSpec::Kind::kSql && inv.sql.is_literal()) {
      sql = inv.sql.render(Context(), sql_literal);
    }
    literal_sql_.push_back(std::move(sql));
  }
}

HttpApi::~HttpApi() = default;

HttpApi& HttpApi::of(World& world) {
  PROWL_CHECK(world.size() > 0 && world.system(world.size() - 1).name() == kHttpSystemName,
              "not a world built from a model file");
  return static_cast<HttpApi&>(world.system(world.size() - 1));
}

const HttpApi& HttpApi::of(const World& world) {
  PROWL_CHECK(world.size() > 0 && world.system(world.size() - 1).name() == kHttpSystemName,
              "not a world built from a model file");
  return static_cast<const HttpApi&>(world.system(world.size() - 1));
}

Capabilities HttpApi::capabilities() const {
  if (spec_->reset) return {.snapshot = false, .stack = false, .reset = true, .cheap = false};
  return {.snapshot = true, .stack = false, .reset = true, .cheap = false, .portable = true};
}

std::string HttpApi::redact(std::string_view text) const {
  static constexpr std::string_view kRedacted = "[REDACTED]";
  std::string out = client_ ? client_->redact(text) : std::string(text);
  for (const std::string& secret : secrets_) {
    std::size_t pos = 0;
    while ((pos = out.find(secret, pos)) != std::string::npos) {
      out.replace(pos, secret.size(), kRedacted);
      pos += kRedacted.size();
    }
  }
  return out;
}

const HttpApi::ShownBody& HttpApi::shown(std::string_view text) const {
  static constexpr std::size_t kRemembered = 1024;
  if (auto it = shown_.find(text); it != shown_.end()) return it->second;
  if (shown_.size() >= kRemembered) shown_.clear();
  ShownBody body{one_line(text, spec_->body_limit), parse_json(text).has_value()};
  return shown_.emplace(std::string(text), std::move(body)).first->second;
}

std::string HttpApi::line(const HttpRequest& request, const HttpResponse* reply) const {
  // Redacted before it is cut, so that a cut never leaves part of a secret.
  std::string out = fmt::format("{} {}", request.method, redact(client_->url_for(request)));
  if (!request.body.empty()) {
    out += ' ';
    out += shown(redact(request.body)).line;
  }
  if (reply == nullptr) return out + " -> no response";
  return out + fmt::format(" -> {} {}", reply->status, shown(redact(reply->body)).line);
}

Result<HttpResponse> HttpApi::fetch_observation(const ObservationSpec& o) const {
  HttpRequest r;
  r.path = o.path.render_url(context_);
  r.json = true;
  return send(r);
}

Result<HttpResponse> HttpApi::send(const HttpRequest& request) const {
  PROWL_CHECK(client_ != nullptr, "HttpApi used before begin()");
  return client_->request(request);
}

Status HttpApi::send_reset() {
  const ResetSpec& reset = *spec_->reset;
  HttpRequest r;
  r.method = reset.method;
  r.path = reset.path;
  auto reply = send(r);
  if (!reply) {
    return Status::environment(
        fmt::format("the reset request failed: {}", redact(reply.status().message())));
  }
  if (!reset.ok.contains(reply->status)) {
    return Status::environment(fmt::format("the reset request {} {} answered {} (expected {}): {}",
                                           r.method, client_->url_for(r), reply->status,
                                           reset.ok.str(), one_line(redact(reply->body), 200)));
  }
  return Status::ok();
}

Status HttpApi::begin() {
  base_url_ = spec_->base_url;
  if (const std::size_t at = base_url_.find("{port}"); at != std::string::npos) {
    PROWL_CHECK(port_source_ != nullptr, "base_url has {port} but there is no process system");
    base_url_.replace(at, 6, std::to_string(port_source_->port()));
  }
  auto client = make_client(*spec_, base_url_);
  if (!client) return client.status();
  client_ = std::make_unique<HttpClient>(std::move(*client));
  // Any answer, whatever its status, shows that the service is there.
  auto probe = send(HttpRequest{});
  if (!probe) {
    return Status::environment(fmt::format("the service at base_url {} cannot be reached: {}",
                                           base_url_, redact(probe.status().message())));
  }
  if (spec_->reset) {
    if (Status st = send_reset(); !st) return st;
  }
  return try_sql_invariants();
}

Status HttpApi::restore(SnapshotHandle) {
  step_.reset();
  return Status::ok();
}

Status HttpApi::load(const SystemImagePtr& /*image*/) {
  step_.reset();
  return Status::ok();
}

Status HttpApi::reset() {
  step_.reset();
  return spec_->reset ? send_reset() : Status::ok();
}

Status HttpApi::observe(Hasher& hasher) const {
  for (const ObservationSpec& o : spec_->observations) {
    hasher.add(std::string_view(o.name));
    if (o.path.missing(context_) != nullptr) {
      hasher.add(std::string_view("(unbound)"));
      continue;
    }
    auto reply = fetch_observation(o);
    if (!reply) {
      return Status::environment(
          fmt::format("observation '{}' failed: {}", o.name, redact(reply.status().message())));
    }
    hasher.add(reply->status);
    std::optional<Json> body = parse_json(reply->body);
    if (!body) {
      hasher.add(std::string_view("(not json)"));
      hasher.add(std::string_view(reply->body));
      continue;
    }
    // Json keeps object keys sorted: the same document in another key order is the same state.
    const Json* at = find_pointer(*body, o.pointer);
    hasher.add(std::string_view(at ? at->dump() : "(missing)"));
  }
  if (step_) {
    for (const InvariantSpec& inv : spec_->invariants) {
      if (inv.kind == InvariantSpec::Kind::kResponse && !check_response(inv).ok) {
        hasher.add(std::string_view("(broke)"));
        hasher.add(std::string_view(inv.name));
      }
    }
  }
  return Status::ok();
}

std::string HttpApi::describe() const {
  if (!client_) return {};
  std::string out;
  for (const ObservationSpec& o : spec_->observations) {
    if (!out.empty()) out += '\n';
    out += o.name + ": ";
    if (const std::string* key = o.path.missing(context_)) {
      out += fmt::format("(not observed: {} is not bound)", *key);
      continue;
    }
    auto reply = fetch_observation(o);
    if (!reply) {
      out += "(no response)";
      continue;
    }
    std::optional<Json> body = parse_json(reply->body);
    const Json* at = body ? find_pointer(*body, o.pointer) : nullptr;
    std::string shown = !body ? reply->body : (at ? at->dump() : std::string("(missing)"));
    out += fmt::format("{} {}", reply->status, one_line(redact(shown), spec_->body_limit));
  }
  return out;
}

namespace {

// A cell as a parameter's value: a whole number written as prowl writes it ("7", "-2") as a
// number, anything else ("007", "1e3", "x") as the text it is.
ParamValue param_value(const std::string& text) {
  std::int64_t n = 0;
  const char* end = text.data() + text.size();
  auto [at, ec] = std::from_chars(text.data(), end, n);
  if (ec == std::errc() && at == end && std::to_string(n) == text) return n;
  return text;
}

}  // namespace

Result<std::vector<ParamValue>> HttpApi::state_values(const ActionSpec::StateSource& source,
                                                      const Context& context) const {
  std::vector<ParamValue> out;
  std::set<std::string> seen;  // by name: 1 and "1" would name one action
  auto add = [&](ParamValue v) {
    if (seen.insert(render(v)).second) out.push_back(std::move(v));
  };
  if (source.sql.empty()) {
    for (const std::string& key : source.keys) {
      const Value* v = context.find(key);
      if (v == nullptr || std::holds_alternative<std::monostate>(*v)) continue;
      if (const auto* n = std::get_if<std::int64_t>(v)) {
        add(*n);
      } else if (const auto* t = std::get_if<std::string>(v)) {
        add(*t);
      } else {
        add(to_string(*v));
      }
    }
    return out;
  }
  auto rows = database(source.database)->query(source.sql);
  if (!rows) return Status::invalid(fmt::format("the query failed: {}", rows.status().message()));
  for (const auto& row : rows->rows) {
    if (!row.empty() && row[0]) add(param_value(*row[0]));
  }
  return out;
}

const Database* HttpApi::database(const std::string& name) const {
  for (const Database* d : databases_) {
    if (d->name() == name) return d;
  }
  PROWL_CHECK(false, "no database named '" + name + "'");
  return nullptr;
}

Status HttpApi::try_sql_invariants() const {
  for (const InvariantSpec& inv : spec_->invariants) {
    if (inv.kind != InvariantSpec::Kind::kSql) continue;
    // Unbound keys as NULL: the statement is checked, not its answer.
    Context nulls;
    for (const std::string& key : inv.sql.keys()) nulls.set(key, Value(std::monostate{}));
    auto rows = database(inv.database)->query(inv.sql.render(nulls, sql_literal));
    if (!rows) {
      return Status::invalid(fmt::format(
          "{}:{}:{}: invariant '{}': its SQL fails on database '{}': {}", spec_->file, inv.pos.line,
          inv.pos.column, inv.name, inv.database, rows.status().message()));
    }
  }
  return Status::ok();
}

}  // namespace prowl::modelfile::detail
