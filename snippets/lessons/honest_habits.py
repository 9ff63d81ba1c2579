"""Page 08, honest habits: gradient-check every new op against finite
differences (and choose its step size), and before a long run confirm that
every parameter gets a finite, non-zero gradient.

The sections are shown, in this order, on docs/pt/08-honest-habits.md and
docs/en/08-honest-habits.md; the tests run them in one fresh interpreter and
compare what they print with what the pages show. Lines stay within 80
characters: the width of the page's code column.
"""

# --8<-- [start:new_op]
import textwrap

import numpy as np

import culpa


def sigmoid(x):
    return np.exp(-np.logaddexp(0, -x))  # (1)!


def swish(x):  # (2)!
    s = sigmoid(x.data)
    out = x.data * s
    def backward(g):  # (3)!
        return (g * (s + out * (1 - s)),)
    return culpa.op_result(out, "swish", (x,), backward)


rng = np.random.default_rng(0)
x = culpa.Tensor(rng.normal(size=5), requires_grad=True, name="x")  # (4)!
error = culpa.check.gradcheck(swish, [x])  # (5)!
print("gradcheck(swish, [x]) < 1e-8:", error < 1e-8)
# --8<-- [end:new_op]


# --8<-- [start:planted_bug]
def swish_forgetful(x):  # (1)!
    s = sigmoid(x.data)
    out = x.data * s
    def backward(g):
        return (g * s,)  # (2)!
    return culpa.op_result(out, "swish", (x,), backward)


try:
    culpa.check.gradcheck(swish_forgetful, [x])
except culpa.check.GradcheckError as caught:
    bug = caught
    print("type(bug):", type(bug).__name__)
    print("bug.op =", bug.op, "  bug.input_name =", bug.input_name,
          "  bug.index =", bug.index)
    print(f"bug.analytic = {bug.analytic:.4f}   bug.numeric = {bug.numeric:.4f}"
          f"   bug.relative_error = {bug.relative_error:.2f}")

at_zero = culpa.Tensor(np.zeros(3), requires_grad=True)
error = culpa.check.gradcheck(swish_forgetful, [at_zero])
print("gradcheck(swish_forgetful, [at_zero]) < 1e-8:", error < 1e-8)
# --8<-- [end:planted_bug]


# --8<-- [start:guilty_op]
def swish_slipped(x):  # (1)!
    s = 1 / (1 + np.exp(-x.data))
    out = x.data * s
    def backward(g):
        return (g * (s - out * (1 - s)),)  # (2)!
    return culpa.op_result(out, "swish", (x,), backward)


layers = [culpa.nn.Linear(3, 4, rng=3), culpa.nn.Linear(4, 2, rng=4)]
inputs = np.random.default_rng(8).normal(size=(6, 3))
labels = [0, 1, 1, 0, 1, 0]


def network_loss(*params):  # (3)!
    hidden = swish_slipped(layers[0](inputs))
    return culpa.cross_entropy(layers[1](hidden), labels)


params = [p for layer in layers for p in layer.parameters()]
try:
    culpa.check.gradcheck(network_loss, params)
except culpa.check.GradcheckError as caught:
    deep = caught

culprit = deep.culprit  # (4)!
print("deep.output_op =", deep.output_op, "  culprit.op =", culprit.op)
print("culprit.input_shapes =", culprit.input_shapes,
      "  culprit.index =", culprit.index)
print(f"analytic = {culprit.analytic:.4f}   numeric = {culprit.numeric:.4f}"
      f"   relative_error = {culprit.relative_error:.2f}")
# --8<-- [end:guilty_op]


# --8<-- [start:kink]
def relu_loss(t):
    return t.relu().sum()


near_kink = culpa.Tensor([-0.5, 0.001, 0.8], requires_grad=True, name="x")  # (1)!
try:
    culpa.check.gradcheck(relu_loss, [near_kink], eps=1e-2)  # (2)!
except culpa.check.GradcheckError as caught:
    kink = caught
    print(f"eps = 1e-2   {type(kink).__name__}   kink.index = {kink.index}")
    print(f"kink.analytic = {kink.analytic:.2f}   "
          f"kink.numeric = {kink.numeric:.2f}")

error = culpa.check.gradcheck(relu_loss, [near_kink], eps=1e-6)
print("eps = 1e-6   error < 1e-8:", error < 1e-8)

single = culpa.Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
try:
    culpa.check.gradcheck(swish, [single])
except TypeError as refused:
    print(textwrap.fill(f"TypeError: {refused}", width=72,
                        subsequent_indent="  "))
# --8<-- [end:kink]


# --8<-- [start:epsilon]
def cube_error(eps, method, dtype):  # (1)!
    points = np.linspace(0.5, 1.5, 5)
    t = culpa.Tensor(points.astype(dtype), requires_grad=True)
    def cubes(u):
        return (u * u * u).sum()
    try:
        (numeric,) = culpa.check.finite_difference(
            cubes, [t], eps=eps, method=method)
    except ValueError:  # (2)!
        return None
    exact = 3 * points**2
    return float(np.max(np.abs(numeric - exact) / exact))


steps = [10.0**-k for k in range(1, 11)]
columns = [("central", np.float64), ("forward", np.float64),
           ("central", np.float32)]
table = {c: [cube_error(eps, *c) for eps in steps] for c in columns}
sides = {"central": "central", "forward": "one-sided"}  # (3)!

print("   eps   central f64 one-sided f64 central f32")
for i, eps in enumerate(steps):
    cells = [table[column][i] for column in columns]
    print(f"{eps:.0e}" + "".join(
        "          --" if e is None else f"{e:12.0e}" for e in cells))

best_eps = {}
for method, dtype in columns:
    errors = [np.inf if e is None else e for e in table[method, dtype]]
    best = steps[int(np.argmin(errors))]
    best_eps[sides[method], np.dtype(dtype).name] = best

for (side, name), eps in best_eps.items():
    print(f"best_eps[{side}, {name}] = {eps:.0e}")
# --8<-- [end:epsilon]

# --8<-- [start:theory]
print(f"{'':8}  {'u':>10}  {'u^(1/3)':>8}  {'u^(1/2)':>8}")
for dtype in (np.float64, np.float32):
    u = np.finfo(dtype).eps  # (1)!
    print(f"{np.dtype(dtype).name:8}  {u:10.1e}  {u ** (1 / 3):8.0e}"
          f"  {u ** 0.5:8.0e}")
# --8<-- [end:theory]


# --8<-- [start:bad_gradients]
class Classifier(culpa.nn.Module):  # (1)!
    def __init__(self):
        self.encoder = culpa.nn.Linear(2, 8, rng=0)
        self.hidden = culpa.nn.Linear(8, 8, rng=1)
        self.head = culpa.nn.Linear(8, 2, rng=2)
        self.scale = culpa.Tensor(1.0, requires_grad=True)
    def named_parameters(self):
        parts = {"encoder": self.encoder, "hidden": self.hidden,
                 "head": self.head}
        named = [(f"{part}.{name}", p) for part, layer in parts.items()
                 for name, p in layer.named_parameters()]
        return named + [("scale", self.scale)]
    def __call__(self, x):
        h = self.encoder(x).relu()
        h = self.hidden(h).relu()
        return self.head(h) * self.scale


class Careless(Classifier):  # (2)!
    def __init__(self):
        super().__init__()
        self.hidden.bias.data -= 50  # (3)!
    def __call__(self, x):
        h = self.encoder(x).relu().detach()  # (4)!
        h = self.hidden(h).relu()
        return self.head(h)  # (5)!


X = rng.normal(size=(64, 2))
y = (X[:, 0] * X[:, 1] > 0).astype(int)

for model in (Classifier(), Careless()):
    culpa.cross_entropy(model(X), y).backward()  # (6)!
    report = culpa.check.find_bad_gradients(model)
    total = len(model.parameters())
    print(f"{type(model).__name__}: len(report) = {len(report)}   "
          f"total = {total}")
    for name, problem in report:
        kind, hint = problem.split(": ", 1)
        print(f"{name:14} {kind:9} {hint}")
# --8<-- [end:bad_gradients]


# --8<-- [start:silent]
def train(model, steps=200, lr=0.1):
    optimizer = culpa.nn.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = culpa.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


careful_losses = train(Classifier())
careless_losses = train(Careless())
for name, losses in (("Classifier", careful_losses),
                     ("Careless", careless_losses)):
    print(f"{name:10}  losses[0] = {losses[0]:.3f}   "
          f"losses[-1] = {losses[-1]:.3f}")
# --8<-- [end:silent]
