"""The README's Python example runs as written, from the repository root."""
import os
import re

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def test_readme_python_example_runs(monkeypatch):
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
        blocks = re.findall(r'^```python\n(.*?)^```$', f.read(), flags=re.S | re.M)
    assert len(blocks) == 1, 'the README has one Python example'
    monkeypatch.chdir(ROOT)
    scope = {}
    exec(compile(blocks[0], 'README.md', 'exec'), scope)
    # what the example's comments promise
    out, graph = scope['out'], scope['graph']
    assert list(out) == graph.outputs and all(isinstance(v, np.ndarray) for v in out.values())
    probabilities = out[graph.outputs[0]]
    assert probabilities.shape == tuple(graph.tensors[graph.outputs[0]].shape)
    assert np.all(np.isfinite(probabilities))
    assert scope['mlir'].lstrip().startswith('// TOSA 1.0') and 'tosa.conv2d' in scope['mlir']
