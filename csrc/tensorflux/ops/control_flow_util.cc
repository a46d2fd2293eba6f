// Instantiating the functions of If, Case and While (control_flow_util.h).
//
// Note [While shapes]
// A While's cond and body run on every iteration's loop variables, so they are instantiated
// once, for shapes that hold on every iteration: starting from the inputs' static shapes, the
// body is instantiated and each variable's shape is joined with the shape the body returns for
// it (dimensions that differ become unknown, a changed rank makes the shape unknown); this
// repeats until the body keeps the shapes. Each round only loses knowledge, so it stops. The
// handle data of resource and variant variables (a variable's dtype and shape, a TensorList's
// element dtype and shape) is joined the same way: kept while the body returns a value with the
// same handle dtype, its shape joined with what the body returns; a TensorList entering without
// handle data takes the body's once, as TensorFlow does. The While node's outputs have the
// shapes found, so a body that keeps its variables' shapes gives outputs with the inputs' shapes.
#include "tensorflux/ops/control_flow_util.h"

#include <string>

namespace tx {
namespace {

Status FuncAttr(const AttrMap& attrs, const std::string& name, const NameAttrList** out) {
  auto it = attrs.find(name);
  if (it == attrs.end() || it->second.kind != AttrValue::Kind::kFunc || !it->second.func)
    return InvalidArgument("attr '", name, "' must name a function");
  *out = it->second.func.get();
  return Status::OK();
}

Status TypesAttr(const AttrMap& attrs, const std::string& name, std::vector<DataType>* out) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return InvalidArgument("attr '", name, "' is required");
  *out = it->second.list.type;
  return Status::OK();
}

Status Instantiate(FunctionLibrary* lib, const std::string& role, const NameAttrList& f, const ArgShapes& args,
                   FunctionBodyPtr* out) {
  return GetFunctionBody(lib, f.name, f.attr, args.shapes, args.handles, out).WithPrefix(role + ": ");
}

}  // namespace

ArgShapes NodeArgShapes(const Node& n, int begin) {
  ArgShapes a;
  for (size_t i = static_cast<size_t>(begin); i < n.inputs().size(); ++i) {
    const Endpoint& in = n.inputs()[i];
    a.shapes.push_back(n.graph()->OutputShape(in));
    a.handles.push_back(n.graph()->OutputHandleData(in));
  }
  return a;
}

ArgShapes ContextArgShapes(const InferenceContext& c, int begin) {
  ArgShapes a;
  for (int i = begin; i < c.num_inputs(); ++i) {
    a.shapes.push_back(c.input(i));
    const InferenceContext::HandleData* h = c.input_handle_data(i);
    a.handles.push_back(h != nullptr ? *h : InferenceContext::HandleData());
  }
  return a;
}

Status GetBranchBodies(FunctionLibrary* lib, const AttrMap& attrs, const ArgShapes& args,
                       std::vector<FunctionBodyPtr>* out) {
  std::vector<DataType> tin, tout;
  TX_RETURN_IF_ERROR(TypesAttr(attrs, "Tin", &tin));
  TX_RETURN_IF_ERROR(TypesAttr(attrs, "Tout", &tout));
  std::vector<std::pair<std::string, const NameAttrList*>> branches;
  auto list = attrs.find("branches");
  if (list != attrs.end()) {
    for (size_t k = 0; k < list->second.list.func.size(); ++k)
      branches.push_back({"branches[" + std::to_string(k) + "]", &list->second.list.func[k]});
  } else {
    for (const char* name : {"then_branch", "else_branch"}) {
      const NameAttrList* f = nullptr;
      TX_RETURN_IF_ERROR(FuncAttr(attrs, name, &f));
      branches.push_back({name, f});
    }
  }
  out->clear();
  for (const auto& b : branches) {
    FunctionBodyPtr body;
    TX_RETURN_IF_ERROR(Instantiate(lib, b.first, *b.second, args, &body));
    TX_RETURN_IF_ERROR(CheckCallTypes(*body, tin, tout).WithPrefix(b.first + ": "));
    out->push_back(std::move(body));
  }
  return Status::OK();
}

PartialShape JoinShapes(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank() || a.rank() != b.rank()) return PartialShape::Unknown();
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.rank(); ++i)
    if (a.dim(i) != b.dim(i)) dims[i] = -1;
  return PartialShape(std::move(dims));
}

InferenceContext::HandleData JoinHandles(const InferenceContext::HandleData& a, const InferenceContext::HandleData& b) {
  if (a.dtype == DT_INVALID || a.dtype != b.dtype) return InferenceContext::HandleData();
  return InferenceContext::HandleData{a.dtype, JoinShapes(a.shape, b.shape)};
}

Status GetWhileBodies(FunctionLibrary* lib, const AttrMap& attrs, ArgShapes args, WhileBodies* out) {
  std::vector<DataType> types;
  TX_RETURN_IF_ERROR(TypesAttr(attrs, "T", &types));
  const NameAttrList *cond = nullptr, *body = nullptr;
  TX_RETURN_IF_ERROR(FuncAttr(attrs, "cond", &cond));
  TX_RETURN_IF_ERROR(FuncAttr(attrs, "body", &body));
  std::vector<char> adopted(types.size(), 0);
  for (bool changed = true; changed;) {
    TX_RETURN_IF_ERROR(Instantiate(lib, "body", *body, args, &out->body));
    const FunctionBody& b = *out->body;
    TX_RETURN_IF_ERROR(CheckCallTypes(b, types, types).WithPrefix("body: "));
    changed = false;
    for (size_t i = 0; i < types.size(); ++i) {
      PartialShape joined = JoinShapes(args.shapes[i], b.graph->OutputShape(b.rets[i]));
      if (joined != args.shapes[i]) {
        args.shapes[i] = std::move(joined);
        changed = true;
      }
      if (args.handles[i].dtype == DT_INVALID) {
        // A TensorList that enters without handle data takes what the body's result says of its
        // elements, once (TensorFlow copies the body's output handle data to the While's outputs).
        const InferenceContext::HandleData ret = b.graph->OutputHandleData(b.rets[i]);
        if (types[i] == DT_VARIANT && !adopted[i] && ret.dtype != DT_INVALID) {
          adopted[i] = 1;
          args.handles[i] = ret;
          changed = true;
        }
        continue;
      }
      InferenceContext::HandleData joined_handle = JoinHandles(args.handles[i], b.graph->OutputHandleData(b.rets[i]));
      if (joined_handle.dtype != args.handles[i].dtype || joined_handle.shape != args.handles[i].shape) {
        args.handles[i] = std::move(joined_handle);
        changed = true;
      }
    }
  }
  TX_RETURN_IF_ERROR(Instantiate(lib, "cond", *cond, args, &out->cond));
  const FunctionBody& c = *out->cond;
  if (c.ret_types.size() != 1)
    return InvalidArgument("cond: function '", c.function, "' returns ", c.ret_types.size(),
                           " values; a loop condition returns one");
  TX_RETURN_IF_ERROR(CheckCallTypes(c, types, c.ret_types).WithPrefix("cond: "));
  out->shapes = std::move(args.shapes);
  out->handles = std::move(args.handles);
  return Status::OK();
}

}  // namespace tx
