// Tests of resource variables in sessions: concurrent AssignAddVariableOp from two threads loses
// no update, reads are snapshots that later updates never change (even while updates run), and
// each session has its own variables.
#include <atomic>
#include <thread>

#include "test_util.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/session.h"

using namespace tx;

namespace {

constexpr int64_t kElems = 1 << 16;  // large enough for the update to use the intra-op pool

Node* Add(Graph& g, const std::string& op, const std::string& name, std::vector<Endpoint> inputs, AttrMap attrs = {}) {
  NodeSpec s;
  s.name = name;
  s.op_type = op;
  for (const Endpoint& e : inputs) s.inputs.push_back({{e}, false});
  s.attrs = std::move(attrs);
  Node* n = nullptr;
  Status st = g.AddNode(std::move(s), &n);
  if (!st.ok()) std::printf("AddNode %s failed: %s\n", name.c_str(), st.message().c_str());
  return n;
}

Node* Filled(Graph& g, const std::string& name, float v) {
  Tensor t;
  Tensor::Allocate(DT_FLOAT, TensorShape({kElems}), &t);
  for (int64_t i = 0; i < kElems; ++i) t.data<float>()[i] = v;
  return Add(g, "Const", name, {}, {{"value", AttrValue::FromTensor(t)}, {"dtype", AttrValue::Type(DT_FLOAT)}});
}

struct VarGraph {
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  Node *handle, *init, *add, *read;
  VarGraph() {
    handle = Add(*g, "VarHandleOp", "v", {},
                 {{"dtype", AttrValue::Type(DT_FLOAT)}, {"shape", AttrValue::Shape(PartialShape({kElems}))}});
    init = Add(*g, "AssignVariableOp", "init", {{handle, 0}, {Filled(*g, "zeros", 0.0f), 0}},
               {{"dtype", AttrValue::Type(DT_FLOAT)}});
    add = Add(*g, "AssignAddVariableOp", "add", {{handle, 0}, {Filled(*g, "ones", 1.0f), 0}},
              {{"dtype", AttrValue::Type(DT_FLOAT)}});
    read = Add(*g, "ReadVariableOp", "read", {{handle, 0}}, {{"dtype", AttrValue::Type(DT_FLOAT)}});
  }
};

// True when every element of `t` equals `v`.
bool AllEqual(const Tensor& t, float v) {
  for (int64_t i = 0; i < t.num_elements(); ++i)
    if (t.data<float>()[i] != v) return false;
  return true;
}

bool Uniform(const Tensor& t) { return t.num_elements() > 0 && AllEqual(t, t.data<float>()[0]); }

}  // namespace

TEST(ConcurrentAssignAddLosesNoUpdate) {
  VarGraph vg;
  SessionOptions opts;
  opts.intra_op_threads = 2;
  Session sess(vg.g, opts);
  std::vector<Tensor> out;
  EXPECT_OK(sess.Run({}, {}, {vg.init}, &out));
  constexpr int kSteps = 200;
  std::atomic<int> failures{0}, torn{0};
  std::atomic<bool> done{false};
  auto adder = [&] {
    std::vector<Tensor> o;
    for (int i = 0; i < kSteps; ++i)
      if (!sess.Run({}, {}, {vg.add}, &o).ok()) ++failures;
  };
  // A reader concurrently checks that every snapshot is one consistent value.
  std::thread reader([&] {
    std::vector<Tensor> o;
    while (!done.load()) {
      if (!sess.Run({}, {{vg.read, 0}}, {}, &o).ok())
        ++failures;
      else if (!Uniform(o[0]))
        ++torn;
    }
  });
  std::thread a(adder), b(adder);
  a.join();
  b.join();
  done = true;
  reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(torn.load(), 0);
  EXPECT_OK(sess.Run({}, {{vg.read, 0}}, {}, &out));
  EXPECT_TRUE(out.size() == 1 && AllEqual(out[0], 2.0f * kSteps));
}

TEST(ReadIsASnapshot) {
  VarGraph vg;
  Session sess(vg.g, SessionOptions());
  std::vector<Tensor> out, later;
  EXPECT_OK(sess.Run({}, {}, {vg.init}, &out));
  EXPECT_OK(sess.Run({}, {{vg.read, 0}}, {}, &out));
  EXPECT_OK(sess.Run({}, {}, {vg.add}, &later));
  EXPECT_OK(sess.Run({}, {}, {vg.add}, &later));
  EXPECT_TRUE(AllEqual(out[0], 0.0f));
  EXPECT_OK(sess.Run({}, {{vg.read, 0}}, {}, &later));
  EXPECT_TRUE(AllEqual(later[0], 2.0f));
}

TEST(EachSessionHasItsOwnVariables) {
  VarGraph vg;
  Session s1(vg.g, SessionOptions()), s2(vg.g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_OK(s1.Run({}, {}, {vg.init}, &out));
  EXPECT_OK(s1.Run({}, {}, {vg.add}, &out));
  EXPECT_ERROR(s2.Run({}, {{vg.read, 0}}, {}, &out), "uninitialized");
  EXPECT_OK(s1.Run({}, {{vg.read, 0}}, {}, &out));
  EXPECT_TRUE(AllEqual(out[0], 1.0f));
  EXPECT_OK(s1.Close());
  EXPECT_ERROR(s1.Run({}, {{vg.read, 0}}, {}, &out), "closed");
}

TEST(HandlesCannotBeFetchedOrFed) {
  VarGraph vg;
  Session sess(vg.g, SessionOptions());
  std::vector<Tensor> out;
  EXPECT_ERROR(sess.Run({}, {{vg.handle, 0}}, {}, &out), "cannot fetch a resource handle");
}
