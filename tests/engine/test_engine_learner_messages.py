"""The messages a learner meets first: each names what is wrong and what to do."""

import warnings

import numpy as np
import pytest

import culpa
from culpa import Tensor


def test_item_of_a_vector_says_how_to_get_one_number():
    with pytest.raises(ValueError, match=r"item\(\): a tensor \(a leaf, shape \(3,\)\) holds 3 values.*"
                                         r"t\.sum\(\)\.item\(\)"):
        Tensor([1.0, 2.0, 3.0]).item()


@pytest.mark.parametrize("target", [
    np.eye(3)[[0, 2, 1, 0]],  # one-hot rows
    np.full((4, 3), 1 / 3),  # probabilities
], ids=["one-hot", "probabilities"])
def test_cross_entropy_with_one_hot_or_probability_targets_says_class_indices(target):
    logits = Tensor(np.zeros((4, 3)), requires_grad=True)
    with pytest.raises(ValueError, match=r"one class index per row, e\.g\. target\.argmax\(1\)"):
        culpa.cross_entropy(logits, target)


def test_cross_entropy_with_swapped_arguments_says_so():
    logits = Tensor(np.zeros((4, 3)), requires_grad=True)
    with pytest.raises(TypeError, match=r"arguments look swapped.*cross_entropy\(logits, target\)"):
        culpa.cross_entropy(np.array([0, 2, 1, 0]), logits)


@pytest.mark.parametrize(("shape", "expected"), [
    ((), r"got a 0-d tensor \(one number\)"),
    ((2, 5, 3), r"got shape \(2, 5, 3\): for scores per position, reshape them to \(-1, 3\)"),
])
def test_cross_entropy_names_logits_of_the_wrong_number_of_dimensions(shape, expected):
    with pytest.raises(ValueError, match=r"logits must have shape \(batch, classes\).*" + expected):
        culpa.cross_entropy(Tensor(np.zeros(shape), requires_grad=True), np.zeros(shape[:-1] or 1, int))


def test_cross_entropy_of_an_empty_batch_says_the_batch_is_empty():
    with pytest.raises(ValueError, match=r"the batch is empty \(logits of shape \(0, 3\)\)"):
        culpa.cross_entropy(Tensor(np.zeros((0, 3))), np.zeros(0, int))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_over_an_empty_axis_says_so(op):
    with pytest.raises(ValueError, match=rf"^{op}: axis -1 of shape \(2, 0\) is empty"):
        getattr(culpa, op)(Tensor(np.zeros((2, 0))))


def test_probabilities_passed_as_logits_are_pointed_out():
    logits = Tensor(np.random.default_rng(0).standard_normal((5, 3)), requires_grad=True)
    with pytest.warns(UserWarning, match=r"look like probabilities \(a softmax applied already\?\)"):
        culpa.cross_entropy(culpa.softmax(logits), [0, 1, 2, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # real logits: no warning
        culpa.cross_entropy(logits, [0, 1, 2, 0, 1])
