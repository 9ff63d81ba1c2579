"""Page 08, honest habits: gradient-check every new op against finite differences (and choose its step
size), and before a long run confirm that every parameter gets a finite, non-zero gradient.

The sections are shown, in this order, on docs/pt/08-honest-habits.md and docs/en/08-honest-habits.md;
the tests run them in one fresh interpreter and compare what they print with what the pages show.
"""

# --8<-- [start:new_op]
import textwrap

import numpy as np

import culpa


def swish(x):
    """swish(x) = x * sigmoid(x), as one op with its derivative written by hand."""
    s = np.exp(-np.logaddexp(0, -x.data))  # sigmoid(x), without overflow for large |x|
    out = x.data * s

    def backward(g):  # (1)!
        return (g * (s + out * (1 - s)),)

    return culpa.op_result(out, "swish", (x,), backward)


x = culpa.Tensor(np.random.default_rng(0).normal(size=5), requires_grad=True, name="x")  # (2)!
error = culpa.check.gradcheck(swish, [x])  # (3)!
print("swish passes gradcheck; largest relative error below 1e-8:", error < 1e-8)
# --8<-- [end:new_op]


# --8<-- [start:planted_bug]
def swish_forgetful(x):
    """The same op with a classic slip: the product rule's second term is missing."""
    s = np.exp(-np.logaddexp(0, -x.data))
    out = x.data * s

    def backward(g):
        return (g * s,)  # should be g * (s + x s (1 - s))

    return culpa.op_result(out, "swish", (x,), backward)


try:
    culpa.check.gradcheck(swish_forgetful, [x])
except culpa.check.GradcheckError as caught:
    print("caught:", type(caught).__name__)
    print("op:", caught.op, "  input:", caught.input_name, "  index:", caught.index)
    print(f"analytic {caught.analytic:.4f}   numeric {caught.numeric:.4f}   "
          f"relative error {caught.relative_error:.2f}")
    bug = caught

at_zero = culpa.Tensor(np.zeros(3), requires_grad=True)
print("the same bug at x = 0 passes unnoticed:", culpa.check.gradcheck(swish_forgetful, [at_zero]) < 1e-8)
# --8<-- [end:planted_bug]


# --8<-- [start:kink]
def relu_loss(t):
    return t.relu().sum()


near_kink = culpa.Tensor([-0.5, 0.001, 0.8], requires_grad=True, name="x")  # 0.001 sits next to the kink
try:
    culpa.check.gradcheck(relu_loss, [near_kink], eps=1e-2)  # a step wider than the gap to 0
except culpa.check.GradcheckError as caught:
    print(f"eps = 1e-2: fails at index {caught.index}: analytic {caught.analytic:.2f}, "
          f"numeric {caught.numeric:.2f}")
    kink = caught
print("eps = 1e-6: passes:", culpa.check.gradcheck(relu_loss, [near_kink], eps=1e-6) < 1e-8)

try:
    culpa.check.gradcheck(swish, [culpa.Tensor(np.ones(3, dtype=np.float32), requires_grad=True)])
except TypeError as refused:
    print(textwrap.fill(f"float32 refused: {refused}", width=72, subsequent_indent="  "))
# --8<-- [end:kink]


# --8<-- [start:epsilon]
def cube_error(eps, method, dtype):
    """Worst relative error of finite differences for the gradient of sum(x**3), known exactly: 3 x**2."""
    points = np.linspace(0.5, 1.5, 5)
    t = culpa.Tensor(points.astype(dtype), requires_grad=True)
    try:
        (numeric,) = culpa.check.finite_difference(lambda u: (u * u * u).sum(), [t], eps=eps, method=method)
    except ZeroDivisionError:  # x + eps rounds back to x: the step is too small for this dtype
        return None
    exact = 3 * points**2
    return float(np.max(np.abs(numeric - exact) / exact))


steps = [10.0**-k for k in range(1, 11)]
columns = [("central", np.float64), ("forward", np.float64), ("central", np.float32)]
table = {column: [cube_error(eps, *column) for eps in steps] for column in columns}

print("   eps   central f64  forward f64  central f32")
for i, eps in enumerate(steps):
    cells = [table[column][i] for column in columns]
    print(f"{eps:.0e}" + "".join("          --" if e is None else f"{e:12.0e}" for e in cells))
best_eps = {}
for method, dtype in columns:
    errors = [np.inf if e is None else e for e in table[(method, dtype)]]
    best_eps[method, np.dtype(dtype).name] = steps[int(np.argmin(errors))]
for (method, name), eps in best_eps.items():
    print(f"best eps, {method} {name}: {eps:.0e}")
# --8<-- [end:epsilon]

# --8<-- [start:theory]
for dtype in (np.float64, np.float32):
    u = np.finfo(dtype).eps  # the spacing of numbers near 1: the rounding error of one operation
    print(f"{np.dtype(dtype).name}: rounding u = {u:.1e}   central: eps ~ u^(1/3) = {u ** (1 / 3):.0e}"
          f"   forward: eps ~ u^(1/2) = {u ** 0.5:.0e}")
# --8<-- [end:theory]


# --8<-- [start:bad_gradients]
class Classifier(culpa.nn.Module):
    """Two hidden ReLU layers, and a learnable scale that multiplies the logits."""

    def __init__(self):
        self.encoder = culpa.nn.Linear(2, 8, rng=0)
        self.hidden = culpa.nn.Linear(8, 8, rng=1)
        self.head = culpa.nn.Linear(8, 2, rng=2)
        self.scale = culpa.Tensor(1.0, requires_grad=True)

    def named_parameters(self):
        parts = {"encoder": self.encoder, "hidden": self.hidden, "head": self.head}
        named = [(f"{part}.{name}", p) for part, layer in parts.items()
                 for name, p in layer.named_parameters()]
        return named + [("scale", self.scale)]

    def __call__(self, x):
        h = self.encoder(x).relu()
        h = self.hidden(h).relu()
        return self.head(h) * self.scale


class Careless(Classifier):
    """The same model with three bugs, none of which raises an error."""

    def __init__(self):
        super().__init__()
        self.hidden.bias.data -= 50  # (1)!

    def __call__(self, x):
        h = self.encoder(x).relu().detach()  # (2)!
        h = self.hidden(h).relu()
        return self.head(h)  # (3)!


rng = np.random.default_rng(0)
X = rng.normal(size=(64, 2))
y = (X[:, 0] * X[:, 1] > 0).astype(int)  # class 1 in two opposite quadrants, class 0 in the other two

for model in (Classifier(), Careless()):
    culpa.cross_entropy(model(X), y).backward()  # one loss, one backward: that is all the check needs
    report = culpa.check.find_bad_gradients(model)
    total = len(model.parameters())
    print(f"{type(model).__name__}: {len(report)} of {total} parameters with a bad gradient")
    for name, problem in report:
        print(f"  {name:15} {problem}")
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


for model in (Classifier(), Careless()):
    losses = train(model)
    print(f"{type(model).__name__:10}  loss {losses[0]:.3f} -> {losses[-1]:.3f}")
    if isinstance(model, Careless):
        careless_losses = losses
    else:
        careful_losses = losses
# --8<-- [end:silent]
