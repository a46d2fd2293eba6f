// The loop-fusion kernel: a group of elementwise nodes run as one register program over blocks of
// elements (Note [Loop fusion] in passes/loop_fusion.cc, Note [Fused programs] below).
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/loop_fusion.h"
#include "tensorflux/kernels/cpu/loop_fusion_ops.h"
#include "tensorflux/runtime/node_status.h"

// Note [Fused programs]
// For one assignment of shapes to the group's external inputs (a Layout), every external input
// takes one of four forms: the loop's own element order (read in place), one value (a scalar
// operand), a repeated row (a broadcast whose elements run along the loop's innermost dims and
// repeat over the outer ones, like a bias or a batch norm's scale: each thread tiles the row once
// into scratch, row after row for a block's length past one row, and a block reads it in place
// from the block's phase in the row), or any other broadcast, gathered into a scratch register at
// the start of each block.
// Each member becomes one instruction (AddN one per extra input) calling its functor on a block;
// its result goes to a scratch register, or straight into the output buffer when the value
// leaves the group (later instructions read it back from there, still in cache). Registers are
// reused once their value is dead. Blocks of kBlockBytes keep every register in L1; the blocks
// of a large loop are split over the intra-op pool, each thread with its own registers. A layout
// is built at construction when the static shapes are all known, else on first use (and kept
// for the next run with the same shapes); shapes for which no layout exists run the members'
// own kernels one by one (Note [Loop fusion]).

namespace tx {
namespace cpu {
namespace {

constexpr int64_t kBlockBytes = 2048;
// Most collapsed dimensions a gathered broadcast may have.
constexpr int kMaxGatherDims = 12;
// Longest repeated row (in bytes) tiled per thread, and most repeated rows per layout; longer rows
// and further inputs are gathered per block.
constexpr int64_t kMaxRowBytes = 16384;
constexpr int kMaxRows = 8;

// How an external input maps onto the loop's elements.
enum class Form : uint8_t { kFull, kScalar, kRow, kBroadcast };

// A broadcast input's walk over the loop: collapsed loop dims (outermost first) and the input's
// element stride per dim (0 where it repeats).
struct BroadcastMap {
  std::vector<int64_t> dims, strides;
};

// z[0..n) = the broadcast input x at loop positions [begin, begin + n).
template <typename T>
void Gather(const BroadcastMap& m, const T* x, int64_t begin, int64_t n, T* z) {
  const int r = static_cast<int>(m.dims.size());
  const int64_t inner = m.dims[r - 1], inner_stride = m.strides[r - 1];
  int64_t rest = begin / inner, pos = begin % inner, base = 0;
  int64_t idx[kMaxGatherDims] = {0};
  for (int k = r - 2; k >= 0; --k) {
    idx[k] = rest % m.dims[k];
    rest /= m.dims[k];
    base += idx[k] * m.strides[k];
  }
  while (n > 0) {
    const int64_t run = std::min(n, inner - pos);
    if (inner_stride == 0)
      std::fill_n(z, run, x[base]);
    else
      std::copy_n(x + base + pos * inner_stride, run, z);  // inner_stride is 1 once collapsed
    z += run;
    n -= run;
    pos = 0;
    for (int k = r - 2; k >= 0; --k) {  // the next row
      base += m.strides[k];
      if (++idx[k] < m.dims[k]) break;
      base -= m.strides[k] * m.dims[k];
      idx[k] = 0;
    }
  }
}

// The map of input shape `in` broadcast to `loop` (broadcast-compatible, as the shape check made sure).
BroadcastMap MakeBroadcastMap(const TensorShape& in, const TensorShape& loop) {
  const int r = loop.rank(), off = r - in.rank();
  std::vector<int64_t> strides(static_cast<size_t>(r), 0);
  int64_t s = 1;
  for (int k = in.rank() - 1; k >= 0; --k) {
    if (in.dim(k) != 1) strides[off + k] = s;
    s *= in.dim(k);
  }
  BroadcastMap m;
  for (int k = 0; k < r; ++k) {
    const int64_t d = loop.dim(k);
    if (d == 1) continue;
    // Merge with the previous dim when both step contiguously or both repeat.
    if (!m.dims.empty() &&
        ((strides[k] == 0 && m.strides.back() == 0) || (strides[k] != 0 && m.strides.back() == strides[k] * d))) {
      m.dims.back() *= d;
      m.strides.back() = strides[k];
      continue;
    }
    m.dims.push_back(d);
    m.strides.push_back(strides[k]);
  }
  if (m.dims.empty()) {
    m.dims.push_back(1);
    m.strides.push_back(0);
  }
  return m;
}

struct Operand {
  enum Kind : uint8_t { kNone, kReg, kInput, kScalar, kRow, kOutput };
  Kind kind = kNone;
  int index = 0;
};

template <typename T>
struct Instr {
  FusedFn<T> fn;
  Operand a, b, z;
  T attr;
};

// The program for one assignment of shapes to the external inputs (Note [Fused programs]).
template <typename T>
struct Layout {
  std::vector<TensorShape> shapes;  // of the external inputs
  TensorShape loop;
  std::vector<Form> forms;
  std::vector<BroadcastMap> maps;  // per external input; used for kBroadcast
  std::vector<std::pair<int, int>> loads;  // (external input, register) gathered per block
  std::vector<std::pair<int, int64_t>> rows;  // (external input, row length) of the kRow inputs
  std::vector<Instr<T>> program;
  int num_regs = 0;
  bool unfused = false;  // these shapes run the members' own kernels
};

// Per-thread scratch registers, 64-byte aligned.
template <typename T>
T* Scratch(size_t count) {
  thread_local std::unique_ptr<char[]> mem;
  thread_local size_t capacity = 0;
  const size_t bytes = count * sizeof(T) + 64;
  if (bytes > capacity) {
    mem.reset(new char[bytes]);
    capacity = bytes;
  }
  const auto p = reinterpret_cast<uintptr_t>(mem.get());
  return reinterpret_cast<T*>((p + 63) & ~uintptr_t{63});
}

template <typename T>
class LoopFusionKernel : public OpKernel {
 public:
  static constexpr int64_t kBlock = kBlockBytes / static_cast<int64_t>(sizeof(T));

  LoopFusionKernel(OpKernelConstruction* c, LoopFusionSpec spec) : OpKernel(c), spec_(std::move(spec)) {
    out_index_.assign(spec_.members.size(), -1);
    for (size_t o = 0; o < spec_.exported.size(); ++o) out_index_[spec_.exported[o]] = static_cast<int>(o);
    for (const Node* m : spec_.members) {
      const FusedOp<T>* op = FindFusedOp<T>(m->op_type());
      float attr = 0;
      if (op == nullptr) {
        c->SetStatus(Internal("[", m->name(), "] ", m->op_type(), " cannot be fused"));
        return;
      }
      if (op->attr != nullptr) {
        const AttrValue* v = m->attr(op->attr);
        if (v == nullptr || v->kind != AttrValue::Kind::kFloat) {
          c->SetStatus(InvalidArgument("[", m->name(), "] attr '", op->attr, "' is missing"));
          return;
        }
        attr = v->f;
      }
      ops_.push_back(op);
      attrs_.push_back(static_cast<T>(attr));
      cost_ += op->cost * std::max<int64_t>(1, static_cast<int64_t>(spec_.operands[ops_.size() - 1].size()) - 1);
      std::unique_ptr<OpKernel> k;
      Status s = KernelRegistry::Global()->CreateKernel(m, kDeviceCPU, &k);
      if (!s.ok()) {
        c->SetStatus(s);
        return;
      }
      kernels_.push_back(std::move(k));
    }
    std::vector<TensorShape> shapes;
    for (const PartialShape& s : spec_.external_shapes) {
      if (!s.fully_defined()) return;
      shapes.push_back(s.ToTensorShape());
    }
    static_layout_ = MakeLayout(shapes);
  }

  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const int nin = ctx->num_inputs();
    std::shared_ptr<const Layout<T>> layout;
    if (static_layout_ && Matches(*static_layout_, ctx)) {
      layout = static_layout_;
    } else {
      std::lock_guard<std::mutex> l(mu_);
      if (last_layout_ && Matches(*last_layout_, ctx)) layout = last_layout_;
    }
    if (!layout) {
      std::vector<TensorShape> shapes;
      for (int i = 0; i < nin; ++i) shapes.push_back(ctx->input(i).shape());
      layout = MakeLayout(shapes);
      std::lock_guard<std::mutex> l(mu_);
      last_layout_ = layout;
    }
    if (layout->unfused) return RunUnfused(ctx);
    const int nout = ctx->num_outputs();
    T* outs[64];
    std::vector<T*> outs_big;
    T** out = outs;
    if (nout > 64) {
      outs_big.resize(static_cast<size_t>(nout));
      out = outs_big.data();
    }
    for (int o = 0; o < nout; ++o) {
      Tensor* t = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(o, layout->loop, &t));
      out[o] = t->data<T>();
    }
    const int64_t n = layout->loop.num_elements();
    if (n == 0) return;
    const T* ins[64];
    std::vector<const T*> ins_big;
    const T** in = ins;
    if (nin > 64) {
      ins_big.resize(static_cast<size_t>(nin));
      in = ins_big.data();
    }
    for (int i = 0; i < nin; ++i) in[i] = ctx->input(i).template data<T>();
    const Layout<T>& lay = *layout;
    ParallelRange(ctx->intra_op_pool(), n, cost_, [&](int64_t b, int64_t e) { RunBlocks(lay, in, out, b, e); });
  }

 private:
  bool Matches(const Layout<T>& lay, const OpKernelContext* ctx) const {
    for (int i = 0; i < ctx->num_inputs(); ++i)
      if (ctx->input(i).shape() != lay.shapes[i]) return false;
    return true;
  }

  // The output shape of every member for these input shapes, or false when some member would not
  // have the loop shape or its op would fail (then the members' kernels run instead).
  bool LoopShape(const std::vector<TensorShape>& shapes, TensorShape* loop) const {
    std::vector<TensorShape> values(spec_.members.size());
    for (size_t m = 0; m < spec_.members.size(); ++m) {
      const std::vector<int>& operands = spec_.operands[m];
      auto shape_of = [&](int k) -> const TensorShape& {
        return operands[k] >= 0 ? values[operands[k]] : shapes[-1 - operands[k]];
      };
      TensorShape out = shape_of(0);
      if (ops_[m]->rule == FusedShapeRule::kBroadcast) {
        PartialShape both;  // shape inference's broadcasting rule, on known shapes
        if (!BroadcastShapes(PartialShape(shape_of(0)), PartialShape(shape_of(1)), &both).ok()) return false;
        out = both.ToTensorShape();
      } else if (ops_[m]->rule == FusedShapeRule::kEqual) {
        for (size_t k = 1; k < operands.size(); ++k)
          if (shape_of(static_cast<int>(k)) != out) return false;
      }
      if (m > 0 && out != values[0]) return false;
      values[m] = std::move(out);
    }
    *loop = values[0];
    return true;
  }

  // The layout for these input shapes; one marked `unfused` when they need the members' kernels.
  std::shared_ptr<const Layout<T>> MakeLayout(const std::vector<TensorShape>& shapes) const {
    auto lay = std::make_shared<Layout<T>>();
    lay->shapes = shapes;
    if (!LoopShape(shapes, &lay->loop) || !Compile(lay.get())) {
      auto unfused = std::make_shared<Layout<T>>();
      unfused->shapes = shapes;
      unfused->unfused = true;
      return unfused;
    }
    return lay;
  }

  // Fills lay's forms, loads and program for lay->shapes and lay->loop; false when some input
  // form has no loop (then the members' kernels run).
  bool Compile(Layout<T>* lay) const {
    const std::vector<TensorShape>& shapes = lay->shapes;
    const int64_t n = lay->loop.num_elements();
    const int num_ext = static_cast<int>(shapes.size());
    lay->forms.resize(shapes.size());
    lay->maps.resize(shapes.size());
    for (int e = 0; e < num_ext; ++e) {
      if (shapes[e].num_elements() == n) {
        lay->forms[e] = Form::kFull;
      } else if (shapes[e].num_elements() == 1) {
        lay->forms[e] = Form::kScalar;
      } else {
        lay->maps[e] = MakeBroadcastMap(shapes[e], lay->loop);
        const BroadcastMap& m = lay->maps[e];
        const int64_t row = m.dims.back();
        if (m.dims.size() == 2 && m.strides[0] == 0 && m.strides[1] == 1 &&
            row * static_cast<int64_t>(sizeof(T)) <= kMaxRowBytes && lay->rows.size() < kMaxRows) {
          lay->forms[e] = Form::kRow;
          lay->rows.emplace_back(e, row);
        } else {
          lay->forms[e] = Form::kBroadcast;
          if (m.dims.size() > kMaxGatherDims) return false;
        }
      }
    }
    // Last member reading each value (members, then external inputs).
    const int num_members = static_cast<int>(spec_.members.size());
    std::vector<int> last_member(static_cast<size_t>(num_members), -1), last_ext(shapes.size(), -1);
    for (int m = 0; m < num_members; ++m)
      for (int v : spec_.operands[m]) (v >= 0 ? last_member[v] : last_ext[-1 - v]) = m;
    // Registers: gathered broadcasts first (live from the block start), then member values.
    std::vector<int> free_regs, member_reg(static_cast<size_t>(num_members), -1), ext_reg(shapes.size(), -1);
    auto take = [&]() {
      if (free_regs.empty()) return lay->num_regs++;
      const int r = free_regs.back();
      free_regs.pop_back();
      return r;
    };
    for (int e = 0; e < num_ext; ++e)
      if (lay->forms[e] == Form::kBroadcast && last_ext[e] >= 0) {
        ext_reg[e] = take();
        lay->loads.emplace_back(e, ext_reg[e]);
      }
    auto operand = [&](int v) {
      Operand o;
      if (v >= 0) {
        o.kind = out_index_[v] >= 0 ? Operand::kOutput : Operand::kReg;
        o.index = out_index_[v] >= 0 ? out_index_[v] : member_reg[v];
        return o;
      }
      const int e = -1 - v;
      switch (lay->forms[e]) {
        case Form::kFull: o = Operand{Operand::kInput, e}; break;
        case Form::kScalar: o = Operand{Operand::kScalar, e}; break;
        case Form::kRow: {
          int r = 0;
          while (lay->rows[r].first != e) ++r;
          o = Operand{Operand::kRow, r};
          break;
        }
        case Form::kBroadcast: o = Operand{Operand::kReg, ext_reg[e]}; break;
      }
      return o;
    };
    auto release = [&](int m, bool inclusive) {  // registers of values whose last reader is before (or at) m
      for (int v : spec_.operands[m]) {
        const int last = v >= 0 ? last_member[v] : last_ext[-1 - v];
        const int reg = v >= 0 ? member_reg[v] : ext_reg[-1 - v];
        if (reg < 0 || last != m || !inclusive) continue;
        free_regs.push_back(reg);
        (v >= 0 ? member_reg[v] : ext_reg[-1 - v]) = -1;
      }
    };
    for (int m = 0; m < num_members; ++m) {
      const std::vector<int>& operands = spec_.operands[m];
      const FusedOp<T>& op = *ops_[m];
      Instr<T> ins;
      ins.attr = attrs_[m];
      ins.a = operand(operands[0]);
      if (operands.size() > 1) ins.b = operand(operands[1]);
      // One instruction: its operands' dead registers may hold its result (elementwise aliasing).
      // AddN's later steps read more operands after writing, so those stay live until it is done.
      const bool one_step = !op.n_ary || operands.size() <= 2;
      if (one_step) release(m, true);
      if (out_index_[m] >= 0) {
        ins.z = Operand{Operand::kOutput, out_index_[m]};
      } else {
        member_reg[m] = take();
        ins.z = Operand{Operand::kReg, member_reg[m]};
      }
      const bool a_scalar = ins.a.kind == Operand::kScalar, b_scalar = ins.b.kind == Operand::kScalar;
      ins.fn = a_scalar ? op.sv : (b_scalar ? op.vs : op.vv);
      if (ins.fn == nullptr) return false;
      lay->program.push_back(ins);
      for (size_t k = 2; k < operands.size(); ++k) {  // AddN: z = z + x_k
        Instr<T> step = ins;
        step.a = ins.z;
        step.b = operand(operands[k]);
        if (step.b.kind == Operand::kScalar) return false;
        step.fn = op.vv;
        lay->program.push_back(step);
      }
      if (!one_step) release(m, true);
      if (member_reg[m] >= 0 && last_member[m] < 0) {  // read by nobody in the group (and not exported)
        free_regs.push_back(member_reg[m]);
        member_reg[m] = -1;
      }
    }
    return true;
  }

  void RunBlocks(const Layout<T>& lay, const T* const* in, T* const* out, int64_t begin, int64_t end) const {
    size_t row_space = 0;  // each repeated row, tiled to its length plus a block
    for (const auto& r : lay.rows) row_space += static_cast<size_t>(r.second + kBlock);
    T* regs = Scratch<T>(static_cast<size_t>(std::max(lay.num_regs, 1)) * kBlock + row_space);
    T* tiled[kMaxRows];
    const T* row_at[kMaxRows];  // per block: each row's tiling from the block's phase
    T* next = regs + static_cast<size_t>(std::max(lay.num_regs, 1)) * kBlock;
    for (size_t r = 0; r < lay.rows.size(); ++r) {
      const T* row = in[lay.rows[r].first];
      const int64_t len = lay.rows[r].second;
      tiled[r] = next;
      for (int64_t k = 0; k < len + kBlock; k += len) std::copy_n(row, std::min(len, len + kBlock - k), next + k);
      next += len + kBlock;
    }
    T scalars[64];
    std::vector<T> scalars_big;
    T* sc = scalars;
    if (lay.shapes.size() > 64) {
      scalars_big.resize(lay.shapes.size());
      sc = scalars_big.data();
    }
    for (size_t e = 0; e < lay.shapes.size(); ++e)
      if (lay.forms[e] == Form::kScalar) sc[e] = in[e][0];
    for (int64_t off = begin; off < end; off += kBlock) {
      const int64_t len = std::min(kBlock, end - off);
      for (const auto& ld : lay.loads) Gather(lay.maps[ld.first], in[ld.first], off, len, regs + ld.second * kBlock);
      for (size_t r = 0; r < lay.rows.size(); ++r) row_at[r] = tiled[r] + off % lay.rows[r].second;
      auto ptr = [&](const Operand& o) -> T* {
        switch (o.kind) {
          case Operand::kReg: return regs + o.index * kBlock;
          case Operand::kInput: return const_cast<T*>(in[o.index]) + off;
          case Operand::kScalar: return sc + o.index;
          case Operand::kRow: return const_cast<T*>(row_at[o.index]);
          case Operand::kOutput: return out[o.index] + off;
          case Operand::kNone: break;
        }
        return nullptr;
      };
      for (const Instr<T>& ins : lay.program) ins.fn(ptr(ins.a), ptr(ins.b), ptr(ins.z), len, ins.attr);
    }
  }

  // Runs the members' own kernels in order (Note [Loop fusion]): their values and errors are the
  // unfused plan's. An error names its member.
  void RunUnfused(OpKernelContext* ctx) {
    const size_t num = spec_.members.size();
    std::vector<Tensor> values(num), args;
    for (size_t m = 0; m < num; ++m) {
      const Node* node = spec_.members[m];
      args.clear();
      for (int v : spec_.operands[m]) args.push_back(v >= 0 ? values[v] : ctx->input(-1 - v));
      OpKernelContext mctx(node, args.data(), &values[m], ctx->intra_op_pool());
      mctx.set_resource_manager(ctx->resource_manager());
      mctx.set_cancellation(ctx->cancellation());
      mctx.set_inter_op_pool(ctx->inter_op_pool());
      kernels_[m]->Compute(&mctx);
      Status s = mctx.status();
      if (s.ok() && (!values[m].initialized() || values[m].dtype() != node->output_type(0)))
        s = Internal("kernel did not produce a ", DataTypeString(node->output_type(0)), " output");
      if (!s.ok()) return ctx->SetStatus(NamedForNode(node->name(), s));
    }
    for (size_t o = 0; o < spec_.exported.size(); ++o) ctx->set_output(static_cast<int>(o), values[spec_.exported[o]]);
  }

  LoopFusionSpec spec_;
  std::vector<const FusedOp<T>*> ops_;
  std::vector<T> attrs_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
  std::vector<int> out_index_;  // per member: its output index, or -1
  int64_t cost_ = 0;
  std::shared_ptr<const Layout<T>> static_layout_;
  std::mutex mu_;
  std::shared_ptr<const Layout<T>> last_layout_;  // guarded by mu_
};

DataType MemberType(const Node& n) {
  const AttrValue* t = n.attr("T");
  return t != nullptr && t->kind == AttrValue::Kind::kType ? t->type : DT_INVALID;
}

}  // namespace

bool LoopFusible(const Node& node) {
  if (node.num_outputs() != 1) return false;
  const DataType t = MemberType(node);
  if (t != DT_FLOAT && t != DT_DOUBLE) return false;
  if (node.output_type(0) != t) return false;
  for (int i = 0; i < node.num_inputs(); ++i)
    if (node.input_type(i) != t) return false;
  const std::string& op = node.op_type();
  if (t == DT_FLOAT ? FindFusedOp<float>(op) == nullptr : FindFusedOp<double>(op) == nullptr) return false;
  return op != "AddN" || node.num_inputs() >= 2;
}

Status CreateLoopFusionKernel(const Node* fused, LoopFusionSpec spec, std::unique_ptr<OpKernel>* out) {
  if (spec.members.empty()) return Internal("[", fused->name(), "] an empty fusion group");
  const DataType t = MemberType(*spec.members[0]);
  OpKernelConstruction c(fused, kDeviceCPU);
  std::unique_ptr<OpKernel> k;
  if (t == DT_FLOAT)
    k = std::make_unique<LoopFusionKernel<float>>(&c, std::move(spec));
  else if (t == DT_DOUBLE)
    k = std::make_unique<LoopFusionKernel<double>>(&c, std::move(spec));
  else
    return Internal("[", fused->name(), "] cannot fuse ", DataTypeString(t), " ops");
  TX_RETURN_IF_ERROR(c.status());
  *out = std::move(k);
  return Status::OK();
}

}  // namespace cpu
}  // namespace tx
