// TensorList ops (TensorFlow's list_ops): a TensorList is a scalar DT_VARIANT tensor holding a
// vector of tensors of one dtype (kernels/cpu/tensor_list.h). Shape functions put the element
// dtype and shape in the list's handle data (InferenceContext::HandleData), which flows through
// Identity, function calls and While/If (Note [While shapes]), so reads from a list have static
// shapes wherever TensorFlow knows them.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// The element shape a shape input describes: a constant -1 scalar (or a non-constant scalar) is an
// unknown rank, a vector gives the dims with -1 for unknown ones (InferenceContext::ShapeFromShapeTensor).
Status ElementShapeInput(InferenceContext* c, int i, PartialShape* out) {
  const Tensor* t = c->input_tensor(i);
  if (t != nullptr && t->rank() == 0) {
    const int64_t v = t->dtype() == DT_INT64 ? *t->data<int64_t>() : *t->data<int32_t>();
    if (v != -1) return InvalidArgument("element_shape must be -1 (unknown rank) when it is a scalar, got ", v);
    *out = PartialShape::Unknown();
    return Status::OK();
  }
  if (t == nullptr && c->input(i).known_rank() && c->input(i).rank() == 0) {
    *out = PartialShape::Unknown();
    return Status::OK();
  }
  return c->ShapeFromShapeTensor(i, out);
}

// `a` merged with `b` when they are compatible, else `a`.
PartialShape MergeOrKeep(const PartialShape& a, const PartialShape& b) {
  PartialShape m;
  return a.Merge(b, &m).ok() ? m : a;
}

DataType ElementDtype(InferenceContext* c) {
  DataType t = DT_INVALID;
  (void)c->GetAttr("element_dtype", &t);
  return t;
}

// The handle data of list input `i`; InvalidArgument when it says another element dtype than the op.
Status InputList(InferenceContext* c, int i, PartialShape* element_shape) {
  *element_shape = PartialShape::Unknown();
  const InferenceContext::HandleData* h = c->input_handle_data(i);
  if (h == nullptr) return Status::OK();
  const DataType want = ElementDtype(c);
  if (want != DT_INVALID && h->dtype != want)
    return InvalidArgument("Invalid data types; op elements ", DataTypeString(want), " but list elements ",
                           DataTypeString(h->dtype));
  *element_shape = h->shape;
  return Status::OK();
}

// A scalar list output with handle data (element_dtype, shape).
void SetListOutput(InferenceContext* c, int k, PartialShape shape) {
  c->set_output(k, PartialShape::Scalar());
  c->set_output_handle_data(k, InferenceContext::HandleData{ElementDtype(c), std::move(shape)});
}

Status ScalarInput(InferenceContext* c, int i, const char* name) {
  PartialShape s;
  return c->WithRank(c->input(i), 0, name, &s);
}

// EmptyTensorList, TensorListReserve: the element shape from input 0; input 1 a scalar.
Status NewListShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(ScalarInput(c, 1, c->op_def().input_arg[1].name.c_str()));
  PartialShape element;
  TX_RETURN_IF_ERROR(ElementShapeInput(c, 0, &element));
  SetListOutput(c, 0, element);
  return Status::OK();
}

// TensorListFromTensor: elements are tensor[i], of shape tensor.shape[1:] merged with element_shape.
Status FromTensorShape(InferenceContext* c) {
  PartialShape t, element, rows;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "tensor", &t));
  TX_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  rows = t.known_rank() ? PartialShape(std::vector<int64_t>(t.dims().begin() + 1, t.dims().end())) : t;
  if (!element.IsCompatibleWith(rows))
    return InvalidArgument("Specified a list with shape ", element.ToString(), " from a tensor with shape ",
                           t.ToString());
  TX_RETURN_IF_ERROR(element.Merge(rows, &element));
  SetListOutput(c, 0, element);
  return Status::OK();
}

// TensorListGetItem / PopBack's tensor: the list's element shape merged with element_shape.
Status ItemShape(InferenceContext* c, int list, int shape_input, PartialShape* out) {
  PartialShape from_list, from_input;
  TX_RETURN_IF_ERROR(InputList(c, list, &from_list));
  TX_RETURN_IF_ERROR(ElementShapeInput(c, shape_input, &from_input));
  *out = MergeOrKeep(from_input, from_list);
  return Status::OK();
}

Status GetItemShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(ScalarInput(c, 1, "index"));
  PartialShape item;
  TX_RETURN_IF_ERROR(ItemShape(c, 0, 2, &item));
  c->set_output(0, item);
  return Status::OK();
}

// TensorListSetItem (item input 2), TensorListPushBack (item input 1): the list's handle data
// merged with the item's shape.
template <int kItem>
Status WriteItemShape(InferenceContext* c) {
  if (kItem == 2) TX_RETURN_IF_ERROR(ScalarInput(c, 1, "index"));
  PartialShape element;
  TX_RETURN_IF_ERROR(InputList(c, 0, &element));
  SetListOutput(c, 0, MergeOrKeep(element, c->input(kItem)));
  return Status::OK();
}

Status PopBackShape(InferenceContext* c) {
  PartialShape element, item;
  TX_RETURN_IF_ERROR(InputList(c, 0, &element));
  TX_RETURN_IF_ERROR(ItemShape(c, 0, 1, &item));
  SetListOutput(c, 0, element);
  c->set_output(1, item);
  return Status::OK();
}

// TensorListStack: [num_elements or ?] + the element shape.
Status StackShape(InferenceContext* c) {
  PartialShape item;
  TX_RETURN_IF_ERROR(ItemShape(c, 0, 1, &item));
  int64_t n = -1;
  TX_RETURN_IF_ERROR(c->GetAttr("num_elements", &n));
  if (!item.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims{n < 0 ? -1 : n};
  dims.insert(dims.end(), item.dims().begin(), item.dims().end());
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status LengthShape(InferenceContext* c) {
  PartialShape element;
  TX_RETURN_IF_ERROR(InputList(c, 0, &element));
  c->set_output(0, PartialShape::Scalar());
  return Status::OK();
}

// TensorListElementShape: a vector of the element rank (a scalar -1 at run time for an unknown rank).
Status ElementShapeShape(InferenceContext* c) {
  PartialShape element;
  TX_RETURN_IF_ERROR(InputList(c, 0, &element));
  c->set_output(0, element.known_rank() ? PartialShape(std::vector<int64_t>{element.rank()}) : PartialShape::Unknown());
  return Status::OK();
}

// TensorListConcatV2: elements concatenated along their first dimension; and their lengths.
Status ConcatShape(InferenceContext* c) {
  PartialShape from_list, from_input;
  TX_RETURN_IF_ERROR(InputList(c, 0, &from_list));
  TX_RETURN_IF_ERROR(ElementShapeInput(c, 1, &from_input));
  PartialShape element = MergeOrKeep(from_input, from_list), lengths;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "leading_dims", &lengths));
  if (element.known_rank() && element.rank() == 0)
    return InvalidArgument("concat requires elements of rank at least 1, but the element shape is a scalar");
  std::vector<int64_t> dims;
  if (element.known_rank()) {
    dims = element.dims();
    dims[0] = -1;
  }
  c->set_output(0, element.known_rank() ? PartialShape(std::move(dims)) : PartialShape::Unknown());
  c->set_output(1, PartialShape(std::vector<int64_t>{-1}));
  return Status::OK();
}

// TensorListGather: [len(indices)] + the element shape.
Status GatherShape(InferenceContext* c) {
  PartialShape indices, item;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "indices", &indices));
  TX_RETURN_IF_ERROR(ItemShape(c, 0, 2, &item));
  if (!item.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims{indices.dim(0)};
  dims.insert(dims.end(), item.dims().begin(), item.dims().end());
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// TensorListScatterV2: a new list of tensor[i] at indices[i].
Status ScatterShape(InferenceContext* c) {
  PartialShape indices, element;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "indices", &indices));
  TX_RETURN_IF_ERROR(ScalarInput(c, 3, "num_elements"));
  TX_RETURN_IF_ERROR(ElementShapeInput(c, 2, &element));
  const PartialShape& t = c->input(0);
  if (t.known_rank() && t.rank() >= 1)
    element = MergeOrKeep(element, PartialShape(std::vector<int64_t>(t.dims().begin() + 1, t.dims().end())));
  SetListOutput(c, 0, element);
  return Status::OK();
}

// TensorListScatterIntoExistingList: the input list, written at indices.
Status ScatterIntoShape(InferenceContext* c) {
  PartialShape indices, element;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "indices", &indices));
  TX_RETURN_IF_ERROR(InputList(c, 0, &element));
  const PartialShape& t = c->input(1);
  if (t.known_rank() && t.rank() >= 1)
    element = MergeOrKeep(element, PartialShape(std::vector<int64_t>(t.dims().begin() + 1, t.dims().end())));
  SetListOutput(c, 0, element);
  return Status::OK();
}

// TensorListSplit: pieces of `tensor` along its first dimension.
Status SplitShape(InferenceContext* c) {
  PartialShape t, lengths, element;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "tensor", &t));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "lengths", &lengths));
  TX_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  if (t.known_rank()) {
    std::vector<int64_t> dims = t.dims();
    dims[0] = -1;
    element = MergeOrKeep(element, PartialShape(std::move(dims)));
  }
  SetListOutput(c, 0, element);
  return Status::OK();
}

Status ResizeShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(ScalarInput(c, 1, "size"));
  PartialShape element;
  TX_RETURN_IF_ERROR(InputList(c, 0, &element));
  const InferenceContext::HandleData* h = c->input_handle_data(0);
  c->set_output(0, PartialShape::Scalar());
  if (h != nullptr) c->set_output_handle_data(0, *h);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("EmptyTensorList")
    .Input("element_shape: shape_type")
    .Input("max_num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(NewListShape)
    .Summary(
        "An empty list of `element_dtype` tensors of shape `element_shape`, holding at most "
        "`max_num_elements` (-1: no limit).");

TX_REGISTER_OP("TensorListReserve")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(NewListShape)
    .Summary("A list of `num_elements` unset elements (read as zeros) of `element_dtype` and `element_shape`.");

TX_REGISTER_OP("TensorListFromTensor")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(FromTensorShape)
    .Summary("A list whose element i is tensor[i].");

TX_REGISTER_OP("TensorListGetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("element_shape: Tshape")
    .Output("item: element_dtype")
    .Attr("element_dtype: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(GetItemShape)
    .Summary("Element `index` of the list (zeros of the element shape when it was never set).");

TX_REGISTER_OP("TensorListSetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("item: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("resize_if_index_out_of_bounds: bool = false")
    .SetShapeFn(WriteItemShape<2>)
    .Summary("The list with element `index` set to `item` (in place when no one else holds the list).");

TX_REGISTER_OP("TensorListPushBack")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(WriteItemShape<1>)
    .Summary("The list with `tensor` appended.");

TX_REGISTER_OP("TensorListPopBack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("output_handle: variant")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(PopBackShape)
    .Summary("The list without its last element, and that element.");

TX_REGISTER_OP("TensorListStack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .Attr("num_elements: int = -1")
    .SetShapeFn(StackShape)
    .Summary("The elements stacked into one tensor along a new first dimension.");

TX_REGISTER_OP("TensorListLength")
    .Input("input_handle: variant")
    .Output("length: int32")
    .SetShapeFn(LengthShape)
    .Summary("The number of elements of the list.");

TX_REGISTER_OP("TensorListElementShape")
    .Input("input_handle: variant")
    .Output("element_shape: shape_type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ElementShapeShape)
    .Summary("The list's element shape (-1 for unknown dimensions; a scalar -1 for an unknown rank).");

TX_REGISTER_OP("TensorListConcatV2")
    .Input("input_handle: variant")
    .Input("element_shape: shape_type")
    .Input("leading_dims: int64")
    .Output("tensor: element_dtype")
    .Output("lengths: int64")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ConcatShape)
    .Summary("The elements concatenated along their first dimension, and each element's length there.");

TX_REGISTER_OP("TensorListGather")
    .Input("input_handle: variant")
    .Input("indices: int32")
    .Input("element_shape: int32")
    .Output("values: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(GatherShape)
    .Summary("The elements at `indices`, stacked.");

TX_REGISTER_OP("TensorListScatterV2")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ScatterShape)
    .Summary("A list of max(num_elements, max(indices) + 1) elements with tensor[i] at indices[i].");

TX_REGISTER_OP("TensorListScatterIntoExistingList")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(ScatterIntoShape)
    .Summary("The list with tensor[i] at indices[i] (grown when an index is past its end).");

TX_REGISTER_OP("TensorListSplit")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Input("lengths: int64")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(SplitShape)
    .Summary("A list of the pieces of `tensor` along its first dimension, of lengths `lengths`.");

TX_REGISTER_OP("TensorListResize")
    .Input("input_handle: variant")
    .Input("size: int32")
    .Output("output_handle: variant")
    .SetShapeFn(ResizeShape)
    .Summary("The list cut to, or grown with unset elements to, `size` elements.");

}  // namespace tx
