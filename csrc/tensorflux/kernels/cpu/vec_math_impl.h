// The float32 vector functions of vec_math.h (Note [Vector float32]), generic over the vector
// type F. Included twice by vec_math.h, into namespaces vec::avx2 and vec::avx512, so that each
// copy is compiled for its own instruction set (no include guard, by design).

template <typename F>
TX_VEC_INLINE F Splat(float v) {
  return F{} + v;
}
template <typename F>
TX_VEC_INLINE IntOf<F> SplatI(int32_t v) {
  return IntOf<F>{} + v;
}
template <typename F>
TX_VEC_INLINE IntOf<F> Bits(F x) {
  return (IntOf<F>)x;
}  // same-size vector casts reinterpret the bits
template <typename F>
TX_VEC_INLINE F FromBits(IntOf<F> b) {
  return (F)b;
}
template <typename F>
TX_VEC_INLINE F Abs(F x) {
  return FromBits<F>(Bits(x) & 0x7fffffff);
}
// |mag| with the sign of `sign`.
template <typename F>
TX_VEC_INLINE F CopySign(F mag, F sign) {
  return FromBits<F>((Bits(mag) & 0x7fffffff) | (Bits(sign) & int32_t(0x80000000u)));
}
template <typename F>
TX_VEC_INLINE F Select(IntOf<F> mask, F a, F b) {
  return FromBits<F>((Bits(a) & mask) | (Bits(b) & ~mask));  // "mask ? a : b" scalarizes for 16 lanes
}
// True when some lane of `mask` is set.
template <typename I>
TX_VEC_INLINE bool Any(I mask) {
  bool any = false;
  for (size_t l = 0; l < sizeof(I) / sizeof(int32_t); ++l) any |= mask[l] != 0;
  return any;
}

// exp(x), the lane-wise form of VecExp<float> (Note [Vector exp]).
template <typename F>
TX_VEC_INLINE F Exp(F x) {
  const F lo = Splat<F>(vec_detail::ExpLimits<float>::kLo), hi = Splat<F>(vec_detail::ExpLimits<float>::kHi);
  x = Select(x < lo, lo, x);
  x = Select(x > hi, hi, x);
  const F magic = Splat<F>(12582912.0f);  // 1.5 * 2^23
  const F t = x * 1.44269504088896341f + magic;
  const IntOf<F> n = (IntOf<F>)((UintOf<F>)Bits(t) - 0x4B400000u);  // round(x / ln2), wrapping for NaN
  const F nf = t - magic;
  F r = x - nf * 0.693359375f;
  r = r - nf * -2.12194440e-4f;
  F p = Splat<F>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const F y = p * r * r + r + 1.0f;
  const IntOf<F> n1 = n >> 1, n2 = n - n1;
  // Unsigned shifts: a NaN lane gives a meaningless n, which must not be undefined behaviour.
  return y * FromBits<F>(IntOf<F>(UintOf<F>(n1 + 127) << 23)) * FromBits<F>(IntOf<F>(UintOf<F>(n2 + 127) << 23));
}

// log(x): -inf at 0, NaN below 0 and for NaN, +inf at +inf; subnormals are exact.
template <typename F>
TX_VEC_INLINE F Log(F x) {
  const IntOf<F> tiny = x < std::numeric_limits<float>::min();
  const F xs = Select(tiny, x * 8388608.0f, x);  // * 2^23 brings subnormals into range
  const IntOf<F> bits = Bits(xs);
  IntOf<F> e = ((bits >> 23) & 0xff) - 126 + (tiny & -23);  // masks are -1 where set
  F m = FromBits<F>((bits & 0x007fffff) | 0x3f000000);  // in [0.5, 1)
  const IntOf<F> small = m < 0.707106781186547524f;
  e = e + small;
  m = Select(small, m + m, m) - 1.0f;
  const F z = m * m;
  F p = Splat<F>(7.0376836292e-2f);
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  const F fe = __builtin_convertvector(e, F);
  F y = p * m * z;
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  F r = m + y + fe * 0.693359375f;
  const F inf = Splat<F>(std::numeric_limits<float>::infinity());
  r = Select(x == inf, inf, r);
  r = Select(x == 0.0f, -inf, r);
  return Select((x < 0.0f) | (x != x), Splat<F>(std::numeric_limits<float>::quiet_NaN()), r);
}

// log(1 + x), accurate near 0: log(u) * x / (u - 1) with u = 1 + x corrects u's rounding.
template <typename F>
TX_VEC_INLINE F Log1p(F x) {
  const F u = x + 1.0f;
  const F r = Log(u) * (x / (u - 1.0f));
  const F inf = Splat<F>(std::numeric_limits<float>::infinity());
  return Select(u == 1.0f, x, Select(u == inf, u, r));
}

// exp(x) - 1, accurate near 0: (u - 1) * x / log(u) with u = exp(x) corrects u's rounding.
template <typename F>
TX_VEC_INLINE F Expm1(F x) {
  const F u = Exp(x);
  const F um1 = u - 1.0f;
  const F r = um1 * (x / Log(u));
  const F inf = Splat<F>(std::numeric_limits<float>::infinity());
  return Select(u == 1.0f, x, Select(um1 == -1.0f, um1, Select(u == inf, u, r)));
}

// tanh(x) = x P(x^2) / Q(x^2) on |x| <= 9 (beyond, tanh rounds to +-1 in float32): a rational
// fit of relative error 7e-9 in exact arithmetic, about 3e-7 (5.5 ulp near 1) in float32, as
// TensorFlow's; one division and no exp. NaN stays NaN (the clamps' comparisons are false).
template <typename F>
TX_VEC_INLINE F Tanh(F x) {
  const F lim = Splat<F>(9.0f);
  const F xc = Select(x > lim, lim, Select(x < -lim, -lim, x));
  const F z = xc * xc;
  F p = Splat<F>(-8.488575917e-14f);
  p = p * z + 5.277902074e-11f;
  p = p * z - 2.022513890e-08f;
  p = p * z + 1.115428768e-05f;
  p = p * z + 3.103954252e-03f;
  p = p * z + 1.308400780e-01f;
  p = p * z + 1.0f;
  F q = Splat<F>(2.546142496e-04f);
  q = q * z + 2.449517138e-02f;
  q = q * z + 4.641733468e-01f;
  q = q * z + 1.0f;
  const F y = xc * p / q;
  return Select(y > 1.0f, Splat<F>(1.0f), Select(y < -1.0f, Splat<F>(-1.0f), y));
}

// 1 / (1 + exp(-x)), written as e / (1 + e) with e = exp(x) for x < 0 so tiny results stay accurate.
template <typename F>
TX_VEC_INLINE F Sigmoid(F x) {
  const F e = Exp(-Abs(x));
  return Select(x < 0.0f, e, Splat<F>(1.0f)) / (1.0f + e);
}

// erf(x): x + x * P(x^2) below |x| = 1 (a least-squares fit of relative error); above,
// 1 - erfc(|x|) with erfc = t * exp(-x^2 + Q(t)), t = 1 / (1 + |x|/2) (Numerical Recipes'
// Chebyshev fit, relative error < 1.2e-7); |x| is clamped at 4, where erf rounds to 1.
template <typename F>
TX_VEC_INLINE F Erf(F x) {
  F ax = Abs(x);
  ax = Select(ax > 4.0f, Splat<F>(4.0f), ax);
  const F z = x * x;
  F p = Splat<F>(7.847259258e-05f);
  p = p * z - 8.008189034e-04f;
  p = p * z + 5.188099109e-03f;
  p = p * z - 2.685369179e-02f;
  p = p * z + 1.128358245e-01f;
  p = p * z - 3.761262596e-01f;
  p = p * z + 1.283791661e-01f;
  const F small = x + x * p;
  const F t = 1.0f / (1.0f + 0.5f * ax);
  F q = Splat<F>(0.17087277f);
  q = q * t - 0.82215223f;
  q = q * t + 1.48851587f;
  q = q * t - 1.13520398f;
  q = q * t + 0.27886807f;
  q = q * t - 0.18628806f;
  q = q * t + 0.09678418f;
  q = q * t + 0.37409196f;
  q = q * t + 1.00002368f;
  q = q * t - 1.26551223f;
  const F erfc = t * Exp(q - ax * ax);
  return Select(ax < 1.0f, small, CopySign(1.0f - erfc, x));
}

// The Cephes reduction for sin, cos and tan: |x| = j * pi/4 + r with j even and |r| <= pi/4;
// j is computed from |x| clamped to kTrigMax (larger lanes are redone by libm).
constexpr float kTrigMax = 8192.0f;
template <typename F>
struct TrigReduced {
  F r;
  IntOf<F> j;
};
template <typename F>
TX_VEC_INLINE TrigReduced<F> TrigReduce(F ax) {
  const F safe = Select(ax <= kTrigMax, ax, Splat<F>(0.0f));  // NaN and huge lanes: j = 0
  IntOf<F> j = __builtin_convertvector(safe * 1.27323954473516f, IntOf<F>);
  j = (j + 1) & ~1;
  const F y = __builtin_convertvector(j, F);
  const F r = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  return {r, j};
}
template <typename F>
TX_VEC_INLINE F SinPoly(F r, F z) {
  return ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
}
template <typename F>
TX_VEC_INLINE F CosPoly(F z) {
  return ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
}
template <float (*Libm)(float), typename F>
TX_VEC_INLINE F PatchHuge(F x, F ax, F y) {
  const IntOf<F> huge = ax > kTrigMax;
  if (__builtin_expect(Any(huge), 0))
    for (int l = 0; l < kLanes<F>; ++l)
      if (huge[l]) y[l] = Libm(x[l]);
  return y;
}
inline float LibmSin(float v) { return std::sin(v); }
inline float LibmCos(float v) { return std::cos(v); }
inline float LibmTan(float v) { return std::tan(v); }

template <typename F>
TX_VEC_INLINE F Sin(F x) {
  const F ax = Abs(x);
  const TrigReduced<F> t = TrigReduce(ax);
  const F z = t.r * t.r;
  const IntOf<F> j = t.j & 7;
  const F y = Select((j & 2) != 0, CosPoly(z), SinPoly(t.r, z));
  const F s = Select((j & 4) != 0, -y, y);  // sin(x + pi) = -sin(x)
  return PatchHuge<LibmSin>(x, ax, CopySign(Splat<F>(1.0f), x) * s);
}

template <typename F>
TX_VEC_INLINE F Cos(F x) {
  const F ax = Abs(x);
  const TrigReduced<F> t = TrigReduce(ax);
  const F z = t.r * t.r;
  const IntOf<F> j = t.j & 7;
  const F y = Select((j & 2) != 0, SinPoly(t.r, z), CosPoly(z));
  const IntOf<F> neg = ((j + 2) & 4) != 0;  // octants 2..5 (j = 2, 4 after rounding up) are negative
  return PatchHuge<LibmCos>(x, ax, Select(neg, -y, y));
}

template <typename F>
TX_VEC_INLINE F Tan(F x) {
  const F ax = Abs(x);
  const TrigReduced<F> t = TrigReduce(ax);
  const F z = t.r * t.r;
  F p = Splat<F>(9.38540185543e-3f);
  p = p * z + 3.11992232697e-3f;
  p = p * z + 2.44301354525e-2f;
  p = p * z + 5.34112807005e-2f;
  p = p * z + 1.33387994085e-1f;
  p = p * z + 3.33331568548e-1f;
  F y = p * z * t.r + t.r;
  y = Select((t.j & 2) != 0, -1.0f / y, y);
  return PatchHuge<LibmTan>(x, ax, CopySign(Splat<F>(1.0f), x) * y);
}

// sqrt(x), correctly rounded (the vector extensions have no sqrt).
template <typename F>
TX_VEC_INLINE F Sqrt(F x) {
  if constexpr (kLanes<F> == 16)
    return (F)_mm512_mask_sqrt_ps((__m512)x, 0xFFFF, (__m512)x);  // _mm512_sqrt_ps trips gcc 12's -Wmaybe-uninitialized
  else
    return (F)_mm256_sqrt_ps((__m256)x);
}

// erfc(x) = t * exp(-x^2 + Q(t)) for x >= 0 with Erf's Chebyshev fit Q (relative error
// < 1.2e-7 over the whole range, so tails keep their precision), and 2 - erfc(-x) below 0.
template <typename F>
TX_VEC_INLINE F Erfc(F x) {
  const F ax = Abs(x);
  const F t = 1.0f / (1.0f + 0.5f * ax);
  F q = Splat<F>(0.17087277f);
  q = q * t - 0.82215223f;
  q = q * t + 1.48851587f;
  q = q * t - 1.13520398f;
  q = q * t + 0.27886807f;
  q = q * t - 0.18628806f;
  q = q * t + 0.09678418f;
  q = q * t + 0.37409196f;
  q = q * t + 1.00002368f;
  q = q * t - 1.26551223f;
  const F e = t * Exp(q - ax * ax);
  return Select(x < 0.0f, 2.0f - e, e);
}

// erfinv(x) by M. Giles' single-precision fit ("Approximating the erfinv function", 2010) in
// w = -log(1 - x^2): one polynomial below w = 5, one in sqrt(w) above; +-1 give +-inf and
// |x| > 1 gives NaN.
template <typename F>
TX_VEC_INLINE F Erfinv(F x) {
  const F w = -Log((1.0f - x) * (1.0f + x));
  const F a = w - 2.5f;
  F p = Splat<F>(2.81022636e-08f);
  p = p * a + 3.43273939e-07f;
  p = p * a - 3.5233877e-06f;
  p = p * a - 4.39150654e-06f;
  p = p * a + 0.00021858087f;
  p = p * a - 0.00125372503f;
  p = p * a - 0.00417768164f;
  p = p * a + 0.246640727f;
  p = p * a + 1.50140941f;
  const F b = Sqrt(Select(w < 5.0f, Splat<F>(5.0f), w)) - 3.0f;
  F q = Splat<F>(-0.000200214257f);
  q = q * b + 0.000100950558f;
  q = q * b + 0.00134934322f;
  q = q * b - 0.00367342844f;
  q = q * b + 0.00573950773f;
  q = q * b - 0.0076224613f;
  q = q * b + 0.00943887047f;
  q = q * b + 1.00167406f;
  q = q * b + 2.83297682f;
  F y = Select(w < 5.0f, p, q) * x;
  const F ax = Abs(x);
  y = Select(ax == 1.0f, CopySign(Splat<F>(std::numeric_limits<float>::infinity()), x), y);
  return Select(ax > 1.0f, Splat<F>(std::numeric_limits<float>::quiet_NaN()), y);
}

// f(x).
template <Fn f, typename F>
TX_VEC_INLINE F Apply(F x) {
  if constexpr (f == Fn::kExp)
    return Exp(x);
  else if constexpr (f == Fn::kExpm1)
    return Expm1(x);
  else if constexpr (f == Fn::kLog)
    return Log(x);
  else if constexpr (f == Fn::kLog1p)
    return Log1p(x);
  else if constexpr (f == Fn::kTanh)
    return Tanh(x);
  else if constexpr (f == Fn::kSigmoid)
    return Sigmoid(x);
  else if constexpr (f == Fn::kErf)
    return Erf(x);
  else if constexpr (f == Fn::kErfc)
    return Erfc(x);
  else if constexpr (f == Fn::kErfinv)
    return Erfinv(x);
  else if constexpr (f == Fn::kSin)
    return Sin(x);
  else if constexpr (f == Fn::kCos)
    return Cos(x);
  else if constexpr (f == Fn::kTan)
    return Tan(x);
  else if constexpr (f == Fn::kSqrt)
    return Sqrt(x);
  else
    return 1.0f / Sqrt(x);
}

// y[i] = f(x[i]) for i < n on vectors of type F, the tail padded (y may alias x).
template <Fn f, typename F>
void MapLanes(const float* x, float* y, int64_t n) {
  constexpr int64_t kN = kLanes<F>;
  int64_t i = 0;
  for (; i + kN <= n; i += kN) {
    F v;
    std::memcpy(&v, x + i, sizeof(v));
    v = Apply<f>(v);
    std::memcpy(y + i, &v, sizeof(v));
  }
  if (i < n) {
    const size_t bytes = static_cast<size_t>(n - i) * sizeof(float);
    F v = Splat<F>(0.0f);
    std::memcpy(&v, x + i, bytes);
    v = Apply<f>(v);
    std::memcpy(y + i, &v, bytes);
  }
}
