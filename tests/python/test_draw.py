"""nnef.draw: the picture of a model as nnef-draw draws it (docs/draw.md)."""
import json
import os

import pytest

import nnef

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, '..', '..', 'samples')


def _operations(path, **kw):
    """The operations and outputs of the model's graph, counted from nnef.load_graph."""
    graph = nnef.load_graph(path, load_variables=False, **kw)
    return len(graph.operations) + len(graph.outputs)


def test_draw_formats_from_the_extension(tmp_path):
    model = os.path.join(SAMPLES, 'classifier')
    nnef.draw(model, tmp_path / 'c.svg')
    assert (tmp_path / 'c.svg').read_text().count('class="node"') == _operations(model)
    nnef.draw(model, tmp_path / 'c.png')
    assert (tmp_path / 'c.png').read_bytes().startswith(b'\x89PNG')
    nnef.draw(model, tmp_path / 'c.dot', shapes=False)
    dot = (tmp_path / 'c.dot').read_text()
    edges = [line for line in dot.splitlines() if ' -> ' in line]
    assert dot.startswith('digraph "classifier"') and edges and not any('label=' in line for line in edges)
    nnef.draw(model, tmp_path / 'c.txt', format='dot')
    assert (tmp_path / 'c.txt').read_text().startswith('digraph')


def test_draw_clusters_of_a_compositional_sample(tmp_path):
    model = os.path.join(SAMPLES, 'composite')
    nnef.draw(model, tmp_path / 'p.json', depth=9)
    picture = json.loads((tmp_path / 'p.json').read_text())
    assert picture['schema'] == 'nnef-draw/1'
    fragments = sorted(c['fragment'] for c in picture['clusters'])
    assert fragments == ['branches', 'conv_layer', 'conv_layer', 'conv_layer', 'conv_layer', 'conv_layer', 'conv_layer',
                         'conv_stack', 'conv_stack', 'conv_stack', 'flatten']
    assert all(c['expanded'] for c in picture['clusters'])
    nnef.draw(model, tmp_path / 'q.json', expand=['conv_layer'])
    picture = json.loads((tmp_path / 'q.json').read_text())
    assert [c['fragment'] for c in picture['clusters'] if not c['expanded']] == ['flatten']
    # standard compounds named in expand are expanded by the front end too (linear: matmul + add)
    nnef.draw(model, tmp_path / 'r.json', expand_all=True)
    ops = {n['op'] for n in json.loads((tmp_path / 'r.json').read_text())['nodes']}
    assert 'linear' not in ops and 'matmul' in ops


def test_draw_a_loaded_graph(tmp_path):
    graph = nnef.load_graph(os.path.join(SAMPLES, 'classifier'), load_variables=False)
    nnef.draw(graph, tmp_path / 'g.svg')
    assert (tmp_path / 'g.svg').read_text().count('class="node"') == len(graph.operations) + len(graph.outputs)


def test_draw_an_invalid_model_writes_the_picture_then_raises(tmp_path):
    doc = tmp_path / 'bad' / 'graph.nnef'
    doc.parent.mkdir()
    doc.write_text('version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n'
                   '    y = add(x, missing);\n}\n')
    with pytest.raises(nnef.Error) as e:
        nnef.draw(doc, tmp_path / 'bad.json')
    assert 'graph.nnef:5:' in str(e.value)
    picture = json.loads((tmp_path / 'bad.json').read_text())
    marked = [n for n in picture['nodes'] if n['error']]
    assert len(marked) == 1 and marked[0]['op'] == 'add'


def test_draw_bad_arguments(tmp_path):
    model = os.path.join(SAMPLES, 'classifier')
    with pytest.raises(ValueError):
        nnef.draw(model, tmp_path / 'x.pdf')
    with pytest.raises(ValueError):
        nnef.draw(model, tmp_path / 'x.svg', format='pdf')
    with pytest.raises(nnef.Error):
        nnef.draw(tmp_path / 'no-such-model', tmp_path / 'y.svg')
    assert not (tmp_path / 'y.svg').exists()
    with pytest.raises(TypeError):
        nnef.draw(model, tmp_path / 'x.svg', no_such_limit=3)


def test_draw_html_page(tmp_path):
    # the page of docs/draw.md (without the lowering) is one more format, from the extension too
    model = os.path.join(SAMPLES, 'composite')
    nnef.draw(model, tmp_path / 'c.html', depth=1)
    nnef.draw(model, tmp_path / 'c.json', depth=1)
    page = (tmp_path / 'c.html').read_text()
    assert page.startswith('<!DOCTYPE html>') and '<script src' not in page
    opening = '<script id="picture" type="application/json">'
    start = page.index(opening) + len(opening)
    embedded = json.loads(page[start:page.index('</script>', start)])
    assert embedded['nodes'] == json.loads((tmp_path / 'c.json').read_text())['nodes']
    assert embedded['lowering'] is None
