// Gradients of the TensorList ops, as TensorFlow's list_ops gradients: the gradient of a list is a
// list of the gradients of its elements (a DT_VARIANT value, so it flows through While and If like
// any loop variable). Element shapes come from the gradient or forward tensors rather than from
// the forward list where TensorFlow allows it, so a loop's backward pass seldom needs the forward
// lists themselves.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

AttrMap DtypeAttr(GradContext& g) { return {{"element_dtype", TypeAttr(g.attr_type("element_dtype"))}}; }

// The shape of `x` without its first dimension, as an int32 vector (a constant when static).
GValue RowShape(GradScope& o, GValue x) {
  const PartialShape s = o.shape(x);
  if (s.fully_defined() && s.rank() >= 1) return o.Ints(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
  return o.Op1("Slice", {o.ShapeOf(x), o.Ints({1}), o.Ints({-1})});
}

// The full shape of `x` as an int32 vector.
GValue FullShape(GradScope& o, GValue x) { return o.ShapeOf(x); }

GValue Length(GradScope& o, GValue list) { return o.Op1("TensorListLength", {list}); }

// TensorListStack(list, element_shape) -> tensor: dlist = TensorListFromTensor(dtensor).
Status StackGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dt = g.grad(0);
  g.set_grad(0,
             o.Op1("TensorListFromTensor", {dt, RowShape(o, dt)},
                   {{"element_dtype", TypeAttr(o.dtype(dt))}, {"shape_type", TypeAttr(DT_INT32)}}));
  return Status::OK();
}

// TensorListFromTensor(tensor, element_shape) -> list: dtensor = TensorListStack(dlist).
Status FromTensorGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue t = g.input(0);
  const PartialShape s = o.shape(t);
  const int64_t n = s.known_rank() && s.rank() >= 1 ? s.dim(0) : -1;
  g.set_grad(0,
             o.Op1("TensorListStack", {g.grad(0), RowShape(o, t)},
                   {{"element_dtype", TypeAttr(o.dtype(t))}, {"num_elements", IntAttr(n)}}));
  return Status::OK();
}

// TensorListGetItem(list, index, element_shape) -> item: dlist is a list of the forward list's
// length holding ditem at `index`.
Status GetItemGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue ditem = g.grad(0);
  GValue reserved = o.Op1("TensorListReserve", {FullShape(o, ditem), Length(o, g.input(0))},
                          {{"element_dtype", TypeAttr(o.dtype(ditem))}, {"shape_type", TypeAttr(DT_INT32)}});
  g.set_grad(0,
             o.Op1("TensorListSetItem", {reserved, g.input(1), ditem}, {{"element_dtype", TypeAttr(o.dtype(ditem))}}));
  return Status::OK();
}

// TensorListSetItem(list, index, item) -> list: the item's gradient is dlist[index]; the input
// list's gradient is dlist with zeros there (cut back to the input's length when the set grew it).
// The zeros are made from the read gradient, so the write runs after the read and can change
// dlist in place (Note [TensorList in place]), and the forward item is not needed.
Status SetItemGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dlist = g.grad(0), item = g.input(2);
  const AttrMap dtype = DtypeAttr(g);
  GValue ditem = o.Op1("TensorListGetItem", {dlist, g.input(1), FullShape(o, item)}, dtype);
  if (g.needs_grad(2)) g.set_grad(2, ditem);
  GValue din = o.Op1("TensorListSetItem", {dlist, g.input(1), o.ZerosLike(ditem)}, dtype);
  if (g.attr_bool("resize_if_index_out_of_bounds")) din = o.Op1("TensorListResize", {din, Length(o, g.input(0))});
  g.set_grad(0, din);
  return Status::OK();
}

// TensorListPushBack(list, tensor) -> list: pop the tensor's gradient off dlist.
Status PushBackGrad(GradContext& g) {
  GradScope& o = g.ops();
  std::vector<GValue> popped = o.Op("TensorListPopBack", {{g.grad(0)}, {FullShape(o, g.input(1))}}, DtypeAttr(g));
  if (popped.size() == 2) {
    g.set_grad(0, popped[0]);
    g.set_grad(1, popped[1]);
  }
  return Status::OK();
}

// TensorListPopBack(list, element_shape) -> (list, tensor): push dtensor back onto dlist.
Status PopBackGrad(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0, o.Op1("TensorListPushBack", {g.grad(0), g.grad(1)}, DtypeAttr(g)));
  return Status::OK();
}

// TensorListConcatV2(list, element_shape, leading_dims) -> (tensor, lengths): split dtensor by lengths.
Status ConcatGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dt = g.grad(0);
  GValue shape = o.Op1("TensorListElementShape", {g.input(0)}, {{"shape_type", TypeAttr(DT_INT32)}});
  g.set_grad(0,
             o.Op1("TensorListSplit", {dt, shape, g.output(1)},
                   {{"element_dtype", TypeAttr(o.dtype(dt))}, {"shape_type", TypeAttr(DT_INT32)}}));
  return Status::OK();
}

// TensorListSplit(tensor, element_shape, lengths) -> list: concatenate dlist back.
Status SplitGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue t = g.input(0);
  std::vector<GValue> joined = o.Op("ConcatV2", {{o.Ints({-1}), RowShape(o, t)}, {o.Int(0)}});
  if (joined.empty()) return Status::OK();
  GValue shape = joined[0];
  std::vector<GValue> out = o.Op("TensorListConcatV2", {{g.grad(0)}, {shape}, {g.input(2)}},
                                 {{"element_dtype", TypeAttr(o.dtype(t))}, {"shape_type", TypeAttr(DT_INT32)}});
  if (!out.empty()) g.set_grad(0, out[0]);
  return Status::OK();
}

// TensorListGather(list, indices, element_shape) -> values: scatter dvalues into a list of the
// forward list's length.
Status GatherGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dv = g.grad(0);
  const AttrMap dtype = {{"element_dtype", TypeAttr(o.dtype(dv))}};
  GValue reserved = o.Op1("TensorListReserve", {RowShape(o, dv), Length(o, g.input(0))},
                          {{"element_dtype", TypeAttr(o.dtype(dv))}, {"shape_type", TypeAttr(DT_INT32)}});
  g.set_grad(0, o.Op1("TensorListScatterIntoExistingList", {reserved, dv, g.input(1)}, dtype));
  return Status::OK();
}

// TensorListScatterV2(tensor, indices, element_shape, num_elements) -> list: gather dlist.
Status ScatterGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue t = g.input(0);
  g.set_grad(0, o.Op1("TensorListGather", {g.grad(0), g.input(1), RowShape(o, t)}, DtypeAttr(g)));
  return Status::OK();
}

// TensorListScatterIntoExistingList(list, tensor, indices) -> list: gather dlist at indices; the
// input list's gradient is dlist with zeros there.
Status ScatterIntoGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dlist = g.grad(0), t = g.input(1);
  const AttrMap dtype = DtypeAttr(g);
  GValue dt = o.Op1("TensorListGather", {dlist, g.input(2), RowShape(o, t)}, dtype);
  if (g.needs_grad(1)) g.set_grad(1, dt);
  // Cut back to the input's length (the scatter may have grown the list; TensorFlow's gradient
  // leaves the longer list, which the input's producer then rejects).
  GValue din = o.Op1("TensorListScatterIntoExistingList", {dlist, o.ZerosLike(dt), g.input(2)}, dtype);
  g.set_grad(0, o.Op1("TensorListResize", {din, Length(o, g.input(0))}));
  return Status::OK();
}

// TensorListResize(list, size) -> list: dlist resized back to the input's length.
Status ResizeGrad(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0, o.Op1("TensorListResize", {g.grad(0), Length(o, g.input(0))}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("TensorListStack", StackGrad);
TX_REGISTER_GRADIENT("TensorListFromTensor", FromTensorGrad);
TX_REGISTER_GRADIENT("TensorListGetItem", GetItemGrad);
TX_REGISTER_GRADIENT("TensorListSetItem", SetItemGrad);
TX_REGISTER_GRADIENT("TensorListPushBack", PushBackGrad);
TX_REGISTER_GRADIENT("TensorListPopBack", PopBackGrad);
TX_REGISTER_GRADIENT("TensorListConcatV2", ConcatGrad);
TX_REGISTER_GRADIENT("TensorListSplit", SplitGrad);
TX_REGISTER_GRADIENT("TensorListGather", GatherGrad);
TX_REGISTER_GRADIENT("TensorListScatterV2", ScatterGrad);
TX_REGISTER_GRADIENT("TensorListScatterIntoExistingList", ScatterIntoGrad);
TX_REGISTER_GRADIENT("TensorListResize", ResizeGrad);
TX_REGISTER_NO_GRADIENT("EmptyTensorList");
TX_REGISTER_NO_GRADIENT("TensorListReserve");
TX_REGISTER_NO_GRADIENT("TensorListLength");
TX_REGISTER_NO_GRADIENT("TensorListElementShape");

}  // namespace tx
