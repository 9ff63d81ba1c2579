"""The recorded graph as plain data, for figures and visualisations.

    loss.backward(retain_graph=True)   # plain backward releases the graph as it goes
    data = culpa.graph.export(loss)    # json.dumps(data) works

`export(root)` returns {"nodes": [...], "backward_order": [...]}. Each node is a dict with "id", "op"
("leaf" for inputs), "name", "shape", "value" and "grad" (nested lists; grad None until backward reaches it),
"requires_grad" and "parents" (ids). Nodes are listed parents first (a topological order); "backward_order"
lists the ids of the nodes backward visits (those that require grad), in the order it visits them.
"""

from culpa.internals import is_released
from culpa.tensor import topo_order


def export(root):
    """Nodes and backward order of the graph that produced `root`, as JSON-ready lists and dicts."""
    order = topo_order(root)
    if any(is_released(node) for node in order):
        raise RuntimeError(
            "graph.export: backward has already released this graph (it frees the graph as it goes). "
            "Call loss.backward(retain_graph=True) to export it with gradients, or export before backward."
        )
    ids = {node: i for i, node in enumerate(order)}
    nodes = [
        {
            "id": ids[node],
            "op": node.op,
            "name": node.name,
            "shape": list(node.data.shape),
            "value": node.data.tolist(),
            "grad": None if node.grad is None else node.grad.tolist(),
            "requires_grad": node.requires_grad,
            "parents": [ids[parent] for parent in node.parents],
        }
        for node in order
    ]
    return {"nodes": nodes, "backward_order": [ids[node] for node in reversed(order) if node.requires_grad]}
