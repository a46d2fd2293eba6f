#include "tensorflux/kernels/cpu/widened_kernel.h"

#include <string>
#include <utility>

#include "tensorflux/kernels/cpu/convert16.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {
namespace {

bool Is16(DataType t) { return t == DT_HALF || t == DT_BFLOAT16; }

// float for the 16-bit floats, t otherwise.
DataType WidenType(DataType t) { return Is16(t) ? DT_FLOAT : t; }

// The float32 copy of a 16-bit tensor.
Status WidenTensor(const Tensor& t, ThreadPool* pool, Tensor* out) {
  TX_RETURN_IF_ERROR(Tensor::Allocate(DT_FLOAT, t.shape(), out));
  float* o = out->data<float>();
  const int64_t n = t.num_elements();
  if (t.dtype() == DT_HALF) {
    const Half* x = t.data<Half>();
    ParallelRange(pool, n, 1, [&](int64_t b, int64_t e) { ToFloat(x + b, o + b, e - b); });
  } else {
    const BFloat16* x = t.data<BFloat16>();
    ParallelRange(pool, n, 1, [&](int64_t b, int64_t e) { ToFloat(x + b, o + b, e - b); });
  }
  return Status::OK();
}

// Builds the float32 twin of `n` (Note [Widened kernels]) in `g`.
Status BuildTwin(const Node& n, Graph* g, Node** twin) {
  NodeSpec spec;
  spec.name = n.name();
  spec.op_type = n.op_type();
  spec.attrs = n.attrs();
  for (auto& kv : spec.attrs)
    if (kv.second.kind == AttrValue::Kind::kType) kv.second.type = WidenType(kv.second.type);
  for (const ArgDef& arg : n.op_def().input_arg) {
    int start = 0, stop = 0;
    if (!n.InputRange(arg.name, &start, &stop)) return Internal("[", n.name(), "] has no input argument ", arg.name);
    NodeSpec::InputArg in;
    in.is_list = !arg.number_attr.empty() || !arg.type_list_attr.empty();
    for (int i = start; i < stop; ++i) {
      NodeSpec ph;
      ph.name = n.name() + "/widened_input_" + std::to_string(i);
      ph.op_type = "Placeholder";
      ph.attrs["dtype"] = AttrValue::Type(WidenType(n.input_type(i)));
      Node* p = nullptr;
      TX_RETURN_IF_ERROR(g->AddNode(std::move(ph), &p));
      in.values.push_back(Endpoint{p, 0});
    }
    spec.inputs.push_back(std::move(in));
  }
  return g->AddNode(std::move(spec), twin);
}

}  // namespace

WidenedKernel::WidenedKernel(OpKernelConstruction* c) : OpKernel(c), graph_(std::make_unique<Graph>()) {
  Node* twin = nullptr;
  Status s = BuildTwin(c->node(), graph_.get(), &twin);
  if (s.ok()) s = KernelRegistry::Global()->CreateKernel(twin, c->device_type(), &inner_);
  node_ = twin;
  c->SetStatus(s);
}

void WidenedKernel::Compute(OpKernelContext* ctx) {
  const int n_in = ctx->num_inputs(), n_out = ctx->num_outputs();
  std::vector<Tensor> ins(n_in), outs(n_out);
  for (int i = 0; i < n_in; ++i) {
    const Tensor& t = ctx->input(i);
    if (Is16(t.dtype())) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, t.dtype()));
      TX_CTX_RETURN_IF_ERROR(ctx, WidenTensor(t, ctx->intra_op_pool(), &ins[i]));
    } else {
      ins[i] = t;
    }
  }
  OpKernelContext sub(node_, ins.data(), outs.data(), ctx->intra_op_pool());
  sub.set_inter_op_pool(ctx->inter_op_pool());
  sub.set_resource_manager(ctx->resource_manager());
  sub.set_cancellation(ctx->cancellation());
  inner_->Compute(&sub);
  TX_CTX_RETURN_IF_ERROR(ctx, sub.status());
  for (int i = 0; i < n_out; ++i) {
    const DataType want = ctx->output_type(i);
    if (!Is16(want)) {
      ctx->set_output(i, std::move(outs[i]));
      continue;
    }
    const Tensor& f = outs[i];
    Tensor* o = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(i, f.shape(), &o));
    if (want == DT_HALF)
      NarrowArray(f.data<float>(), o->data<Half>(), f.num_elements(), ctx->intra_op_pool());
    else
      NarrowArray(f.data<float>(), o->data<BFloat16>(), f.num_elements(), ctx->intra_op_pool());
  }
}

}  // namespace cpu
}  // namespace tx
