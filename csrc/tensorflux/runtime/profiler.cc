#include "tensorflux/runtime/profiler.h"

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

// Note [Profiler]
// Between Start and Stop every session run and every eager op is traced as if it had asked for
// FULL_TRACE (Note [Step stats]): kernels of session plans, of function bodies called from them
// or eagerly (tx.function), and eager ops each become one complete event of the Chrome trace-event
// format, on a track per device (pid) and OS thread (tid), named after the op, with the node name,
// the timeline label and the output shapes as arguments. Whether a profile records is one relaxed
// atomic load per run or eager op; nothing else runs when it does not.

namespace tx {
namespace profiler {
namespace {

struct Session {
  std::mutex mu;
  bool active = false;  // guarded by mu (mirrors g_active)
  std::vector<std::pair<std::string, NodeExecStats>> events;  // (device, stats), guarded by mu
};

std::atomic<bool> g_active{false};

Session& TheSession() {
  static Session* s = new Session();
  return *s;
}

void AppendEscaped(std::string* out, const std::string& s) {
  out->push_back('"');
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out->append(buf);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

std::string Micros(int64_t nanos) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(nanos / 1000),
                static_cast<long long>(nanos % 1000));
  return buf;
}

// The op of a timeline label "name = Op(inputs)" ("_FusedConv2D" for "name = _FusedConv2D(...)(...)").
std::string OpOf(const std::string& label) {
  const size_t eq = label.find(" = ");
  if (eq == std::string::npos) return label;
  const size_t begin = eq + 3, paren = label.find('(', begin);
  return label.substr(begin, paren == std::string::npos ? std::string::npos : paren - begin);
}

std::string ShapesOf(const NodeExecStats& n) {
  std::string s;
  for (const NodeExecStats::Output& o : n.outputs) {
    if (!s.empty()) s += ", ";
    s += DataTypeString(o.dtype) + o.shape.ToString();
  }
  return s;
}

std::string ToChromeTrace(const std::vector<std::pair<std::string, NodeExecStats>>& events) {
  std::map<std::string, int> pids;
  for (const auto& e : events) pids.emplace(e.first, 0);
  int next = 1;
  for (auto& p : pids) p.second = next++;
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  for (const auto& p : pids) {
    sep();
    out += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(p.second) + ",\"args\":{\"name\":";
    AppendEscaped(&out, p.first);
    out += "}}";
  }
  for (const auto& e : events) {
    const NodeExecStats& n = e.second;
    sep();
    out += "{\"ph\":\"X\",\"cat\":\"Op\",\"name\":";
    AppendEscaped(&out, OpOf(n.timeline_label));
    out += ",\"pid\":" + std::to_string(pids[e.first]) + ",\"tid\":" + std::to_string(n.thread_id);
    out += ",\"ts\":" + Micros(n.start_nanos) + ",\"dur\":" + Micros(n.duration_nanos) + ",\"args\":{\"name\":";
    AppendEscaped(&out, n.node_name);
    out += ",\"long_name\":";
    AppendEscaped(&out, n.timeline_label);
    out += ",\"outputs\":";
    AppendEscaped(&out, ShapesOf(n));
    out += "}}";
  }
  out += "]}\n";
  return out;
}

}  // namespace

bool Active() { return g_active.load(std::memory_order_relaxed); }

Status Start() {
  Session& s = TheSession();
  std::lock_guard<std::mutex> l(s.mu);
  if (s.active) return FailedPrecondition("a profiling session is already recording; stop it first");
  s.active = true;
  s.events.clear();
  g_active.store(true, std::memory_order_relaxed);
  return Status::OK();
}

Status Stop(std::string* trace_json) {
  Session& s = TheSession();
  std::vector<std::pair<std::string, NodeExecStats>> events;
  {
    std::lock_guard<std::mutex> l(s.mu);
    if (!s.active) return FailedPrecondition("no profiling session is recording");
    s.active = false;
    g_active.store(false, std::memory_order_relaxed);
    events.swap(s.events);
  }
  *trace_json = ToChromeTrace(events);
  return Status::OK();
}

void Record(const std::string& device, std::vector<NodeExecStats> nodes) {
  Session& s = TheSession();
  std::lock_guard<std::mutex> l(s.mu);
  if (!s.active) return;
  for (NodeExecStats& n : nodes) s.events.emplace_back(device, std::move(n));
}

}  // namespace profiler
}  // namespace tx
