// Tests of the eager gradient tape against graph mode: small programs (MatMul, Conv2D, softmax
// cross-entropies, reductions with broadcasting, list inputs and multiple outputs) differentiated
// by a tape and by AddSymbolicGradients (with static and with unknown shapes) give the same
// gradients. Also: an op without a gradient entry, memory a used tape releases, thread-locality
// and one tape per context.
#include <cmath>
#include <thread>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/eager/tape.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/gradients/grad_scope.h"
#include "tensorflux/gradients/symbolic_gradients.h"
#include "tensorflux/runtime/session.h"

using namespace tx;
using tx_test::MakeTensor;
using tx_test::Values;

// An op no gradient is registered or declared for (only this test binary registers it).
TX_REGISTER_OP("TapeTestNoGradient").Input("x: float").Output("y: float").SetShapeFn(shape_fns::UnchangedShape);

namespace {

class CopyKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};
TX_REGISTER_KERNEL(KernelDefBuilder("TapeTestNoGradient"), CopyKernel);

// A small program: steps applied in order; a Ref names input i ({-1, i}) or output k of step s.
struct Ref {
  int step, index;
};
struct Step {
  std::string op;
  std::vector<std::vector<Ref>> args;  // grouped per OpDef input argument
  AttrMap attrs;
};
struct Program {
  std::vector<Tensor> inputs;  // float64 inputs are differentiated; integer ones are constants
  std::vector<Step> steps;
  Ref target;
  Tensor target_grad;  // the output gradient of the target
};

Tensor Doubles(const TensorShape& shape, double phase) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37 * i + phase) + 0.1 * phase;
  return MakeTensor<double>(shape, v);
}

Tensor Ints(const std::vector<int32_t>& v) { return MakeTensor<int32_t>(TensorShape({(int64_t)v.size()}), v); }
Tensor Scalar32(int32_t v) { return MakeTensor<int32_t>(TensorShape({}), {v}); }

EagerContextOptions TwoThreads() {
  EagerContextOptions o;
  o.intra_op_threads = o.inter_op_threads = 2;
  return o;
}

EagerTensor Eager(const Tensor& t) { return EagerTensor{t, 0, NewEagerTensorId()}; }

Status RunEager(EagerContext* ctx, const std::string& op, const std::vector<std::vector<EagerTensor>>& args,
                const AttrMap& attrs, std::vector<EagerTensor>* outs) {
  EagerOp e(ctx);
  TX_RETURN_IF_ERROR(e.Reset(op.c_str(), nullptr));
  const OpDef& def = OpRegistry::Global()->LookUp(op)->def;
  for (size_t a = 0; a < args.size(); ++a) {
    const bool list = !def.input_arg[a].number_attr.empty() || !def.input_arg[a].type_list_attr.empty();
    std::vector<const EagerTensor*> ptrs;
    for (const EagerTensor& t : args[a]) ptrs.push_back(&t);
    if (list)
      e.AddInputList(ptrs.data(), static_cast<int>(ptrs.size()));
    else
      e.AddInput(args[a][0]);
  }
  for (const auto& kv : attrs) e.SetAttr(kv.first, kv.second);
  return e.Execute(outs);
}

// Gradients of the program's target with respect to its float64 inputs, by a tape.
Status EagerGrads(const Program& p, std::vector<Tensor>* grads) {
  EagerContext ctx(TwoThreads());
  Tape tape(&ctx, TapeOptions());
  std::vector<EagerTensor> inputs, sources;
  for (const Tensor& t : p.inputs) {
    inputs.push_back(Eager(t));
    if (t.dtype() == DT_DOUBLE) {
      tape.Watch(inputs.back());
      sources.push_back(inputs.back());
    }
  }
  std::vector<std::vector<EagerTensor>> outs(p.steps.size());
  auto value = [&](Ref r) { return r.step < 0 ? inputs[r.index] : outs[r.step][r.index]; };
  for (size_t s = 0; s < p.steps.size(); ++s) {
    std::vector<std::vector<EagerTensor>> args;
    for (const auto& group : p.steps[s].args) {
      args.emplace_back();
      for (Ref r : group) args.back().push_back(value(r));
    }
    TX_RETURN_IF_ERROR(RunEager(&ctx, p.steps[s].op, args, p.steps[s].attrs, &outs[s]));
  }
  EagerTensor dy = Eager(p.target_grad);
  std::vector<std::optional<EagerTensor>> res;
  TX_RETURN_IF_ERROR(tape.Gradient({value(p.target)}, sources, {&dy}, false, &res));
  grads->clear();
  for (const auto& r : res) grads->push_back(r ? r->tensor : Tensor());
  return Status::OK();
}

Node* AddNode(Graph& g, const std::string& op, std::vector<NodeSpec::InputArg> args, AttrMap attrs, Status* s) {
  NodeSpec spec;
  spec.name = g.UniqueName(op);
  spec.op_type = op;
  spec.inputs = std::move(args);
  spec.attrs = std::move(attrs);
  Node* n = nullptr;
  if (s->ok()) *s = g.AddNode(std::move(spec), &n);
  return n;
}

// The same gradients by graph mode: float inputs are Placeholders (of static or unknown shape).
Status GraphGrads(const Program& p, bool static_shapes, std::vector<Tensor>* grads) {
  auto g = std::make_shared<Graph>();
  Status s;
  std::vector<Node*> in_nodes;
  std::vector<Endpoint> xs;
  std::vector<std::pair<Endpoint, Tensor>> feeds;
  for (const Tensor& t : p.inputs) {
    if (t.dtype() == DT_DOUBLE) {
      PartialShape shape = static_shapes ? PartialShape(t.shape()) : PartialShape();
      in_nodes.push_back(AddNode(*g, "Placeholder", {},
                                 {{"dtype", AttrValue::Type(DT_DOUBLE)}, {"shape", AttrValue::Shape(shape)}}, &s));
      xs.push_back({in_nodes.back(), 0});
      feeds.push_back({xs.back(), t});
    } else {
      in_nodes.push_back(
          AddNode(*g, "Const", {}, {{"value", AttrValue::FromTensor(t)}, {"dtype", AttrValue::Type(t.dtype())}}, &s));
    }
  }
  std::vector<Node*> step_nodes;
  auto endpoint = [&](Ref r) {
    return r.step < 0 ? Endpoint{in_nodes[r.index], 0} : Endpoint{step_nodes[r.step], r.index};
  };
  for (const Step& st : p.steps) {
    const OpDef& def = OpRegistry::Global()->LookUp(st.op)->def;
    std::vector<NodeSpec::InputArg> args;
    for (size_t a = 0; a < st.args.size(); ++a) {
      NodeSpec::InputArg arg;
      arg.is_list = !def.input_arg[a].number_attr.empty() || !def.input_arg[a].type_list_attr.empty();
      for (Ref r : st.args[a]) arg.values.push_back(endpoint(r));
      args.push_back(std::move(arg));
    }
    step_nodes.push_back(AddNode(*g, st.op, std::move(args), st.attrs, &s));
  }
  Node* dy = AddNode(*g, "Const", {},
                     {{"value", AttrValue::FromTensor(p.target_grad)}, {"dtype", AttrValue::Type(DT_DOUBLE)}}, &s);
  TX_RETURN_IF_ERROR(s);
  GradientOptions opts;
  opts.grad_ys = {{dy, 0}};
  std::vector<Endpoint> dxs;
  TX_RETURN_IF_ERROR(AddSymbolicGradients(g.get(), "gradients", {endpoint(p.target)}, xs, opts, &dxs));
  SessionOptions so;
  so.inter_op_threads = so.intra_op_threads = 2;
  Session session(g, so);
  return session.Run(feeds, dxs, {}, grads);
}

// Differentiates `p` three ways and expects the same numbers.
void ExpectSameGradients(const char* what, const Program& p) {
  std::vector<Tensor> eager, graph_static, graph_dynamic;
  EXPECT_OK(EagerGrads(p, &eager));
  EXPECT_OK(GraphGrads(p, true, &graph_static));
  EXPECT_OK(GraphGrads(p, false, &graph_dynamic));
  if (eager.size() != graph_static.size() || eager.size() != graph_dynamic.size()) {
    std::printf("%s: %zu eager gradients, %zu and %zu graph ones\n", what, eager.size(), graph_static.size(),
                graph_dynamic.size());
    ++tx_test::Failures();
    return;
  }
  for (size_t i = 0; i < eager.size(); ++i) {
    for (const Tensor* other : {&graph_static[i], &graph_dynamic[i]}) {
      std::vector<double> a = Values<double>(eager[i]), b = Values<double>(*other);
      bool same = !a.empty() && a.size() == b.size() && eager[i].shape() == other->shape();
      for (size_t k = 0; same && k < a.size(); ++k) same = std::fabs(a[k] - b[k]) <= 1e-12 * (1 + std::fabs(b[k]));
      if (!same) {
        std::printf("%s: gradient %zu differs: eager %s, graph %s\n", what, i, eager[i].DebugString().c_str(),
                    other->DebugString().c_str());
        ++tx_test::Failures();
      }
    }
  }
}

}  // namespace

TEST(EagerMatchesGraphMatMul) {
  Program p;
  p.inputs = {Doubles(TensorShape({3, 2}), 0.1), Doubles(TensorShape({3, 4}), 0.7), Doubles(TensorShape({5, 4}), 1.3)};
  p.steps = {{"MatMul", {{{-1, 0}}, {{-1, 1}}}, {{"transpose_a", AttrValue::Bool(true)}}},
             {"MatMul", {{{0, 0}}, {{-1, 2}}}, {{"transpose_b", AttrValue::Bool(true)}}},
             {"Tanh", {{{1, 0}}}, {}}};
  p.target = {2, 0};
  p.target_grad = Doubles(TensorShape({2, 5}), 2.0);
  ExpectSameGradients("MatMul", p);
}

TEST(EagerMatchesGraphConv2D) {
  for (const char* padding : {"SAME", "VALID"}) {
    Program p;
    p.inputs = {Doubles(TensorShape({2, 5, 5, 3}), 0.2), Doubles(TensorShape({3, 3, 3, 4}), 0.9)};
    const int64_t stride = padding[0] == 'S' ? 2 : 1;
    p.steps = {{"Conv2D",
                {{{-1, 0}}, {{-1, 1}}},
                {{"strides", IntListAttr({1, stride, stride, 1})}, {"padding", AttrValue::String(padding)}}},
               {"Relu", {{{0, 0}}}, {}}};
    p.target = {1, 0};
    p.target_grad = Doubles(TensorShape({2, 3, 3, 4}), 0.4);  // both paddings give 3x3 outputs
    ExpectSameGradients(padding, p);
  }
}

TEST(EagerMatchesGraphSoftmaxCrossEntropy) {
  Program p;
  // Dense labels (differentiated too), and sparse int32 labels (a constant).
  p.inputs = {Doubles(TensorShape({4, 3}), 0.3), Doubles(TensorShape({4, 3}), 1.1), Ints({2, 0, 1, 1})};
  p.steps = {{"Softmax", {{{-1, 1}}}, {}},
             {"SoftmaxCrossEntropyWithLogits", {{{-1, 0}}, {{0, 0}}}, {}},
             {"SparseSoftmaxCrossEntropyWithLogits", {{{-1, 0}}, {{-1, 2}}}, {}},
             {"AddV2", {{{1, 0}}, {{2, 0}}}, {}}};
  p.target = {3, 0};
  p.target_grad = Doubles(TensorShape({4}), 0.5);
  ExpectSameGradients("softmax cross-entropy", p);
}

TEST(EagerMatchesGraphReductionsWithBroadcasting) {
  Program p;
  p.inputs = {Doubles(TensorShape({2, 3, 4}), 0.6), Doubles(TensorShape({3, 1}), 1.7), Ints({1}), Ints({-1}),
              Ints({0, 1})};
  p.steps = {{"Mul", {{{-1, 0}}, {{-1, 1}}}, {}},  // [2,3,4] * [3,1]
             {"Mean", {{{0, 0}}, {{-1, 2}}}, {{"keep_dims", AttrValue::Bool(true)}}},  // [2,1,4]
             {"Sub", {{{0, 0}}, {{1, 0}}}, {}},  // [2,3,4] - [2,1,4]
             {"Max", {{{2, 0}}, {{-1, 3}}}, {}},  // [2,3]
             {"Sum", {{{-1, 1}}, {{-1, 3}}}, {}},  // [3]
             {"AddV2", {{{3, 0}}, {{4, 0}}}, {}},  // [2,3] + [3]
             {"Sum", {{{5, 0}}, {{-1, 4}}}, {}}};  // scalar
  p.target = {6, 0};
  p.target_grad = Doubles(TensorShape({}), 0.8);
  ExpectSameGradients("reductions", p);
}

TEST(EagerMatchesGraphListsAndMultipleOutputs) {
  Program p;
  p.inputs = {Doubles(TensorShape({2, 3}), 0.1), Doubles(TensorShape({2, 4}), 0.2), Scalar32(1)};
  p.steps = {{"ConcatV2", {{{-1, 0}, {-1, 0}, {-1, 1}}, {{-1, 2}}}, {}},  // [2,10]
             {"Split", {{{-1, 2}}, {{0, 0}}}, {{"num_split", AttrValue::Int(2)}}},
             {"AddN", {{{1, 0}, {1, 1}, {1, 1}}}, {}},
             {"Exp", {{{2, 0}}}, {}}};
  p.target = {3, 0};
  p.target_grad = Doubles(TensorShape({2, 5}), 0.3);
  ExpectSameGradients("lists", p);
}

TEST(OpWithoutGradientIsNotFound) {
  EagerContext ctx(TwoThreads());
  Tape tape(&ctx, TapeOptions{true, true});
  EagerTensor x = Eager(MakeTensor<float>(TensorShape({2}), {1, 2}));
  tape.Watch(x);
  std::vector<EagerTensor> y, z, w;
  EXPECT_OK(RunEager(&ctx, "TapeTestNoGradient", {{x}}, {}, &y));
  EXPECT_OK(RunEager(&ctx, "Mul", {{y[0]}, {y[0]}}, {}, &z));
  EXPECT_OK(RunEager(&ctx, "Mul", {{x}, {x}}, {}, &w));
  std::vector<std::optional<EagerTensor>> res;
  Status s = tape.Gradient({z[0]}, {x}, {}, false, &res);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_ERROR(s, "No gradient defined for op 'TapeTestNoGradient'");
  // Paths that avoid it still work, with the same tape.
  EXPECT_OK(tape.Gradient({w[0]}, {x}, {}, false, &res));
  EXPECT_TRUE(res.size() == 1 && res[0] && Values<float>(res[0]->tensor) == std::vector<float>({2, 4}));
  // An unconnected target that reaches it is no error: no gradient flows there.
  EXPECT_OK(tape.Gradient({z[0]}, {w[0]}, {}, false, &res));
  EXPECT_TRUE(res.size() == 1 && !res[0]);
}

// A non-persistent tape releases what it recorded once its gradient is computed; a persistent
// one keeps it until deleted.
TEST(UsedTapeReleasesRecords) {
  EagerContext ctx(TwoThreads());
  EagerTensor x = Eager(MakeTensor<double>(TensorShape({3}), {0.1, 0.2, 0.3}));
  for (bool persistent : {false, true}) {
    auto tape = std::make_unique<Tape>(&ctx, TapeOptions{persistent, true});
    tape->Watch(x);
    std::vector<EagerTensor> e, y;
    EXPECT_OK(RunEager(&ctx, "Exp", {{x}}, {}, &e));
    EXPECT_OK(RunEager(&ctx, "Sin", {{e[0]}}, {}, &y));
    const Buffer* intermediate = e[0].tensor.buffer().get();
    EXPECT_TRUE(!intermediate->RefCountIsOne());  // the records hold it
    std::vector<std::optional<EagerTensor>> res;
    EXPECT_OK(tape->Gradient({y[0]}, {x}, {}, false, &res));
    EXPECT_TRUE(res.size() == 1 && res[0]);
    if (res.size() == 1 && res[0]) {
      std::vector<double> g = Values<double>(res[0]->tensor), xv = Values<double>(x.tensor);
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(g[i], std::cos(std::exp(xv[i])) * std::exp(xv[i]), 1e-12);
    }
    EXPECT_EQ(intermediate->RefCountIsOne(), !persistent);
    tape.reset();
    EXPECT_TRUE(intermediate->RefCountIsOne());
  }
}

// A tape records only the ops of its own thread and its own context; deleting it from another
// thread is safe.
TEST(TapesAreThreadLocalAndPerContext) {
  EagerContext ctx(TwoThreads()), other(TwoThreads());
  auto tape = std::make_unique<Tape>(&ctx, TapeOptions{true, true});
  EagerTensor x = Eager(MakeTensor<double>(TensorShape({}), {2.0}));
  tape->Watch(x);
  std::vector<EagerTensor> on_thread, off_thread, other_ctx;
  std::thread t([&] { EXPECT_OK(RunEager(&ctx, "Mul", {{x}, {x}}, {}, &off_thread)); });
  t.join();
  EXPECT_OK(RunEager(&other, "Mul", {{x}, {x}}, {}, &other_ctx));
  EXPECT_OK(RunEager(&ctx, "Mul", {{x}, {x}}, {}, &on_thread));
  std::vector<std::optional<EagerTensor>> res;
  EXPECT_OK(tape->Gradient({off_thread[0], other_ctx[0], on_thread[0]}, {x}, {}, false, &res));
  EXPECT_TRUE(res.size() == 1 && res[0] && Values<double>(res[0]->tensor) == std::vector<double>({4.0}));
  std::thread deleter([&] { tape.reset(); });
  deleter.join();
  // The thread holds no tape now; ops still run.
  EXPECT_OK(RunEager(&ctx, "Mul", {{x}, {x}}, {}, &on_thread));
  Tape again(&ctx, TapeOptions());
  again.Watch(x);
  EXPECT_OK(RunEager(&ctx, "Mul", {{x}, {x}}, {}, &on_thread));
  EXPECT_OK(again.Gradient({on_thread[0]}, {x}, {}, false, &res));
  EXPECT_TRUE(res.size() == 1 && res[0] && Values<double>(res[0]->tensor) == std::vector<double>({4.0}));
  EXPECT_TRUE(ThreadEagerOpObserver() != nullptr);
}

TEST(ObserverIsRemovedWithTheLastTape) {
  EagerContext ctx(TwoThreads());
  EXPECT_TRUE(ThreadEagerOpObserver() == nullptr);
  {
    Tape outer(&ctx, TapeOptions());
    Tape inner(&ctx, TapeOptions());
    EXPECT_TRUE(ThreadEagerOpObserver() != nullptr);
  }
  EXPECT_TRUE(ThreadEagerOpObserver() == nullptr);
}
