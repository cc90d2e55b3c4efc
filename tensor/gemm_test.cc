// The CPU GEMM kernels (tensor/cpu/gemm.h) called directly, against a
// double-precision triple loop: both layouts of A and B with leading
// dimensions past the matrix, sizes on both sides of the vector widths and of
// the small-product path, alpha and beta. The split across threads is
// covered by linalg_test (LargeMmSplitsAcrossThreads).
#include "tensor/cpu/gemm.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace torchlet::cpu {
namespace {

// A matrix of random values laid out row- or column-major with a leading
// dimension larger than the matrix (so strides are not the sizes).
struct Operand {
  Operand(int64_t rows, int64_t cols, bool row_major, std::mt19937& rng)
      : rows(rows), cols(cols), row_major(row_major) {
    ld = (row_major ? cols : rows) + 3;
    data.resize((row_major ? rows : cols) * ld);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float& v : data) v = dist(rng);
  }
  int64_t row_stride() const { return row_major ? ld : 1; }
  int64_t col_stride() const { return row_major ? 1 : ld; }
  float at(int64_t i, int64_t j) const { return data[i * row_stride() + j * col_stride()]; }
  int64_t rows, cols, ld;
  bool row_major;
  std::vector<float> data;
};

struct Product {
  Product(int64_t m, int64_t n, int64_t k, bool a_row_major, bool b_row_major, uint32_t seed = 1)
      : rng(seed), a(m, k, a_row_major, rng), b(k, n, b_row_major, rng), m(m), n(n), k(k) {
    ldc = n + 5;
    c.assign(m * ldc, 0.25f);
  }
  GemmArgs args(double alpha, double beta) {
    return GemmArgs{m,           n, k, a.data.data(), a.row_stride(), a.col_stride(), b.data.data(),
                    b.row_stride(), b.col_stride(), c.data(), ldc, alpha, beta};
  }
  // alpha * A @ B + beta * C0 in double, with C0 the matrix's current values.
  std::vector<double> reference(double alpha, double beta) const {
    std::vector<double> out(m * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) sum += double{a.at(i, p)} * b.at(p, j);
        out[i * n + j] = alpha * sum + (beta == 0 ? 0.0 : beta * c[i * ldc + j]);
      }
    }
    return out;
  }
  std::mt19937 rng;
  Operand a, b;
  int64_t m, n, k, ldc;
  std::vector<float> c;
};

// Every element within float32 rounding of the reference; the padding
// columns of C untouched.
void expect_matches(const Product& p, const std::vector<double>& want, float padding) {
  const double tolerance = 1e-6 * (4 + p.k);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      ASSERT_NEAR(p.c[i * p.ldc + j], want[i * p.n + j], tolerance)
          << "C[" << i << ", " << j << "] of " << p.m << "x" << p.k << " @ " << p.k << "x" << p.n
          << (p.a.row_major ? " A row-major" : " A column-major")
          << (p.b.row_major ? ", B row-major" : ", B column-major");
    }
    for (int64_t j = p.n; j < p.ldc; ++j) ASSERT_EQ(p.c[i * p.ldc + j], padding) << "padding written";
  }
}

TEST(GemmTest, Float32MatchesTheReferenceAcrossTileAndBlockEdgesInEveryLayout) {
  // Sizes around the vector widths (8 and 16 floats), small products (at
  // most 4096 multiply-adds, their own kernel) and Eigen's blocking.
  for (int64_t m : {1, 7, 8, 9, 17, 40, 129}) {
    for (int64_t n : {5, 31, 32, 33, 64, 97}) {
      for (int64_t k : {3, 16, 127, 128, 129, 300}) {
        for (bool a_row_major : {true, false}) {
          for (bool b_row_major : {true, false}) {
            Product p(m, n, k, a_row_major, b_row_major);
            const std::vector<double> want = p.reference(1, 0);
            gemm_serial(p.args(1, 0), /*dtype_is_double=*/false);
            expect_matches(p, want, 0.25f);
          }
        }
      }
    }
  }
}

TEST(GemmTest, BetaZeroIgnoresWhatCHolds) {
  Product p(20, 70, 50, true, false);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) p.c[i * p.ldc + j] = std::numeric_limits<float>::quiet_NaN();
  }
  const std::vector<double> want = p.reference(1, 0);
  gemm_serial(p.args(1, 0), false);
  expect_matches(p, want, 0.25f);
}

TEST(GemmTest, AlphaAndBetaScaleTheProductAndC) {
  for (double beta : {1.0, 0.5, -2.0}) {
    Product p(33, 65, 200, false, true);
    for (size_t i = 0; i < p.c.size(); ++i) p.c[i] = static_cast<float>(i % 7) - 3;
    const std::vector<double> want = p.reference(2.5, beta);
    gemm_serial(p.args(2.5, beta), false);
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        ASSERT_NEAR(p.c[i * p.ldc + j], want[i * p.n + j], 1e-4) << "beta " << beta;
      }
    }
  }
}

// Products whose packing buffers are past Eigen's 128 KiB stack limit run
// over buffers each thread keeps (Note [Kept packing buffers] in
// tensor/cpu/gemm_impl.inc): sizes that grow them, use them partly and grow
// them again on one thread, and a fresh thread's own.
TEST(GemmTest, ProductsThatGrowAndReuseTheKeptPackingBuffersMatchTheReference) {
  const std::vector<std::vector<int64_t>> sizes{
      {200, 300, 600}, {40, 50, 60}, {150, 700, 900}, {200, 300, 600}, {3, 900, 700}};
  auto run = [](const std::vector<int64_t>& s, bool a_row_major, bool b_row_major) {
    Product p(s[0], s[1], s[2], a_row_major, b_row_major, static_cast<uint32_t>(s[0] + s[1]));
    const std::vector<double> want = p.reference(1.5, 0);
    gemm_serial(p.args(1.5, 0), false);
    expect_matches(p, want, 0.25f);
  };
  for (const auto& s : sizes) {
    run(s, true, false);
    run(s, false, true);
  }
  std::thread other([&] { run(sizes[2], true, true); });
  other.join();
}

// torchlet's own float32 kernels (Note [AVX-512 float32 GEMM] and Note
// [AVX2 float32 GEMM]), called directly, each on a CPU that has its
// instructions: rows around their 12- and 6-row panels, columns around their
// 32- and 16-column panels, depths past one packed block (at most 512 and
// 256) and columns past one block of B (a few hundred to 4096, depending on
// the caches).
struct OwnKernel {
  const char* name;
  void (*run)(const GemmArgs&);
  bool (*run_threads)(const GemmArgs&, const OnThreads&);
  bool supported;
};

// Runs the body on `threads` threads at once (the calling one among them).
OnThreads on_threads(int threads) {
  return [threads](const std::function<void()>& body) {
    std::vector<std::thread> others;
    for (int i = 1; i < threads; ++i) others.emplace_back(body);
    body();
    for (std::thread& t : others) t.join();
  };
}

class OwnKernelTest : public ::testing::TestWithParam<OwnKernel> {
 protected:
  void SetUp() override {
    if (!GetParam().supported) GTEST_SKIP() << "this CPU lacks " << GetParam().name;
  }
  void run(const GemmArgs& g) const { GetParam().run(g); }
};

TEST_P(OwnKernelTest, MatchesTheReferenceAcrossPanelAndBlockEdges) {
  const std::vector<std::vector<int64_t>> sizes{
      {1, 16, 3},     {11, 31, 16},   {12, 32, 17},   {13, 33, 1},    {25, 95, 129},
      {24, 64, 513},  {37, 47, 1100}, {14, 1100, 40}, {30, 300, 700}, {16, 40, 20},
      {20, 33, 300},  {5, 15, 7},     {6, 16, 8},     {7, 17, 9},     {3, 8, 257},
      {41, 600, 260},
      // C's rows 1030 floats apart: the kernels fetch C before the store
      // (Note [C fetched before the store] in sgemm_avx512.cc), at a step
      // of k within the call and at its start.
      {26, 1030, 100}, {14, 1030, 30}};
  for (const auto& s : sizes) {
    for (bool a_row_major : {true, false}) {
      for (bool b_row_major : {true, false}) {
        Product p(s[0], s[1], s[2], a_row_major, b_row_major, static_cast<uint32_t>(s[2]));
        const std::vector<double> want = p.reference(1, 0);
        run(p.args(1, 0));
        expect_matches(p, want, 0.25f);
      }
    }
  }
}

TEST_P(OwnKernelTest, ScalesByAlphaAndBetaInEveryPass) {
  for (double beta : {0.0, 1.0, -0.5}) {
    Product p(29, 70, 1100, true, false);  // more than one pass over k
    for (size_t i = 0; i < p.c.size(); ++i) p.c[i] = static_cast<float>(i % 5) - 2;
    if (beta == 0) {
      for (int64_t i = 0; i < p.m; ++i) p.c[i * p.ldc + 3] = std::numeric_limits<float>::quiet_NaN();
    }
    const std::vector<double> want = p.reference(-1.5, beta);
    run(p.args(-1.5, beta));
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        ASSERT_NEAR(p.c[i * p.ldc + j], want[i * p.n + j], 2e-3) << "beta " << beta;
      }
    }
  }
}

// An operand broadcast along one dimension (stride 0), as an expanded tensor
// gives it: every row of A the same, or every column of B.
TEST_P(OwnKernelTest, ReadsBroadcastOperands) {
  const int64_t m = 20, n = 40, k = 50;
  std::vector<float> a(k), b(k * n), col(k), c(m * n, 7.f);
  for (int64_t p = 0; p < k; ++p) a[p] = 0.01f * p - 0.2f;
  for (int64_t i = 0; i < k * n; ++i) b[i] = 0.5f - 0.003f * (i % 97);
  for (int64_t p = 0; p < k; ++p) col[p] = 1.f - 0.02f * p;
  run(GemmArgs{m, n, k, a.data(), 0, 1, b.data(), n, 1, c.data(), n, 1, 0});
  for (int64_t j = 0; j < n; ++j) {
    double sum = 0;
    for (int64_t p = 0; p < k; ++p) sum += double{a[p]} * b[p * n + j];
    for (int64_t i = 0; i < m; ++i) ASSERT_NEAR(c[i * n + j], sum, 1e-4) << i << ", " << j;
  }
  run(GemmArgs{m, n, k, b.data(), k, 1, col.data(), 1, 0, c.data(), n, 1, 0});
  for (int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (int64_t p = 0; p < k; ++p) sum += double{b[i * k + p]} * col[p];
    for (int64_t j = 0; j < n; ++j) ASSERT_NEAR(c[i * n + j], sum, 1e-4) << i << ", " << j;
  }
}

// The sum over k runs in k order, block after block, whatever the rows and
// columns: a row of C is the same bits computed alone or among others (the
// split across threads, by rows or by columns, changes no result).
TEST_P(OwnKernelTest, ARowOrColumnComputedAloneHasTheSameBits) {
  Product p(23, 45, 700, true, false);
  run(p.args(1, 0));
  for (int64_t i : {0, 5, 6, 22}) {
    std::vector<float> row(p.n);
    run(GemmArgs{1, p.n, p.k, p.a.data.data() + i * p.a.row_stride(), p.a.row_stride(),
                 p.a.col_stride(), p.b.data.data(), p.b.row_stride(), p.b.col_stride(), row.data(),
                 p.n, 1, 0});
    for (int64_t j = 0; j < p.n; ++j) ASSERT_EQ(row[j], p.c[i * p.ldc + j]) << i << ", " << j;
  }
  for (int64_t j : {0, 15, 16, 44}) {
    std::vector<float> column(p.m);
    run(GemmArgs{p.m, 1, p.k, p.a.data.data(), p.a.row_stride(), p.a.col_stride(),
                 p.b.data.data() + j * p.b.col_stride(), p.b.row_stride(), p.b.col_stride(),
                 column.data(), 1, 1, 0});
    for (int64_t i = 0; i < p.m; ++i) ASSERT_EQ(column[i], p.c[i * p.ldc + j]) << i << ", " << j;
  }
}

// A product with few rows reads B where it lies (Note [B read in place] in
// tensor/cpu/sgemm_blocked.inc); one row more than that rule allows packs
// B. Both give the same bits for the rows they share, with a last panel of
// B narrower than the kernel's, several passes over k and blocks of columns.
TEST_P(OwnKernelTest, BReadInPlaceOrPackedGivesTheSameBits) {
  const int64_t panel_rows = std::string(GetParam().name) == "AVX-512" ? 12 : 6;
  const int64_t in_place_rows = 6 * panel_rows;
  for (const auto& nk : std::vector<std::vector<int64_t>>{{45, 700}, {1100, 40}, {784, 512}}) {
    Product packed(in_place_rows + 1, nk[0], nk[1], true, true, static_cast<uint32_t>(nk[0]));
    run(packed.args(1, 0));
    for (int64_t rows : {in_place_rows, int64_t{1}, int64_t{13}}) {
      std::vector<float> c(rows * packed.ldc, 0.25f);
      GemmArgs g = packed.args(1, 0);
      g.m = rows;
      g.c = c.data();
      run(g);
      for (int64_t i = 0; i < rows * packed.ldc; ++i) {
        ASSERT_EQ(c[i], packed.c[i]) << "element " << i << " of " << rows << " rows by " << nk[1]
                                     << " @ " << nk[1] << "x" << nk[0];
      }
    }
  }
}

// B read in place, stored with no padding after its last column: the kernel
// reads nothing past it (AddressSanitizer in CI sees every read), with a
// last panel narrower than the kernel's and a B every row of which is one
// row (stride 0).
TEST_P(OwnKernelTest, BReadInPlaceStaysWithinItsColumns) {
  for (int64_t n : {16, 37, 64, 70}) {
    const int64_t m = 13, k = 300;
    std::mt19937 rng(static_cast<uint32_t>(n));
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> a(m * k), b(k * n), c(m * n);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    for (int64_t row_stride : {n, int64_t{0}}) {
      run(GemmArgs{m, n, k, a.data(), k, 1, b.data() + (row_stride == 0 ? (k - 1) * n : 0),
                   row_stride, 1, c.data(), n, 1, 0});
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < k; ++p) {
            sum += double{a[i * k + p]} * b[(row_stride == 0 ? k - 1 : p) * n + j];
          }
          ASSERT_NEAR(c[i * n + j], sum, 1e-4) << i << ", " << j << " of n " << n
                                               << (row_stride == 0 ? ", B rows broadcast" : "");
        }
      }
    }
  }
}

// A row-major A whose rows are not a multiple of 4 KiB apart is read where
// it lies (Note [A read in place] in tensor/cpu/sgemm_blocked.inc), one
// whose rows are is packed: the same bits, on one thread and on two, with
// a last panel of rows that the in-place kernel cannot fill (packed), several
// passes over k, and A held in exactly its m x k floats (AddressSanitizer
// in CI sees any read past them).
TEST_P(OwnKernelTest, AReadInPlaceOrPackedGivesTheSameBits) {
  const std::vector<std::vector<int64_t>> sizes{{12, 70, 600}, {13, 40, 1000}, {37, 33, 300}};
  for (const auto& s : sizes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    std::mt19937 rng(static_cast<uint32_t>(m));
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> tight(m * k), padded(m * 1024), b(k * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) tight[i * k + p] = padded[i * 1024 + p] = dist(rng);
    }
    for (float& v : b) v = dist(rng);
    std::vector<float> packed(m * n), in_place(m * n), threads(m * n);
    run(GemmArgs{m, n, k, padded.data(), 1024, 1, b.data(), n, 1, packed.data(), n, 1, 0});
    run(GemmArgs{m, n, k, tight.data(), k, 1, b.data(), n, 1, in_place.data(), n, 1, 0});
    ASSERT_TRUE(GetParam().run_threads(
        GemmArgs{m, n, k, tight.data(), k, 1, b.data(), n, 1, threads.data(), n, 1, 0},
        on_threads(2)));
    for (int64_t i = 0; i < m * n; ++i) {
      ASSERT_EQ(in_place[i], packed[i]) << "element " << i << " of " << m << "x" << k << " @ " << k
                                        << "x" << n;
      ASSERT_EQ(threads[i], packed[i]) << "element " << i << " on two threads";
    }
  }
}

// Threads claiming row panels (Note [Row panels claimed in order]) give the
// bits of one thread, whatever their number: several passes over k, several
// blocks of columns and of rows (over 4096 rows), the panels' edges, beta's
// first pass, every layout.
TEST_P(OwnKernelTest, ThreadsClaimingRowPanelsGiveTheBitsOfOneThread) {
  const std::vector<std::vector<int64_t>> sizes{
      {12, 16, 1}, {13, 33, 513}, {100, 1100, 40}, {59, 70, 1100}, {4200, 20, 9}, {8300, 40, 3}};
  for (const auto& s : sizes) {
    for (bool a_row_major : {true, false}) {
      for (bool b_row_major : {true, false}) {
        Product initial(s[0], s[1], s[2], a_row_major, b_row_major, static_cast<uint32_t>(s[1]));
        for (size_t i = 0; i < initial.c.size(); ++i) initial.c[i] = static_cast<float>(i % 7) - 3;
        Product serial = initial;
        run(serial.args(0.75, -0.5));
        for (int threads : {1, 2, 3}) {
          Product shared = initial;
          ASSERT_TRUE(GetParam().run_threads(shared.args(0.75, -0.5), on_threads(threads)));
          for (size_t i = 0; i < serial.c.size(); ++i) {
            ASSERT_EQ(shared.c[i], serial.c[i])
                << "element " << i << " of " << s[0] << "x" << s[2] << " @ " << s[2] << "x" << s[1]
                << " on " << threads << " threads" << (a_row_major ? ", A row-major" : "")
                << (b_row_major ? ", B row-major" : "");
          }
        }
      }
    }
  }
}

TEST_P(OwnKernelTest, ThreadsLeaveProductsTooSmallForTheKernelToTheCaller) {
  for (const auto& s : std::vector<std::vector<int64_t>>{{11, 40, 8}, {40, 15, 8}, {40, 40, 0}}) {
    Product p(s[0], s[1], s[2], true, true);
    EXPECT_FALSE(GetParam().run_threads(p.args(1, 0), on_threads(2)));
    for (float v : p.c) ASSERT_EQ(v, 0.25f) << "C written for " << s[0] << "x" << s[1];
  }
}

INSTANTIATE_TEST_SUITE_P(
    GemmTest, OwnKernelTest,
    ::testing::Values(OwnKernel{"AVX-512", sgemm_avx512, sgemm_avx512_threads,
                                __builtin_cpu_supports("avx512f") &&
                                    __builtin_cpu_supports("avx512dq") &&
                                    __builtin_cpu_supports("avx512vl")},
                      OwnKernel{"AVX2", sgemm_avx2, sgemm_avx2_threads,
                                __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")}),
    [](const ::testing::TestParamInfo<OwnKernel>& info) {
      return std::string(info.param.name[3] == '-' ? "Avx512" : "Avx2");
    });

// kc as blocking() gives it on a 32 KiB L1 with the AVX2 and the AVX-512
// kernels, and on a 48 KiB one with the AVX-512 kernel.
TEST(GemmTest, PassesOverKHaveEvenDepthsWithoutAShortLastPass) {
  EXPECT_EQ(sgemm_pass_depth(336, 300), 300);
  EXPECT_EQ(sgemm_pass_depth(336, 1024), 352);
  EXPECT_EQ(sgemm_pass_depth(336, 2048), 352);
  EXPECT_EQ(sgemm_pass_depth(512, 1024), 512);
  EXPECT_EQ(sgemm_pass_depth(336, 784), 272);
  for (int64_t kc : {256, 336, 512}) {
    for (int64_t k = 1; k <= 16384; ++k) {
      const int64_t depth = sgemm_pass_depth(kc, k);
      ASSERT_GE(depth, 1) << "kc " << kc << ", k " << k;
      ASSERT_LE(depth, std::min(k, kc + kc / 8 + 15)) << "kc " << kc << ", k " << k;
      const int64_t passes = (k + depth - 1) / depth;
      ASSERT_LE(passes, (k + kc - 1) / kc) << "kc " << kc << ", k " << k;
      if (passes > 1) {
        ASSERT_GE(2 * (k - (passes - 1) * depth), depth) << "kc " << kc << ", k " << k;
      }
    }
  }
}

TEST(GemmTest, Float64MatchesTheReference) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> dist(-1, 1);
  const int64_t m = 37, n = 45, k = 130;
  std::vector<double> a(m * k), b(k * n), c(m * n);
  for (double& v : a) v = dist(rng);
  for (double& v : b) v = dist(rng);
  gemm(GemmArgs{m, n, k, a.data(), k, 1, b.data(), 1, k, c.data(), n, 1, 0}, true);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[j * k + p];
      ASSERT_NEAR(c[i * n + j], sum, 1e-12);
    }
  }
}

}  // namespace
}  // namespace torchlet::cpu
