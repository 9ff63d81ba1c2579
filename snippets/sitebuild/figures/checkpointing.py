"""Gradient checkpointing in culpa, measured: the memory in use over one training step with and without
checkpointing, and the peak as the network gets deeper, with the time the recomputation costs (page 07).

An MLP of tanh layers 128 wide, on a batch of 500, trained for one step (forward, cross-entropy, backward)
plainly and with culpa.checkpoint.checkpoint_sequential in about √depth segments. Memory is what
tracemalloc sees allocated beyond the model and the data; the time cost is the CPU time of a step (the
fastest of 9 interleaved steps, without tracemalloc). Both are measured in a fresh process each time the
figure is regenerated. The two memory timelines are sampled under tracemalloc, which slows every allocation
and so distorts time unevenly (the plain step, which allocates more, is slowed more); so that the left plot
and the right one tell the same story, each timeline's time axis is rescaled to end at its step's CPU time
measured without tracemalloc at the same depth, the time the right plot's percentages compare.
What to notice: without checkpointing, memory climbs layer by layer during the forward pass and shrinks
during the backward pass, a mountain whose height grows with depth; with it, the profile stays low, with a
tooth for every segment run or recomputed, and the step takes longer: memory bought with compute.
"""

import gc
import time
import tracemalloc

import numpy as np

import culpa
from sitebuild import style

TIMING = True
WIDTH, BATCH, CLASSES = 128, 500, 10
TIMELINE_DEPTH = 32
DEPTHS = (4, 8, 16, 32, 64)
TIME_REPEATS = 9  # interleaved steps per depth and variant; the fastest of each is kept
MB = 1e6

LABELS = {
    "pt": {
        "timeline_title": "Um passo de treino, {depth} camadas",
        "time": "tempo de CPU desde o início do passo (ms)",
        "memory": "memória em uso (MB)",
        "plain": "sem checkpointing",
        "checkpointed": "com checkpointing ({segments} trechos)",
        "peak_title": "Pico contra profundidade",
        "depth": "camadas\ntempo extra com checkpointing",
        "peak": "pico de memória (MB)",
        "extra": "+{percent}%",
    },
    "en": {
        "timeline_title": "One training step, {depth} layers",
        "time": "CPU time since the step began (ms)",
        "memory": "memory in use (MB)",
        "plain": "without checkpointing",
        "checkpointed": "with checkpointing ({segments} segments)",
        "peak_title": "Peak against depth",
        "depth": "layers\nextra time with checkpointing",
        "peak": "peak memory (MB)",
        "extra": "+{percent}%",
    },
}
_N = {"width": WIDTH, "batch": BATCH, "depth": TIMELINE_DEPTH, "low": DEPTHS[0], "high": DEPTHS[-1]}
ALT = {
    "pt": style.prose("""Dois gráficos medidos com o culpa num MLP tanh de {width} unidades por camada,
        batch de {batch}. À esquerda, a memória em uso ao longo de um passo de treino com {depth} camadas:
        sem checkpointing, uma montanha que cresce durante o forward e encolhe durante o backward; com
        checkpointing, um perfil baixo, com um dente a cada trecho calculado ou recalculado, e um passo mais
        longo. À direita, o pico de memória contra o número de camadas, de {low} a {high}, com e sem
        checkpointing, e o tempo extra de cada passo. Repare que o pico cai cada vez mais com a
        profundidade, e que o preço é o recálculo.""").format(**_N),
    "en": style.prose("""Two plots measured with culpa on a tanh MLP with {width} units per layer and a batch
        of {batch}. Left, the memory in use over one training step with {depth} layers: without
        checkpointing, a mountain that grows during the forward pass and shrinks during the backward pass;
        with checkpointing, a low profile with a tooth for every segment computed or recomputed, and a
        longer step. Right, the peak memory against the number of layers, from {low} to {high}, with and
        without checkpointing, and each step's extra time. Notice that the peak drops more and more as the
        network deepens, and that the price is the recomputation.""").format(**_N),
}


def segments_for(depth):
    return max(1, round(np.sqrt(depth)))


def problem(depth):
    rng = np.random.default_rng(0)
    model = culpa.nn.MLP([WIDTH] * (depth + 1) + [CLASSES], activation="tanh", rng=0)
    return model, culpa.Tensor(rng.normal(size=(BATCH, WIDTH))), rng.integers(0, CLASSES, BATCH)


def step(model, x, labels, segments, blocks=None):
    """One forward and backward pass; segments=1 is the plain run (nothing checkpointed)."""
    model.zero_grad()
    out = culpa.checkpoint.checkpoint_sequential(blocks or model.blocks(), segments, x)
    culpa.cross_entropy(out, labels).backward()


def timeline(depth, segments):
    """(ms, MB) samples of the memory in use, after every block runs forward and as backward passes it."""
    model, x, labels = problem(depth)
    samples, runs = [], [0]

    def sample():
        in_use = tracemalloc.get_traced_memory()[0] - base
        samples.append(((time.process_time() - start) * 1e3, in_use / MB))

    def probed(block):
        def run(x):
            runs[0] += 1
            out = block(x)
            sample()

            def backward(g):
                sample()
                return (g,)

            return culpa.op_result(out.data, "probe", (out,), backward)

        return run

    blocks = [probed(block) for block in model.blocks()]
    tracemalloc.start()
    base, start = tracemalloc.get_traced_memory()[0], time.process_time()
    sample()
    step(model, x, labels, segments, blocks)
    sample()
    peak = (tracemalloc.get_traced_memory()[1] - base) / MB
    tracemalloc.stop()
    ms, mb = zip(*samples, strict=True)
    return {"ms": ms, "mb": mb, "peak_mb": peak, "block_runs": runs[0]}


def peak_and_time(depth, segments):
    model, x, labels = problem(depth)
    step(model, x, labels, segments)  # warm up
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    step(model, x, labels, segments)
    peak = (tracemalloc.get_traced_memory()[1] - base) / MB
    tracemalloc.stop()
    return model, x, labels, peak


def data() -> dict:
    gc.disable()  # culpa's graphs hold no cycles: the collector would only add noise to the timings
    try:
        segments = segments_for(TIMELINE_DEPTH)
        lines = {"plain": timeline(TIMELINE_DEPTH, 1), "checkpointed": timeline(TIMELINE_DEPTH, segments)}
        sweep = {"depth": list(DEPTHS), "segments": [], "plain_mb": [], "checkpointed_mb": [],
                 "plain_ms": [], "checkpointed_ms": []}
        for depth in DEPTHS:
            plain = peak_and_time(depth, 1)
            checked = peak_and_time(depth, segments_for(depth))
            times = {"plain": [], "checkpointed": []}
            for _ in range(TIME_REPEATS):  # interleaved, so that a slow spell hits both alike
                for name, (model, x, labels, _), count in (("plain", plain, 1),
                                                           ("checkpointed", checked, segments_for(depth))):
                    t0 = time.process_time()  # CPU time: other programs on a shared machine do not count
                    step(model, x, labels, count)
                    times[name].append((time.process_time() - t0) * 1e3)
            sweep["segments"].append(segments_for(depth))
            sweep["plain_mb"].append(plain[3])
            sweep["checkpointed_mb"].append(checked[3])
            sweep["plain_ms"].append(min(times["plain"]))  # the fastest: the least disturbed by the machine
            sweep["checkpointed_ms"].append(min(times["checkpointed"]))
        at = DEPTHS.index(TIMELINE_DEPTH)
        for name, line in lines.items():  # one timing basis for both plots: the untraced step time
            scale = sweep[f"{name}_ms"][at] / line["ms"][-1]
            line["ms"] = [t * scale for t in line["ms"]]
    finally:
        gc.enable()
    cpu, cores = style.machine()
    return {"timeline": lines, "timeline_depth": TIMELINE_DEPTH, "timeline_segments": segments,
            "sweep": sweep, "machine": {"cpu": cpu, "cores": cores}}


COLORS = {"plain": style.PUSH_DOWN, "checkpointed": style.BACKPROP}


def draw(lang: str, d: dict):
    words = LABELS[lang]
    fig, (left, right) = style.new_figure(4.1, width=7.8, ncols=2, width_ratios=[1.25, 1])
    segments = d["timeline_segments"]
    for name in ("plain", "checkpointed"):
        line = d["timeline"][name]
        label = words[name].format(segments=segments)
        left.fill_between(line["ms"], line["mb"], color=COLORS[name], alpha=0.18, linewidth=0)
        left.plot(line["ms"], line["mb"], color=COLORS[name], label=label, linewidth=1.8)
    left.set_xlabel(words["time"])
    left.set_ylabel(words["memory"])
    left.set_title(words["timeline_title"].format(depth=d["timeline_depth"]), fontsize=12.5)
    left.set_ylim(0, max(d["timeline"]["plain"]["mb"]) * 1.3)
    left.set_xlim(0, None)
    left.legend(loc="upper right", fontsize=10)
    style.localize_axes(left, lang)

    sweep = d["sweep"]
    depth = np.asarray(sweep["depth"])
    right.plot(depth, sweep["plain_mb"], "o-", color=COLORS["plain"], label=words["plain"].split(" (")[0])
    right.plot(depth, sweep["checkpointed_mb"], "o-", color=COLORS["checkpointed"])
    extra = [words["extra"].format(percent=style.number(round(100 * (slow / fast - 1)), ".0f", lang))
             for slow, fast in zip(sweep["checkpointed_ms"], sweep["plain_ms"], strict=True)]
    right.set_xscale("log", base=2)
    right.set_xticks(depth, [f"{v}\n{e}" for v, e in zip(depth, extra, strict=True)])
    right.minorticks_off()
    right.set_ylim(0, max(sweep["plain_mb"]) * 1.12)
    right.set_xlabel(words["depth"])
    right.set_ylabel(words["peak"])
    right.set_title(words["peak_title"], fontsize=12.5)
    style.localize_axes(right, lang)
    return fig
