"""Fixtures of the Python package's tests: the corpus (env NNEF_CORPUS_DIR) and the built tools
(env NNEF_TOOLS_DIR); tests that need one skip with the reason when it is absent."""
import os
import subprocess

import pytest


def _dir(env):
    path = os.environ.get(env)
    return path if path and os.path.isdir(path) else None


@pytest.fixture(scope='session')
def corpus():
    path = _dir('NNEF_CORPUS_DIR')
    if path is None:
        pytest.skip('NNEF_CORPUS_DIR is not set to the test corpus (../shared/corpus); corpus tests skipped')
    return path


@pytest.fixture(scope='session')
def tool():
    tools = _dir('NNEF_TOOLS_DIR')
    if tools is None:
        pytest.skip('NNEF_TOOLS_DIR is not set to the folder of the built tools; tests comparing with them skipped')

    def run(name, *args, check=True):
        exe = os.path.join(tools, name)
        if not os.path.isfile(exe):
            pytest.skip('tool {} is not built'.format(exe))
        r = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        if check and r.returncode != 0:
            raise AssertionError('{} {} failed ({}): {}'.format(name, ' '.join(args), r.returncode,
                                                                r.stderr.decode(errors='replace')))
        return r
    return run


# Models of the corpus with stored weights (README of the corpus).
WEIGHTED = ['real/squeezenet1_0', 'real/mobilenet_v2', 'real/shufflenet_v2_x1_0', 'real/lstm_small',
            'real/gru_small_mirror', 'quantized/squeezenet1_0_int8', 'quantized/shufflenet_v2_x1_0_int8']
REAL = ['alexnet', 'convnext_tiny', 'densenet121', 'googlenet', 'gru_small_mirror', 'lstm_small', 'mobilenet_v2',
        'mobilenet_v3_small_mirror', 'resnet18', 'resnet18_bn', 'resnet50', 'shufflenet_v2_x1_0', 'squeezenet1_0',
        'vgg11']


def pytest_runtest_logreport(report):
    """A skipped test (a missing corpus or tool) goes into the run's skip log too (env NNEF_SKIP_LOG,
    set by CTest), which tests/print_skips.sh prints at the end of the run, since CTest hides the
    output of a test that passed."""
    log = os.environ.get('NNEF_SKIP_LOG')
    if not log or not report.skipped:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    with open(log, 'a', encoding='utf-8') as f:
        f.write('python: pytest: {}: skipped: {}\n'.format(report.nodeid, reason.replace('\n', ' ')))
