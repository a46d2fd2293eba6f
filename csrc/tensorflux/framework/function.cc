// FunctionDef validation and the FunctionLibrary (function.h); the wire codec is in
// function_codec.cc.
#include "tensorflux/framework/function.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "tensorflux/framework/op_registry.h"

namespace tx {

namespace {

// TensorFlow's own names include characters node names may not have ("__inference_<lambda>_7"),
// so only what would break references is refused: empty names, whitespace and control
// characters, ':' and '^'.
bool IsValidFunctionName(const std::string& name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u > 0x20 && u != 0x7f && c != ':' && c != '^';
  });
}

bool IsDigits(const std::string& s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Status ParseFunctionTensorRef(const std::string& s, FunctionTensorRef* out) {
  FunctionTensorRef ref;
  std::string rest = s;
  if (!rest.empty() && rest[0] == '^') {
    ref.control = true;
    rest = rest.substr(1);
  }
  const size_t first = rest.find(':');
  const size_t second = first == std::string::npos ? std::string::npos : rest.find(':', first + 1);
  ref.node = rest.substr(0, first);
  if (first != std::string::npos) {
    std::string digits;
    if (second == std::string::npos) {
      digits = rest.substr(first + 1);
    } else {
      ref.output_arg = rest.substr(first + 1, second - first - 1);
      digits = rest.substr(second + 1);
    }
    if (!IsDigits(digits) || (second != std::string::npos && ref.output_arg.empty()) || ref.control)
      return InvalidArgument("malformed tensor name '", s, "' (expected 'arg', 'node:out_arg:k' or '^node')");
    ref.index = std::stoi(digits);
  }
  if (ref.node.empty()) return InvalidArgument("malformed tensor name '", s, "'");
  *out = std::move(ref);
  return Status::OK();
}

Status ValidateFunctionDef(const FunctionDef& f) {
  const std::string& name = f.name();
  if (!IsValidFunctionName(name))
    return InvalidArgument("'", name,
                           "' is not a valid function name (it must be non-empty, without spaces, ':' or '^')");
  const std::string where = "function '" + name + "': ";
  std::set<std::string> args, nodes, outputs;
  for (const ArgDef& a : f.signature.input_arg) {
    if (a.name.empty() || a.name.find_first_of(":^") != std::string::npos)
      return InvalidArgument(where, "input argument name '", a.name, "' is not valid");
    if (!args.insert(a.name).second) return InvalidArgument(where, "two input arguments are named '", a.name, "'");
  }
  for (const ArgDef& a : f.signature.output_arg) {
    if (a.name.empty()) return InvalidArgument(where, "an output argument has no name");
    if (!outputs.insert(a.name).second) return InvalidArgument(where, "two output arguments are named '", a.name, "'");
  }
  for (const codec::NodeDefProto& n : f.node_def) {
    if (n.name.empty() || n.name.find_first_of(":^") != std::string::npos)
      return InvalidArgument(where, "body node name '", n.name, "' is not valid");
    if (args.count(n.name)) return InvalidArgument(where, "body node '", n.name, "' has the name of an input argument");
    if (!nodes.insert(n.name).second) return InvalidArgument(where, "two body nodes are named '", n.name, "'");
  }
  auto check_ref = [&](const std::string& s, const std::string& user) -> Status {
    FunctionTensorRef ref;
    TX_RETURN_IF_ERROR(ParseFunctionTensorRef(s, &ref).WithPrefix(where + user));
    const bool is_arg = args.count(ref.node) > 0 && ref.output_arg.empty() && !ref.control;
    if (!is_arg && !nodes.count(ref.node))
      return InvalidArgument(where, user, "'", s, "' names no input argument or body node");
    return Status::OK();
  };
  for (const codec::NodeDefProto& n : f.node_def)
    for (const std::string& in : n.input) TX_RETURN_IF_ERROR(check_ref(in, "[" + n.name + "] input "));
  for (const auto& kv : f.ret) {
    if (!outputs.count(kv.first))
      return InvalidArgument(where, "ret names '", kv.first, "', which is no output argument");
    TX_RETURN_IF_ERROR(check_ref(kv.second, "ret '" + kv.first + "' "));
  }
  for (const std::string& o : outputs)
    if (!f.ret.count(o)) return InvalidArgument(where, "output argument '", o, "' has no ret entry");
  const std::set<std::string> declared(f.signature.control_output.begin(), f.signature.control_output.end());
  for (const auto& kv : f.control_ret) {
    if (!nodes.count(kv.second))
      return InvalidArgument(where, "control_ret '", kv.first, "' names '", kv.second, "', which is no body node");
    if (!declared.empty() && !declared.count(kv.first))
      return InvalidArgument(where, "control_ret '", kv.first, "' is not a control_output of the signature");
  }
  return Status::OK();
}

uint64_t Fingerprint64(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (char c : bytes) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  return h;
}

Status FunctionLibrary::CheckAddable(const FunctionDef& f, const std::string& bytes) const {
  auto it = functions_.find(f.name());
  if (it != functions_.end() && it->second.bytes != bytes)
    return InvalidArgument("cannot add function '", f.name(),
                           "': the library already has a different function of that name");
  return Status::OK();
}

Status FunctionLibrary::Add(FunctionDef f) {
  TX_RETURN_IF_ERROR(ValidateFunctionDef(f));
  if (OpRegistry::Global()->LookUp(f.name()) != nullptr)
    return InvalidArgument("cannot add function '", f.name(), "': an op of that name is registered");
  std::string bytes = SerializeFunctionDef(f);
  std::lock_guard<std::mutex> l(mu_);
  TX_RETURN_IF_ERROR(CheckAddable(f, bytes));
  if (functions_.count(f.name())) return Status::OK();
  const std::string name = f.name();
  functions_[name] = Entry{std::make_shared<const FunctionDef>(std::move(f)), std::move(bytes)};
  return Status::OK();
}

Status FunctionLibrary::AddGradient(const std::string& fn, const std::string& grad) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = gradients_.find(fn);
  if (it != gradients_.end() && it->second != grad)
    return InvalidArgument("cannot set the gradient of function '", fn, "' to '", grad, "': it is already '",
                           it->second, "'");
  gradients_[fn] = grad;
  return Status::OK();
}

Status FunctionLibrary::MergeFrom(const FunctionDefLibraryProto& other, Added* added) {
  std::vector<std::pair<FunctionDef, std::string>> staged;
  for (const FunctionDef& f : other.function) {
    TX_RETURN_IF_ERROR(ValidateFunctionDef(f));
    if (OpRegistry::Global()->LookUp(f.name()) != nullptr)
      return InvalidArgument("cannot add function '", f.name(), "': an op of that name is registered");
    staged.emplace_back(f, SerializeFunctionDef(f));
  }
  std::lock_guard<std::mutex> l(mu_);
  std::map<std::string, const std::string*> seen;  // conflicts inside `other` as well
  for (const auto& s : staged) {
    TX_RETURN_IF_ERROR(CheckAddable(s.first, s.second));
    auto it = seen.emplace(s.first.name(), &s.second);
    if (!it.second && *it.first->second != s.second)
      return InvalidArgument("the library defines function '", s.first.name(), "' twice, differently");
  }
  for (const auto& g : other.gradient) {
    auto it = gradients_.find(g.first);
    if (it != gradients_.end() && it->second != g.second)
      return InvalidArgument("cannot set the gradient of function '", g.first, "' to '", g.second, "': it is already '",
                             it->second, "'");
  }
  for (auto& s : staged) {
    const std::string name = s.first.name();
    if (functions_.count(name)) continue;
    functions_[name] = Entry{std::make_shared<const FunctionDef>(std::move(s.first)), std::move(s.second)};
    if (added != nullptr) added->functions.push_back(name);
  }
  for (const auto& g : other.gradient) {
    if (gradients_.emplace(g.first, g.second).second && added != nullptr) added->gradients.push_back(g.first);
  }
  return Status::OK();
}

void FunctionLibrary::Remove(const Added& added) {
  std::lock_guard<std::mutex> l(mu_);
  for (const std::string& g : added.gradients) gradients_.erase(g);
  for (const std::string& n : added.functions) functions_.erase(n);
  // Bodies of other functions may have been instantiated through the removed ones: drop the
  // whole cache (kernels keep the bodies they hold).
  if (!added.functions.empty()) bodies_.clear();
}

Status FunctionLibrary::RemoveFunction(const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  if (functions_.erase(name) == 0) return NotFound("function '", name, "' is not in the library");
  gradients_.erase(name);
  // Body keys start with the function's name and a NUL (GetFunctionBody).
  const std::string prefix = name + '\0';
  for (auto it = bodies_.lower_bound(prefix); it != bodies_.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
    it = bodies_.erase(it);
  return Status::OK();
}

void FunctionLibrary::ClearBodies() {
  std::map<std::string, std::shared_ptr<const FunctionBody>> old;
  std::lock_guard<std::mutex> l(mu_);
  old.swap(bodies_);
}

std::shared_ptr<const FunctionDef> FunctionLibrary::Find(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second.def;
}

std::string FunctionLibrary::FindGradient(const std::string& fn) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = gradients_.find(fn);
  return it == gradients_.end() ? std::string() : it->second;
}

int FunctionLibrary::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(functions_.size());
}

std::vector<std::string> FunctionLibrary::Names() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& kv : functions_) out.push_back(kv.first);
  return out;
}

std::shared_ptr<const FunctionBody> FunctionLibrary::FindBody(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = bodies_.find(key);
  return it == bodies_.end() ? nullptr : it->second;
}

std::shared_ptr<const FunctionBody> FunctionLibrary::AddBody(const std::string& key,
                                                             std::shared_ptr<const FunctionBody> body) {
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = bodies_[key];
  if (!slot) slot = std::move(body);
  return slot;
}

}  // namespace tx
