// The GEMM kernels (Note [Own GEMM] in gemm.h), generic over a vector type `Vec` that the
// including namespace defines: V (kLanes floats), Zero, Load, Store, Set1, Bcast (one float from
// memory to every lane), Mul, Fma (a * b + c) and Sum (of the lanes). Included once per
// instruction set, inside that level's namespace and `#pragma GCC target` (gemm_x86.cc,
// gemm_generic.cc), so that each copy is compiled for its own level; no include guard, by design.
// Nothing here includes a header or calls a library function, so no code compiled for a wider
// level can be shared with baseline code (the one-definition rule would let the linker pick it).

// Prefetches the R rows of NR floats (ldc apart) at c that a tile kernel updates after kc steps:
// C's rows arrive while the products run (a short K leaves them no time: no prefetch).
template <int R, int NR>
inline void PrefetchTile(int64_t kc, const float* c, int64_t ldc) {
  if (kc >= 32) {
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      __builtin_prefetch(c + i * ldc, 1);
      __builtin_prefetch(c + i * ldc + NR - 1, 1);
    }
  }
}

// Stores the first `cols` columns of R rows of NV vectors of sums: c = alpha * acc + beta * c,
// not reading c when beta == 0 (rows ldc apart; every column when cols == NV * kLanes).
template <int R, int NV>
inline void StoreTile(typename Vec::V (&acc)[R][NV], float* __restrict c, int64_t ldc, float alpha, float beta,
                      int cols) {
  using V = typename Vec::V;
  constexpr int W = Vec::kLanes, NR = NV * W;
  const V va = Vec::Set1(alpha), vb = Vec::Set1(beta);
  if (alpha != 1.0f) {
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[i][j] = Vec::Mul(va, acc[i][j]);
  }
  if (cols == NR) {
    if (beta == 0.0f) {
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) Vec::Store(c + i * ldc + j * W, acc[i][j]);
    } else {
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
          float* cp = c + i * ldc + j * W;
          Vec::Store(cp, Vec::Fma(vb, Vec::Load(cp), acc[i][j]));
        }
    }
    return;
  }
  // An edge tile: the columns inside C only.
  float t[R * NR];
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) Vec::Store(t + i * NR + j * W, acc[i][j]);
  for (int i = 0; i < R; ++i) {
    float* cr = c + i * ldc;
    if (beta == 0.0f) {
      for (int j = 0; j < cols; ++j) cr[j] = t[i * NR + j];
    } else {
      for (int j = 0; j < cols; ++j) cr[j] = t[i * NR + j] + beta * cr[j];
    }
  }
}

// The first `R` rows and `cols` columns of a tile: c = alpha * op(A) b + beta * c over kc steps of
// the packed B panel b (NV vectors a step), where op(A)(i, p) = a[i * a_step + p] when
// kRowMajorA (A read in place), else a[i + p * a_step] (a packed panel, or A stored transposed).
template <int R, int NV, bool kRowMajorA>
void TileRows(int64_t kc, const float* __restrict a, int64_t a_step, const float* __restrict b, float* __restrict c,
              int64_t ldc, float alpha, float beta, int cols) {
  using V = typename Vec::V;
  constexpr int W = Vec::kLanes, NR = NV * W;
  V acc[R][NV];
  PrefetchTile<R, NR>(kc, c, ldc);
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) acc[i][j] = Vec::Zero();
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    V bv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) bv[j] = Vec::Load(b + j * W);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      const V av = Vec::Bcast(kRowMajorA ? a + i * a_step + p : a + i);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[i][j] = Vec::Fma(av, bv[j], acc[i][j]);
    }
    if (!kRowMajorA) a += a_step;
    b += NR;
  }
  StoreTile<R, NV>(acc, c, ldc, alpha, beta, cols);
}

// TileRows for `rows` rows (1 <= rows <= R): each row count has its own kernel.
template <int NV, bool kRowMajorA, int R>
void Tile(int64_t kc, const float* a, int64_t a_step, const float* b, float* c, int64_t ldc, float alpha, float beta,
          int rows, int cols) {
  if constexpr (R > 1) {
    if (rows < R) return Tile<NV, kRowMajorA, R - 1>(kc, a, a_step, b, c, ldc, alpha, beta, rows, cols);
  }
  TileRows<R, NV, kRowMajorA>(kc, a, a_step, b, c, ldc, alpha, beta, cols);
}

// Rows of B [p0, p0 + G) added into acc[R rows, n] (rows ld apart): acc += sum_q av[i][q] * b[q, :],
// where av holds alpha * a(i, p0 + q) in every lane; `first` starts acc from zero. B's rows are
// read contiguously, G at a time; acc stays in L1.
template <int R, int G>
void RowsGroup(int64_t n, const typename Vec::V (&av)[R][G], const float* b, int64_t ldb, bool first, float* acc,
               int64_t ld) {
  using V = typename Vec::V;
  constexpr int W = Vec::kLanes;
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    V s[R];
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) s[i] = first ? Vec::Zero() : Vec::Load(acc + i * ld + j);
#pragma GCC unroll 8
    for (int q = 0; q < G; ++q) {
      const V bv = Vec::Load(b + q * ldb + j);
#pragma GCC unroll 4
      for (int i = 0; i < R; ++i) s[i] = Vec::Fma(av[i][q], bv, s[i]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) Vec::Store(acc + i * ld + j, s[i]);
  }
  for (; j < n; ++j) {  // fewer than W columns left: one at a time
    for (int i = 0; i < R; ++i) {
      float t = first ? 0.0f : acc[i * ld + j];
      for (int q = 0; q < G; ++q) t += av[i][q][0] * b[q * ldb + j];
      acc[i * ld + j] = t;
    }
  }
}

// c[R, n] = alpha * a[R, k] b[k, n] + beta * c with B streamed row by row (Note [Own GEMM]): for
// each block of columns, sums in an aligned buffer that stays in L1, G rows of B per pass.
template <int R>
void RowsStream(int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
                int64_t ldb, float beta, float* c, int64_t ldc) {
  using V = typename Vec::V;
  constexpr int W = Vec::kLanes, G = R == 1 ? 8 : (R == 2 ? 4 : 2);
  constexpr int64_t kBlock = 4096 / R;  // columns per block: 16 KiB of sums
  alignas(64) float acc[R * kBlock];
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t cols = n - j0 < kBlock ? n - j0 : kBlock;
    int64_t p = 0;
    for (; p + G <= k; p += G) {
      V av[R][G];
      for (int i = 0; i < R; ++i)
        for (int q = 0; q < G; ++q) av[i][q] = Vec::Set1(alpha * a[i * a_rs + (p + q) * a_cs]);
      RowsGroup<R, G>(cols, av, b + p * ldb + j0, ldb, p == 0, acc, kBlock);
    }
    for (; p < k; ++p) {
      V av[R][1];
      for (int i = 0; i < R; ++i) av[i][0] = Vec::Set1(alpha * a[i * a_rs + p * a_cs]);
      RowsGroup<R, 1>(cols, av, b + p * ldb + j0, ldb, p == 0, acc, kBlock);
    }
    const V vb = Vec::Set1(beta);
    for (int i = 0; i < R; ++i) {
      float* ci = c + i * ldc + j0;
      const float* si = acc + i * kBlock;
      int64_t j = 0;
      if (beta == 0.0f) {
        for (; j + W <= cols; j += W) Vec::Store(ci + j, Vec::Load(si + j));
        for (; j < cols; ++j) ci[j] = si[j];
      } else {
        for (; j + W <= cols; j += W) Vec::Store(ci + j, Vec::Fma(vb, Vec::Load(ci + j), Vec::Load(si + j)));
        for (; j < cols; ++j) ci[j] = si[j] + beta * ci[j];
      }
    }
  }
}

void Rows(int m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  static_assert(kRowsPerPass == 4, "Rows has a case per row count");
  switch (m) {
    case 1: return RowsStream<1>(n, k, alpha, a, a_rs, a_cs, b, ldb, beta, c, ldc);
    case 2: return RowsStream<2>(n, k, alpha, a, a_rs, a_cs, b, ldb, beta, c, ldc);
    case 3: return RowsStream<3>(n, k, alpha, a, a_rs, a_cs, b, ldb, beta, c, ldc);
    default: return RowsStream<4>(n, k, alpha, a, a_rs, a_cs, b, ldb, beta, c, ldc);
  }
}

// c[R, J] = alpha * a[R, k] b[J, k]^T + beta * c, in place (rows lda, ldb, ldc apart).
template <int R, int J>
void DotsBlock(int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc) {
  using V = typename Vec::V;
  constexpr int W = Vec::kLanes;
  V acc[R][J];
#pragma GCC unroll 4
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) acc[i][j] = Vec::Zero();
  int64_t p = 0;
  for (; p + W <= k; p += W) {
    V bv[J];
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) bv[j] = Vec::Load(b + j * ldb + p);
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) {
      const V av = Vec::Load(a + i * lda + p);
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) acc[i][j] = Vec::Fma(av, bv[j], acc[i][j]);
    }
  }
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < J; ++j) {
      float s = Vec::Sum(acc[i][j]);
      for (int64_t q = p; q < k; ++q) s += a[i * lda + q] * b[j * ldb + q];
      float* cp = c + i * ldc + j;
      *cp = beta == 0.0f ? alpha * s : alpha * s + beta * *cp;
    }
  }
}

template <int R>
void DotsR(int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
           float* c, int64_t ldc) {
  constexpr int J = R == 1 ? 8 : (R == 2 ? 4 : (R == 3 ? 3 : 2));
  int64_t j = 0;
  for (; j + J <= n; j += J) DotsBlock<R, J>(k, alpha, a, lda, b + j * ldb, ldb, beta, c + j, ldc);
  for (; j < n; ++j) DotsBlock<R, 1>(k, alpha, a, lda, b + j * ldb, ldb, beta, c + j, ldc);
}

void Dots(int m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
          float beta, float* c, int64_t ldc) {
  switch (m) {
    case 1: return DotsR<1>(n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    case 2: return DotsR<2>(n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    case 3: return DotsR<3>(n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    default: return DotsR<4>(n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

// GatherFn for panels kWidth wide, one float at a time (the portable packer).
template <int kWidth>
void GatherScalar(const float* src, int64_t ld, int count, int64_t kc, float* dst) {
  for (int i = 0; i < count; ++i)
    for (int64_t p = 0; p < kc; ++p) dst[p * kWidth + i] = src[i * ld + p];
  for (int64_t p = 0; p < kc; ++p)
    for (int i = count; i < kWidth; ++i) dst[p * kWidth + i] = 0.0f;
}

// dst[p * kWidth + j] = src[p * ld + j] for j < count, p < kc, zero for count <= j < kWidth: a
// GatherFn's layout from a stored transposed matrix (copy_a).
template <int kWidth>
void CopyNarrow(const float* src, int64_t ld, int count, int64_t kc, float* dst) {
  if (count == kWidth) {
    for (int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 32
      for (int j = 0; j < kWidth; ++j) dst[p * kWidth + j] = src[p * ld + j];
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    for (int j = 0; j < count; ++j) dst[p * kWidth + j] = src[p * ld + j];
    for (int j = count; j < kWidth; ++j) dst[p * kWidth + j] = 0.0f;
  }
}

// Copies rows [0, kc) and columns [0, cols) of src (rows ld apart) into ceil(cols / (NV * W))
// panels NV * W wide, panel q at dst + q * kc * NV * W, zero past cols: row by row across the
// panels, so src is read in long contiguous runs.
template <int NV>
void CopyPanels(const float* src, int64_t ld, int64_t cols, int64_t kc, float* dst) {
  constexpr int W = Vec::kLanes, NR = NV * W;
  const int64_t full = cols / NR, rest = cols - full * NR;
  for (int64_t p = 0; p < kc; ++p) {
    const float* row = src + p * ld;
    float* d = dst + p * NR;
    for (int64_t q = 0; q < full; ++q, row += NR, d += kc * NR)
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) Vec::Store(d + j * W, Vec::Load(row + j * W));
    if (rest > 0) {
      for (int64_t j = 0; j < rest; ++j) d[j] = row[j];
      for (int64_t j = rest; j < NR; ++j) d[j] = 0.0f;
    }
  }
}

// The table of this level's kernels with an MR x (NV * kLanes) tile and the given packers.
template <int MR, int NV>
constexpr KernelSet MakeKernelSet(const char* name, GatherFn gather_a, GatherFn gather_b) {
  return KernelSet{name,           MR,    NV * Vec::kLanes, &Tile<NV, false, MR>, &Tile<NV, true, MR>,
                   &Rows,          &Dots, gather_a,         &CopyNarrow<MR>,      gather_b,
                   &CopyPanels<NV>};
}
