// HttpApi's judging: an action's request and its answer (run), and the invariants (check).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "http_api.hpp"
#include "json_value.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/core/plural.hpp"

namespace prowl::modelfile::detail {

namespace {

enum class Verdict { kOk, kRejected, kUnexpected };

// Exact codes first, then classes: `ok: 2xx` with `rejected: 202` rejects a 202.
Verdict classify(const ActionSpec& a, int status) {
  auto has = [](const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (has(a.ok.codes, status)) return Verdict::kOk;
  if (has(a.rejected.codes, status)) return Verdict::kRejected;
  if (has(a.ok.classes, status / 100)) return Verdict::kOk;
  if (has(a.rejected.classes, status / 100)) return Verdict::kRejected;
  return Verdict::kUnexpected;
}

bool equal_values(const Value& a, const Value& b) {
  return compare(to_json(a), to_json(b)) == Order::kEqual;
}

std::string_view kind_name(const Json& j) {
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "a value";
}

Outcome with_detail(Outcome o, std::string detail) {
  o.detail = std::move(detail);
  return o;
}

std::string_view op_text(JsonCheck::Op op) {
  switch (op) {
    case JsonCheck::Op::kEquals:
      return "equal to";
    case JsonCheck::Op::kNotEquals:
      return "not equal to";
    case JsonCheck::Op::kLess:
      return "less than";
    case JsonCheck::Op::kAtMost:
      return "at most";
    case JsonCheck::Op::kGreater:
      return "greater than";
    case JsonCheck::Op::kAtLeast:
      return "at least";
    case JsonCheck::Op::kExists:
      return "present";
  }
  return "";
}

bool holds(JsonCheck::Op op, Order order) {
  switch (op) {
    case JsonCheck::Op::kEquals:
      return order == Order::kEqual;
    case JsonCheck::Op::kNotEquals:
      return order != Order::kEqual;
    case JsonCheck::Op::kLess:
      return order == Order::kLess;
    case JsonCheck::Op::kAtMost:
      return order == Order::kLess || order == Order::kEqual;
    case JsonCheck::Op::kGreater:
      return order == Order::kGreater;
    case JsonCheck::Op::kAtLeast:
      return order == Order::kGreater || order == Order::kEqual;
    case JsonCheck::Op::kExists:
      return true;
  }
  return false;
}

// Why the request's headers cannot be sent with the values bound in ctx: a value (chosen by the
// service) that would put a line break or a NUL into a header, which could end the header and
// write others. The model file's own text was checked when it was read.
std::optional<std::string> header_refusal(const RequestSpec& request, const Context& ctx) {
  for (const HeaderSpec& h : request.headers) {
    for (const Template::Part& p : h.value.parts()) {
      if (p.kind == Template::Part::Kind::kText) continue;
      const Value* v = ctx.find(p.text);
      if (v == nullptr) continue;
      const std::string_view problem = header_value_problem(to_string(*v));
      if (!problem.empty()) {
        return fmt::format("header '{}': the value of ${{{}}} holds {}; the request was not sent",
                           h.name, p.text, problem);
      }
    }
  }
  return std::nullopt;
}

// The first context key the request uses that ctx does not bind, or null.
const std::string* missing_key(const RequestSpec& spec, const Context& ctx) {
  const std::string* missing = spec.path.missing(ctx);
  for (const auto& q : spec.query) missing = missing ? missing : q.second.missing(ctx);
  for (const HeaderSpec& h : spec.headers) missing = missing ? missing : h.value.missing(ctx);
  if (spec.body && !missing) missing = spec.body->missing(ctx);
  return missing;
}

}  // namespace

bool conditions_hold(const std::vector<Condition>& conditions, const Context& ctx) {
  for (const Condition& c : conditions) {
    const Value* v = ctx.find(c.key);
    switch (c.kind) {
      case Condition::Kind::kBound:
        if (v == nullptr) return false;
        break;
      case Condition::Kind::kUnbound:
        if (v != nullptr) return false;
        break;
      case Condition::Kind::kEquals:
        if (v == nullptr || !equal_values(*v, c.value)) return false;
        break;
      case Condition::Kind::kNotEquals:
        if (v != nullptr && equal_values(*v, c.value)) return false;
        break;
    }
  }
  return true;
}

Outcome HttpApi::run(const ActionSpec& a, Context& bound,
                     const std::vector<std::pair<std::string, Value>>& params) {
  step_.reset();
  const RequestSpec& spec = a.request;
  // The request reads the parameters' values beside the bound keys; the answer binds into the
  // state's context only.
  Context with_params;
  if (!params.empty()) {
    with_params = bound;
    for (const auto& [key, value] : params) with_params.set(key, value);
  }
  const Context& ctx = params.empty() ? bound : with_params;
  // The action requires every key its request uses; this only guards a model built by hand.
  if (const std::string* missing = missing_key(spec, ctx)) {
    return Outcome::skipped(fmt::format("context key '{}' is not bound", *missing));
  }
  HttpRequest r;
  r.method = spec.method;
  r.path = spec.path.render_url(ctx);
  // The client percent-encodes query values itself.
  for (const auto& [name, value] : spec.query) r.query.emplace_back(name, value.render(ctx));
  if (std::optional<std::string> bad = header_refusal(spec, ctx)) {
    Outcome out =
        with_detail(Outcome::error(std::move(*bad)),
                    redact(fmt::format("{} {} -> not sent", r.method, client_->url_for(r))));
    out.http = exchange(r, nullptr);
    return out;
  }
  for (const HeaderSpec& h : spec.headers) r.headers.emplace_back(h.name, h.value.render(ctx));
  if (spec.body) r.body = spec.body->render(ctx);
  r.json = true;
  r.timeout = spec.timeout;
  auto reply = send(r);
  Outcome out =
      reply ? judge(a, r, *reply, bound)
            : with_detail(Outcome::error(redact(reply.status().message())), line(r, nullptr));
  out.http = exchange(r, reply ? &*reply : nullptr);
  return out;
}

namespace {

// A body as reports keep it: whole up to 64 KiB, then cut with a note of what was left out.
std::string kept_body(std::string body) {
  constexpr std::size_t kKept = 64 * 1024;
  if (body.size() <= kKept) return body;
  std::size_t cut = kKept;
  // Not inside a UTF-8 sequence: back to the byte that starts the character.
  while (cut > 0 && (static_cast<unsigned char>(body[cut]) & 0xC0) == 0x80) --cut;
  const std::size_t more = body.size() - cut;
  body.resize(cut);
  return body + fmt::format("\n... ({} more bytes)", more);
}

}  // namespace

std::shared_ptr<const HttpExchange> HttpApi::exchange(const HttpRequest& r,
                                                      const HttpResponse* reply) const {
  return std::make_shared<const HttpExchange>(
      HttpExchange{.method = r.method,
                   .url = redact(client_->url_for(r)),
                   .status = reply ? reply->status : 0,
                   .request_body = kept_body(redact(r.body)),
                   .response_body = reply ? kept_body(redact(reply->body)) : std::string()});
}

Outcome HttpApi::judge(const ActionSpec& a, const HttpRequest& r, const HttpResponse& reply,
                       Context& ctx) {
  std::string detail = line(r, &reply);
  // Whether the body is JSON, from what line() just worked out when the body shows as it is.
  const bool json = redact(reply.body) == reply.body ? shown(reply.body).json
                                                     : parse_json(reply.body).has_value();
  step_ = StepResponse{fmt::format("{} {}", r.method, client_->url_for(r)), reply.status, json,
                       reply.body};
  const int status = reply.status;
  if (status >= 500) return server_error(r, status, std::move(detail));
  switch (classify(a, status)) {
    case Verdict::kUnexpected:
      return with_detail(
          Outcome::error(fmt::format("unexpected status {} from {} (ok: {}; "
                                     "rejected: {})",
                                     status, method_and_path(r), a.ok.str(), a.rejected.str())),
          std::move(detail));
    case Verdict::kRejected:
      return with_detail(Outcome::rejected(fmt::format("{} answered {}: refused as specified",
                                                       method_and_path(r), status)),
                         std::move(detail));
    case Verdict::kOk:
      break;
  }
  return bind(a, reply.body, json, std::move(detail), ctx);
}

Outcome HttpApi::server_error(const HttpRequest& r, int status, std::string detail) const {
  const bool ruled =
      std::any_of(spec_->invariants.begin(), spec_->invariants.end(), [](const InvariantSpec& inv) {
        return inv.kind == InvariantSpec::Kind::kResponse &&
               inv.rule.kind == ResponseRule::Kind::kNo5xx;
      });
  // With a no_5xx rule the rule reports it, under its own name and severity; the step is a
  // transition like a refusal, so exploration goes on from the state it left.
  if (ruled) {
    return with_detail(
        Outcome::rejected(fmt::format("server error {} from {} (see the no_5xx rule)", status,
                                      method_and_path(r))),
        std::move(detail));
  }
  return with_detail(
      Outcome::error(fmt::format("server error {} from {}", status, method_and_path(r))),
      std::move(detail));
}

// All bindings or none.
Outcome HttpApi::bind(const ActionSpec& a, const std::string& body_text, bool json,
                      std::string detail, Context& ctx) const {
  std::vector<std::pair<std::string, Value>> bound;
  std::optional<Json> body;
  if (!a.bind.empty() && json) body = parse_json(body_text);
  for (const Binding& b : a.bind) {
    auto fail = [&](std::string why) {
      return with_detail(Outcome::error(fmt::format("binding '{}': {}", b.key, why)), detail);
    };
    if (!body) {
      return fail(
          fmt::format("the response body is not JSON: {}", one_line(redact(body_text), 120)));
    }
    const Json* at = find_pointer(*body, b.pointer);
    if (at == nullptr) return fail(fmt::format("the response body has nothing at '{}'", b.pointer));
    std::optional<Value> v = to_value(*at);
    if (!v) {
      return fail(fmt::format("'{}' is {}; only a string, number, boolean or null can be bound",
                              b.pointer, kind_name(*at)));
    }
    bound.emplace_back(b.key, std::move(*v));
  }
  for (auto& [key, value] : bound) ctx.set(key, std::move(value));
  for (const std::string& key : a.unbind) ctx.erase(key);
  return Outcome::ok(std::move(detail));
}

std::string HttpApi::method_and_path(const HttpRequest& r) const {
  return redact(fmt::format("{} {}", r.method, r.path));
}

Check HttpApi::check(const InvariantSpec& inv, const Context& ctx) const {
  if (!conditions_hold(inv.when, ctx)) return Check::pass();
  switch (inv.kind) {
    case InvariantSpec::Kind::kSql:
      return check_sql(inv, ctx);
    case InvariantSpec::Kind::kHttp:
      return check_http(inv, ctx);
    case InvariantSpec::Kind::kResponse:
      return check_response(inv);
  }
  return Check::pass();
}

Check HttpApi::check_sql(const InvariantSpec& inv, const Context& ctx) const {
  if (inv.sql.missing(ctx) != nullptr) return Check::pass();
  const auto index = static_cast<std::size_t>(&inv - spec_->invariants.data());
  std::string rendered;
  const std::string* sql = index < literal_sql_.size() && literal_sql_[index]
                               ? &*literal_sql_[index]
                               : &(rendered = inv.sql.render(ctx, sql_literal));
  auto rows = database(inv.database)->query(*sql);
  if (!rows) return Check::fail(fmt::format("the query failed: {}", rows.status().message()));
  if (rows->rows.empty()) return Check::pass();
  // A state that violates an invariant usually stays in violation for many steps, with the same
  // offending rows: their message is worked out once.
  LastFailure* last = nullptr;
  if (index < spec_->invariants.size()) {
    failures_.resize(spec_->invariants.size());
    last = &failures_[index];
    if (last->rows && last->rows->columns == rows->columns && last->rows->rows == rows->rows) {
      return Check::fail(last->message);
    }
  }
  constexpr std::size_t kShown = 10;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < rows->rows.size() && i < kShown; ++i) {
    std::vector<std::string> cells;
    const auto& row = rows->rows[i];
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string name = c < rows->columns.size() ? rows->columns[c] : std::to_string(c + 1);
      // Each cell is one value of one line: escaped, so no cell starts a line of its own.
      cells.push_back(fmt::format("{}={}", escape_text(name),
                                  row[c] ? escape_text(*row[c]) : std::string("NULL")));
    }
    shown.push_back(fmt::format("({})", fmt::join(cells, ", ")));
  }
  std::string more = rows->rows.size() > kShown
                         ? fmt::format(", ... and {} more", rows->rows.size() - kShown)
                         : std::string();
  std::string message =
      redact(fmt::format("{}: {}{}", plural(rows->rows.size(), "offending row", "offending rows"),
                         fmt::join(shown, ", "), more));
  if (last != nullptr) {
    last->rows = std::move(*rows);
    last->message = message;
  }
  return Check::fail(std::move(message));
}

Check HttpApi::check_http(const InvariantSpec& inv, const Context& ctx) const {
  if (inv.path.missing(ctx) != nullptr) return Check::pass();
  for (const JsonCheck& c : inv.checks) {
    if (c.value && c.value->missing(ctx) != nullptr) return Check::pass();
  }
  HttpRequest r;
  r.path = inv.path.render_url(ctx);
  r.json = true;
  const std::string what = redact(fmt::format("GET {}", client_->url_for(r)));
  auto reply = send(r);
  if (!reply) return Check::fail(redact(reply.status().message()));
  if (!inv.status.contains(reply->status)) {
    return Check::fail(fmt::format("{} answered {} (expected {}): {}", what, reply->status,
                                   inv.status.str(),
                                   one_line(redact(reply->body), spec_->body_limit)));
  }
  if (inv.checks.empty()) return Check::pass();
  std::optional<Json> body = parse_json(reply->body);
  if (!body) {
    return Check::fail(fmt::format("{} answered a body that is not JSON: {}", what,
                                   one_line(redact(reply->body), spec_->body_limit)));
  }
  for (const JsonCheck& c : inv.checks) {
    const Json* at = find_pointer(*body, c.pointer);
    if (c.op == JsonCheck::Op::kExists) {
      if ((at != nullptr) == c.exists) continue;
      return Check::fail(c.exists ? fmt::format("{}: '{}' is missing", what, c.pointer)
                                  : redact(fmt::format("{}: '{}' is {}, but it must be absent",
                                                       what, c.pointer, at->dump())));
    }
    if (at == nullptr) return Check::fail(fmt::format("{}: '{}' is missing", what, c.pointer));
    Json operand;
    std::string operand_text;
    if (c.value) {
      operand = Json::parse(c.value->render(ctx));
      operand_text = operand.dump();
    } else {
      const Json* other = find_pointer(*body, c.other_pointer);
      if (other == nullptr) {
        return Check::fail(fmt::format("{}: '{}' is missing", what, c.other_pointer));
      }
      operand = *other;
      operand_text = fmt::format("'{}' = {}", c.other_pointer, other->dump());
    }
    if (!holds(c.op, compare(*at, operand))) {
      return Check::fail(redact(fmt::format("{}: '{}' is {}, expected {} {}", what, c.pointer,
                                            at->dump(), op_text(c.op), operand_text)));
    }
  }
  return Check::pass();
}

Check HttpApi::check_response(const InvariantSpec& inv) const {
  if (!step_) return Check::pass();
  const StepResponse& s = *step_;
  switch (inv.rule.kind) {
    case ResponseRule::Kind::kNo5xx:
      if (s.status < 500) return Check::pass();
      return Check::fail(redact(fmt::format("{} answered {}: {}", s.request, s.status,
                                            one_line(redact(s.body), spec_->body_limit))));
    case ResponseRule::Kind::kJson:
      if (s.json || s.body.empty()) return Check::pass();
      return Check::fail(
          redact(fmt::format("{} answered {} with a body that is not JSON: {}", s.request, s.status,
                             one_line(redact(s.body), spec_->body_limit))));
  }
  return Check::pass();
}

}  // namespace prowl::modelfile::detail
