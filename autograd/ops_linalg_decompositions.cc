// Differentiable decompositions and solvers: the autograd side of
// tensor/linalg_decompositions.cc. The backward formulas are PyTorch's
// (FunctionsManual.cpp), written with Variable ops so that they are
// differentiable again (create_graph).
#include "autograd/linalg_decompositions.h"

#include <algorithm>

#include "autograd/functions.h"
#include "autograd/op_helpers.h"

namespace torchlet {

using autograd::constant;
using autograd::InputMeta;
using autograd::OpNode;
using autograd::PlainNode;
using autograd::record;

namespace {

Variable mT(const Variable& x) { return x.transpose(-2, -1); }

Variable eye_of(const Variable& like, int64_t n) { return constant(eye(n, like.options())); }

// 1 on and below the diagonal, 0 above, in `like`'s dtype and device.
Tensor lower_triangle(int64_t n, const Variable& like) {
  const Tensor i = arange(n, like.options().dtype(kInt64));
  return i.unsqueeze(1).ge(i.unsqueeze(0)).to(like.dtype());
}

Variable as_diagonal(const Variable& v) { return v.unsqueeze(-1).mul(eye_of(v, v.size(-1))); }

// Saved-variable slots.
enum Slot : size_t { k0 = 0, k1 = 1, k2 = 2 };

// The gradient of A^-1: -A^-T g A^-T.
Variable inv_backward(const Variable& g, const Variable& inverse) {
  const Variable t = mT(inverse);
  return t.matmul(g).matmul(t).neg();
}

// d det(A) / dA = det(A) A^-T. A batch holding a singular matrix takes the
// adjugate through the SVD instead, det(U) det(Vh) U diag(prod_{j!=i} s_j)
// Vh, which holds for every matrix (that path is not differentiable again).
Variable det_backward(const Variable& g, const Variable& a, const Variable& det) {
  if (det.data().ne(0).all().item<bool>()) {
    return g.mul(det).unsqueeze(-1).unsqueeze(-1).mul(mT(linalg::inv(a)));
  }
  auto [u, s, vh] = linalg::svd(a.data(), false);
  const int64_t n = s.size(-1);
  const Tensor others = where(eye(n, s.options().dtype(kBool)), 1, s.unsqueeze(-2)).prod(-1);
  const Tensor scale = linalg::det(u).mul(linalg::det(vh)).mul(g.data());
  return constant(u.mul(others.unsqueeze(-2)).matmul(vh).mul(scale.unsqueeze(-1).unsqueeze(-1)));
}

// The gradient of the pseudoinverse P of A (PyTorch's pinv_backward),
// arranged so that the largest product is min(m, n) wide.
Variable pinv_backward(const Variable& g, const Variable& p, const Variable& a) {
  const Variable ph = mT(p), gh = mT(g);
  if (a.size(-2) <= a.size(-1)) {
    const Variable k = gh.matmul(p);
    const Variable kph = k.matmul(ph);
    return mT(p.matmul(k)).neg() + kph - a.matmul(p).matmul(kph) +
           ph.matmul(p).matmul(gh - k.matmul(a));
  }
  const Variable k = p.matmul(gh);
  const Variable phk = ph.matmul(k);
  return mT(k.matmul(p)).neg() + (gh - a.matmul(k)).matmul(p).matmul(ph) + phk -
         phk.matmul(p).matmul(a);
}

// The gradient of a square or tall QR (A = QR, R square): with
// M = R gR^T - gQ^T Q, gA = (gQ + Q copyltu(M)) R^-T, where copyltu makes
// a symmetric matrix of M's lower triangle.
Variable qr_backward_tall(const Variable& gq, const Variable& gr, const Variable& q,
                          const Variable& r) {
  const int64_t k = r.size(-1);
  const Variable m = r.matmul(mT(gr)) - mT(gq).matmul(q);
  const Variable lower = m.mul(constant(lower_triangle(k, m)));
  const Variable copyltu = lower + mT(lower) - as_diagonal(lower.mul(eye_of(m, k)).sum({-1}));
  const Variable b = gq + q.matmul(copyltu);
  // b R^-T = (R^-1 b^T)^T.
  return mT(linalg::solve(r, mT(b)));
}

struct QrState {
  std::string mode;
};

struct SolveState {
  InputMeta a;
  InputMeta b;
  bool vector = false;
};

struct UpperState {
  bool upper = false;
};

struct CholeskySolveState {
  InputMeta b;
  InputMeta l;
  bool upper = false;
};

struct PinvState {
  std::optional<double> atol, rtol;
  bool hermitian = false;
};

struct SvdState {
  bool full_matrices = false;
};

// The gradient of A = U diag(S) Vh (PyTorch's svd_backward, real case).
variable_list svd_backward(OpNode<SvdState>& n, const variable_list& g) {
  Variable u = n.var(k0), s = n.var(k1), vh = n.var(k2);
  Variable gu = g[0], gs = g[1], gvh = g[2];
  const int64_t m = u.size(-2), cols = vh.size(-1), k = s.size(-1);
  if (n.state.full_matrices) {  // the extra columns do not enter A
    u = u.narrow(-1, 0, k);
    gu = gu.narrow(-1, 0, k);
    vh = vh.narrow(-2, 0, k);
    gvh = gvh.narrow(-2, 0, k);
  }
  const Variable v = mT(vh), gv = mT(gvh);
  const Variable uhgu = mT(u).matmul(gu), vhgv = vh.matmul(gv);
  const Variable s2 = s.mul(s);
  // E_jk = s_k^2 - s_j^2 off the diagonal, 1 on it.
  const Variable e = s2.unsqueeze(-2) - s2.unsqueeze(-1) + eye_of(s, k);
  Variable inner = ((uhgu - mT(uhgu)).mul(s.unsqueeze(-2)) +
                    s.unsqueeze(-1).mul(vhgv - mT(vhgv))).div(e) + as_diagonal(gs);
  Variable ga;
  if (m > k) {
    ga = u.matmul(inner) + (gu - u.matmul(uhgu)).div(s.unsqueeze(-2));
    ga = ga.matmul(vh);
  } else if (cols > k) {
    ga = inner.matmul(vh) + mT(gv - v.matmul(vhgv)).div(s.unsqueeze(-1));
    ga = u.matmul(ga);
  } else {
    ga = u.matmul(inner).matmul(vh);
  }
  return {ga};
}

// The gradient of A = V diag(w) V^T for symmetric A (PyTorch's
// linalg_eig_backward, Hermitian case).
variable_list eigh_backward(PlainNode& n, const variable_list& g) {
  const Variable w = n.var(k0), v = n.var(k1);
  const int64_t k = w.size(-1);
  const Variable vhgv = mT(v).matmul(g[1]);
  const Variable skew = (vhgv - mT(vhgv)).mul(0.5);
  const Variable e = w.unsqueeze(-2) - w.unsqueeze(-1) + eye_of(w, k);
  // skew's diagonal is zero, so the 1s of e's leave it so.
  const Variable inner = skew.div(e) + as_diagonal(g[0]);
  return {v.matmul(inner).matmul(mT(v))};
}

// Records a node with several outputs: `datas` become its results.
template <class State, class Setup>
std::vector<Variable> record_outputs(const char* name,
                                     variable_list (*formula)(OpNode<State>&,
                                                              const variable_list&),
                                     std::initializer_list<const Variable*> inputs,
                                     std::vector<Tensor> datas, Setup&& setup) {
  auto node = autograd::record_op(name, formula, inputs, datas[0].device());
  std::vector<Variable> outs;
  outs.reserve(datas.size());
  for (size_t i = 0; i < datas.size(); ++i) {
    outs.push_back(autograd::make_result(std::move(datas[i]), node, static_cast<uint32_t>(i)));
  }
  if (node) setup(*node, outs);
  return outs;
}

// The gradient of A = L L^T (or U^T U): with P = L^T gL on and below the
// diagonal, the diagonal halved, gA = sym(L^-T P L^-1).
variable_list cholesky_backward(OpNode<UpperState>& n, const variable_list& g) {
  Variable l = n.var(k0), gl = g[0];
  if (n.state.upper) {
    l = mT(l);
    gl = mT(gl);
  }
  const int64_t k = l.size(-1);
  const Tensor half_lower =
      lower_triangle(k, l).sub(eye(k, l.options()).mul(0.5));
  const Variable phi = mT(l).matmul(gl).mul(constant(half_lower));
  const Variable l_inv = linalg::inv(l);
  const Variable ga = mT(l_inv).matmul(phi).matmul(l_inv);
  return {(ga + mT(ga)).mul(0.5)};
}

Variable cholesky_variable(const char* name, const Variable& a, Tensor out_data, bool upper) {
  Variable out = record(name, cholesky_backward, {&a}, std::move(out_data),
                        [&](OpNode<UpperState>& n) { n.state.upper = upper; });
  if (const auto& node = out.grad_fn()) {
    static_cast<OpNode<UpperState>&>(*node).saved.emplace_back(out, true);
  }
  return out;
}

}  // namespace

namespace linalg {

Variable inv(const Variable& a) {
  Variable out = record("LinalgInvExBackward0", [](PlainNode& n, const variable_list& g)
                                                    -> variable_list {
    return {inv_backward(g[0], n.var(k0))};
  }, {&a}, linalg::inv(a.data()), [](PlainNode&) {});
  if (const auto& node = out.grad_fn()) {
    static_cast<PlainNode&>(*node).saved.emplace_back(out, true);
  }
  return out;
}

Variable det(const Variable& a) {
  Variable out = record("LinalgDetBackward0", [](PlainNode& n, const variable_list& g)
                                                  -> variable_list {
    return {det_backward(g[0], n.var(k0), n.var(k1))};
  }, {&a}, linalg::det(a.data()), [&](PlainNode& n) { n.saved.emplace_back(a, false); });
  if (const auto& node = out.grad_fn()) {
    static_cast<PlainNode&>(*node).saved.emplace_back(out, true);
  }
  return out;
}

std::tuple<Tensor, Variable> slogdet(const Variable& a) {
  auto [sign, logabsdet] = linalg::slogdet(a.data());
  Variable out = record("LinalgSlogdetBackward0", [](PlainNode& n, const variable_list& g)
                                                      -> variable_list {
    return {g[0].unsqueeze(-1).unsqueeze(-1).mul(mT(linalg::inv(n.var(k0))))};
  }, {&a}, logabsdet, [&](PlainNode& n) { n.saved.emplace_back(a, false); });
  return {sign, out};
}

Variable solve(const Variable& a, const Variable& b) {
  const Tensor x = linalg::solve(a.data(), b.data());
  const bool vector = b.dim() == 1 || (b.dim() == a.dim() - 1 &&
                                       b.sizes() == a.sizes().subspan(0, a.dim() - 1));
  Variable out = record("LinalgSolveExBackward0", [](OpNode<SolveState>& n,
                                                     const variable_list& g) -> variable_list {
    const Variable a = n.var(k0), x = n.var(k1);
    // gB = A^-T g; gA = -gB X^T.
    const Variable gb = linalg::solve(mT(a), g[0]);
    variable_list grads(2);
    if (n.needs_input_grad(0)) {
      const Variable ga = n.state.vector ? gb.unsqueeze(-1).matmul(x.unsqueeze(-2)).neg()
                                         : gb.matmul(mT(x)).neg();
      grads[0] = autograd::sum_to(ga, n.state.a);
    }
    if (n.needs_input_grad(1)) grads[1] = autograd::sum_to(gb, n.state.b);
    return grads;
  }, {&a, &b}, x, [&](OpNode<SolveState>& n) {
    n.state = {InputMeta(a), InputMeta(b), vector};
    n.saved.emplace_back(a, false);
  });
  if (const auto& node = out.grad_fn()) {
    static_cast<OpNode<SolveState>&>(*node).saved.emplace_back(out, true);
  }
  return out;
}


Variable cholesky(const Variable& a, bool upper) {
  return cholesky_variable("LinalgCholeskyExBackward0", a, linalg::cholesky(a.data(), upper),
                           upper);
}

std::tuple<Variable, Variable> qr(const Variable& a, const std::string& mode) {
  auto [q, r] = linalg::qr(a.data(), mode);
  auto outs = record_outputs<QrState>(
      "LinalgQrBackward0", [](OpNode<QrState>& n, const variable_list& g) -> variable_list {
        TORCHLET_CHECK(n.state.mode != "r", "The derivative of linalg.qr depends on Q, which is "
                       "not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if "
                       "you are going to differentiate through linalg.qr.");
        const Variable q = n.var(k0), r = n.var(k1);
        const int64_t m = q.size(-2), cols = r.size(-1);
        TORCHLET_CHECK(n.state.mode != "complete" || m <= cols, "The QR decomposition is not "
                       "differentiable when mode='complete' and nrows > ncols.");
        if (m >= cols) return {qr_backward_tall(g[0], g[1], q, r)};
        // A = [X | Y], R = [U | V] with X = Q U square: gY = Q gV, and X's
        // gradient is the square case's with gQ + Y gV^T.
        const Variable a = q.matmul(r);
        const Variable y = a.narrow(-1, m, cols - m);
        const Variable gv = g[1].narrow(-1, m, cols - m);
        const Variable gx = qr_backward_tall(g[0] + y.matmul(mT(gv)), g[1].narrow(-1, 0, m), q,
                                             r.narrow(-1, 0, m));
        return {cat({gx, q.matmul(gv)}, -1)};
      },
      {&a}, {q, r}, [&](OpNode<QrState>& n, const std::vector<Variable>& outs) {
        n.state.mode = mode;
        n.saved.emplace_back(outs[0], true);
        n.saved.emplace_back(outs[1], true);
      });
  return {outs[0], outs[1]};
}

std::tuple<Variable, Variable> eigh(const Variable& a, const std::string& uplo) {
  auto [w, v] = linalg::eigh(a.data(), uplo);
  auto outs = record_outputs<autograd::NoState>(
      "LinalgEighBackward0", eigh_backward, {&a}, {w, v},
      [](PlainNode& n, const std::vector<Variable>& outs) {
        n.saved.emplace_back(outs[0], true);
        n.saved.emplace_back(outs[1], true);
      });
  return {outs[0], outs[1]};
}

Variable eigvalsh(const Variable& a, const std::string& uplo) {
  // The gradient needs the eigenvectors: computed only when recording.
  if (autograd::should_record({&a})) return std::get<0>(linalg::eigh(a, uplo));
  return constant(linalg::eigvalsh(a.data(), uplo));
}

std::tuple<Variable, Variable, Variable> svd(const Variable& a, bool full_matrices) {
  auto [u, s, vh] = linalg::svd(a.data(), full_matrices);
  auto outs = record_outputs<SvdState>(
      "LinalgSvdBackward0", svd_backward, {&a}, {u, s, vh},
      [&](OpNode<SvdState>& n, const std::vector<Variable>& outs) {
        n.state.full_matrices = full_matrices;
        for (const Variable& o : outs) n.saved.emplace_back(o, true);
      });
  return {outs[0], outs[1], outs[2]};
}

Variable svdvals(const Variable& a) {
  // The gradient needs the singular vectors: computed only when recording.
  if (autograd::should_record({&a})) return std::get<1>(linalg::svd(a, false));
  return constant(linalg::svdvals(a.data()));
}

Variable pinv(const Variable& a, std::optional<double> atol, std::optional<double> rtol,
              bool hermitian) {
  Variable out = record("LinalgPinvBackward0", [](PlainNode& n, const variable_list& g)
                                                   -> variable_list {
    return {pinv_backward(g[0], n.var(k1), n.var(k0))};
  }, {&a}, linalg::pinv(a.data(), atol, rtol, hermitian),
     [&](PlainNode& n) { n.saved.emplace_back(a, false); });
  if (const auto& node = out.grad_fn()) {
    static_cast<PlainNode&>(*node).saved.emplace_back(out, true);
  }
  return out;
}

Tensor matrix_rank(const Variable& a, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian) {
  return linalg::matrix_rank(a.data(), atol, rtol, hermitian);
}

VariableLstsqResult lstsq(const Variable& a, const Variable& b, std::optional<double> rcond,
                          std::optional<std::string> driver) {
  LstsqResult r = linalg::lstsq(a.data(), b.data(), rcond, driver);
  const bool vector = b.dim() == a.dim() - 1;
  Variable x = record("LinalgLstsqBackward0", [](OpNode<SolveState>& n, const variable_list& g)
                                                  -> variable_list {
    // X = pinv(A) B: gB = pinv(A)^T gX, gA = pinv_backward(gX B^T).
    const Variable a = n.var(k0);
    const Variable b = n.state.vector ? n.var(k1).unsqueeze(-1) : n.var(k1);
    const Variable gx = n.state.vector ? g[0].unsqueeze(-1) : g[0];
    const Variable p = linalg::pinv(a);
    variable_list grads(2);
    if (n.needs_input_grad(0)) {
      grads[0] = autograd::sum_to(pinv_backward(gx.matmul(mT(b)), p, a), n.state.a);
    }
    if (n.needs_input_grad(1)) {
      const Variable gb = mT(p).matmul(gx);
      grads[1] = autograd::sum_to(n.state.vector ? gb.squeeze(-1) : gb, n.state.b);
    }
    return grads;
  }, {&a, &b}, r.solution, [&](OpNode<SolveState>& n) {
    n.state = {InputMeta(a), InputMeta(b), vector};
    n.saved.emplace_back(a, false);
    n.saved.emplace_back(b, false);
  });
  return {x, r.residuals, r.rank, r.singular_values};
}

Variable matrix_power(const Variable& a, int64_t n) {
  // Composite, as PyTorch's: products (and an inverse for n < 0) record
  // their own nodes.
  if (!autograd::should_record({&a})) return constant(linalg::matrix_power(a.data(), n));
  if (n == 0) {  // the identity, with a zero gradient (PyTorch copies it into a clone)
    Variable result = a.clone();
    result.copy_(constant(linalg::matrix_power(a.data(), 0)));
    return result;
  }
  if (n == 1) return a.clone();
  Variable base = n < 0 ? inv(a) : a;
  uint64_t e = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  Variable result;
  while (true) {
    if (e & 1) result = result.defined() ? result.matmul(base) : base;
    e >>= 1;
    if (e == 0) break;
    base = base.matmul(base);
  }
  return result.is_same(a) ? result.clone() : result;
}

Variable matrix_exp(const Variable& a) {
  return record("LinalgMatrixExpBackward0", [](PlainNode& n, const variable_list& g)
                                                -> variable_list {
    // The Frechet derivative in direction g at A^T is the top-right block
    // of exp([[A^T, g], [0, A^T]]).
    const Variable at = mT(n.var(k0));
    const int64_t k = at.size(-1);
    const Variable zero = constant(zeros_like(at.data()));
    const Variable block = cat({cat({at, g[0]}, -1), cat({zero, at}, -1)}, -2);
    return {linalg::matrix_exp(block).narrow(-2, 0, k).narrow(-1, k, k)};
  }, {&a}, linalg::matrix_exp(a.data()), [&](PlainNode& n) { n.saved.emplace_back(a, false); });
}

}  // namespace linalg

Variable det(const Variable& a) { return linalg::det(a); }

Variable logdet(const Variable& a) {
  return record("LogdetBackward0", [](PlainNode& n, const variable_list& g) -> variable_list {
    return {g[0].unsqueeze(-1).unsqueeze(-1).mul(mT(linalg::inv(n.var(k0))))};
  }, {&a}, torchlet::logdet(a.data()), [&](PlainNode& n) { n.saved.emplace_back(a, false); });
}

std::tuple<Tensor, Variable> slogdet(const Variable& a) { return linalg::slogdet(a); }
Variable inverse(const Variable& a) { return linalg::inv(a); }

Variable cholesky(const Variable& a, bool upper) {
  return cholesky_variable("CholeskyBackward0", a, torchlet::cholesky(a.data(), upper), upper);
}

Variable cholesky_solve(const Variable& b, const Variable& l, bool upper) {
  Variable x = record("CholeskySolveBackward0", [](OpNode<CholeskySolveState>& n,
                                                   const variable_list& g) -> variable_list {
    const CholeskySolveState& s = n.state;
    const Variable l = n.var(k0), x = n.var(k1);
    const Variable gb = cholesky_solve(g[0], l, s.upper);
    variable_list grads(2);
    if (n.needs_input_grad(0)) grads[0] = autograd::sum_to(gb, s.b);
    if (n.needs_input_grad(1)) {
      const Variable c = gb.matmul(mT(x));
      const Variable sym = c + mT(c);
      grads[1] = autograd::sum_to(s.upper ? l.matmul(sym).neg() : sym.matmul(l).neg(), s.l);
    }
    return grads;
  }, {&b, &l}, torchlet::cholesky_solve(b.data(), l.data(), upper),
     [&](OpNode<CholeskySolveState>& n) {
       n.state = {InputMeta(b), InputMeta(l), upper};
       n.saved.emplace_back(l, false);
     });
  if (const auto& node = x.grad_fn()) {
    static_cast<OpNode<CholeskySolveState>&>(*node).saved.emplace_back(x, true);
  }
  return x;
}

Variable cholesky_inverse(const Variable& l, bool upper) {
  Variable out = record("CholeskyInverseBackward0", [](OpNode<UpperState>& n,
                                                       const variable_list& g) -> variable_list {
    const Variable l = n.var(k0), inv = n.var(k1);
    const Variable c = inv.matmul(g[0] + mT(g[0])).matmul(inv);
    return {n.state.upper ? l.matmul(c).neg() : c.matmul(l).neg()};
  }, {&l}, torchlet::cholesky_inverse(l.data(), upper), [&](OpNode<UpperState>& n) {
    n.state.upper = upper;
    n.saved.emplace_back(l, false);
  });
  if (const auto& node = out.grad_fn()) {
    static_cast<OpNode<UpperState>&>(*node).saved.emplace_back(out, true);
  }
  return out;
}

std::tuple<Variable, Variable> qr(const Variable& a, bool some) {
  return linalg::qr(a, some ? "reduced" : "complete");
}

std::tuple<Variable, Variable, Variable> svd(const Variable& a, bool some, bool compute_uv) {
  if (!compute_uv) {
    const int64_t m = a.size(-2), n = a.size(-1);
    SizeVec u_shape(a.sizes().begin(), a.sizes().end() - 1), v_shape = u_shape;
    u_shape.back() = m;
    u_shape.push_back(m);
    v_shape.back() = n;
    v_shape.push_back(n);
    return {constant(zeros(u_shape, a.options())), linalg::svdvals(a),
            constant(zeros(v_shape, a.options()))};
  }
  auto [u, s, vh] = linalg::svd(a, !some);
  return {u, s, mT(vh)};
}

Variable pinverse(const Variable& a, double rcond) {
  Variable out = record("PinverseBackward0", [](PlainNode& n, const variable_list& g)
                                                 -> variable_list {
    return {pinv_backward(g[0], n.var(k1), n.var(k0))};
  }, {&a}, torchlet::pinverse(a.data(), rcond), [&](PlainNode& n) {
    n.saved.emplace_back(a, false);
  });
  if (const auto& node = out.grad_fn()) {
    static_cast<PlainNode&>(*node).saved.emplace_back(out, true);
  }
  return out;
}

Variable matrix_power(const Variable& a, int64_t n) { return linalg::matrix_power(a, n); }
Variable matrix_exp(const Variable& a) { return linalg::matrix_exp(a); }

Variable Variable::det() const { return torchlet::det(*this); }
Variable Variable::logdet() const { return torchlet::logdet(*this); }
std::tuple<Tensor, Variable> Variable::slogdet() const { return torchlet::slogdet(*this); }
Variable Variable::inverse() const { return torchlet::inverse(*this); }
Variable Variable::cholesky(bool upper) const { return torchlet::cholesky(*this, upper); }
Variable Variable::cholesky_solve(const Variable& input2, bool upper) const {
  return torchlet::cholesky_solve(*this, input2, upper);
}
Variable Variable::cholesky_inverse(bool upper) const {
  return torchlet::cholesky_inverse(*this, upper);
}
std::tuple<Variable, Variable> Variable::qr(bool some) const { return torchlet::qr(*this, some); }
std::tuple<Variable, Variable, Variable> Variable::svd(bool some, bool compute_uv) const {
  return torchlet::svd(*this, some, compute_uv);
}
Variable Variable::pinverse(double rcond) const { return torchlet::pinverse(*this, rcond); }
Variable Variable::matrix_power(int64_t n) const { return torchlet::matrix_power(*this, n); }
Variable Variable::matrix_exp() const { return torchlet::matrix_exp(*this); }

}  // namespace torchlet
