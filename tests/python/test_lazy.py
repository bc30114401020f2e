"""The loaded Graph (python/nnef/_graph.py): tensors and operations made from the library's graph
on first access, and in every use a plain nnef.Graph; infer_shapes' library path (a graph as
loaded, standard operations only) against the Python shape functions."""
import copy
import os
import pickle
import subprocess
import sys
import threading

import pytest

import nnef
from conftest import REAL

TEXT = """version 1.0;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 2, 4, 4]);
    filter = variable(shape = [3, 2, 3, 3], label = 'conv/filter');
    conv = conv(input, filter, padding = [(1, 1), (1, 1)]);
    output = relu(conv);
}
"""


def _plain(g):
    """The same graph as a plain nnef.Graph, from fresh objects of the library."""
    fresh = nnef.parse_string(TEXT)
    return nnef.Graph(fresh.name, fresh.tensors, fresh.operations, fresh.inputs, fresh.outputs)


def test_fields_are_made_once_and_kept():
    g = nnef.parse_string(TEXT)
    assert isinstance(g, nnef.Graph) and isinstance(g, tuple)
    assert not g.tensors_made and not g.operations_made
    assert g.name == 'G' and g.inputs == ['input'] and g.outputs == ['output']
    ops = g.operations
    assert type(ops) is list and g.operations is ops and g.operations_made and not g.tensors_made
    tensors = g.tensors
    assert type(tensors) is dict and g.tensors is tensors
    assert [op.name for op in ops] == ['external', 'variable', 'conv', 'relu']
    assert tensors['conv'].shape == [1, 3, 4, 4]
    # Changes stay (the same objects on every access), also after the library's graph is released.
    ops.append(ops[-1])
    tensors['extra'] = tensors['conv']._replace(name='extra')
    assert len(g.operations) == 5 and 'extra' in g.tensors


def test_behaves_as_a_graph():
    g = nnef.parse_string(TEXT)
    plain = _plain(g)
    assert g == plain and plain == g and not (g != plain)
    assert len(g) == 5 and g[0] == 'G' and g[1] is g.tensors and g[2] is g.operations and g[-1] == ['output']
    assert g[1:3] == (g.tensors, g.operations)
    name, tensors, operations, inputs, outputs = g
    assert tensors is g.tensors and operations is g.operations
    assert tuple(g) == tuple(plain) and list(g)[2] is g.operations
    assert g._asdict() == plain._asdict() and list(g._asdict()) == list(nnef.Graph._fields)
    assert g.operations in g and g.count('G') == 1 and g.index(g.tensors) == 1
    assert g + (1,) == tuple(plain) + (1,) and (0,) + g == (0,) + tuple(plain)
    assert repr(g) == repr(plain) and repr(g).startswith('Graph(name=')
    replaced = g._replace(name='H')
    assert type(replaced) is nnef.Graph and replaced.name == 'H' and replaced.operations is g.operations
    made = type(g)._make(tuple(plain))
    assert type(made) is nnef.Graph and made == plain
    with pytest.raises(TypeError):
        hash(g)  # as a Graph: its fields are a dict and lists
    for other in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g), copy.copy(g)):
        assert type(other) is nnef.Graph and other == g
    assert '%s' % (g.name,) == 'G'


def test_fields_made_once_by_concurrent_threads():
    g = nnef.parse_string(TEXT)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append((id(g.operations), id(g.tensors)))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and set(seen) == {(id(g.operations), id(g.tensors))}
    assert g._source.released


def test_releases_the_library_graph():
    g = nnef.parse_string(TEXT)
    library = g._library()
    assert library is not None and not library.released
    g.tensors
    assert g._library() is None and not library.released
    g.operations
    assert library.released
    with pytest.raises(RuntimeError, match='released'):
        library.tensors()
    assert g.operations[2].name == 'conv'


def test_infer_shapes_library_path_makes_nothing():
    g = nnef.parse_string(TEXT)
    nnef.infer_shapes(g, external_shapes={'input': [1, 2, 4, 4]}, custom_shapes={'other': None})
    assert not g.tensors_made and not g.operations_made
    assert g.tensors['output'].shape == [1, 3, 4, 4]


def test_infer_shapes_python_path_when_changed_or_overridden():
    # An overridden input shape: the Python shape functions run.
    g = nnef.parse_string(TEXT)
    nnef.infer_shapes(g, external_shapes={'input': [2, 2, 8, 8]})
    assert g.tensors['input'].shape == [2, 2, 8, 8] and g.tensors['output'].shape == [2, 3, 8, 8]
    # A graph whose operations were made (and may have been changed): the Python shape functions run.
    g = nnef.parse_string(TEXT)
    conv = g.operations[2]
    g.operations[2] = conv._replace(attribs=type(conv.attribs)(conv.attribs, stride=[2, 2]))
    nnef.infer_shapes(g)
    assert g.tensors['conv'].shape == [1, 3, 2, 2] and g.tensors['output'].shape == [1, 3, 2, 2]
    # A custom operation: its shape function from custom_shapes.
    custom = TEXT.replace('version 1.0;', 'version 1.0;\nextension KHR_enable_fragment_definitions;\n'
                          'fragment twice( x: tensor<scalar> ) -> ( y: tensor<scalar> );').replace(
                              'relu(conv)', 'twice(conv)')
    g = nnef.parse_string(custom)
    assert not g.tensors_made
    nnef.infer_shapes(g, custom_shapes={'twice': lambda x: [x[0] * 2] + x[1:]})
    assert g.tensors['output'].shape == [2, 3, 4, 4]


@pytest.mark.parametrize('model', REAL)
def test_library_path_agrees_with_python_shape_functions(model, corpus):
    """On every corpus model whose operations are all standard, infer_shapes takes the library
    path, and its shapes are those the Python shape functions give from nothing."""
    path = os.path.join(corpus, 'real', model)
    standard = all(op.name in nnef.StandardOperations for op in nnef.load_graph(path, load_variables=False).operations)
    g = nnef.load_graph(path, load_variables=False)
    if not standard:
        with pytest.raises(nnef.Error, match='shape inference function is not defined'):
            nnef.infer_shapes(g)
        assert g.operations_made  # the Python path ran
        return
    nnef.infer_shapes(g)
    assert not g.tensors_made and not g.operations_made
    python = nnef.load_graph(path, load_variables=False)
    for n, t in list(python.tensors.items()):
        python.tensors[n] = t._replace(shape=None)
    nnef.infer_shapes(python)
    assert {n: t.shape for n, t in g.tensors.items()} == {n: t.shape for n, t in python.tensors.items()}


def test_library_path_agrees_on_the_generated_graph(corpus, tmp_path):
    """The same on gen_flat.py's graph (every operation the benchmark's graph has), 2000 operations."""
    path = str(tmp_path / 'flat' / 'graph.nnef')
    subprocess.run([sys.executable, os.path.join(corpus, 'synthetic', 'gen_flat.py'), '--ops', '2000', '--out', path],
                   check=True, stdout=subprocess.DEVNULL)
    g = nnef.load_graph(path)
    nnef.infer_shapes(g, custom_shapes={})
    assert not g.tensors_made and not g.operations_made
    python = nnef.load_graph(path)
    for n, t in list(python.tensors.items()):
        python.tensors[n] = t._replace(shape=None)
    nnef.infer_shapes(python)
    assert {n: t.shape for n, t in g.tensors.items()} == {n: t.shape for n, t in python.tensors.items()}
    assert len(g.operations) == len(python.operations) >= 2000
