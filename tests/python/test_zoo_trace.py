"""scripts/zoo/trace_codes.py and softmax_ties.py (docs/zoo.md, "Tracing a difference"): the grids,
the walk to a tensor's compared operands, and end to end on small quantized graphs with the built
nnef-run."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

SOURCE = os.environ.get('NNEF_SOURCE_DIR') or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(SOURCE, 'scripts', 'zoo', 'trace_codes.py')
_spec = importlib.util.spec_from_file_location('trace_codes', SCRIPT)
trace_codes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(trace_codes)


def write_model(folder, nnef, quant):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'graph.nnef'), 'w') as f:
        f.write(nnef)
    with open(os.path.join(folder, 'graph.quant'), 'w') as f:
        f.write(quant)
    return folder


CHAIN = """version 1.0;
graph g(x) -> (y)
{
    x = external<scalar>(shape = [1, 8]);
    w = variable<scalar>(shape = [1, 8], label = 'w');
    a = copy(x);
    t = add(a,
            w);
    y = relu(t);
}
"""
CHAIN_QUANT = """"x": zero_point_linear_quantize(zero_point = -3, scale = 0.02, bits = 8, signed = true, symmetric = false);
"a": zero_point_linear_quantize(zero_point = -3, scale = 0.02, bits = 8, signed = true, symmetric = false);
"y": linear_quantize(min = -1.0, max = 1.0, bits = 8);
"""


def test_grids_give_the_codes_of_both_entry_kinds(tmp_path):
    grids = trace_codes.load_grids(write_model(str(tmp_path / 'm'), CHAIN, CHAIN_QUANT))
    assert list(grids) == ['x', 'a', 'y']
    # zero point -3, scale 0.02: real = (code + 3) * 0.02
    assert list(grids['x'].codes([-0.5, 0.0, 0.02 * 130, 0.0299, 0.0301])) == [-28, -3, 127, -2, -1]
    # min/max grid: 255 steps over [-1, 1], code 0 at -1, its zero point between codes
    g = grids['y']
    assert g.zero_point == pytest.approx(127.5)
    assert list(g.codes([-1.0, 1.0, 0.0 - g.scale / 2, 0.0])) == [0, 255, 127, 128]
    bad = write_model(str(tmp_path / 'bad'), CHAIN, '"x": logarithmic_quantize(max = 1.0, bits = 8);\n')
    with pytest.raises(ValueError, match='not a per-tensor linear grid'):
        trace_codes.load_grids(bad)


def test_sources_look_through_uncompared_tensors_to_compared_ones(tmp_path):
    ops, order = trace_codes.load_operations(write_model(str(tmp_path / 'm'), CHAIN, CHAIN_QUANT))
    assert order == ['x', 'w', 'a', 't', 'y']
    assert ops['t'][:2] == ('add', 7) and ops['t'][2] == ['a', 'w']  # a statement over two lines
    # t has no entry and a is not kept: y's compared operand is x (the weight w is alike on both sides)
    assert trace_codes.sources('y', ops, {'x': True}) == {'x'}
    assert trace_codes.sources('y', ops, {'x': True, 'a': True}) == {'a'}


def run_trace(*args):
    tools = os.environ.get('NNEF_TOOLS_DIR')
    if not tools or not os.path.isfile(os.path.join(tools, 'nnef-run')):
        pytest.skip('NNEF_TOOLS_DIR does not hold a built nnef-run; trace_codes.py end-to-end tests skipped')
    r = subprocess.run([sys.executable, SCRIPT, '--build', tools] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def test_trace_on_constant_operands_finds_only_origins():
    model = os.path.join(SOURCE, 'tests', 'data', 'pro_int', 'constants')
    code, out, err = run_trace(model, '--input', 'input=random:1', '--input', 'other=random:2', '--stop', '0', '--all')
    assert code in (0, 1), err
    rows = re.findall(r'^\s+\d+\s+(\w+)\s+(\w+)\s+graph\.nnef:\d+\s+(\d+) / (\d+) codes differ \(max (\d+)\)(.*)$', out, re.M)
    assert [r[0] for r in rows] == ['input', 'other', 'neg', 'chan', 'quot', 'rsub', 'shift', 'lo', 'hi', 'band', 'pair']
    assert all(r[3] == '36' for r in rows)
    # the inputs are quantized alike on both sides; every other tensor reads only them, so each
    # difference arises where it is seen, and the PRO-INT lowering is within one step of --float64
    assert rows[0][2] == '0' and rows[1][2] == '0'
    for name, op, diff, count, largest, note in rows:
        assert int(largest) <= 1, name
        assert ('ORIGIN' in note) == (diff != '0'), name
    total = sum(int(r[2]) for r in rows)
    assert '%d of 396 codes' % total in out
    assert code == (1 if total else 0)


def test_trace_skips_tensors_the_tosa_graph_folds_and_says_so(tmp_path):
    folded = ("version 1.0;\ngraph g(x) -> (y)\n{\n    x = external<scalar>(shape = [1, 8]);\n    a = copy(x);\n"
              "    y = relu(a);\n}\n")
    model = write_model(str(tmp_path / 'folded'), folded, CHAIN_QUANT)
    code, out, err = run_trace(model, '--input', 'random:3', '--all')
    assert code == 0, out + err
    assert 'not kept by the TOSA graph (not compared): a\n' in out
    assert re.search(r'^\s+3\s+y\s+relu\s+graph\.nnef:6\s+0 / 8 codes differ \(max 0\)$', out, re.M), out
    assert '0 of 2 compared tensors differ; 0 of 16 codes' in out


def test_trace_usage_errors(tmp_path):
    model = os.path.join(SOURCE, 'tests', 'data', 'pro_int', 'constants')
    code, out, err = run_trace(model, '--a', 'pro-int', '--b', 'pro-int')
    assert code == 2 and '--a and --b are both pro-int' in err
    code, out, err = run_trace(str(tmp_path))
    assert code == 2 and 'graph.nnef does not exist' in err
    code, out, err = run_trace(model, '--input', 'input=random:1', '--input', 'other=random:2', '--only', 'nothing')
    assert code == 2 and 'no graph.quant entry for nothing' in err


def run_softmax_ties(*args):
    tools = os.environ.get('NNEF_TOOLS_DIR')
    if not tools or not os.path.isfile(os.path.join(tools, 'nnef-run')):
        pytest.skip('NNEF_TOOLS_DIR does not hold a built nnef-run; softmax_ties.py end-to-end tests skipped')
    r = subprocess.run([sys.executable, os.path.join(SOURCE, 'scripts', 'zoo', 'softmax_ties.py'), '--build', tools] +
                       list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def test_softmax_ties_the_interpreter_computes_the_documented_integer_softmax():
    # scripts/zoo/softmax_ties.py: the PRO-INT softmax equals its Python emulation code for code,
    # within the documented 0.01 of a step of the exact softmax (docs/tosa-lowering.md, softmax)
    model = os.path.join(SOURCE, 'tests', 'data', 'pro_int', 'transformer_forms')
    for seed in (1, 2, 3):
        code, out, err = run_softmax_ties(model, '--input', 'random:%d' % seed)
        assert code == 0, out + err
        m = re.search(r'^probs\s+graph\.nnef:43\s+8 items per softmax: (\d+) / 64 codes differ from the exact softmax '
                      r'of its input codes, (\d+) from the integer form; error at most ([0-9.]+) steps', out, re.M)
        assert m, out
        assert m.group(2) == '0'
        assert 0.0 < float(m.group(3)) < 0.01


def test_softmax_ties_errors(tmp_path):
    code, out, err = run_softmax_ties(os.path.join(SOURCE, 'tests', 'data', 'pro_int', 'constants'))
    assert code == 2 and 'no softmax with graph.quant entries' in err
    code, out, err = run_softmax_ties(str(tmp_path))
    assert code == 2 and 'has no graph.nnef and graph.quant' in err
