#include "tensorflux/framework/attr_value.h"

#include <cstring>
#include <sstream>

#include "tensorflux/core/tstring.h"

namespace tx {
namespace {

std::string TypeName(DataType t) {
  std::string s = DataTypeString(t);
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return "DT_" + s;
}

template <typename T, typename F>
void Join(std::ostringstream& os, const std::vector<T>& v, F f) {
  for (size_t k = 0; k < v.size(); ++k) {
    if (k) os << ", ";
    f(v[k]);
  }
}

bool TensorEquals(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.byte_size() != b.byte_size()) return false;
  if (a.dtype() == DT_STRING) {  // compare the strings, not their representations
    const TString *x = a.data<TString>(), *y = b.data<TString>();
    for (int64_t i = 0; i < a.num_elements(); ++i)
      if (x[i] != y[i]) return false;
    return true;
  }
  return a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

}  // namespace

std::string AttrValue::DebugString() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::kNone: return "<none>";
    case Kind::kString: os << '"' << s << '"'; break;
    case Kind::kInt: os << i; break;
    case Kind::kFloat: os << f; break;
    case Kind::kBool: os << (b ? "true" : "false"); break;
    case Kind::kType: os << TypeName(type); break;
    case Kind::kShape: os << shape.ToString(); break;
    case Kind::kTensor: os << tensor.DebugString(); break;
    case Kind::kFunc: os << (func ? func->name : std::string("<null>")); break;
    case Kind::kPlaceholder: os << "$" << s; break;
    case Kind::kList:
      os << "[";
      Join(os, list.s, [&](const std::string& v) { os << '"' << v << '"'; });
      Join(os, list.i, [&](int64_t v) { os << v; });
      Join(os, list.f, [&](float v) { os << v; });
      Join(os, list.b, [&](bool v) { os << (v ? "true" : "false"); });
      Join(os, list.type, [&](DataType v) { os << TypeName(v); });
      Join(os, list.shape, [&](const PartialShape& v) { os << v.ToString(); });
      Join(os, list.tensor, [&](const Tensor& v) { os << v.DebugString(); });
      Join(os, list.func, [&](const NameAttrList& v) { os << v.name; });
      os << "]";
      break;
  }
  return os.str();
}

bool AttrValue::Equals(const AttrValue& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::kNone: return true;
    case Kind::kString:
    case Kind::kPlaceholder: return s == o.s;
    case Kind::kInt: return i == o.i;
    case Kind::kFloat: return f == o.f;
    case Kind::kBool: return b == o.b;
    case Kind::kType: return type == o.type;
    case Kind::kShape: return shape == o.shape;
    case Kind::kTensor: return TensorEquals(tensor, o.tensor);
    case Kind::kFunc: return func && o.func && func->name == o.func->name;
    case Kind::kList: {
      if (list.s != o.list.s || list.i != o.list.i || list.f != o.list.f || list.b != o.list.b ||
          list.type != o.list.type || list.shape != o.list.shape)
        return false;
      if (list.tensor.size() != o.list.tensor.size() || list.func.size() != o.list.func.size()) return false;
      for (size_t k = 0; k < list.tensor.size(); ++k)
        if (!TensorEquals(list.tensor[k], o.list.tensor[k])) return false;
      for (size_t k = 0; k < list.func.size(); ++k)
        if (list.func[k].name != o.list.func[k].name) return false;
      return true;
    }
  }
  return false;
}

}  // namespace tx
