"""What the module adds: validate, run (reference executor and TOSA), to_tosa, to_vpu, Session,
and hostile input."""
import glob
import io
import os
import re
import shutil
import tarfile

import numpy as np
import pytest

import nnef


def _relative_l2(a, b):
    a = np.asarray(a, np.float64).reshape(-1)
    b = np.asarray(b, np.float64).reshape(-1)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _reference(corpus, model):
    ref = os.path.join(corpus, model, 'reference')
    return nnef.read_tensor(os.path.join(ref, 'input.dat')), nnef.read_tensor(os.path.join(ref, 'output.dat'))


@pytest.mark.parametrize('model,via,tolerance', [('real/squeezenet1_0', 'nnef', 1e-5),
                                                 ('real/mobilenet_v2', 'nnef', 1e-5),
                                                 ('real/squeezenet1_0', 'tosa', 1e-5),
                                                 ('real/squeezenet1_0', 'nnapi', 1e-5)])
def test_run_matches_reference(model, via, tolerance, corpus):
    x, expected = _reference(corpus, model)
    out = nnef.run(os.path.join(corpus, model), [x], via=via)
    (name, y), = out.items()
    assert y.shape == expected.shape and y.dtype == np.float32
    error = _relative_l2(y, expected)
    assert error < tolerance, error  # a NaN fails this comparison too


def test_run_quantized_like_nnef_tools(corpus):
    model = 'quantized/squeezenet1_0_int8'
    x, expected = _reference(corpus, model)
    y = nnef.run(os.path.join(corpus, model), {'external1': x}, quant_like='nnef-tools')
    error = _relative_l2(next(iter(y.values())), expected)
    assert error < 1e-3, error


def test_run_via_nnapi_quantized_and_refused(corpus, tmp_path):
    # the int8 model exported as TENSOR_QUANT8_ASYMM: its outputs within one step of its output grid
    # of nnef-run's simulated quantization on >= 99.9% of them (issue 22's acceptance 1)
    model = os.path.join(corpus, 'quantized', 'squeezenet1_0_int8')
    x, _ = _reference(corpus, 'quantized/squeezenet1_0_int8')
    (name, want), = nnef.run(model, [x]).items()
    got = nnef.run(model, [x], via='nnapi')[name]
    assert got.shape == want.shape and np.isfinite(got).all()
    # the output's grid step: its graph.quant entry's scale
    quant = open(os.path.join(model, 'graph.quant')).read()
    step = float(re.search(r'"' + name + r'":[^;]*scale = ([0-9.e-]+)', quant).group(1))
    within = np.abs(got.astype(np.float64) - want) <= 1.01 * step
    assert within.mean() >= 0.999, within.mean()
    assert not np.array_equal(got, np.zeros_like(got))
    # what NNAPI 1.0 cannot express is refused with the operation named
    (tmp_path / 'm').mkdir()
    (tmp_path / 'm' / 'graph.nnef').write_text('version 1.0;\ngraph G( x ) -> ( y )\n{\n'
                                               '    x = external(shape = [2, 3]);\n    y = exp(x);\n}\n')
    with pytest.raises(nnef.Error, match="'exp'"):
        nnef.run(str(tmp_path / 'm'), [np.ones((2, 3), np.float32)], via='nnapi')


def test_session(corpus):
    model = os.path.join(corpus, 'real', 'squeezenet1_0')
    x, expected = _reference(corpus, 'real/squeezenet1_0')
    with nnef.Session(model) as session:
        y, = session(x)
    assert _relative_l2(y, expected) < 1e-5
    with pytest.raises(nnef.Error, match='closed'):
        session(x)
    with pytest.raises(nnef.Error, match='expected 1 inputs'):
        nnef.Session(model)()


def test_run_errors_and_options(corpus, tmp_path):
    model = os.path.join(corpus, 'real', 'squeezenet1_0')
    with pytest.raises(nnef.Error, match='no value'):
        nnef.run(model, {})
    with pytest.raises(nnef.Error, match='shape'):
        nnef.run(model, [np.zeros((1, 3, 10, 10), np.float32)])
    with pytest.raises(ValueError, match='via'):
        nnef.run(model, [np.zeros((1, 3, 224, 224), np.float32)], via='gpu')
    text = 'version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2, 3]);\n' \
           '    w = variable(shape = [2, 3], label = \'w\');\n    t = mul(x, w);\n    y = relu(t);\n}\n'
    (tmp_path / 'm').mkdir()
    (tmp_path / 'm' / 'graph.nnef').write_text(text)
    with pytest.raises(nnef.Error, match='w'):
        nnef.run(str(tmp_path / 'm'), [np.ones((2, 3))])
    out = nnef.run(str(tmp_path / 'm' / 'graph.nnef'), [np.ones((2, 3))], random_weights=7, outputs=['t', 'y'])
    assert np.array_equal(out['y'], np.maximum(out['t'], 0)) and np.isfinite(out['t']).all()


def test_validate(corpus, tmp_path):
    folder = os.path.join(corpus, 'conformance', 'invalid')
    files = sorted(glob.glob(os.path.join(folder, '*.nnef')))
    assert files
    for path in files:
        with open(path) as f:
            head = f.read(400)
        expect = re.search(r'# expect: (\w+)(?: (\w+))?', head)
        default = re.search(r'# default: (\w+)(?: (\w+))?', head)
        verdict = default or expect
        result = nnef.validate(path, strict=not default and True)
        if verdict.group(1) == 'accept':
            assert result.ok, path
            continue
        assert not result.ok, path
        errors = [d for d in result.diagnostics if d.severity == 'error']
        assert errors and errors[0].stage == verdict.group(2), (path, errors)
        where = re.search(r'# where: (\d+)', head)
        if where and errors[0].line is not None:
            lines = [errors[0].line] + [n[2] for n in errors[0].notes]
            assert int(where.group(1)) in lines, (path, errors[0])
        assert errors[0].text.startswith(path + ':')
    good = nnef.validate(os.path.join(corpus, 'real', 'resnet50', 'graph.nnef'))
    assert good.ok and good.summary['operations'] > 100 and good.summary['inputs'] == ['external1']
    bad = nnef.validate(text='version 1.0; graph G( x ) -> ( y ) { x = external(shape = [1]); y = foo(x); }')
    assert not bad.ok and bad.diagnostics[0].file == 'input' and bad.diagnostics[0].code
    # a folder stored graph-only: its structure is checked, as nnef-validate does, and the summary says so
    graph_only = nnef.validate(os.path.join(corpus, 'real', 'resnet50'))
    assert graph_only.ok and graph_only.summary['weights'] == 'weights not checked'
    assert good.summary['weights'] == 'weights not checked'
    with_weights = nnef.validate(os.path.join(corpus, 'real', 'squeezenet1_0'))
    assert with_weights.ok and with_weights.summary['weights'] == 'weights checked'
    # a folder with some tensor files but not all: one diagnostic names the missing ones
    partial = tmp_path / 'partial'
    shutil.copytree(os.path.join(corpus, 'real', 'squeezenet1_0'), partial, ignore=shutil.ignore_patterns('reference'))
    os.remove(partial / 'variable1.dat')
    missing = nnef.validate(partial)
    assert not missing.ok and [d.code for d in missing.diagnostics] == ['missing-tensor-file']
    assert 'variable1.dat' in missing.diagnostics[0].message
    with pytest.raises(TypeError):
        nnef.validate()


def test_to_tosa_and_vpu(corpus):
    model = os.path.join(corpus, 'real', 'squeezenet1_0')
    mlir = nnef.to_tosa(model)
    assert 'func.func' in mlir and 'tosa.conv2d' in mlir
    assert len(nnef.to_tosa(model, no_weights=True)) < len(mlir)
    with pytest.raises(ValueError, match='profile'):
        nnef.to_tosa(model, profile='pro-bf')
    int8 = nnef.to_tosa(os.path.join(corpus, 'quantized', 'squeezenet1_0_int8'), profile='pro-int')
    assert 'tosa.rescale' in int8
    tasks, report = nnef.to_vpu(model, simulate=True)
    assert isinstance(tasks, dict) and tasks.get('tasks')
    assert report['valid'] and report['makespan_cycles'] > 0 and report['makespan_cycles'] >= \
        report['lower_bound_cycles'] * 0.999
    assert 'makespan' in report['text'].lower()
    assert nnef.to_vpu(model) == tasks


def test_profile_rule_and_bias_grid(corpus):
    # profile=None is the tools' rule: PRO-INT for a quantized model, PRO-FP for any other
    int8 = os.path.join(corpus, 'quantized', 'shufflenet_v2_x1_0_int8')
    mlir = nnef.to_tosa(int8)
    assert mlir == nnef.to_tosa(int8, profile='pro-int')
    assert 'profiles [pro_int]' in mlir
    classifier = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'samples', 'classifier')
    assert nnef.to_tosa(classifier, random_weights=1) == nnef.to_tosa(classifier, profile='pro-fp', random_weights=1)
    # bias_grid='accumulator' (--bias-grid): the classifier's bias joins its CONV2D, fewer operators
    acc = nnef.to_tosa(int8, bias_grid='accumulator')
    assert len(re.findall(r'tosa\.\w+', acc)) < len(re.findall(r'tosa\.\w+', mlir))
    assert nnef.to_tosa(int8, bias_grid='fine') == mlir
    with pytest.raises(ValueError, match='bias_grid'):
        nnef.to_tosa(int8, bias_grid='exact')
    with pytest.raises(ValueError, match="profile='pro-fp'"):
        nnef.to_tosa(int8, profile='pro-fp', bias_grid='accumulator')
    # run(via='tosa') follows the same rule; profile= applies with via='tosa' only
    x = nnef.read_tensor(os.path.join(int8, 'reference', 'input.dat'))
    default = nnef.run(int8, [x], via='tosa')
    given = nnef.run(int8, [x], via='tosa', profile='pro-int')
    assert all(np.array_equal(default[k], given[k]) for k in given)
    floating = nnef.run(int8, [x], via='tosa', profile='pro-fp')
    assert any(not np.array_equal(default[k], floating[k]) for k in given)
    with pytest.raises(ValueError, match='via'):
        nnef.run(int8, [x], via='nnef', profile='pro-int')


def test_hostile_documents_and_archives(tmp_path):
    # Deep nesting, huge repetition, recursion: diagnostics, never a crash or a hang.
    deep = 'version 1.0; graph G( x ) -> ( y ) { x = external(shape = [1]); y = copy(' + '[' * 100000 + \
           'x' + ']' * 100000 + '); }'
    with pytest.raises(nnef.Error, match='nesting'):
        nnef.parse_string(deep)
    recursive = """version 1.0;
extension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;
fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> ) { y = f(f(x, n = n - 1), n = n - 1) if n > 0 else x; }
graph G( x ) -> ( y ) { x = external(shape = [1]); y = f(x, n = 60); }
"""
    with pytest.raises(nnef.Error, match='limit|max_'):
        nnef.parse_string(recursive)
    with pytest.raises(nnef.Error):
        nnef.parse_string(b'\xff\xfe\x00garbage'.decode('latin-1'))
    # Archives with escaping paths and links are refused.
    for name, member in (('dots.tar', '../evil/graph.nnef'), ('abs.tar', '/tmp/graph.nnef')):
        path = tmp_path / name
        with tarfile.open(path, 'w') as tar:
            data = b'version 1.0; graph G( x ) -> ( y ) { x = external(shape = [1]); y = copy(x); }'
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        with pytest.raises(nnef.Error, match='io'):
            nnef.load_graph(str(path))
    link = tmp_path / 'link.tar'
    with tarfile.open(link, 'w') as tar:
        info = tarfile.TarInfo('graph.nnef')
        info.type = tarfile.SYMTYPE
        info.linkname = '/etc/passwd'
        tar.addfile(info)
    with pytest.raises(nnef.Error):
        nnef.load_graph(str(link))
    many = tmp_path / 'many.tar'
    with tarfile.open(many, 'w') as tar:
        for i in range(20):
            info = tarfile.TarInfo('f{}.dat'.format(i))
            tar.addfile(info, io.BytesIO(b''))
    with pytest.raises(nnef.Error, match='member'):
        nnef.load_graph(str(many), max_archive_members=10)
    junk = tmp_path / 'junk.tgz'
    junk.write_bytes(b'\x1f\x8b\x08\x00' + os.urandom(300))
    with pytest.raises(nnef.Error):
        nnef.load_graph(str(junk))


def test_corrupt_weights_in_models(corpus):
    for case in sorted(os.listdir(os.path.join(corpus, 'conformance', 'container'))):
        path = os.path.join(corpus, 'conformance', 'container', case)
        if case.startswith('01'):
            g = nnef.load_graph(path)
            assert any(t.data is not None for t in g.tensors.values())
        else:
            with pytest.raises(nnef.Error, match=r'error\[data\]'):
                nnef.load_graph(path)


def test_threads_share_a_session(corpus):
    """Calls release the GIL; a Session used from several threads runs one call at a time."""
    from concurrent.futures import ThreadPoolExecutor
    model = os.path.join(corpus, 'real', 'squeezenet1_0')
    x, expected = _reference(corpus, 'real/squeezenet1_0')
    session = nnef.Session(model)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: session(x)[0], range(4)))
        graphs = list(pool.map(lambda _: nnef.load_graph(model), range(3)))
    for y in results:
        assert _relative_l2(y, expected) < 1e-5
    assert all(len(g.operations) == len(graphs[0].operations) for g in graphs)
