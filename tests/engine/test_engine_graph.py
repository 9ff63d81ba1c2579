"""culpa.graph.export: the recorded graph as plain, JSON-ready data."""

import json

import numpy as np
import pytest

import culpa
from culpa import Tensor


def worked_example_graph():
    z = Tensor([2.0, 1.0, 0.1], requires_grad=True, name="z")
    scale = Tensor(2.0, name="scale")
    loss = culpa.cross_entropy(z * scale, 0)
    return z, loss


def test_export_after_backward_has_values_grads_and_the_backward_order():
    z, loss = worked_example_graph()
    loss.backward(retain_graph=True)
    data = culpa.graph.export(loss)
    json.dumps(data)  # plain data
    nodes = {node["id"]: node for node in data["nodes"]}
    by_op = {node["op"]: node for node in data["nodes"] if node["op"] != "leaf"}
    assert set(by_op) == {"mul", "cross_entropy"}
    leaves = [node for node in data["nodes"] if node["op"] == "leaf"]
    assert {leaf["name"] for leaf in leaves} == {"z", "scale"}
    z_node = next(leaf for leaf in leaves if leaf["name"] == "z")
    assert z_node["value"] == [2.0, 1.0, 0.1] and z_node["shape"] == [3]
    assert np.allclose(z_node["grad"], z.grad) and z_node["requires_grad"]
    assert next(leaf for leaf in leaves if leaf["name"] == "scale")["grad"] is None
    ce = by_op["cross_entropy"]
    assert ce["shape"] == [] and ce["grad"] == 1.0 and ce["parents"] == [by_op["mul"]["id"]]
    assert sorted(nodes[i]["name"] for i in by_op["mul"]["parents"]) == ["scale", "z"]
    assert data["backward_order"] == [ce["id"], by_op["mul"]["id"], z_node["id"]]
    for node in data["nodes"]:  # parents come first
        assert all(data["nodes"].index(nodes[p]) < data["nodes"].index(node) for p in node["parents"])


def test_export_before_backward_has_no_grads():
    _, loss = worked_example_graph()
    data = culpa.graph.export(loss)
    assert all(node["grad"] is None for node in data["nodes"])


def test_export_of_a_released_graph_says_to_retain_it():
    _, loss = worked_example_graph()
    loss.backward()
    with pytest.raises(RuntimeError, match=r"retain_graph=True"):
        culpa.graph.export(loss)
