"""The memory bill: activation memory against the tokens in a batch, for a 64-layer model with feed-forward
intermediate width 17,408, against the memory of its ~27 billion parameters (page 07).

What to notice: the parameters cost a fixed amount, the stored activations grow with every token in the
batch, and past a few thousand tokens the activations alone cost more than the whole model. The count is a
floor: only the feed-forward block's saved tensors are counted (assumptions in CAPTION).
"""

import functools

import numpy as np

from sitebuild import lessons, style

INPUTS = ["snippets/lessons/memory.py"]
SEQUENCE = 4_096  # one long sequence, marked on the figure
GB = 1e9


@functools.cache
def page_estimate() -> dict:
    """Page 07's own estimate (the "estimate" section of its lesson): the model, the assumptions, the bill."""
    page = lessons.run("memory.py", "kept", "estimate")
    names = ("layers", "intermediate", "hidden", "parameters", "bytes_per_value", "values_per_token",
             "activation_per_token", "parameter_memory", "crossover")
    return {name: page[name] for name in names}  # (cached: the alt text and data() both need it)


LABELS = {
    "pt": {
        "title": "A conta da memória: ativações contra parâmetros",
        "x": "tokens no batch",
        "y": "memória (GB, escala log)",
        "activations": "ativações guardadas para o backward pass",
        "parameters": "parâmetros (27 bilhões em bf16)",
        "cross": "a partir de ≈ {tokens} tokens,\nas ativações custam mais\nque o modelo inteiro",
        "sequence": "uma sequência de {tokens} tokens:\n{gb} GB de ativações",
        "note": "{layers} camadas × ({hidden} + 3 × {inter}) valores por token, bf16;\n"
                "só o bloco feed-forward: um piso",
    },
    "en": {
        "title": "The memory bill: activations against parameters",
        "x": "tokens in the batch",
        "y": "memory (GB, log scale)",
        "activations": "activations kept for the backward pass",
        "parameters": "parameters (27 billion in bf16)",
        "cross": "from ≈ {tokens} tokens on,\nthe activations cost more\nthan the whole model",
        "sequence": "one sequence of {tokens} tokens:\n{gb} GB of activations",
        "note": "{layers} layers × ({hidden} + 3 × {inter}) values per token, bf16;\n"
                "feed-forward block only: a floor",
    },
}


def data() -> dict:
    page = page_estimate()
    tokens = np.logspace(2, 6, 41)
    return {
        **page,
        "tokens": tokens,
        "activation_gb": tokens * page["activation_per_token"] / GB,
        "parameter_gb": page["parameter_memory"] / GB,
        "crossover_tokens": page["crossover"],
        "sequence_gb": SEQUENCE * page["activation_per_token"] / GB,
    }


def _numbers(lang: str, d: dict) -> dict:
    return {
        "layers": style.number(d["layers"], "d", lang),
        "hidden": style.number(d["hidden"], ",d", lang),
        "inter": style.number(d["intermediate"], ",d", lang),
        "per_token": style.number(d["activation_per_token"] / 1e6, ".2f", lang),
        "params_gb": style.number(d["parameter_gb"], ".0f", lang),
        "crossover": style.number(round(d["crossover_tokens"], -2), ",.0f", lang),
        "seq": style.number(SEQUENCE, ",d", lang),
        "seq_gb": style.number(d["sequence_gb"], ".0f", lang),
    }


CAPTION = {
    "pt": """Premissas: {layers} camadas; por camada e por token, guardam-se só os tensores do bloco
        feed-forward: sua entrada (largura {hidden}, o hidden size que supomos), as projeções gate e up
        ({inter} cada) e o produto ativado ({inter}); tudo em bf16 (2 bytes), ou seja, {per_token} MB por
        token. Atenção, normalizações e o fluxo residual ficam de fora: a conta real é maior. Parâmetros:
        27 bilhões em bf16, {params_gb} GB. As ativações passam os parâmetros a partir de cerca de {crossover}
        tokens no batch.""",
    "en": """Assumptions: {layers} layers; per layer and token, only the feed-forward block's tensors are
        kept: its input (width {hidden}, the hidden size we assume), the gate and up projections ({inter}
        each) and their activated product ({inter}); all in bf16 (2 bytes), that is {per_token} MB per
        token. Attention, norms and the residual stream are left out: the real bill is higher. Parameters:
        27 billion in bf16, {params_gb} GB. The activations overtake the parameters from about {crossover}
        tokens in the batch on.""",
}
ALT = {
    "pt": """Gráfico log-log da memória contra os tokens no batch: uma reta que sobe, a memória das
        ativações de um modelo de {layers} camadas com largura intermediária {inter}, cruza a linha
        horizontal dos parâmetros ({params_gb} GB) perto de {crossover} tokens. Repare que os parâmetros
        custam um valor fixo, enquanto as ativações crescem com cada token e logo passam o modelo inteiro.""",
    "en": """Log-log plot of memory against tokens in the batch: a rising line, the activation memory of a
        {layers}-layer model with intermediate width {inter}, crosses the horizontal line of the parameters
        ({params_gb} GB) near {crossover} tokens. Notice that the parameters cost a fixed amount while the
        activations grow with every token and soon exceed the whole model.""",
}
_DATA = data()
CAPTION = {lang: style.prose(text).format(**_numbers(lang, _DATA)) for lang, text in CAPTION.items()}
ALT = {lang: style.prose(text).format(**_numbers(lang, _DATA)) for lang, text in ALT.items()}


def draw(lang: str, d: dict):
    words, n = LABELS[lang], _numbers(lang, d)
    tokens, act = np.asarray(d["tokens"]), np.asarray(d["activation_gb"])
    fig, ax = style.new_figure(4.8)
    ax.loglog(tokens, act, color=style.BACKPROP, label=words["activations"])
    ax.axhline(d["parameter_gb"], color=style.NEUTRAL, linestyle="--", label=words["parameters"])
    cross = d["crossover_tokens"]
    ax.plot([cross], [d["parameter_gb"]], "o", color=style.PUSH_DOWN, markersize=9, zorder=3)
    phone = style.on_phone()  # a narrower plot: the notes go where it is empty, right of the line's foot
    ax.annotate(words["cross"].format(tokens=n["crossover"]), (cross, d["parameter_gb"]),
                xytext=(tokens[-1] / 1.3, d["parameter_gb"] / 12) if phone else
                (cross * 1.6, d["parameter_gb"] / 9), fontsize=11, va="top", ha="right" if phone else "left",
                arrowprops=dict(arrowstyle="->", color=style.NEUTRAL))
    ax.plot([SEQUENCE], [d["sequence_gb"]], "s", color=style.BACKPROP, markersize=8)
    ax.annotate(words["sequence"].format(tokens=n["seq"], gb=n["seq_gb"]), (SEQUENCE, d["sequence_gb"]),
                xytext=(130, d["sequence_gb"] * 4), fontsize=11,
                arrowprops=dict(arrowstyle="->", color=style.NEUTRAL))
    ax.set_xlabel(words["x"])
    ax.set_ylabel(words["y"])
    ax.set_xlim(tokens[0], tokens[-1])
    ax.set_ylim(act[0] / 2, act[-1] * 2)
    ax.set_title(words["title"])
    ax.legend(loc="upper left")
    if not phone:  # on a phone the caption, which states the same assumptions, is the note
        ax.text(0.99, 0.02, words["note"].format(**n), transform=ax.transAxes, ha="right", va="bottom",
                fontsize=9.5, color=style.NEUTRAL)
    style.localize_axes(ax, lang)
    return fig
