// Tests of the executor and session with test-only ops: pruning, feeds, parallel branches,
// release of tensors after their last consumer, buffer forwarding, errors, concurrent runs.
#include <atomic>
#include <thread>

#include "test_util.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/runtime/op_kernel.h"
#include "tensorflux/runtime/session.h"

using namespace tx;

namespace {

std::atomic<int> g_tracked_alive{0};
std::atomic<int> g_source_runs{0};

// The sources count their runs, a side effect: stateful, so that the plan runs them on every run
// instead of folding them (Note [Plan constant folding]) and the tests see the executor at work.
TX_REGISTER_OP("ExecTestSource")
    .Output("y: float")
    .Attr("value: float")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape);
TX_REGISTER_OP("ExecTestTracked").Output("y: float").SetIsStateful().SetShapeFn(shape_fns::ScalarShape);
TX_REGISTER_OP("ExecTestAlive").Input("x: float").Output("y: int32").SetShapeFn(shape_fns::ScalarShape);
TX_REGISTER_OP("ExecTestAdd")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float")
    .SetShapeFn(shape_fns::BroadcastBinaryOp);
TX_REGISTER_OP("ExecTestHeavyNeg").Input("x: float").Output("y: float").SetShapeFn(shape_fns::UnchangedShape);
TX_REGISTER_OP("ExecTestFail").Input("x: float").Output("y: float").SetShapeFn(shape_fns::UnchangedShape);
TX_REGISTER_OP("ExecTestInput").Output("y: float").Attr("shape: shape").SetShapeFn([](InferenceContext* c) -> Status {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->GetAttr("shape", &s));
  c->set_output(0, s);
  return Status::OK();
});

class SourceOp : public OpKernel {
 public:
  explicit SourceOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("value", &v_)); }
  void Compute(OpKernelContext* ctx) override {
    ++g_source_runs;
    Tensor* t;
    if (!ctx->allocate_output(0, TensorShape({}), &t).ok()) return;
    *t->data<float>() = v_;
  }
  bool IsExpensive() const override { return false; }

 private:
  float v_ = 0;
};

// Produces a tensor over wrapped memory whose deallocator counts how many are alive.
class TrackedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    float* p = new float(1.0f);
    ++g_tracked_alive;
    Buffer* b = Buffer::Wrap(
        p, sizeof(float),
        [](void* d, size_t, void*) {
          delete static_cast<float*>(d);
          --g_tracked_alive;
        },
        nullptr);
    ctx->set_output(0, Tensor(DT_FLOAT, TensorShape({}), RefPtr<Buffer>::Adopt(b)));
  }
};

// Outputs the number of tracked tensors alive when it runs.
class AliveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* t;
    if (!ctx->allocate_output(0, TensorShape({}), &t).ok()) return;
    *t->data<int32_t>() = g_tracked_alive.load();
  }
};

class AddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor &a = ctx->input(0), &b = ctx->input(1);
    if (a.shape() != b.shape()) return ctx->SetStatus(InvalidArgument("shapes differ"));
    Tensor* out;
    if (!ctx->forward_input_or_allocate_output(0, 0, a.shape(), &out).ok()) return;
    for (int64_t i = 0; i < a.num_elements(); ++i) out->data<float>()[i] = a.data<float>()[i] + b.data<float>()[i];
  }
  bool IsExpensive() const override { return false; }
};

class HeavyNegOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out;
    if (!ctx->allocate_output(0, ctx->input(0).shape(), &out).ok()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (int64_t i = 0; i < out->num_elements(); ++i) out->data<float>()[i] = -ctx->input(0).data<float>()[i];
  }
};

class FailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(InvalidArgument("this kernel always fails")); }
};

class InputOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(InvalidArgument("must be fed")); }
};

TX_REGISTER_KERNEL(KernelDefBuilder("ExecTestSource"), SourceOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ExecTestTracked"), TrackedOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ExecTestAlive"), AliveOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ExecTestAdd"), AddOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ExecTestHeavyNeg"), HeavyNegOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ExecTestFail"), FailOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ExecTestInput"), InputOp);

Node* Add(Graph& g, const std::string& op, const std::string& name, std::vector<Endpoint> inputs, AttrMap attrs = {},
          std::vector<Node*> ctrl = {}) {
  NodeSpec s;
  s.name = name;
  s.op_type = op;
  for (const Endpoint& e : inputs) s.inputs.push_back({{e}, false});
  s.attrs = std::move(attrs);
  s.control_inputs = std::move(ctrl);
  Node* n = nullptr;
  Status st = g.AddNode(std::move(s), &n);
  if (!st.ok()) std::printf("AddNode %s failed: %s\n", name.c_str(), st.message().c_str());
  return n;
}

Node* Source(Graph& g, const std::string& name, float v) {
  return Add(g, "ExecTestSource", name, {}, {{"value", AttrValue::Float(v)}});
}

Tensor Scalar(float v) {
  Tensor t;
  Tensor::Allocate(DT_FLOAT, TensorShape({}), &t);
  *t.data<float>() = v;
  return t;
}

}  // namespace

TEST(ChainOfAdds) {
  auto g = std::make_shared<Graph>();
  Node* x = Source(*g, "x", 1.0f);
  Node* cur = x;
  for (int i = 0; i < 100; ++i) cur = Add(*g, "ExecTestAdd", "add" + std::to_string(i), {{cur, 0}, {x, 0}});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_OK(s.Run({}, {{cur, 0}}, {}, &out));
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(*out[0].data<float>(), 101.0f);
  EXPECT_OK(s.Run({}, {{cur, 0}}, {}, &out));  // cached plan
  EXPECT_EQ(*out[0].data<float>(), 101.0f);
}

TEST(FeedsPruneProducers) {
  auto g = std::make_shared<Graph>();
  Node* a = Source(*g, "a", 2.0f);
  Node* b = Add(*g, "ExecTestAdd", "b", {{a, 0}, {a, 0}});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  int before = g_source_runs.load();
  EXPECT_OK(s.Run({{{a, 0}, Scalar(5.0f)}}, {{b, 0}}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 10.0f);
  EXPECT_EQ(g_source_runs.load(), before);  // the fed producer did not run
  // Fetching a fed endpoint returns the fed value.
  EXPECT_OK(s.Run({{{a, 0}, Scalar(7.0f)}}, {{a, 0}}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 7.0f);
}

TEST(FeedValidation) {
  auto g = std::make_shared<Graph>();
  Node* in = Add(*g, "ExecTestInput", "in", {}, {{"shape", AttrValue::Shape(PartialShape({-1, 2}))}});
  Node* neg = Add(*g, "ExecTestHeavyNeg", "neg", {{in, 0}});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  Tensor bad;
  Tensor::Allocate(DT_FLOAT, TensorShape({3, 3}), &bad);
  EXPECT_ERROR(s.Run({{{in, 0}, bad}}, {{neg, 0}}, {}, &out), "[in] cannot feed a value of shape [3,3]");
  Tensor wrong_type;
  Tensor::Allocate(DT_INT32, TensorShape({1, 2}), &wrong_type);
  EXPECT_ERROR(s.Run({{{in, 0}, wrong_type}}, {{neg, 0}}, {}, &out), "cannot feed a int32 tensor");
  EXPECT_ERROR(s.Run({}, {{neg, 0}}, {}, &out), "[in] must be fed");
  EXPECT_ERROR(s.Run({}, {{neg, 3}}, {}, &out), "[neg] the fetch refers to output 3");
  Tensor good;
  Tensor::Allocate(DT_FLOAT, TensorShape({3, 2}), &good);
  for (int i = 0; i < 6; ++i) good.data<float>()[i] = static_cast<float>(i);
  EXPECT_OK(s.Run({{{in, 0}, good}}, {{neg, 0}}, {}, &out));  // the session still works
  EXPECT_EQ(out[0].data<float>()[5], -5.0f);
}

TEST(KernelErrorNamesNodeAndSessionStaysUsable) {
  auto g = std::make_shared<Graph>();
  Node* a = Source(*g, "a", 1.0f);
  Node* f = Add(*g, "ExecTestFail", "layer/fail", {{a, 0}});
  Node* ok = Add(*g, "ExecTestHeavyNeg", "ok", {{a, 0}});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_ERROR(s.Run({}, {{f, 0}}, {}, &out), "[layer/fail] this kernel always fails");
  EXPECT_OK(s.Run({}, {{ok, 0}}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), -1.0f);
}

TEST(ParallelBranchesAndControlEdges) {
  auto g = std::make_shared<Graph>();
  Node* a = Source(*g, "a", 3.0f);
  std::vector<Node*> branches;
  for (int i = 0; i < 8; ++i) branches.push_back(Add(*g, "ExecTestHeavyNeg", "neg" + std::to_string(i), {{a, 0}}));
  Node* sum = branches[0];
  for (int i = 1; i < 8; ++i) sum = Add(*g, "ExecTestAdd", "sum" + std::to_string(i), {{sum, 0}, {branches[i], 0}});
  Node* after = Add(*g, "ExecTestSource", "after", {}, {{"value", AttrValue::Float(0.5f)}}, {sum});
  SessionOptions o;
  o.inter_op_threads = 4;
  Session s(g, o);
  std::vector<Tensor> out;
  EXPECT_OK(s.Run({}, {{sum, 0}, {after, 0}}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), -24.0f);
  EXPECT_EQ(*out[1].data<float>(), 0.5f);
}

TEST(TensorReleasedAfterLastConsumer) {
  auto g = std::make_shared<Graph>();
  Node* t = Add(*g, "ExecTestTracked", "t", {});
  Node* neg = Add(*g, "ExecTestHeavyNeg", "neg", {{t, 0}});
  // `alive` depends on `neg` only through a control edge, so it runs after t's last reader.
  Node* alive = Add(*g, "ExecTestAlive", "alive", {{neg, 0}});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_OK(s.Run({}, {{alive, 0}}, {}, &out));
  EXPECT_EQ(*out[0].data<int32_t>(), 0);
  EXPECT_EQ(g_tracked_alive.load(), 0);
}

TEST(BufferForwarding) {
  auto g = std::make_shared<Graph>();
  Node* a = Source(*g, "a", 1.0f);
  Node* b = Source(*g, "b", 2.0f);
  Node* c = Add(*g, "ExecTestAdd", "c", {{a, 0}, {b, 0}});
  Node* d = Add(*g, "ExecTestAdd", "d", {{c, 0}, {b, 0}});
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_OK(s.Run({}, {{d, 0}}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 5.0f);
}

TEST(ConcurrentRuns) {
  auto g = std::make_shared<Graph>();
  Node* in = Add(*g, "ExecTestInput", "in", {}, {{"shape", AttrValue::Shape(PartialShape({}))}});
  Node* cur = in;
  for (int i = 0; i < 20; ++i) cur = Add(*g, "ExecTestAdd", "add" + std::to_string(i), {{cur, 0}, {in, 0}});
  Session s(g, SessionOptions());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::vector<Tensor> out;
        float v = static_cast<float>(t * 1000 + i);
        Status st = s.Run({{{in, 0}, Scalar(v)}}, {{cur, 0}}, {}, &out);
        if (!st.ok() || *out[0].data<float>() != 21 * v) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(NodesAddedAfterSessionCreation) {
  auto g = std::make_shared<Graph>();
  Node* a = Source(*g, "a", 1.0f);
  Session s(g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_OK(s.Run({}, {{a, 0}}, {}, &out));
  Node* b = Add(*g, "ExecTestAdd", "b", {{a, 0}, {a, 0}});
  EXPECT_OK(s.Run({}, {{b, 0}}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 2.0f);
}

TEST(ClosedSession) {
  auto g = std::make_shared<Graph>();
  Node* a = Source(*g, "a", 1.0f);
  Session s(g, SessionOptions());
  EXPECT_OK(s.Close());
  std::vector<Tensor> out;
  EXPECT_ERROR(s.Run({}, {{a, 0}}, {}, &out), "session is closed");
}

TEST(GraphConstructionErrors) {
  Graph g;
  Node* a = Source(g, "a", 1.0f);
  NodeSpec s;
  s.name = "a";
  s.op_type = "ExecTestSource";
  s.attrs["value"] = AttrValue::Float(1);
  Node* n;
  EXPECT_ERROR(g.AddNode(s, &n), "already exists");
  s.name = "b";
  s.attrs.clear();
  EXPECT_ERROR(g.AddNode(s, &n), "[b] missing required attr 'value'");
  s.attrs["value"] = AttrValue::Int(3);
  EXPECT_ERROR(g.AddNode(s, &n), "attr 'value' expects a value of type 'float'");
  s.op_type = "NoSuchOp";
  EXPECT_ERROR(g.AddNode(s, &n), "[b] op type not registered: 'NoSuchOp'");
  NodeSpec add;
  add.name = "add";
  add.op_type = "ExecTestAdd";
  add.inputs = {{{{a, 0}}, false}, {{{a, 5}}, false}};
  EXPECT_ERROR(g.AddNode(add, &n), "refers to output 5");
  Graph other;
  Node* foreign = Source(other, "f", 1.0f);
  add.inputs = {{{{a, 0}}, false}, {{{foreign, 0}}, false}};
  EXPECT_ERROR(g.AddNode(add, &n), "of another graph");
  add.inputs = {{{{a, 0}}, false}};
  EXPECT_ERROR(g.AddNode(add, &n), "expects 2 input arguments");
}

TEST(SoftPlacement) {
  auto g = std::make_shared<Graph>();
  NodeSpec s;
  s.name = "gpu_node";
  s.op_type = "ExecTestSource";
  s.device = "/device:GPU:0";
  s.attrs["value"] = AttrValue::Float(4);
  Node* n;
  EXPECT_OK(g->AddNode(s, &n));
  std::vector<Tensor> out;
  Session soft(g, SessionOptions());
  EXPECT_OK(soft.Run({}, {{n, 0}}, {}, &out));
  SessionOptions strict;
  strict.allow_soft_placement = false;
  Session hard(g, strict);
  EXPECT_ERROR(hard.Run({}, {{n, 0}}, {}, &out), "[gpu_node] cannot place the node");
}
